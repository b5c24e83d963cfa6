"""The ``complete`` strategy: a placement whenever one exists, a proof when none does, within a time bound.

It first runs kube-scheduler's cycle: when that succeeds its placement is
the answer (so both strategies agree wherever kube-scheduler succeeds, at
kube-scheduler's cost). Otherwise an exact solver (``solver``: OR-tools
CP-SAT over classes of equal nodes) runs in each of the root's candidate
domains in turn (each a separate problem: every pod of the root lands in
one of them) and chooses, all at once, which children make up each
``minGroupCount``, every group's domain, where each gang's ``minCount``
pods go and which devices each new group claim takes. A cheap necessary
condition skips the domains where some gang cannot fit even alone. Then
pods beyond ``minCount`` and optional children are added where they fit,
by kube-scheduler's rules.

The search of one ``place`` call shares one wall-clock bound
(``timeout``); a search that reaches it stops and says so, and its "no" is
then not a proof.
"""

from __future__ import annotations

import itertools
import time
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from workloadbuilder.placement.cluster.topology import Domain
from workloadbuilder.placement.framework.assign import assign_pods
from workloadbuilder.placement.framework.claims import allocate, domain_supply, reaching, supplied_within
from workloadbuilder.placement.framework.outcome import GroupResult, GroupTrace, Outcome
from workloadbuilder.placement.framework.sampling import NodeSampling
from workloadbuilder.placement.framework.snapshot import Shape, Snapshot
from workloadbuilder.placement.request.model import ClaimRef, GroupRequest
from workloadbuilder.placement.strategies.kube_scheduler import KubeScheduler
from workloadbuilder.placement.strategies.solver import Solution, solve

__all__ = ["DEFAULT_TIMEOUT", "Complete", "SearchReport"]

DEFAULT_TIMEOUT = 5.0
"""Seconds the complete strategy's exact search may spend in one ``place`` call."""


@dataclass
class SearchReport:
    """How the complete strategy reached its answer.

    ``greedy`` is true when kube-scheduler's own cycle already succeeded;
    ``timed_out`` when the exact search hit the ``timeout`` (seconds) before
    an answer, so a negative answer is then not a proof.
    """

    greedy: bool
    timeout: float = DEFAULT_TIMEOUT
    timed_out: bool = False


