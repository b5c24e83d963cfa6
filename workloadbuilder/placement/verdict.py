"""Verdict tiers: is a placement's failure a matter of time, of preemption, or of configuration.

``verdict(request, cluster, answer)`` classifies the answer ``place`` gave:

- ``placeable``: placed now, evicting nothing;
- ``placeable-after-preemption``: placed by evicting ``victims`` (the
  answer's, or those ``place(..., preempt=True)`` picks);
- ``waiting-for-capacity``: not now, but it fits this cluster once the
  running work of lower or equal priority is gone (or, failing that, once
  all running work is gone and cordoned nodes are back);
- ``unreachable``: kube-scheduler's algorithm finds no placement, as
  submitted, even on this cluster emptied, but an arrangement exists: the
  complete strategy's search found one on the emptied cluster (and says
  whether it is there on the cluster as given); ``cause`` names the arrangement, why kube-scheduler's
  greedy order misses it and what to change. Only a ``kube-scheduler``
  answer gets this tier, and only where OR-tools is installed (without it,
  the tier stays ``never``);
- ``never``: it does not fit even this cluster emptied of every running pod
  with every node uncordoned, in any arrangement the answer's strategy
  knows of; ``cause`` says why (a pod larger than any node, a topology key
  no node carries, or the engine's reason);
- ``undecided``: the complete strategy's search reached its time bound
  before the tier was settled (a search cut short proves nothing, so the
  answer is neither placed nor ``never``); ``cause`` says where;
- ``invalid``: the request did not validate (``Verdict.invalid(error)``).

Every placement made here uses the answer's strategy, so the verdict never
rests on another strategy's reasoning (but for ``unreachable``, whose
point is that the complete search finds what kube-scheduler's does not); ``timeout`` bounds all of them
together (the complete strategy's searches share what is left of it), and a
bound reached before the tier is settled makes it ``undecided``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from workloadbuilder._internal.arguments import NUMBER, check_fields, check_type
from workloadbuilder.errors import MissingDependencyError
from workloadbuilder.placement.answer import Placement
from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.engine import place
from workloadbuilder.placement.explain.podgroup import UNSCHEDULABLE
from workloadbuilder.placement.explain.wording import short_key
from workloadbuilder.placement.k8s.priorities import PriorityClass
from workloadbuilder.placement.k8s.quantity import format_millis
from workloadbuilder.placement.request.model import PlacementRequest
from workloadbuilder.placement.strategies.complete import DEFAULT_TIMEOUT

__all__ = ["TIERS", "Verdict", "verdict"]

TIERS = (
    "placeable",
    "placeable-after-preemption",
    "waiting-for-capacity",
    "unreachable",
    "never",
    "undecided",
    "invalid",
)
"""Every tier, best first; only ``placeable`` exits 0 on the command line."""


@dataclass(frozen=True)
class Verdict:
    """One tier, the victims preemption would take (by name) and, past ``waiting-for-capacity``, the cause."""

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

    def __post_init__(self) -> None:
        check_fields(self)


def verdict(
    request: PlacementRequest,
    cluster: Cluster,
    answer: Placement,
    priority_classes: Iterable[PriorityClass | Mapping[str, Any]] = (),
    timeout: float = DEFAULT_TIMEOUT,
    *,
    since: float | None = None,
) -> Verdict:
    """The tier of ``answer``, which ``place(request, cluster, ..., timeout=timeout, priority_classes=...)`` returned.

    Places ``request`` again (on the same cluster with preemption, then on
    emptied copies of it), with the answer's strategy, only as far as the
    tier needs; ``cluster`` and ``answer`` are not changed. What preemption
    does for a one-root request is read from ``answer``'s own report, which
    ``place`` made with the same victim search, instead of placing again. With the complete
    strategy, ``timeout`` is what all those placements may spend together,
    counted from ``since`` (a ``time.monotonic()`` reading; default: now):
    a command passes when its own bound started, so that ``place`` and the
    verdict share it.

    Raises:
        TypeError: an argument of the wrong type (named).
    """
    check_type("verdict", "request", request, PlacementRequest)
    check_type("verdict", "cluster", cluster, Cluster)
    check_type("verdict", "answer", answer, Placement)
    check_type("verdict", "priority_classes", priority_classes, Iterable, "an iterable of PriorityClass")
    check_type("verdict", "timeout", timeout, NUMBER, "a number of seconds")
    check_type("verdict", "since", since, (*NUMBER, type(None)), "a time.monotonic() reading or None")
    if answer.feasible:
        victims = tuple(victim.name for victim in answer.victims)
        return Verdict("placeable-after-preemption", victims) if victims else Verdict("placeable")
    classes = list(priority_classes)
    deadline = (time.monotonic() if since is None else since) + timeout

    def again(on: Cluster, preempt: bool = False) -> Placement:
        left = max(deadline - time.monotonic(), 0.001)
        return place(request, on, answer.strategy, preempt=preempt, timeout=left, priority_classes=classes)

    probed = _probed_victims(request, answer)
    if probed:
        return Verdict("placeable-after-preemption", probed)
    if probed is None:  # the answer does not settle it: place again, evicting
        preempted = again(cluster, preempt=True)
        if preempted.feasible and preempted.victims:
            return Verdict("placeable-after-preemption", tuple(victim.name for victim in preempted.victims))
        if preempted.feasible or _cut_short(preempted):  # placeable without evicting, or not ruled out: not settled
            return _undecided(timeout, "on this cluster")
    ceiling = max((root.priority for root in request.roots), default=0)
    emptied = again(_without_pods(cluster, ceiling, uncordon=False))
    if emptied.feasible:
        return Verdict("waiting-for-capacity")
    empty_cluster = _without_pods(cluster, None, uncordon=True)
    empty = again(empty_cluster)
    if empty.feasible:
        return Verdict("waiting-for-capacity")
    if _cut_short(emptied):
        return _undecided(timeout, "without the running work of lower or equal priority")
    if _cut_short(empty):
        return _undecided(timeout, "on the emptied cluster")
    if answer.strategy == "kube-scheduler":
        # One search decides the tier; a second, only where the cluster as given differs from the emptied one,
        # says whether the arrangement is there already.
        found = _arrangement(request, empty_cluster, classes, deadline)
        if found is not None:
            differs = any(any(column) for column in cluster.used) or not all(cluster.schedulable)
            here = _arrangement(request, cluster, classes, deadline) if differs else found
            where = "on this cluster" if here is not None else "on this cluster emptied"
            return Verdict("unreachable", cause=_unreachable_cause(here or found, where))
    return Verdict("never", cause=_cause(request, empty_cluster, empty))


def _arrangement(
    request: PlacementRequest, on: Cluster, classes: list[PriorityClass | Mapping[str, Any]], deadline: float
) -> Placement | None:
    """The complete strategy's placement of ``request`` on ``on`` within ``deadline``, or ``None``.

    ``None`` also when OR-tools is missing or the search was cut short: then
    nothing is known beyond kube-scheduler's own answer.
    """
    left = deadline - time.monotonic()
    if left <= 0:
        return None
    try:
        found = place(request, on, "complete", timeout=left, priority_classes=classes)
    except MissingDependencyError:
        return None
    return found if found.feasible else None


def _unreachable_cause(found: Placement, where: str) -> str:
    """What an ``unreachable`` verdict says: the arrangement, why kube-scheduler misses it, what to change."""
    domains = [
        f"`{group.name}` in " + ", ".join(f"{short_key(key)} {value}" for key, value in group.domains.items())
        for group in found.groups
        if group.domains
    ]
    because = [
        gap.split(", because ", 1)[1] for root in found.explained if (gap := root.greedy_gap) and ", because " in gap
    ]
    arrangement = f" ({'; '.join(domains)})" if domains else ""
    parts = [f"kube-scheduler will not place it as submitted, but an arrangement exists {where}{arrangement}"]
    if because:
        parts.append("kube-scheduler's greedy order misses it because " + "; ".join(because))
    if any("first-fit" in reason for reason in because):
        parts.append(
            "to reach it, narrow the claim's devices (a selector) to those every pod of the group can reach,"
            " so that the first pod's first-fit choice leaves room for the rest"
            " (`--strategy complete` shows the whole arrangement)"
        )
    else:
        parts.append(
            "to reach it, change the order of the groups or loosen a topology key so that kube-scheduler's"
            " in-order choice leaves room for the rest (`--strategy complete` shows the whole arrangement)"
        )
    return "; ".join(parts)


def _probed_victims(request: PlacementRequest, answer: Placement) -> tuple[str, ...] | None:
    """What preemption does for a one-root request, read from ``answer`` instead of placing again.

    ``place`` already ran the root's PodGroupPostFilter: it evicted (with
    ``preempt``) or probed what evicting would do, with the same victim
    search. For one root, placing again with ``preempt=True`` finds what that
    report says. Returns the victims when evicting them places the root, ``()``
    when preemption does not help, and ``None`` when the answer does not
    settle it (several roots, whose evictions change each other's cluster; a
    root never tried, so with no report; a search cut short).
    """
    if len(request.roots) != 1 or len(answer.explained) != 1 or _cut_short(answer):
        return None
    report = answer.explained[0].preemption
    if report is None:
        return None
    return report.victims if report.would_help else ()


def _cut_short(answer: Placement) -> bool:
    """Whether the complete strategy's search of some root reached its time bound in ``answer``."""
    return any(root.search is not None and root.search.timed_out for root in answer.explained)


