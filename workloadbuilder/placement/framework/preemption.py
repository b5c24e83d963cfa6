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

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import add, sub
from weakref import WeakKeyDictionary

import numpy as np
import numpy.typing as npt

from workloadbuilder.placement.cluster.arrays import INT64_SAFE
from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.cluster.records import RunningGroup, RunningPod
from workloadbuilder.placement.framework.outcome import Outcome
from workloadbuilder.placement.framework.snapshot import Block, Shape, Snapshot
from workloadbuilder.placement.k8s.disruption import DisruptionBudget, split_violating
from workloadbuilder.placement.request.model import GroupRequest

__all__ = [
    "Candidates",
    "RunningUnits",
    "Unit",
    "Victims",
    "candidates_below",
    "preempt",
    "running_units",
    "units_below",
]

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
        start, skipped = self.start, self.skipped
        return sorted(p for p in self.index.units_on(nodes) if p >= start and p not in skipped)


_INDEXES: WeakKeyDictionary[Cluster, _Index] = WeakKeyDictionary()


def candidates_below(cluster: Cluster, priority: int, gone: Iterable[str] = ()) -> Candidates:
    """The units of lower priority than ``priority`` that preemption may evict, except those named in ``gone``."""
    index = _INDEXES.get(cluster)
    if index is None:
        if priority <= _lowest_priority(cluster):  # nothing runs below it: no need to index what runs
            return _Index(cluster, []).below(priority, set())
        index = _INDEXES[cluster] = _Index(cluster)
    return index.below(priority, set(gone))


_LOWEST: WeakKeyDictionary[Cluster, int] = WeakKeyDictionary()  # per cluster, its ``_lowest_priority`` once found


def _lowest_priority(cluster: Cluster) -> int:
    """At most the lowest priority of any running unit (a unit's is its pod's or one of its groups').

    Found once per cluster: what runs in a cluster never changes.
    """
    lowest = _LOWEST.get(cluster)
    if lowest is None:
        pods = (pod.priority for pod in cluster.running_pods)
        groups = (group.priority for group in cluster.running_groups.values())
        lowest = _LOWEST[cluster] = min(min(pods, default=2**31), min(groups, default=2**31))
    return lowest


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
        self.frees: list[tuple[tuple[int, tuple[int, ...]], ...]] = [_frees(unit, schedulable) for unit in self.ranked]
        self._on_node: dict[int, list[int]] | None = None  # ``on_node``, made when first read
        self._node_units: Mapping[int, Mapping[str, Unit]] | None = None  # given: per node, its units by name
        self._position: dict[str, int] | None = None  # with ``_node_units``: each ranked unit's position by name
        self._evictions: dict[int, Block] = {}  # start position -> evicting every unit from there on
        self._width = len(cluster.resources)
        self._units: dict[int, list[Unit]] = {}  # start position -> the units from there on, in cluster order

    @classmethod
    def of_ranked(
        cls,
        ranked: list[Unit],
        frees: list[tuple[tuple[int, tuple[int, ...]], ...]],
        units: list[Unit],
        evictions: Block,
        width: int,
        node_units: Mapping[int, Mapping[str, Unit]],
    ) -> _Index:
        """The index of units already ranked (``ranked``, with what each frees), all below one priority.

        ``units`` are the same units in cluster order, ``evictions`` evicts
        them all, and ``node_units`` gives per node the units (of any
        priority, by name) with a pod there; nothing is sorted or added up again.
        """
        index = cls.__new__(cls)
        index.ranked = ranked
        index.cluster_order = []  # not read: the units from position 0 on are given
        index.negated = [-unit.priority for unit in ranked]
        index.frees = frees
        index._on_node = None
        index._node_units = node_units
        index._position = None
        index._evictions = {0: evictions}
        index._width = width
        index._units = {0: units}
        return index

    def units_on(self, nodes: Iterable[int]) -> set[int]:
        """The positions of the units with a pod on any of ``nodes``."""
        if self._node_units is None:
            on_node = self.on_node
            return {p for i in nodes for p in on_node.get(i, ())}
        if self._position is None:
            self._position = {unit.name: p for p, unit in enumerate(self.ranked)}
        position, node_units = self._position, self._node_units
        return {position[name] for i in nodes for name in node_units.get(i, ()) if name in position}

    @property
    def on_node(self) -> dict[int, list[int]]:
        """Per node, the positions of the units with a pod there (cordoned or not), most important first."""
        if self._on_node is None:
            on_node: dict[int, list[int]] = {}
            for p, unit in enumerate(self.ranked):
                for i in unit.nodes:
                    on_node.setdefault(i, []).append(p)
            self._on_node = on_node
        return self._on_node

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


def _frees(unit: Unit, schedulable: Sequence[bool]) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """What evicting ``unit`` gives back: its pods' requests added up per schedulable node, ``(node, vector)`` pairs."""
    per_node: dict[int, tuple[int, ...]] = {}
    for pod in unit.pods:
        if schedulable[pod.node]:
            held = per_node.get(pod.node)
            per_node[pod.node] = pod.requests if held is None else tuple(map(add, held, pod.requests))
    return tuple(per_node.items())


