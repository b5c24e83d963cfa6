"""The ``kube-scheduler`` strategy: what kube-scheduler 1.37 does with one gang hierarchy.

Faithful to the workload scheduling cycle (KEP-4671, KEP-5732, KEP-6012):

* A group with a topology key is tried in **every** domain of that key
  inside its parent's domain; a group without one takes its parent's nodes.
* A PodGroup's pods go one by one to the best-scoring node of the candidate
  domain; pods beyond ``minCount`` are placed when they fit. The candidate
  succeeds when at least ``minCount`` pods fit (1 for a basic policy).
* A CompositePodGroup's children are simulated in creation order inside the
  candidate, each seeing what its earlier siblings assumed, greedily and
  without backtracking; the candidate fails as soon as the remaining
  children can no longer reach ``minGroupCount``.
* Among a PodGroup's successful candidates the highest placement score
  wins: the pods placed as a share of the most any candidate places
  (``PodGroupPodsCount``) plus ``MostAllocated`` over the domain with them
  (``NodeResourcesFit``). A CompositePodGroup's candidates (and those of a
  PodGroup of several pod shapes) are still ranked by pods placed, then the
  tightest fit. Upstream breaks ties at random, this simulation takes the
  smallest label value.

Three shortcuts keep the result identical while skipping work: a domain's
fit for one pod shape is read from the cluster index instead of placing
pods one by one (for one shape the count does not depend on the order); a
composite candidate whose capacity bound cannot beat the best candidate so
far is not simulated; and sibling PodGroups of one shape that take their
parent's domain are placed in one pass, their pods handed out in order
(the first to miss its ``minCount`` fails as it would on its own, and the
ones after it are placed without its pods).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
import numpy.typing as npt

from workloadbuilder.placement.cluster.arrays import INT64_SAFE, IntArray, group_sums, plus
from workloadbuilder.placement.cluster.topology import Domain, alloc_sums
from workloadbuilder.placement.framework.assign import assign_pods
from workloadbuilder.placement.framework.claims import (
    CANNOT_ALLOCATE,
    allocate,
    covers,
    domain_supply,
    first_fit_all,
    reach_mask,
    reaching,
)
from workloadbuilder.placement.framework.outcome import CandidateTrace, GroupResult, GroupTrace, Outcome
from workloadbuilder.placement.framework.sampling import NodeSampling
from workloadbuilder.placement.framework.scoring import (
    key_node,
    most_allocated,
    most_allocated_many,
    node_scores,
    preference_array,
    prefers,
    rank_keys,
)
from workloadbuilder.placement.framework.snapshot import Allocation, Block, Shape, Snapshot
from workloadbuilder.placement.framework.spread import SpreadTracker
from workloadbuilder.placement.request.model import ClaimRef, GroupRequest

__all__ = ["KubeScheduler"]


@dataclass
class _Best:
    key: tuple[int, int]
    index: int
    domain: Domain
    ops: list[tuple[Any, ...]]
    outcome: Outcome


def _rank_keys(
    snap: Snapshot,
    shape: Shape,
    nodes: npt.NDArray[np.int64],
    fits: npt.NDArray[np.int64],
    offsets: list[int] | None = None,
) -> npt.NDArray[np.int64]:
    """One integer per node, higher for a better node (higher score, then lower index); -1 where no pod fits.

    The score is what ``assign_pods`` gives a group's first pod: with the
    preference scores (TaintToleration, NodeAffinity) normalized over the
    nodes that fit, candidate by candidate when ``offsets`` cut ``nodes``
    into candidates' segments.
    """
    scores = node_scores(snap, shape, nodes)
    if prefers(snap, shape):
        extra = np.zeros(len(nodes), dtype=np.int64)
        bounds = offsets if offsets is not None else [0, len(nodes)]
        for start, end in pairwise(bounds):
            segment = start + np.flatnonzero(fits[start:end] > 0)
            extra[segment] = preference_array(snap, shape, nodes[segment])
        scores = scores + extra
    keys = rank_keys(scores, nodes, len(snap.cluster))
    return np.where(fits > 0, keys, -1)


def _best_placement(snap: Snapshot, shape: Shape, candidates: list[Domain], placed_in: IntArray, need: int) -> Domain:
    """The candidate domain 1.37's placement scoring chooses for a PodGroup of one pod shape.

    Every candidate that places at least ``need`` pods is scored by the two
    default placement scorers, each weight 1: ``PodGroupPodsCount``, the pods
    placed as a share of the most any candidate places (0-100), and
    ``NodeResourcesFit``'s ``MostAllocated`` over the domain's CPU and memory
    with those pods added. The highest sum wins; upstream draws among equal
    sums at random, this takes the first candidate.
    """
    able = np.flatnonzero(placed_in >= max(need, 1))
    if len(able) == 1:
        return candidates[int(able[0])]
    scored = candidates if len(able) == len(candidates) else [candidates[k] for k in able.tolist()]
    placed = placed_in[able]
    most = int(placed.max(initial=0))
    requested = []
    for column, q in zip(snap.used_sums(scored), shape.score_request, strict=True):
        column = np.asarray(column)
        if (
            column.dtype != object
            and len(column)
            and max(abs(int(column.max())), abs(int(column.min()))) + most * q < (INT64_SAFE // 100)
        ):
            requested.append(column.astype(np.int64) + placed.astype(np.int64) * q)  # MostAllocated's x100 fits
        else:
            requested.append(column.astype(object) + placed.astype(object) * q)
    scores = placement_scores(placed, most_allocated_many(requested, alloc_sums(scored)))
    return scored[int(np.argmax(scores))]


def placement_scores(placed: IntArray, fit: IntArray) -> IntArray:
    """The total placement score of candidates placing ``placed`` pods with ``MostAllocated`` scores ``fit``."""
    top = int(placed.max(initial=0))
    counts = placed * 100 // top if top > 0 else np.zeros_like(placed)
    return np.asarray(counts + fit, dtype=np.int64)


def _placed(
    group: GroupRequest,
    shape: Shape,
    domain: Domain,
    domains: dict[str, str],
    nodes: list[int],
    claims: dict[str, Allocation],
) -> Outcome:
    """The outcome of a PodGroup whose ``nodes`` (its pods') are in ``domain``, below its parents' ``domains``."""
    own = dict(domains)
    if group.topology_key is not None:
        own[group.topology_key] = domain.value or ""
    score_request = tuple(len(nodes) * q for q in shape.score_request)
    return Outcome(True, len(nodes), {group.name: GroupResult(own, domain, nodes, claims)}, score_request)


class KubeScheduler:
    """Simulates kube-scheduler's cycle for one root group at a time, assuming its result in ``snap``."""

    name = "kube-scheduler"

    def __init__(self, snap: Snapshot, sampling: NodeSampling | None = None) -> None:
        self.snap = snap
        self.cluster = snap.cluster
        # node sampling and its rotating start, carried from pod to pod (None: every feasible node is scored)
        self.sampling = sampling
        self._shapes: dict[str, list[tuple[Shape, int]]] = {}
        self._signatures: dict[str, tuple[Any, ...]] = {}
        self._requests: dict[str, tuple[int, list[int]]] = {}

    def shape(self, group: GroupRequest) -> Shape:
        """The pod shape of a PodGroup (of its first pod set, when it has several)."""
        return self.shapes(group)[0][0]

    def shapes(self, group: GroupRequest) -> list[tuple[Shape, int]]:
        """A PodGroup's pod shapes with their pod counts, in creation order."""
        shapes = self._shapes.get(group.name)
        if shapes is None:
            if group.pod_sets:
                shapes = [
                    (self.snap.shape(dict(s.requests), s.constraints, s.score_requests), s.count)
                    for s in group.pod_sets
                ]
            else:
                shapes = [(self.snap.shape(group.requests), group.count)]
            self._shapes[group.name] = shapes
        return shapes

    def schedule(self, root: GroupRequest, scope: Domain | None = None) -> tuple[Outcome, GroupTrace]:
        """One scheduling cycle for ``root``: on success its placement stays assumed in the snapshot."""
        scope = scope if scope is not None else self.cluster.root
        trace = GroupTrace(root, scope)
        return self.place(root, scope, {}, trace), trace

    def place(self, group: GroupRequest, scope: Domain, domains: dict[str, str], trace: GroupTrace) -> Outcome:
        """Place ``group`` inside ``scope``; on failure nothing stays assumed."""
        if group.is_leaf:
            return self._leaf(group, scope, domains, trace)
        return self._composite(group, scope, domains, trace)

    def candidates(self, group: GroupRequest, scope: Domain) -> list[Domain]:
        """The domains ``group`` is tried in: one per value of its key inside ``scope``, or ``scope`` itself."""
        if group.topology_key is None:
            return [scope]
        return self.cluster.subdomains(scope, group.topology_key)

    def _assign(
        self, shape: Shape, nodes: npt.NDArray[np.int64] | list[int], count: int, spread: SpreadTracker | None = None
    ) -> list[int]:
        """``assign_pods`` on a placement's ``nodes``, each pod scored on its sampled nodes when sampling is on."""
        if self.sampling is None:
            return assign_pods(self.snap, shape, nodes, count, spread)
        array = nodes if isinstance(nodes, np.ndarray) else np.asarray(nodes, dtype=np.int64)
        return self.sampling.assign(self.snap, shape, array, count, spread)

    # -- PodGroup --------------------------------------------------------------

    def _leaf(self, group: GroupRequest, scope: Domain, domains: dict[str, str], trace: GroupTrace) -> Outcome:
        if group.simulated_only:
            return self._mixed(group, scope, domains, trace)
        snap, shape, need = self.snap, self.shape(group), group.needed
        candidates = self.candidates(group, scope)
        claims: dict[str, Allocation] = {}
        if not group.claims and len(candidates) == 1:
            # One candidate: placing its pods costs what counting them would (the count is the same).
            domain, mark = candidates[0], snap.mark()
            nodes = self._assign(shape, domain.node_array, group.count)
            trace.record_fits(candidates, [len(nodes)])
            if len(nodes) < need:
                snap.revert(mark)
                return Outcome(False)
        else:
            if group.claims:
                placed_in, notes = self._claim_fits(group, shape, candidates, trace)
                trace.record_fits(candidates, placed_in, notes)
            else:
                placed_in = np.minimum(snap.fits_in(shape, candidates), group.count)
                trace.record_fits(candidates, placed_in)
            top = int(placed_in.max(initial=-1))
            if top < max(need, 1):
                return Outcome(False)
            domain = _best_placement(snap, shape, candidates, placed_in, need)
            if group.claims:
                per_pod, claims, _ = self._assign_sets(group, domain)
                nodes = [node for node in per_pod if node is not None]
            else:
                nodes = self._assign(shape, domain.node_array, group.count)
        trace.chosen = domain
        return _placed(group, shape, domain, domains, nodes, claims)

    def _mixed(self, group: GroupRequest, scope: Domain, domains: dict[str, str], trace: GroupTrace) -> Outcome:
        """A PodGroup of several pod shapes: its pods one by one, set by set, in every candidate domain.

        Each pod is filtered and fitted with its own shape; the candidate is
        simulated (and reverted), since one shape's pods change what is left
        for the next.
        """
        snap, need = self.snap, group.needed
        best: tuple[int, int, int, Domain] | None = None
        for index, domain in enumerate(self.candidates(group, scope)):
            mark = snap.mark()
            per_pod, _, note = self._assign_sets(group, domain)
            placed = sum(1 for node in per_pod if node is not None)
            used = snap.used_sum(domain)
            snap.revert(mark)
            trace.record_fit(domain, placed, note)
            if placed < need:
                continue
            key = (placed, most_allocated(used, domain.alloc_sum), -index)
            if best is None or key > best[:3]:
                best = (*key, domain)
        if best is None:
            return Outcome(False)
        domain = best[3]
        trace.chosen = domain
        before = snap.used_sum(domain)
        per_pod, claims, _ = self._assign_sets(group, domain)
        nodes = [node for node in per_pod if node is not None]
        names = [name for name, node in zip(group.pod_names, per_pod) if node is not None]
        own = dict(domains)
        if group.topology_key is not None:
            own[group.topology_key] = domain.value or ""
        request = tuple(u - b for u, b in zip(snap.used_sum(domain), before))
        return Outcome(True, len(nodes), {group.name: GroupResult(own, domain, nodes, claims, names)}, request)

    def _assign_sets(self, group: GroupRequest, domain: Domain) -> tuple[list[int | None], dict[str, Allocation], str]:
        """Each pod's node (``None`` where it does not fit), the pod sets in creation order, assumed.

        With group claims, the first pod allocates the claims not yet
        allocated, first fit at the best-scoring node that fits it and where
        every claim finds its devices; then every pod runs where all the
        group's devices reach. Returns the nodes, the claims' allocations and
        a note (why no pod was placed, when the first pod finds no node).
        """
        snap, cluster = self.snap, self.cluster
        sets = self.shapes(group)
        tracker = SpreadTracker(cluster)
        allowed: list[int] = domain.nodes
        claims: dict[str, Allocation] = {}
        out: list[int | None] = []
        if group.claims:
            pending = [ref for ref in group.claims if ref.identity not in snap.allocations]
            claims = {ref.name: snap.allocations[ref.identity] for ref in group.claims if ref not in pending}
            allowed = reaching(cluster, claims.values(), domain.nodes)
            if pending and group.count > 0:
                shape = sets[0][0]
                supplied = domain_supply(snap, pending, [domain])
                if supplied is not None and not supplied[0]:
                    return [None] * group.count, {}, CANNOT_ALLOCATE
                if supplied is not None and len(sets) == 1 and not shape.constraints.spread:
                    # Every node of the domain reaches the same pools, which reach all of it: the claims get
                    # the same devices wherever the first pod lands, and the pods land as if there were none.
                    nodes = self._assign(shape, allowed, group.count)
                    if not nodes:
                        return [None] * group.count, {}, CANNOT_ALLOCATE
                    devices = first_fit_all(snap, pending, nodes[0])
                    assert devices is not None, "domain_supply said first fit succeeds at every node"
                    for ref in pending:
                        claims[ref.name] = allocate(snap, ref, devices[ref.name])
                    return [*nodes, *([None] * (group.count - len(nodes)))], claims, ""
                candidates = np.asarray(snap.allowed_nodes(shape, allowed), dtype=np.int64)
                keys = _rank_keys(snap, shape, candidates, snap.node_fits_now(shape, candidates))
                first, devices = self._first_node(pending, candidates, keys)
                if first is None or devices is None:
                    return [None] * group.count, {}, CANNOT_ALLOCATE
                for ref in pending:
                    claims[ref.name] = allocate(snap, ref, devices[ref.name])
                snap.add(first, shape.vector)
                tracker.add(first, shape.constraints)
                out.append(first)
                allowed = reaching(cluster, claims.values(), allowed)
        for n, (shape, count) in enumerate(sets):
            wanted = count - 1 if n == 0 and out else count
            nodes = self._assign(shape, allowed, wanted, tracker)
            out += [*nodes, *([None] * (wanted - len(nodes)))]
        return out, claims, ""

    def _claim_fits(
        self, group: GroupRequest, shape: Shape, candidates: list[Domain], trace: GroupTrace
    ) -> tuple[IntArray, list[str] | None]:
        """Pods placed per candidate of a claim-holding PodGroup, as ``_assign_sets`` would place them, and notes.

        The notes are one per candidate, or ``None`` when every one is empty.
        Nothing is assumed. The claims still to allocate go to the first
        pod's node (the best-scoring one that fits it and where first fit
        finds every claim's devices); the other pods fit on the candidate's
        nodes that reach every allocated device. Where every pool is
        everyone's or a whole candidate's (``claims.domain_supply``), the
        counts are read from the candidates' fits and device supply, and no
        node is tried nor scored; otherwise every candidate's nodes are
        scored in one pass and only the first pod's node is tried, one
        candidate at a time. ``trace.claim_devices`` records, per candidate
        short of ``minCount``, the devices its claims held or took.
        """
        snap, cluster, need = self.snap, self.cluster, group.needed
        if not candidates:
            return np.zeros(0, dtype=np.int64), None
        allocations = [snap.allocations[ref.identity] for ref in group.claims if ref.identity in snap.allocations]
        held = [name for allocation in allocations for name, _ in allocation.devices]
        pending = [ref for ref in group.claims if ref.identity not in snap.allocations]
        family = candidates[0].family
        assert family is not None
        nodes, offsets = family.members(candidates)
        fits = self._reachable_fits(shape, nodes, held) if held else None
        if fits is not None:
            rooms = group_sums(np.repeat(np.arange(len(candidates)), np.diff(offsets)), fits, len(candidates))
        else:
            rooms = snap.fits_in(shape, candidates)
        had = {ref.name: snap.allocations[ref.identity].devices for ref in group.claims if ref not in pending}
        if not pending or group.count <= 0:
            placed = np.minimum(group.count, rooms)
            trace.claim_devices.update((candidates[k].uid, (had, {})) for k in np.flatnonzero(placed < need).tolist())
            return placed, None
        supplied = domain_supply(snap, pending, candidates)
        if supplied is not None:
            # Every node of a domain reaches the same pools, and they reach all of it; the first pod takes a place.
            ok = supplied & (rooms > 0)
            placed = np.where(ok, 1 + np.minimum(group.count - 1, rooms - 1), 0)
            for k in np.flatnonzero(ok & (placed < need)).tolist():
                segment = nodes[offsets[k] : offsets[k + 1]]
                best = int(_rank_keys(snap, shape, segment, self._reachable_fits(shape, segment, held)).max())
                taken = first_fit_all(snap, pending, key_node(best, len(cluster)))
                trace.claim_devices[candidates[k].uid] = (had, taken or {})
            return placed, None if ok.all() else np.where(ok, "", CANNOT_ALLOCATE).tolist()
        if fits is None:
            fits = self._reachable_fits(shape, nodes, held)
        keys = _rank_keys(snap, shape, nodes, fits, offsets)
        tops = np.maximum.reduceat(keys, offsets[:-1]).tolist()
        counts, notes = [], []
        for k, domain in enumerate(candidates):
            devices = None
            if tops[k] >= 0:
                devices = first_fit_all(snap, pending, key_node(tops[k], len(cluster)))
                if devices is None:
                    segment = slice(offsets[k], offsets[k + 1])
                    devices = self._first_node(pending, nodes[segment], keys[segment])[1]
            if devices is None:
                counts.append(0)
                notes.append(CANNOT_ALLOCATE)
                continue
            pools = {pool for taken in devices.values() for pool, _ in taken}
            if covers(cluster, pools, domain):
                room = int(rooms[k])
            else:
                segment = slice(offsets[k], offsets[k + 1])
                room = int(fits[segment][reach_mask(cluster, pools, nodes[segment])].sum())
            # The first pod takes one of its node's places.
            counts.append(1 + min(group.count - 1, room - 1))
            notes.append("")
            if counts[-1] < need:
                trace.claim_devices[domain.uid] = (had, devices)
        return np.asarray(counts, dtype=np.int64), notes

    def _reachable_fits(self, shape: Shape, nodes: npt.NDArray[np.int64], pools: list[str]) -> IntArray:
        """Pods of ``shape`` that fit on each of ``nodes`` now, 0 where a device of ``pools`` does not reach."""
        fits = self.snap.node_fits_now(shape, nodes)
        return np.where(reach_mask(self.cluster, pools, nodes), fits, 0) if pools else fits

    def _first_node(
        self, pending: list[ClaimRef], nodes: npt.NDArray[np.int64], keys: npt.NDArray[np.int64]
    ) -> tuple[int | None, dict[str, tuple[tuple[str, int], ...]] | None]:
        """The first pod's node: the best-ranked of ``nodes`` (by ``keys``) where first fit allocates every claim.

        Returns the node and each claim's devices, or ``(None, None)``.
        """
        for position in np.argsort(-keys, kind="stable").tolist():
            if keys[position] < 0:
                break
            i = int(nodes[position])
            devices = first_fit_all(self.snap, pending, i)
            if devices is not None:
                return i, devices
        return None, None

    # -- CompositePodGroup ------------------------------------------------------------

    def _composite(self, group: GroupRequest, scope: Domain, domains: dict[str, str], trace: GroupTrace) -> Outcome:
        snap = self.snap
        need = group.needed
        total, request = self._subtree(group)
        candidates = self.candidates(group, scope)
        able, bounds = self.bounds(group, candidates, {})
        tightness = np.full(len(candidates), 101, dtype=np.int64)
        whole = np.flatnonzero((bounds == total) & (able >= need))
        if len(whole):
            fitting = [candidates[k] for k in whole.tolist()]
            with_subtree = [plus(column, q) for column, q in zip(snap.used_sums(fitting), request, strict=True)]
            tightness[whole] = most_allocated_many(with_subtree, alloc_sums(fitting))
        for k in np.flatnonzero(able < need).tolist():
            trace.candidates.append(CandidateTrace(candidates[k], int(able[k]), False, skipped=True))
        eligible = np.flatnonzero(able >= need)
        ranked = eligible[np.lexsort((eligible, -tightness[eligible], -bounds[eligible]))]
        order = [((int(bounds[k]), int(tightness[k])), k, candidates[k]) for k in ranked.tolist()]
        best: _Best | None = None
        kept = False  # whether the snapshot holds the best candidate's simulation (kept until another is tried)
        mark = snap.mark()
        for bound_key, index, domain in order:
            if best is not None and (bound_key, -index) <= (best.key, -best.index):
                break
            if kept:
                snap.revert(mark)
                kept = False
            before = snap.used_sum(domain)
            outcome, candidate = self._children(group, domain, domains, need)
            trace.candidates.append(candidate)
            if outcome.success:
                requested = [u + q for u, q in zip(before, outcome.score_request)]
                key = (outcome.placed, most_allocated(requested, domain.alloc_sum))
                if best is None or (key, -index) > (best.key, -best.index):
                    best = _Best(key, index, domain, snap.ops_since(mark), outcome)
                    kept = True
                    continue
            snap.revert(mark)
        if best is None:
            return Outcome(False)
        if not kept:
            snap.replay(best.ops)
        trace.chosen = best.domain
        return best.outcome

    def _children(
        self, group: GroupRequest, domain: Domain, domains: dict[str, str], need: int
    ) -> tuple[Outcome, CandidateTrace]:
        """Simulate every child inside ``domain`` in order; stop once ``minGroupCount`` is out of reach."""
        own = dict(domains)
        if group.topology_key is not None:
            own[group.topology_key] = domain.value or ""
        outcome = Outcome(False, 0, {group.name: GroupResult(own, domain)}, (0, 0))
        candidate = CandidateTrace(domain, 0, False)
        satisfied, remaining = 0, len(group.children)
        request = list(outcome.score_request)
        children = group.children
        k = 0
        while k < len(children):
            run = self._run(children, k)
            traces = [GroupTrace(child, domain) for child in run]
            if len(run) > 1:
                results = self._place_run(run, domain, own, traces)
            else:
                results = [self.place(run[0], domain, own, traces[0])]
            k += len(results)
            candidate.children += traces[: len(results)]
            for result in results:
                remaining -= 1
                if result.success:
                    satisfied += 1
                    outcome.placed += result.placed
                    outcome.results.update(result.results)
                    request = [a + b for a, b in zip(request, result.score_request)]
            if satisfied + remaining < need:
                break
        outcome.success = candidate.success = satisfied >= need
        outcome.score_request = tuple(request)
        candidate.placed = satisfied
        return outcome, candidate

    def _run(self, children: list[GroupRequest], k: int) -> list[GroupRequest]:
        """``children[k]`` and the siblings right after it that ``_place_run`` may place together with it.

        Those are PodGroups of one shape, without a key of their own (they
        take the parent's candidate), claims, several shapes or spread
        constraints, whose shape no preference score tells nodes apart for.
        """
        first = children[k]
        if not self._plain(first):
            return [first]
        shape = self.shape(first)
        if prefers(self.snap, shape):
            return [first]
        end = k + 1
        while end < len(children) and self._plain(children[end]) and self.shape(children[end]) is shape:
            end += 1
        return children[k:end]

    @staticmethod
    def _plain(group: GroupRequest) -> bool:
        return group.is_leaf and group.topology_key is None and not group.claims and not group.simulated_only

    def _place_run(
        self, run: list[GroupRequest], domain: Domain, domains: dict[str, str], traces: list[GroupTrace]
    ) -> list[Outcome]:
        """Place sibling PodGroups of one shape in ``domain`` in one pass: their pods, in order, one heap.

        Placed one after the other, each would take the best nodes left by
        the ones before, pod by pod: the same as placing all their pods at
        once and handing them out in order, while every one gets its
        ``minCount``. The first that would not fails (its pods are given
        back), and the outcomes stop there: the siblings after it are placed
        without its pods. Returns an outcome per sibling placed or failed, in order.
        """
        snap, shape = self.snap, self.shape(run[0])
        mark = snap.mark()
        nodes = self._assign(shape, domain.node_array, sum(group.count for group in run))
        outcomes = []
        start = 0
        for group, trace in zip(run, traces, strict=True):
            share = nodes[start : start + group.count]
            trace.record_fits([domain], [len(share)])
            if len(share) < group.needed:
                # it fails, as it would on its own: keep only what the siblings before it placed
                snap.revert(mark)
                if start:
                    chosen, times = np.unique(nodes[:start], return_counts=True)
                    snap.add_block(Block.counts(chosen, times, shape.vector))
                outcomes.append(Outcome(False))
                break
            trace.chosen = domain
            outcomes.append(_placed(group, shape, domain, domains, share, {}))
            start += len(share)
        return outcomes

    def bounds(
        self, group: GroupRequest, candidates: list[Domain], memo: dict[tuple[Any, ...], tuple[IntArray, IntArray]]
    ) -> tuple[IntArray, IntArray]:
        """(children that could each fit alone, pods that could fit at most) for ``group`` in each candidate.

        For a PodGroup the first number is 1 or 0. Both ignore siblings and
        lower topology keys, so they never understate what a simulation
        finds. ``memo`` holds the answers for these candidates by signature.
        """
        key = self.signature(group)
        cached = memo.get(key)
        if cached is not None:
            return cached
        if group.is_leaf:
            pods: IntArray = np.zeros(len(candidates), dtype=np.int64)
            for shape, count in self.shapes(group):
                pods = pods + np.minimum(self.snap.fits_in(shape, candidates), count)
            result = ((pods >= group.needed).astype(np.int64), pods)
        else:
            able: IntArray = np.zeros(len(candidates), dtype=np.int64)
            pods = np.zeros(len(candidates), dtype=np.int64)
            for child in group.children:
                child_able, child_pods = self.bounds(child, candidates, memo)
                pods = pods + child_pods
                able = able + (child_able >= (child.needed if not child.is_leaf else 1))
            result = (able, pods)
        memo[key] = result
        return result

    def _subtree(self, group: GroupRequest) -> tuple[int, list[int]]:
        """Pods of the subtree, and their scored resources added up."""
        cached = self._requests.get(group.name)
        if cached is None:
            pods, total = 0, [0, 0]
            for member in group.walk():
                if member.is_leaf:
                    pods += member.count
                    for shape, count in self.shapes(member):
                        total = [t + count * q for t, q in zip(total, shape.score_request)]
            cached = self._requests[group.name] = (pods, total)
        return cached

    def signature(self, group: GroupRequest) -> tuple[Any, ...]:
        """Equal for siblings that ask for the same thing (same pods, counts, gang and keys)."""
        signature = self._signatures.get(group.name)
        if signature is None:
            if group.is_leaf:
                kinds = tuple((shape.uid, count) for shape, count in self.shapes(group))
                signature = ("pg", kinds, group.count, group.needed, group.topology_key, group.claims)
            else:
                children = tuple(self.signature(child) for child in group.children)
                signature = ("cpg", group.needed, group.topology_key, children)
            self._signatures[group.name] = signature
        return signature