def _undecided(bound: float, where: str) -> Verdict:
    """The tier of a question a search cut short left open: it names the bound and where it was hit."""
    return Verdict("undecided", cause=f"the complete search reached its time bound ({bound:g} s) {where}")


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


def _cause(request: PlacementRequest, empty: Cluster, answer: Placement) -> str:
    """Why ``request`` fits no arrangement of ``empty``: the first configuration error found, else ``answer``'s reasons.

    ``answer`` is the placement on ``empty`` with the original answer's
    strategy, so a complete answer's cause is the complete strategy's; the
    reasons are the failing roots' explanation lines but their first (which
    only says the root is not placed), the preemption line and the pod-group
    messages of kube-scheduler's events (its levels line says the same).
    """
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
    lines: list[str] = []
    reasons: list[str] = []
    failing = [root for root in answer.explained if not root.feasible]
    for root in failing[:_ROOTS_EXPLAINED]:
        lines += root.text
        preemption = root.preemption.text if root.preemption is not None else None
        # the node-by-node counts of a level's best domains detail its line; the cause keeps the line
        detail = {f"`{level.group}`: {domain.text}" for level in root.levels for domain in level.exclusions}
        # the events restate the level line; a FitError stays where no pod of its group fit the first placement
        partial = {entry.group for entry in root.fit_errors if _SOME_SCHEDULED.search(entry.message)}
        detail |= {
            f"`{entry.group}` pod `{entry.pod}`: {entry.message}"
            for entry in root.fit_errors
            if entry.message.startswith(UNSCHEDULABLE) or entry.group in partial
        }
        reasons += [line for line in root.text[1:] if line != preemption and line not in detail]
    cause = "even with no pod running: " + "; ".join(reasons or lines)
    if len(failing) > _ROOTS_EXPLAINED:  # one line: thousands of roots would make it megabytes long
        cause += f"; and {len(failing) - _ROOTS_EXPLAINED} more roots not placed"
    return cause


_SOME_SCHEDULED = re.compile(r"cannot be satisfied: [1-9][0-9]* scheduled")
"""A pod-group status whose first placement took some of the gang's pods."""

_ROOTS_EXPLAINED = 8
"""The failing roots whose reasons a ``never`` cause lists (the explanation has every one)."""
