"""The ``complete`` strategy: a placement whenever one exists, within a search budget.

It first runs kube-scheduler's cycle: when that succeeds its placement is
the answer (so both strategies agree wherever kube-scheduler succeeds).
Otherwise it searches, depth first, with backtracking over:

* which children of each CompositePodGroup make up its ``minGroupCount``
  (exactly that many; more never helps feasibility),
* each group's domain at its topology key, inside its parent's domain,
* each group claim's *reach* (which nodes its devices serve),

placing only each PodGroup's ``minCount`` pods, and checks the finished
choice exactly (``packing``): pods onto nodes, devices onto claims. Then
it adds pods beyond ``minCount`` and optional children where they fit, as
kube-scheduler would.

Exact shortcuts keep the search small without losing a placement:
identical siblings are interchangeable (their domains are chosen in
non-decreasing order, and only the first ones of a kind are picked for the
gang); a choice whose pods cannot fit the domain, or together with the
groups already in a domain exceed its capacity, is never extended. A
search that spends ``budget`` steps stops and says so; its "no" is then
not a proof.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from workloadbuilder.placement.claims import anchors, devices_free, usable_pools
from workloadbuilder.placement.cluster import Domain
from workloadbuilder.placement.kube_scheduler import KubeScheduler, needed
from workloadbuilder.placement.outcome import GroupResult, GroupTrace, Outcome
from workloadbuilder.placement.packing import BudgetExhausted, Demand, max_flow, pack
from workloadbuilder.placement.request import ClaimRef, GroupRequest
from workloadbuilder.placement.scoring import assign_pods
from workloadbuilder.placement.snapshot import Allocation, Shape, Snapshot

__all__ = ["DEFAULT_BUDGET", "Complete", "SearchReport"]

DEFAULT_BUDGET = 100_000
"""Search steps (domain choices and packing nodes) before the complete strategy gives up."""


@dataclass
class SearchReport:
    """How the complete strategy reached its answer.

    ``greedy`` is true when kube-scheduler's own cycle already succeeded;
    ``exhausted`` when the budget ran out (a negative answer is then not a proof).
    """

    greedy: bool
    steps: int = 0
    budget: int = DEFAULT_BUDGET
    exhausted: bool = False


@dataclass
class _Work:
    group: GroupRequest
    scope: Domain
    domains: dict[str, str]
    chain: tuple[Domain, ...]
    twin: str | None = None


@dataclass
class _Leaf:
    group: GroupRequest
    shape: Shape
    nodes: list[int]
    minimum: int
    chain: tuple[Domain, ...]


class Complete:
    """Runs kube-scheduler's cycle, and searches when it fails."""

    name = "complete"

    def __init__(self, snap: Snapshot, budget: int = DEFAULT_BUDGET) -> None:
        self.snap = snap
        self.kube = KubeScheduler(snap)
        self.budget = budget

    def schedule(self, root: GroupRequest) -> tuple[Outcome, GroupTrace, SearchReport]:
        """Place ``root`` (assumed in the snapshot on success), with kube-scheduler's trace for comparison."""
        outcome, trace = self.kube.schedule(root)
        if outcome.success:
            return outcome, trace, SearchReport(greedy=True, budget=self.budget)
        if any(group.simulated_only for group in root.walk()):
            # PodGroups of several pod shapes are not searched: kube-scheduler's "no" stands, unproven.
            return outcome, trace, SearchReport(greedy=False, budget=self.budget, exhausted=True)
        search = _Search(self.snap, self.kube, self.budget)
        found = search.run(root)
        report = SearchReport(greedy=False, steps=search.steps, budget=self.budget, exhausted=search.exhausted)
        return found or Outcome(False), trace, report