class Complete:
    """Runs kube-scheduler's cycle, and the exact search when it fails, until ``timeout`` seconds from now."""

    name = "complete"

    def __init__(self, snap: Snapshot, timeout: float = DEFAULT_TIMEOUT, sampling: NodeSampling | None = None) -> None:
        self.snap = snap
        self.kube = KubeScheduler(snap, sampling)  # its answer comes first; ``sampling`` as kube-scheduler's
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self._supplies: dict[tuple[str, int], npt.NDArray[np.bool_] | None] = {}
        """Per leaf and DomainSet, ``domain_supply`` of its pending claims in each domain (during one ``schedule``)."""

    def schedule(self, root: GroupRequest) -> tuple[Outcome, GroupTrace, SearchReport]:
        """Place ``root`` (assumed in the snapshot on success), with kube-scheduler's trace for comparison."""
        outcome, trace = self.kube.schedule(root)
        if outcome.success:
            return outcome, trace, SearchReport(greedy=True, timeout=self.timeout)
        memo: dict[tuple[str, int], bool] = {}
        self._supplies.clear()
        timed_out = False
        candidates = self.kube.candidates(root, self.snap.cluster.root)
        # a PodGroup's domains are all checked in one pass; a composite's one by one, as the search reaches them
        checks: Iterable[bool] = (
            self._leaf_fits(root, candidates)
            if root.is_leaf
            else (self._fits_in(root, domain, memo) for domain in candidates)
        )
        for domain in itertools.compress(candidates, checks):  # the domains that pass, each checked as it is reached
            solution = solve(self.snap, self.kube, root, domain, self.deadline)
            if solution.status == "found":
                report = SearchReport(greedy=False, timeout=self.timeout)
                return _Materializer(self.snap, self.kube, solution).run(root), trace, report
            timed_out = timed_out or solution.status == "timeout"
        return Outcome(False), trace, SearchReport(greedy=False, timeout=self.timeout, timed_out=timed_out)

    def _fits_in(self, group: GroupRequest, domain: Domain, memo: dict[tuple[str, int], bool]) -> bool:
        """A necessary condition for ``group`` in ``domain``, cheap to check, level by level.

        A PodGroup's minimum must fit in the domain ignoring every other
        group, and the pools its nodes reach must hold the devices its new
        claims need (``_leaf_fits``); a CompositePodGroup needs enough
        children that pass the same test in one of their candidate domains
        inside it, and whose PodGroups of one pod shape fit their minimums in
        the domain together (``_satisfiable``). When it fails, no placement
        in that domain exists and the exact search is not needed there.
        """
        key = (group.name, domain.uid)
        cached = memo.get(key)
        if cached is None:
            if group.is_leaf:
                cached = self._leaf_fits(group, [domain])[0]
            else:
                passing = [
                    child
                    for child in group.children
                    if any(self._fits_in(child, inner, memo) for inner in self.kube.candidates(child, domain))
                ]
                cached = self._satisfiable(passing, domain) >= group.needed
            memo[key] = cached
        return cached

    def _leaf_fits(self, group: GroupRequest, domains: list[Domain]) -> list[bool]:
        """Whether PodGroup ``group``'s minimum fits alone in each of ``domains``, its pending claims served there.

        Its pod sets' room is counted for all the domains at once when there
        are several (``Snapshot.fits_in``); the pools are checked only where
        there is room.
        """
        need = group.needed
        if group.count < need:
            return [False] * len(domains)
        sets = self.kube.shapes(group)
        if len(domains) == 1:  # a composite's child, tried domain by domain until one fits: no arrays
            fits = [sum(min(n, self.snap.fit(shape, domains[0])) for shape, n in sets) >= need]
        else:
            room = np.zeros(len(domains), dtype=np.int64)
            for shape, n in sets:
                room += np.minimum(self.snap.fits_in(shape, domains), n)
            fits = (room >= need).tolist()
        pending = [ref for ref in group.claims if ref.identity not in self.snap.allocations]
        if pending and group.count > 0 and any(fits):
            fits = self._supplied(group, pending, domains, fits)
        return fits

    def _supplied(
        self, group: GroupRequest, pending: list[ClaimRef], domains: list[Domain], fits: list[bool]
    ) -> list[bool]:
        """``fits``, kept where the pools the domain's nodes reach hold the devices ``pending`` claims need.

        Where every pool is everyone's or a whole domain's, that is
        ``domain_supply``, found for all the domains of their set at once;
        otherwise ``supplied_within`` of each domain that fits.
        """
        family = domains[0].family
        positions = family.positions(domains) if family is not None and domains[0].key is not None else None
        if family is not None and positions is not None:
            key = (group.name, family.uid)
            if key not in self._supplies:
                self._supplies[key] = domain_supply(self.snap, pending, family.domains)
            supply = self._supplies[key]
            if supply is not None:
                served: list[bool] = (np.array(fits, dtype=np.bool_) & supply[positions]).tolist()
                return served
        return [fit and supplied_within(self.snap, pending, domain) for domain, fit in zip(domains, fits, strict=True)]

    def _satisfiable(self, children: list[GroupRequest], domain: Domain) -> int:
        """At most how many of ``children`` (each of which could fit alone) can be satisfied together in ``domain``.

        The single-shape PodGroups among them share their shape's room in the
        domain: at most as many of their minimums, smallest first, as add up
        to it; every other child counts as one.
        """
        alike: dict[int, tuple[Shape, list[int]]] = {}
        total = 0
        for child in children:
            if child.is_leaf and not child.mixed:
                shape = self.kube.shape(child)
                alike.setdefault(shape.uid, (shape, []))[1].append(child.needed)
            else:
                total += 1
        for shape, needs in alike.values():
            total += bisect_right(list(itertools.accumulate(sorted(needs))), self.snap.fit(shape, domain))
        return total


