"""Workload-aware preemption (KEP-5710): which running groups and pods a gang would evict, as kube-scheduler picks them.

Follows ``PodGroupEvaluator.selectVictimsOnDomain``
(pkg/scheduler/framework/preemption/podgrouppreemption.go), whose domain
is the whole cluster:

* **Units.** A pod on its own; or, when its PodGroup or a CompositePodGroup
  above it has ``disruptionMode: all``, the highest such group with every
  pod under it (``getHighestAllAncestor``, types.go). A unit's priority is
  that of the root of its hierarchy (``GetPodPriority``, util.go).
* **Candidates** are the units of lower priority than the preemptor
  (``isPreemptionAllowed``): never one of equal or higher priority.
* **Remove all, place once.** Every candidate is removed and the gang is
  placed once; if it still does not fit, preemption cannot help.
* **Reprieve.** Candidates are sorted from the most important
  (``MoreImportantVictim``: priority, then CompositePodGroup over PodGroup
  over pod, where a pod of a ``single`` group ranks as a PodGroup, then
  more pods, then the earliest start, then identity), split into those
  that would violate a PodDisruptionBudget and the rest
  (``FilterVictimsWithPDBViolation``), and re-added one by one, violating
  ones first; a unit is reprieved when every placed pod of the gang still
  passes its node's resource check, else it is a victim.

Only a unit with a pod on a node holding placed pods can fail that check,
and giving back any other unit changes no node the check reads: those are
reprieved without being looked at, so the reprieve costs what the placed
nodes hold, not what the cluster runs, and is done on a copy of those
nodes' free capacity. Evicting is one snapshot change per node, every
candidate's pods there at once; then the snapshot is restored to its
checkpoint from before, and only the victims' eviction and the placement
are applied again, which leaves what giving every other unit back would.
The units of a cluster, in importance order, and what each frees per node
are built once per cluster (the model does not change): the candidates of
a priority are a suffix of that order.

Capacity is signed, so putting back a pod on a node that was over-committed
before preemption makes it over-committed again, and evicting less than a
node's debt frees nothing there. Pods on cordoned nodes are never removed:
no preemptor pod can land there (NodeUnschedulable), so evicting them
cannot help. The placement is not searched again for fewer victims
(upstream's documented trade-off).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from operator import add, sub
from weakref import WeakKeyDictionary

import numpy as np

from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.cluster.records import RunningGroup, RunningPod
from workloadbuilder.placement.framework.outcome import Outcome
from workloadbuilder.placement.framework.snapshot import Block, Shape, Snapshot
from workloadbuilder.placement.k8s.disruption import DisruptionBudget, split_violating
from workloadbuilder.placement.request.model import GroupRequest

__all__ = ["Candidates", "Unit", "Victims", "candidates_below", "preempt", "units_below"]

_RANK = {"CompositePodGroup": 3, "PodGroup": 2, "Pod": 1}
_NOT_STARTED = "\uffff"  # sorts after every timestamp: an unstarted pod counts as started now


@dataclass(frozen=True)
class Unit:
    """What preemption evicts at once: its name, kind (``CompositePodGroup``, ``PodGroup`` or ``Pod``) and pods.

    ``rank`` is upstream's victim rank (3, 2, 1), in which a pod of a
    ``single`` group counts as a PodGroup; ``start`` is the earliest
    ``status.startTime`` of its pods (empty when none has started).
    """

    name: str
    kind: str
    priority: int
    pods: tuple[RunningPod, ...]
    rank: int = 1
    start: str = ""

    def importance(self) -> tuple[object, ...]:
        """Sort key, most important first (``MoreImportantVictim``)."""
        return (-self.priority, -self.rank, -len(self.pods), self.start or _NOT_STARTED, self.pods[0].name)

    @property
    def nodes(self) -> list[int]:
        """The nodes its pods run on, each once, in order."""
        return list(dict.fromkeys(pod.node for pod in self.pods))


@dataclass
class Victims:
    """The outcome of preemption: the placement found, the units it evicts, and how many of them violate a budget."""

    outcome: Outcome
    units: list[Unit]
    violating: list[Unit]


def units_below(cluster: Cluster, priority: int, gone: Iterable[str] = ()) -> list[Unit]:
    """Every running unit of lower priority than ``priority``, except those named in ``gone``, in cluster order."""
    return list(candidates_below(cluster, priority, gone).units)


@dataclass(frozen=True)
class Candidates:
    """The units a preemptor may evict: every running unit of lower priority, but those already evicted.

    ``units`` are in cluster order, ``ranked`` the same units most important
    first (``Unit.importance``); ``evictions`` the snapshot change that
    evicts them all (``Snapshot.add_block``): per schedulable node, less
    their pods' requests there (pods on cordoned nodes stay). The lists are shared with the cluster's index: read them,
    do not change them. ``index``, ``start`` and ``skipped`` place the units
    in that index (positions from ``start`` on, but ``skipped``).
    """

    units: list[Unit]
    ranked: list[Unit]
    evictions: Block
    index: _Index = field(repr=False, compare=False)
    start: int = 0
    skipped: frozenset[int] = frozenset()

    def touching(self, nodes: Iterable[int]) -> list[int]:
        """The index positions (see ``_Index``) of the candidates with a pod on any of ``nodes``, most important first."""
        on_node, start, skipped = self.index.on_node, self.start, self.skipped
        found = {p for i in nodes for p in on_node.get(i, ()) if p >= start and p not in skipped}
        return sorted(found)


_INDEXES: WeakKeyDictionary[Cluster, _Index] = WeakKeyDictionary()


def candidates_below(cluster: Cluster, priority: int, gone: Iterable[str] = ()) -> Candidates:
    """The units of lower priority than ``priority`` that preemption may evict, except those named in ``gone``."""
    index = _INDEXES.get(cluster)
    if index is None:
        if priority <= _lowest_priority(cluster):  # nothing runs below it: no need to index what runs
            return _Index(cluster, []).below(priority, set())
        index = _INDEXES[cluster] = _Index(cluster)
    return index.below(priority, set(gone))


def _lowest_priority(cluster: Cluster) -> int:
    """At most the lowest priority of any running unit (a unit's is its pod's or one of its groups')."""
    pods = (pod.priority for pod in cluster.running_pods)
    groups = (group.priority for group in cluster.running_groups.values())
    return min(min(pods, default=2**31), min(groups, default=2**31))


class _Index:
    """Every running unit of one cluster, most important first, with what evicting each gives back per node.

    ``ranked[p]`` is the unit at position ``p``; ``frees[p]`` its
    ``(node, vector)`` pairs, its pods' requests added up per schedulable
    node; ``on_node[i]`` the positions of the units with a pod on node
    ``i``, cordoned or not. The units below a priority are the positions
    from some point on, as priority comes first in the order.
    """

    def __init__(self, cluster: Cluster, units: list[Unit] | None = None) -> None:
        """The index of ``units`` (by default every running unit of ``cluster``)."""
        units = _all_units(cluster) if units is None else units
        order = sorted(range(len(units)), key=lambda k: units[k].importance())
        self.ranked = [units[k] for k in order]
        self.cluster_order = order  # ranked[p] is the cluster's unit order[p]
        self.negated = [-unit.priority for unit in self.ranked]  # ascending
        schedulable = cluster.schedulable
        self.frees: list[tuple[tuple[int, tuple[int, ...]], ...]] = []
        self.on_node: dict[int, list[int]] = {}
        for p, unit in enumerate(self.ranked):
            per_node: dict[int, tuple[int, ...]] = {}
            for pod in unit.pods:
                if schedulable[pod.node]:
                    held = per_node.get(pod.node)
                    per_node[pod.node] = pod.requests if held is None else tuple(map(add, held, pod.requests))
            self.frees.append(tuple(per_node.items()))
            for i in unit.nodes:
                self.on_node.setdefault(i, []).append(p)
        self._evictions: dict[int, Block] = {}
        self._width = len(cluster.resources)
        self._units: dict[int, list[Unit]] = {}

    def below(self, priority: int, gone: set[str]) -> Candidates:
        """The candidates of a preemptor of ``priority``, those named in ``gone`` left out."""
        start = bisect_right(self.negated, -priority)
        end = len(self.ranked)
        evictions = self._evictions.get(start)
        if evictions is None:
            freed = _added(self.frees[p] for p in range(start, end))
            evictions = self._evictions[start] = Block.of(freed, -1, self._width)
        units = self._units.get(start)
        if units is None:
            units = self._units[start] = [
                self.ranked[p] for p in sorted(range(start, end), key=self.cluster_order.__getitem__)
            ]
        ranked = self.ranked[start:]
        skipped = frozenset(p for p in range(start, end) if self.ranked[p].name in gone) if gone else frozenset()
        if skipped:
            ranked = [unit for p, unit in enumerate(ranked, start) if p not in skipped]
            units = [unit for unit in units if unit.name not in gone]
            evictions = _without(evictions, Block.of(_added(self.frees[p] for p in skipped), 1, self._width))
        return Candidates(units, ranked, evictions, self, start, skipped)


def _all_units(cluster: Cluster) -> list[Unit]:
    """Every running unit, in cluster order (of each unit's first pod)."""
    members: dict[str, list[RunningPod]] = {}
    heads: dict[str, tuple[str, int, int]] = {}
    for pod in cluster.running_pods:
        group = cluster.running_groups.get(pod.group) if pod.group else None
        chain = _ancestry(cluster, group)
        top_all = next((g for g in reversed(chain) if g.disruption_mode == "all"), None)
        priority_of = chain[-1].priority if chain else pod.priority
        if top_all is not None:
            key = top_all.name
            heads[key] = (top_all.kind, priority_of, _RANK[top_all.kind])
        else:
            key = pod.name
            heads[key] = ("Pod", priority_of, _RANK["PodGroup"] if group is not None else _RANK["Pod"])
        members.setdefault(key, []).append(pod)
    out = []
    for name, pods in members.items():
        kind, priority, rank = heads[name]
        start = min((pod.start for pod in pods if pod.start), default="")
        out.append(Unit(name, kind, priority, tuple(pods), rank, start))
    return out


def _ancestry(cluster: Cluster, group: RunningGroup | None) -> list[RunningGroup]:
    """``group`` and its ancestors, nearest first (stopping at a missing parent or a cycle)."""
    chain: list[RunningGroup] = []
    seen: set[str] = set()
    while group is not None and group.name not in seen:
        seen.add(group.name)
        chain.append(group)
        group = cluster.running_groups.get(group.parent) if group.parent else None
    return chain


def _added(parts: Iterable[Iterable[tuple[int, tuple[int, ...]]]]) -> dict[int, tuple[int, ...]]:
    """``(node, vector)`` pairs added up per node."""
    out: dict[int, tuple[int, ...]] = {}
    for pairs in parts:
        for i, vector in pairs:
            held = out.get(i)
            out[i] = vector if held is None else tuple(map(add, held, vector))
    return out


def _without(evictions: Block, kept: Block) -> Block:
    """``evictions`` less what evicting ``kept`` gives back (both sorted, its nodes among theirs), emptied nodes dropped."""
    change = evictions.change.copy()
    change[np.searchsorted(evictions.nodes, kept.nodes)] += kept.change
    left = (change != 0).any(axis=1)
    return Block(evictions.nodes[left], change[left])


def preempt(
    snap: Snapshot,
    root: GroupRequest,
    candidates: Candidates,
    place: Callable[[], Outcome],
    shapes_of: Callable[[GroupRequest], list[tuple[Shape, int]]],
    budgets: Sequence[DisruptionBudget] = (),
    assume: bool = True,
) -> Victims | None:
    """Evict what placing ``root`` needs from ``candidates``; ``None`` (and nothing changed) if even all do not help.

    ``shapes_of`` gives each PodGroup's pod shapes with their pod counts, in
    the order its pods are placed; the reprieve checks their resources. On
    success the placement stays assumed and the victims stay removed in the
    snapshot, unless ``assume`` is false (a probe: the snapshot is left as it
    was); ``Victims.units`` is ordered from the most important.
    """
    if not candidates.units:
        return None
    before = snap.checkpoint()
    snap.add_block(candidates.evictions)
    mark = snap.mark()
    outcome = place()
    if not outcome.success:
        snap.restore(before)
        return None
    placement = snap.ops_since(mark)
    checked = _checked_resources(root, outcome, shapes_of)
    index = candidates.index
    violating, _ = split_violating(candidates.ranked, budgets)
    breaking = {id(unit) for unit in violating}
    touching = candidates.touching(checked)
    order = [p for p in touching if id(index.ranked[p]) in breaking] + [
        p for p in touching if id(index.ranked[p]) not in breaking
    ]
    evicted = sorted(_reprieve(snap, index, order, checked))
    victims = [index.ranked[p] for p in evicted]
    # everyone else is back: the state before, less the victims, with the placement
    snap.restore(before)
    if assume:
        snap.add_block(Block.of(_added(index.frees[p] for p in evicted), -1, len(snap.cluster.resources)))
        snap.replay(placement)
    return Victims(outcome, victims, [unit for unit in victims if id(unit) in breaking])


def _reprieve(snap: Snapshot, index: _Index, order: list[int], checked: dict[int, set[int]]) -> list[int]:
    """The positions of ``order`` that are victims: with the unit back, a checked resource of a placed node goes negative.

    The units are given back in ``order`` on a copy of the placed nodes' free
    capacity (the snapshot as the placement left it): a pod back takes its
    requests again. A victim's pods stay gone.
    """
    free = {i: snap.free(i) for i in checked}
    victims = []
    for p in order:
        trial = {i: tuple(map(sub, free[i], vector)) for i, vector in index.frees[p] if i in checked}
        if all(trial.get(i, free[i])[r] >= 0 for i in index.ranked[p].nodes if i in checked for r in checked[i]):
            free.update(trial)
        else:
            victims.append(p)
    return victims


def _checked_resources(
    root: GroupRequest, outcome: Outcome, shapes_of: Callable[[GroupRequest], list[tuple[Shape, int]]]
) -> dict[int, set[int]]:
    """Per node holding placed pods, the resources NodeResourcesFit checks there (those the pods request)."""
    checked: dict[int, set[int]] = {}
    for group in root.walk():
        result = outcome.results.get(group.name)
        if result is None or not group.is_leaf or not result.nodes:
            continue
        per_pod = [{r for r, _ in shape.terms} for shape, count in shapes_of(group) for _ in range(count)]
        if result.names is not None:  # mixed shapes: the placed pods are not the first ones in order
            position = {name: k for k, name in enumerate(group.pod_names)}
            per_pod = [per_pod[position[name]] for name in result.names]
        for i, terms in zip(result.nodes, per_pod, strict=False):  # pods beyond those placed have no node
            checked.setdefault(i, set()).update(terms)
    return checked