class _Search:
    def __init__(self, snap: Snapshot, kube: KubeScheduler, budget: int) -> None:
        self.snap = snap
        self.cluster = snap.cluster
        self.kube = kube
        self.budget = budget
        self.steps = 0
        self.exhausted = False
        self.memo: dict[tuple[object, int], tuple[int, int]] = {}
        self.leaves: list[_Leaf] = []
        self.demand: dict[tuple[int, int], int] = {}
        self.resources: dict[int, list[int]] = {}
        self.free_sums: dict[int, tuple[int, ...]] = {}
        self.chosen: dict[str, tuple[int, dict[str, str], Domain]] = {}
        self.anchors: dict[tuple[str, ...], tuple[ClaimRef, frozenset[int]]] = {}
        self.packed: dict[object, dict[int, int]] = {}
        self.devices: dict[tuple[str, ...], tuple[tuple[str, int], ...]] = {}

    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.budget:
            raise BudgetExhausted

    # -- the search --------------------------------------------------------------

    def run(self, root: GroupRequest) -> Outcome | None:
        start = _Work(root, self.cluster.root, {}, (self.cluster.root,))
        try:
            if not self._dfs([start]):
                return None
        except BudgetExhausted:
            self.exhausted = True
            return None
        return self._materialize(root)

    def _dfs(self, work: list[_Work]) -> bool:
        if not work:
            return self._finish()
        item, rest = work[0], work[1:]
        self.tick()
        group = item.group
        candidates = self.kube.candidates(group, item.scope)
        low = self.chosen[item.twin][0] if item.twin else 0
        if group.is_leaf:
            return self._leaf(item, rest, candidates, low)
        return self._composite(item, rest, candidates, low)

    def _leaf(self, item: _Work, rest: list[_Work], candidates: list[Domain], low: int) -> bool:
        group = item.group
        shape, minimum = self.kube.shape(group), needed(group)
        if minimum > group.count:
            return False
        options = []
        for index, domain in enumerate(candidates):
            if index < low:
                continue
            chain = item.chain if domain is item.scope else (*item.chain, domain)
            slack = self._slack(shape, minimum, chain)
            if slack is not None:
                options.append((slack, index, domain, chain))
        options.sort(key=lambda option: (option[0], option[1]))
        for _, index, domain, chain in options:
            own = dict(item.domains)
            if group.topology_key is not None:
                own[group.topology_key] = domain.value or ""
            self.chosen[group.name] = (index, own, domain)
            for nodes in self._claim_options(group, shape, minimum, domain):
                self._push(_Leaf(group, shape, nodes, minimum, chain))
                if self._dfs(rest):
                    return True
                self._pop()
            del self.chosen[group.name]
        return False

    def _composite(self, item: _Work, rest: list[_Work], candidates: list[Domain], low: int) -> bool:
        group = item.group
        need = needed(group)
        if need > len(group.children):
            return False
        options = []
        for index, domain in enumerate(candidates):
            if index < low:
                continue
            able, pods = self.kube.bound(group, domain, self.memo)
            if able >= need:
                options.append((-pods, index, domain))
        options.sort(key=lambda option: (option[0], option[1]))
        for _, index, domain in options:
            own = dict(item.domains)
            if group.topology_key is not None:
                own[group.topology_key] = domain.value or ""
            chain = item.chain if domain is item.scope else (*item.chain, domain)
            self.chosen[group.name] = (index, own, domain)
            for subset in self._subsets(group, need):
                children: list[_Work] = []
                last_of_kind: dict[object, str] = {}
                for child in subset:
                    signature = self.kube.signature(child)
                    children.append(_Work(child, domain, own, chain, last_of_kind.get(signature)))
                    last_of_kind[signature] = child.name
                if self._dfs(children + rest):
                    return True
            del self.chosen[group.name]
        return False

    def _subsets(self, group: GroupRequest, need: int) -> Iterator[list[GroupRequest]]:
        """Every way to pick ``need`` children, taking the first ones of each kind of identical child."""
        kinds: dict[object, list[GroupRequest]] = {}
        for child in group.children:
            kinds.setdefault(self.kube.signature(child), []).append(child)
        members = list(kinds.values())
        ranges = [range(min(len(kind), need), -1, -1) for kind in members]
        for counts in itertools.product(*ranges):
            if sum(counts) == need:
                chosen = {child.name for kind, k in zip(members, counts) for child in kind[:k]}
                yield [child for child in group.children if child.name in chosen]

    # -- capacity accounting ----------------------------------------------------

    def _slack(self, shape: Shape, minimum: int, chain: tuple[Domain, ...]) -> int | None:
        """Room left in the innermost domain after this PodGroup, or ``None`` if some domain is overfull."""
        slack = 0
        for domain in chain:
            slack = self.snap.fit(shape, domain) - self.demand.get((domain.uid, shape.uid), 0) - minimum
            if slack < 0:
                return None
            taken = self.resources.get(domain.uid)
            free = self._free_sum(domain)
            for r, q in shape.terms:
                if (taken[r] if taken else 0) + minimum * q > free[r]:
                    return None
        return slack

    def _free_sum(self, domain: Domain) -> tuple[int, ...]:
        total = self.free_sums.get(domain.uid)
        if total is None:
            total = self.free_sums[domain.uid] = self.snap.free_sum(domain)
        return total

    def _push(self, leaf: _Leaf) -> None:
        self.leaves.append(leaf)
        for domain in leaf.chain:
            key = (domain.uid, leaf.shape.uid)
            self.demand[key] = self.demand.get(key, 0) + leaf.minimum
            taken = self.resources.setdefault(domain.uid, [0] * len(self.cluster.resources))
            for r, q in leaf.shape.terms:
                taken[r] += leaf.minimum * q

    def _pop(self) -> None:
        leaf = self.leaves.pop()
        for domain in leaf.chain:
            self.demand[(domain.uid, leaf.shape.uid)] -= leaf.minimum
            taken = self.resources[domain.uid]
            for r, q in leaf.shape.terms:
                taken[r] -= leaf.minimum * q

    # -- claims --------------------------------------------------------------------

    def _claim_options(self, group: GroupRequest, shape: Shape, minimum: int, domain: Domain) -> Iterator[list[int]]:
        """The node sets the PodGroup may use in ``domain``: one per choice of reach for its new claims.

        While a node set is being tried, the reach chosen for each new claim
        is recorded in ``anchors`` for the groups that share the claim.
        """
        if not group.claims:
            yield self.snap.allowed_nodes(shape, domain.nodes)
            return
        allowed = frozenset(self.snap.allowed_nodes(shape, domain.nodes))
        for ref in group.claims:
            if ref.identity in self.anchors:
                allowed &= self.anchors[ref.identity][1]
        pending = [ref for ref in group.claims if ref.identity not in self.anchors]
        choices = [anchors(self.snap, ref, sorted(allowed)) for ref in pending]
        for picked in itertools.product(*choices):
            nodes = allowed.intersection(*picked) if picked else allowed
            if sum(shape.fits(self.snap.free(i)) for i in nodes) < minimum:
                continue
            for ref, reach in zip(pending, picked):
                self.anchors[ref.identity] = (ref, reach)
            yield sorted(nodes)
            for ref in pending:
                del self.anchors[ref.identity]

    def _devices(self) -> dict[tuple[str, ...], tuple[tuple[str, int], ...]] | None:
        """Devices for every anchored claim at once (a max-flow over pools), or ``None``."""
        edges: dict[object, dict[object, int]] = {"source": {}}
        needed_total = 0
        for identity, (ref, reach) in self.anchors.items():
            edges["source"][("claim", identity)] = ref.device.count
            needed_total += ref.device.count
            edges[("claim", identity)] = {
                ("pool", pool.name): ref.device.count
                for pool in usable_pools(self.cluster, ref.device.device_class, reach)
                if devices_free(self.snap, pool) > 0
            }
        for pool in self.cluster.pools:
            edges[("pool", pool.name)] = {"sink": max(devices_free(self.snap, pool), 0)}
        flow = max_flow(edges, "source", "sink")
        if sum(flow.get("source", {}).values()) < needed_total:
            return None
        order = {pool.name: n for n, pool in enumerate(self.cluster.pools)}
        out = {}
        for identity in self.anchors:
            taken = flow.get(("claim", identity), {})
            out[identity] = tuple(sorted(((target[1], n) for target, n in taken.items()), key=lambda p: order[p[0]]))
        return out

    # -- the answer ------------------------------------------------------------------

    def _finish(self) -> bool:
        demands = [Demand(leaf.group.name, leaf.shape, leaf.nodes, leaf.minimum) for leaf in self.leaves]
        packed = pack(demands, self.snap.free, self.tick)
        if packed is None:
            return False
        devices = self._devices()
        if devices is None:
            return False
        self.packed, self.devices = packed, devices
        return True

    def _materialize(self, root: GroupRequest) -> Outcome:
        """Assume the found minimum, then pods beyond ``minCount`` and optional children where they fit."""
        snap = self.snap
        outcome = Outcome(True, 0, {}, (0, 0))
        allocations: dict[tuple[str, ...], Allocation] = {}
        for identity, devices in self.devices.items():
            for pool, n in devices:
                snap.take_devices(pool, n)
            allocations[identity] = Allocation(identity, devices)
            snap.allocate(allocations[identity])
        required = {leaf.group.name: leaf for leaf in self.leaves}
        for group in root.walk():
            if group.name in self.chosen and not group.is_leaf:
                _, domains, domain = self.chosen[group.name]
                outcome.results[group.name] = GroupResult(domains, domain)
        for leaf in self.leaves:
            nodes: list[int] = []
            for i, n in sorted(self.packed[leaf.group.name].items()):
                snap.add(i, leaf.shape.vector, n)
                nodes += [i] * n
            claims = {ref.name: allocations[ref.identity] for ref in leaf.group.claims}
            _, domains, domain = self.chosen[leaf.group.name]
            outcome.results[leaf.group.name] = GroupResult(domains, domain, nodes, claims)
        for group in root.walk():
            leaf = required.get(group.name)
            if leaf is not None and group.count > leaf.minimum:
                outcome.results[group.name].nodes += assign_pods(
                    snap, leaf.shape, leaf.nodes, group.count - leaf.minimum
                )
        self._optional_children(root, outcome)
        for group in root.walk():
            result = outcome.results.get(group.name)
            if result is not None and group.is_leaf:
                outcome.placed += len(result.nodes)
        return outcome

    def _optional_children(self, group: GroupRequest, outcome: Outcome) -> None:
        """Children left out of a gang's minimum, placed by kube-scheduler's rules where they fit."""
        if group.is_leaf or group.name not in self.chosen:
            return
        _, domains, scope = self.chosen[group.name]
        for child in group.children:
            if child.name in self.chosen:
                self._optional_children(child, outcome)
                continue
            result = self.kube.place(child, scope, domains, GroupTrace(child, scope))
            if result.success:
                outcome.results.update(result.results)
