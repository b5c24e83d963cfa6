"""Verdict tiers: is a placement's failure a matter of time, of preemption, or of configuration.

``verdict(request, cluster, answer)`` classifies the answer ``place`` gave:

- ``placeable``: placed now, evicting nothing;
- ``placeable-after-preemption``: placed by evicting ``victims`` (the
  answer's, or those ``place(..., preempt=True)`` picks);
- ``waiting-for-capacity``: not now, but it fits this cluster once the
  running work of lower or equal priority is gone (or, failing that, once
  all running work is gone and cordoned nodes are back);
- ``never``: it does not fit even this cluster emptied of every running pod
  with every node uncordoned; ``cause`` says why (a pod larger than any
  node, a topology key no node carries, or the engine's reason);
- ``invalid``: the request did not validate (``Verdict.invalid(error)``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from workloadbuilder.placement.answer import Placement
from workloadbuilder.placement.cluster import Cluster
from workloadbuilder.placement.engine import place
from workloadbuilder.placement.priorities import PriorityClass
from workloadbuilder.placement.quantity import format_millis
from workloadbuilder.placement.request import PlacementRequest

__all__ = ["TIERS", "Verdict", "verdict"]

TIERS = ("placeable", "placeable-after-preemption", "waiting-for-capacity", "never", "invalid")
"""Every tier, best first; only ``placeable`` exits 0 on the command line."""


@dataclass(frozen=True)
class Verdict:
    """One tier, the victims preemption would take (by name) and, for ``never``/``invalid``, the cause."""

    tier: str
    victims: tuple[str, ...] = ()
    cause: str | None = None

    @classmethod
    def invalid(cls, error: Exception) -> Verdict:
        """The verdict on a request that did not validate (``error``: its ``AggregateError``)."""
        return cls("invalid", cause=str(error).replace("\n", "; "))

    @property
    def exit_code(self) -> int:
        """0 for ``placeable``, 1 for every other tier."""
        return 0 if self.tier == "placeable" else 1

    def to_dict(self) -> dict[str, Any]:
        """The JSON value of the ``verdict`` key: ``tier``, ``victims``, ``cause``."""
        return {"tier": self.tier, "victims": list(self.victims), "cause": self.cause}

    @property
    def text(self) -> str:
        """One line: ``verdict: TIER`` with the victims or the cause."""
        line = f"verdict: {self.tier}"
        if self.victims:
            line += f" (evicting {', '.join(self.victims)})"
        if self.cause:
            line += f": {self.cause}"
        return line


def verdict(
    request: PlacementRequest,
    cluster: Cluster,
    answer: Placement,
    priority_classes: Iterable[PriorityClass | Mapping[str, Any]] = (),
) -> Verdict:
    """The tier of ``answer``, which ``place(request, cluster, ..., priority_classes)`` returned.

    Places ``request`` again (on the same cluster with preemption, then on
    emptied copies of it) only as far as the tier needs; ``cluster`` and
    ``answer`` are not changed.
    """
    if answer.feasible:
        victims = tuple(victim.name for victim in answer.victims)
        return Verdict("placeable-after-preemption", victims) if victims else Verdict("placeable")
    classes = list(priority_classes)
    preempted = place(request, cluster, answer.strategy, preempt=True, priority_classes=classes)
    if preempted.feasible:
        return Verdict("placeable-after-preemption", tuple(victim.name for victim in preempted.victims))
    ceiling = max((root.priority for root in request.roots), default=0)
    if place(
        request, _without_pods(cluster, ceiling, uncordon=False), answer.strategy, priority_classes=classes
    ).feasible:
        return Verdict("waiting-for-capacity")
    empty = _without_pods(cluster, None, uncordon=True)
    if place(request, empty, answer.strategy, priority_classes=classes).feasible:
        return Verdict("waiting-for-capacity")
    return Verdict("never", cause=_cause(request, empty, classes))


def _without_pods(cluster: Cluster, ceiling: int | None, *, uncordon: bool) -> Cluster:
    """A copy of ``cluster`` without the running pods of priority <= ``ceiling`` (all of them for ``None``)."""
    used = [list(column) for column in cluster.used]
    kept = []
    for pod in cluster.running_pods:
        if ceiling is None or pod.priority <= ceiling:
            for r, amount in enumerate(pod.requests):
                used[r][pod.node] -= amount
        else:
            kept.append(pod)
    if ceiling is None:
        used = [[0] * len(column) for column in used]
    return Cluster(
        list(cluster.names),
        [dict(labels) for labels in cluster.labels],
        cluster.resources,
        [list(column) for column in cluster.allocatable],
        used,
        schedulable=[True] * len(cluster.names) if uncordon else list(cluster.schedulable),
        pools=cluster.pools,
        running_pods=kept,
        running_groups=cluster.running_groups.values(),
        taints=list(cluster.taints),  # taints are configuration: they stay
        priority_classes=(cluster.priority_classes[name] for name in cluster.priority_classes),
        disruption_budgets=cluster.disruption_budgets,
    )


def _cause(request: PlacementRequest, empty: Cluster, classes: list[PriorityClass | Mapping[str, Any]]) -> str:
    """Why ``request`` fits no arrangement of ``empty``: the first configuration error found, else the engine's."""
    for group in request.groups:
        if group.topology_key and all(group.topology_key not in labels for labels in empty.labels):
            return f"no node carries the topology key {group.topology_key} that {group.name!r} requires"
        for resource, amount in sorted(group.requests.items()):
            r = empty.resource_index.get(resource)
            largest = max(empty.allocatable[r], default=0) if r is not None else 0
            if amount > largest:
                return (
                    f"a pod of {group.name!r} requests {format_millis(resource, amount)} {resource}; "
                    f"the largest node has {format_millis(resource, largest)}"
                )
    lines = [line.removeprefix("- ") for line in place(request, empty, priority_classes=classes).text.splitlines()[1:]]
    reasons = [line for line in lines if not line.startswith("preemption") and not line.endswith("cannot be placed")]
    return "even with no pod running: " + "; ".join(reasons or lines)
