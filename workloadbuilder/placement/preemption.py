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

Capacity is signed, so putting back a pod on a node that was over-committed
before preemption makes it over-committed again, and evicting less than a
node's debt frees nothing there. Pods on cordoned nodes are never removed:
no preemptor pod can land there (NodeUnschedulable), so evicting them
cannot help. The placement is not searched again for fewer victims
(upstream's documented trade-off).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from workloadbuilder.placement.cluster import Cluster, RunningGroup, RunningPod
from workloadbuilder.placement.disruption import DisruptionBudget, split_violating
from workloadbuilder.placement.outcome import Outcome
from workloadbuilder.placement.request import GroupRequest
from workloadbuilder.placement.snapshot import Shape, Snapshot

__all__ = ["Unit", "Victims", "preempt", "units_below"]

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
    skip = set(gone)
    out = []
    for name, pods in members.items():
        kind, unit_priority, rank = heads[name]
        if unit_priority < priority and name not in skip:
            start = min((pod.start for pod in pods if pod.start), default="")
            out.append(Unit(name, kind, unit_priority, tuple(pods), rank, start))
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


def preempt(
    snap: Snapshot,
    root: GroupRequest,
    candidates: list[Unit],
    place: Callable[[], Outcome],
    shapes_of: Callable[[GroupRequest], list[tuple[Shape, int]]],
    budgets: Sequence[DisruptionBudget] = (),
) -> Victims | None:
    """Evict what placing ``root`` needs from ``candidates``; ``None`` (and nothing changed) if even all do not help.

    ``shapes_of`` gives each PodGroup's pod shapes with their pod counts, in
    the order its pods are placed; the reprieve checks their resources. On
    success the placement stays assumed and the victims stay removed in the
    snapshot; ``Victims.units`` is ordered from the most important.
    """
    if not candidates:
        return None
    mark = snap.mark()
    for unit in candidates:
        _give_back(snap, unit, -1)
    outcome = place()
    if not outcome.success:
        snap.revert(mark)
        return None
    checked = _checked_resources(root, outcome, shapes_of)
    ordered = sorted(candidates, key=Unit.importance)
    violating, other = split_violating(ordered, budgets)
    victims: list[Unit] = []
    for unit in [*violating, *other]:
        reprieve = snap.mark()
        _give_back(snap, unit, 1)
        if not _still_fits(snap, unit, checked):
            snap.revert(reprieve)
            victims.append(unit)
    victims.sort(key=Unit.importance)
    evicted = {unit.name for unit in victims}
    return Victims(outcome, victims, [unit for unit in violating if unit.name in evicted])


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


def _still_fits(snap: Snapshot, unit: Unit, checked: dict[int, set[int]]) -> bool:
    """Whether every placed pod still passes with ``unit`` back: no checked resource of its nodes goes negative."""
    for i in unit.nodes:
        resources = checked.get(i)
        if resources:
            free = snap.free(i)
            if any(free[r] < 0 for r in resources):
                return False
    return True


def _give_back(snap: Snapshot, unit: Unit, sign: int) -> None:
    """Add (``sign=1``) or remove (``-1``) a unit's pods on their nodes; pods on cordoned nodes stay."""
    schedulable = snap.cluster.schedulable
    for pod in unit.pods:
        if schedulable[pod.node]:
            snap.add(pod.node, pod.requests, sign)