class _Materializer:
    """Assumes a solution in the snapshot: devices, every gang's minimum, then what else fits."""

    def __init__(self, snap: Snapshot, kube: KubeScheduler, solution: Solution) -> None:
        self.snap = snap
        self.kube = kube
        self.solution = solution
        self.scopes: dict[str, tuple[Domain, dict[str, str]]] = {}
        self.placed: dict[str, list[list[int]]] = {}

    def run(self, root: GroupRequest) -> Outcome:
        snap, solution = self.snap, self.solution
        outcome = Outcome(True, 0, {}, (0, 0))
        refs = {ref.identity: ref for group in root.walk() for ref in group.claims}
        allocations = {
            identity: allocate(snap, refs[identity], devices) for identity, devices in solution.devices.items()
        }
        self._domains(root, snap.cluster.root, {})
        leaves = [group for group in root.walk() if group.is_leaf and group.name in solution.selected]
        for group in root.walk():
            if group.name in solution.selected and not group.is_leaf:
                domain, domains = self.scopes[group.name]
                outcome.results[group.name] = GroupResult(domains, domain)
        for leaf in leaves:
            domain, domains = self.scopes[leaf.name]
            claims = {ref.name: allocations.get(ref.identity) or snap.allocations[ref.identity] for ref in leaf.claims}
            outcome.results[leaf.name] = GroupResult(domains, domain, [], claims, [] if leaf.mixed else None)
            self._minimum(leaf)
        for leaf in leaves:
            self._beyond_minimum(leaf, outcome.results[leaf.name])
        self._optional_children(root, outcome)
        outcome.placed = sum(len(result.nodes) for result in outcome.results.values())
        return outcome

    def _sets(self, leaf: GroupRequest) -> list[tuple[Shape, int, tuple[str, ...]]]:
        """Each pod set of a PodGroup: its shape, its pod count and its pods' names."""
        out, start = [], 0
        for shape, count in self.kube.shapes(leaf):
            out.append((shape, count, leaf.pod_names[start : start + count]))
            start += count
        return out

    def _minimum(self, leaf: GroupRequest) -> None:
        """The solution's pods of every pod set, assumed."""
        per_set = self.placed[leaf.name] = []
        for (shape, _, _), per_node in zip(self._sets(leaf), self.solution.pods[leaf.name], strict=True):
            nodes: list[int] = []
            for i, n in sorted(per_node.items()):
                self.snap.add(i, shape.vector, n)
                nodes += [i] * n
            per_set.append(nodes)

    def _beyond_minimum(self, leaf: GroupRequest, result: GroupResult) -> None:
        """The rest of each pod set where it fits, by kube-scheduler's scoring, set by set; then every pod in set order.

        Each set's placed pods are its first ones, so a pod's position in
        ``result.nodes`` says its set, as for kube-scheduler's own answer.
        """
        allowed = reaching(self.snap.cluster, result.claims.values(), result.domain.nodes)
        for (shape, count, names), nodes in zip(self._sets(leaf), self.placed[leaf.name], strict=True):
            nodes += assign_pods(self.snap, shape, self.snap.allowed_nodes(shape, allowed), count - len(nodes))
            result.nodes += nodes
            if result.names is not None:
                result.names += names[: len(nodes)]

    def _domains(self, group: GroupRequest, scope: Domain, inherited: dict[str, str]) -> None:
        """Each selected group's domain, found among kube-scheduler's candidates inside its parent's."""
        if group.name not in self.solution.selected:
            return
        domains = dict(inherited)
        domain = scope
        if group.topology_key is not None:
            # a CompositePodGroup without children has no pods to pin its value inside its parent's domain
            value = self.solution.values[group.name]
            found = [d for d in self.kube.candidates(group, scope) if d.value == value]
            if found:
                domain = found[0]
                domains[group.topology_key] = value
        self.scopes[group.name] = (domain, domains)
        for child in group.children:
            self._domains(child, domain, domains)

    def _optional_children(self, group: GroupRequest, outcome: Outcome) -> None:
        """Children left out of a gang's minimum, placed by kube-scheduler's rules where they fit."""
        if group.is_leaf or group.name not in self.scopes:
            return
        scope, domains = self.scopes[group.name]
        for child in group.children:
            if child.name in self.scopes:
                self._optional_children(child, outcome)
                continue
            result = self.kube.place(child, scope, domains, GroupTrace(child, scope))
            if result.success:
                outcome.results.update(result.results)