class RunningUnits:
    """The running units of a cluster whose running pods change, kept in importance order as they come and go.

    ``candidates_below`` indexes a cluster's units once per cluster; a
    caller that starts and stops pods between preemptions (a simulation)
    keeps them here instead: ``add`` and ``remove`` cost what the unit
    holds, and ``below`` gives the candidates a cluster running exactly
    these units would give, without sorting or adding up all of them.
    Units must not share a name.
    """

    def __init__(self, cluster: Cluster) -> None:
        """Every running unit of ``cluster`` to start with."""
        self._schedulable = cluster.schedulable  # which nodes preemption may free (never changed)
        self._width = len(cluster.resources)
        self._keys: list[tuple[object, ...]] = []  # each unit's importance, most important first
        self._ranked: list[Unit] = []  # the units in that order
        self._frees: list[tuple[tuple[int, tuple[int, ...]], ...]] = []  # and what evicting each gives back
        self._order: dict[str, int] = {}  # each unit's place in cluster order (when it was added), by name
        self._next = 0  # the place in cluster order of the next unit added
        self._levels: dict[int, dict[str, Unit]] = {}  # per priority, its units by name, in cluster order
        self._units: dict[str, Unit] = {}  # every unit by name
        self._node_units: dict[int, dict[str, Unit]] = {}  # per node, the units with a pod there, by name
        # per priority, what its units hold per schedulable node and resource (int64 while ``_bound`` allows)
        self._held: dict[int, npt.NDArray[np.int64]] = {}
        self._bound = 0  # at least the largest magnitude any sum of the units' requests on a node reaches
        for unit in _all_units(cluster):
            self.add(unit)

    def add(self, unit: Unit) -> None:
        """``unit`` runs, after every unit already here in cluster order."""
        key = unit.importance()
        p = bisect_right(self._keys, key)
        frees = _frees(unit, self._schedulable)
        self._keys.insert(p, key)
        self._ranked.insert(p, unit)
        self._frees.insert(p, frees)
        self._order[unit.name] = self._next
        self._next += 1
        self._levels.setdefault(unit.priority, {})[unit.name] = unit
        self._units[unit.name] = unit
        for i in unit.nodes:
            self._node_units.setdefault(i, {})[unit.name] = unit
        self._change(unit.priority, frees, 1)

    def remove(self, name: str) -> None:
        """The unit named ``name`` runs no more (evicted, or ended)."""
        unit = self._units.pop(name)
        del self._order[name], self._levels[unit.priority][name]
        for i in unit.nodes:
            del self._node_units[i][name]
        p = bisect_right(self._keys, unit.importance()) - 1
        self._change(unit.priority, self._frees[p], -1)
        del self._keys[p], self._ranked[p], self._frees[p]

    def _place(self, unit: Unit) -> int:
        return self._order[unit.name]

    def _change(self, priority: int, frees: tuple[tuple[int, tuple[int, ...]], ...], sign: int) -> None:
        held = self._held.get(priority)
        if held is None:
            held = self._held[priority] = np.zeros((len(self._schedulable), self._width), dtype=np.int64)
        for i, vector in frees:
            self._bound += max(map(abs, vector), default=0) if sign > 0 else 0
            if self._bound < INT64_SAFE:
                held[i] += vector if sign > 0 else np.negative(vector)

    def below(self, priority: int, gone: Iterable[str] = ()) -> Candidates:
        """What ``candidates_below`` gives on a cluster that runs these units: those of lower priority, but ``gone``."""
        start = bisect_left(self._keys, (1 - priority,))  # the first unit of lower priority
        ranked, frees = self._ranked[start:], self._frees[start:]
        levels = [units for level, units in self._levels.items() if level < priority and units]
        if len(levels) == 1:
            units = list(levels[0].values())
        else:  # several priorities below: their units merged back into cluster order
            units = sorted((unit for units in levels for unit in units.values()), key=self._place)
        if self._bound < INT64_SAFE:
            total = np.zeros((len(self._schedulable), self._width), dtype=np.int64)
            for level, held in self._held.items():
                if level < priority:
                    total += held
            nodes = np.flatnonzero((total != 0).any(axis=1))
            evictions = Block(nodes, -total[nodes])
        else:  # sums past int64: exact Python integers, as the cluster's index adds them up
            evictions = Block.of(_added(frees), -1, self._width)
        index = _Index.of_ranked(ranked, frees, units, evictions, self._width, self._node_units)
        return index.below(priority, set(gone))


def running_units(pods: Iterable[RunningPod], groups: Iterable[RunningGroup]) -> list[Unit]:
    """The units ``pods`` of ``groups`` make as running pods of a cluster, in their order (see ``Unit``)."""
    return _units_of(tuple(pods), {group.name: group for group in groups})


def _all_units(cluster: Cluster) -> list[Unit]:
    """Every running unit, in cluster order (of each unit's first pod)."""
    return _units_of(cluster.running_pods, cluster.running_groups)


def _units_of(running_pods: Sequence[RunningPod], running_groups: Mapping[str, RunningGroup]) -> list[Unit]:
    """The units of ``running_pods``, whose groups are ``running_groups`` by name, in order of their first pod."""
    members: dict[str, list[RunningPod]] = {}
    heads: dict[str, tuple[str, int, int]] = {}
    for pod in running_pods:
        group = running_groups.get(pod.group) if pod.group else None
        chain = _ancestry(running_groups, group)
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


def _ancestry(running_groups: Mapping[str, RunningGroup], group: RunningGroup | None) -> list[RunningGroup]:
    """``group`` and its ancestors, nearest first (stopping at a missing parent or a cycle)."""
    chain: list[RunningGroup] = []
    seen: set[str] = set()
    while group is not None and group.name not in seen:
        seen.add(group.name)
        chain.append(group)
        group = running_groups.get(group.parent) if group.parent else None
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
