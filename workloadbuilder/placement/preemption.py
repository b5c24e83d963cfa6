"""Workload-aware preemption (KEP-5710): which running groups and pods a gang would evict.

Victims are running units of lower priority than the preemptor. A unit is
a pod on its own, a PodGroup with ``disruptionMode: all``, or, when a
CompositePodGroup ancestor has ``all``, the highest such ancestor with
everything under it; the pods of ``single`` groups are units one by one.

As upstream: remove every candidate, run the placement once, then reprieve
candidates from the most to the least important (priority, then
CompositePodGroup over PodGroup over pod, then more pods, then started
earlier, then name), keeping a reprieve whenever everything placed still
fits. The placement is not searched again for fewer victims (upstream's
documented trade-off).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from workloadbuilder.placement.cluster import Cluster, RunningGroup, RunningPod
from workloadbuilder.placement.outcome import Outcome
from workloadbuilder.placement.snapshot import Snapshot

__all__ = ["Unit", "Victims", "preempt", "units_below"]

_KIND_RANK = {"CompositePodGroup": 0, "PodGroup": 1, "Pod": 2}


@dataclass(frozen=True)
class Unit:
    """What preemption evicts at once."""

    name: str
    kind: str
    priority: int
    pods: tuple[RunningPod, ...]
    start: str = ""

    def importance(self) -> tuple[object, ...]:
        """Sort key, most important first."""
        return (-self.priority, _KIND_RANK[self.kind], -len(self.pods), self.start == "", self.start, self.name)


@dataclass
class Victims:
    """The outcome of preemption: the placement found and the units it evicts."""

    outcome: Outcome
    units: list[Unit]


def units_below(cluster: Cluster, priority: int, gone: Iterable[str] = ()) -> list[Unit]:
    """Every running unit of lower priority than ``priority``, except those in ``gone``."""
    members: dict[str, list[RunningPod]] = {}
    heads: dict[str, tuple[str, int, str]] = {}
    for pod in cluster.running_pods:
        group = cluster.running_groups.get(pod.group) if pod.group else None
        top = _all_mode_ancestor(cluster, group)
        if top is not None:
            key = top.name
            heads[key] = (top.kind, top.priority, top.start)
        else:
            key = pod.name
            heads[key] = ("Pod", group.priority if group is not None else pod.priority, pod.start)
        members.setdefault(key, []).append(pod)
    skip = set(gone)
    out = []
    for name, pods in members.items():
        kind, unit_priority, start = heads[name]
        if unit_priority < priority and name not in skip:
            out.append(Unit(name, kind, unit_priority, tuple(pods), start))
    return out


def _all_mode_ancestor(cluster: Cluster, group: RunningGroup | None) -> RunningGroup | None:
    """The highest group at or above ``group`` whose disruption mode is ``all``."""
    top = None
    seen: set[str] = set()
    while group is not None and group.name not in seen:
        seen.add(group.name)
        if group.disruption_mode == "all":
            top = group
        group = cluster.running_groups.get(group.parent) if group.parent else None
    return top


def preempt(snap: Snapshot, candidates: list[Unit], place: Callable[[], Outcome]) -> Victims | None:
    """Evict what ``place`` needs from ``candidates``; ``None`` (and nothing changed) if even all of them do not help.

    On success the placement stays assumed and the victims stay removed in
    the snapshot.
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
    victims = []
    for unit in sorted(candidates, key=Unit.importance):
        reprieve = snap.mark()
        _give_back(snap, unit, 1)
        if any(min(snap.free(i)) < 0 for i in {pod.node for pod in unit.pods}):
            snap.revert(reprieve)
            victims.append(unit)
    return Victims(outcome, victims)


def _give_back(snap: Snapshot, unit: Unit, sign: int) -> None:
    """Add (``sign=1``) or remove (``-1``) a unit's pods on their nodes."""
    for pod in unit.pods:
        snap.add(pod.node, pod.requests, sign)
