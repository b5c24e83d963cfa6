"""``place``: run a strategy over every root of a request, with optional preemption, and build the answer.

Roots are separate scheduling cycles, in creation order: each sees what the
earlier ones placed (and evicted). A root short of its quorum is not tried,
as kube-scheduler's queue would not admit it.
"""

from __future__ import annotations

from typing import Any

from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.placement.answer import ClaimPlacement, GroupPlacement, Placement, PodPlacement, Victim
from workloadbuilder.placement.cluster import Cluster, Domain
from workloadbuilder.placement.complete import DEFAULT_TIMEOUT, Complete
from workloadbuilder.placement.explain import RootReport, admissible, count_of, explain_root
from workloadbuilder.placement.kube_scheduler import KubeScheduler, needed
from workloadbuilder.placement.outcome import Outcome
from workloadbuilder.placement.preemption import Unit, preempt, units_below
from workloadbuilder.placement.quantity import format_millis
from workloadbuilder.placement.request import PlacementRequest
from workloadbuilder.placement.snapshot import Snapshot

__all__ = ["STRATEGIES", "place"]

STRATEGIES = ("kube-scheduler", "complete")


def place(
    request: PlacementRequest,
    cluster: Cluster,
    strategy: str = "kube-scheduler",
    preempt: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
) -> Placement:
    """Where ``request`` lands on ``cluster``, or why it does not.

    Args:
        request: the groups to place (``PlacementRequest.from_groups``).
        cluster: the modelled cluster; it is not changed.
        strategy: ``"kube-scheduler"`` (what kube-scheduler 1.37 does) or
            ``"complete"`` (a placement whenever one exists, a proof when
            none does, within ``timeout``).
        preempt: evict lower-priority running groups and pods when that is
            what it takes (workload-aware preemption); without it, the
            explanation still says whether preemption would help.
        timeout: seconds the complete strategy's exact search may spend in
            this call, over every root and preemption attempt; a search cut
            short says so and proves nothing.

    Raises:
        InvalidArgumentError: an unknown strategy or a timeout that is not positive.
        MissingDependencyError: the complete strategy has to search and
            OR-tools (the ``solver`` extra) is not installed.
    """
    if strategy not in STRATEGIES:
        raise InvalidArgumentError(f"unknown strategy {strategy!r}: use one of {', '.join(STRATEGIES)}")
    if not timeout > 0:
        raise InvalidArgumentError(f"timeout must be a positive number of seconds, got {timeout!r}")
    snap = Snapshot(cluster)
    runner = _Runner(snap, strategy, timeout)
    reports: list[RootReport] = []
    gone: set[str] = set()
    for root in request.roots:
        if not admissible(root):
            reports.append(RootReport(root, Outcome(False)))
            continue
        report = runner.attempt(root)
        if report.outcome.success:
            reports.append(report)
            continue
        candidates = units_below(cluster, root.priority, gone)
        if preempt:
            evicted = _preempt(snap, runner, root, candidates)
            if evicted is not None:
                # the first attempt's trace and search describe a cluster without the evictions
                report = RootReport(root, evicted[0], victims=evicted[1])
                gone.update(unit.name for unit in evicted[1])
            else:
                report.preemption = _would_help(None, candidates, asked=True)
        else:
            mark = snap.mark()
            probe = _preempt(snap, runner, root, candidates)
            snap.revert(mark)
            report.preemption = _would_help(probe, candidates, asked=False)
        reports.append(report)
    return _answer(request, cluster, snap, strategy, reports, runner.kube)


class _Runner:
    """One strategy, run root by root in the same snapshot."""

    def __init__(self, snap: Snapshot, strategy: str, timeout: float) -> None:
        self.complete = Complete(snap, timeout) if strategy == "complete" else None
        self.kube = self.complete.kube if self.complete is not None else KubeScheduler(snap)

    def attempt(self, root: Any) -> RootReport:
        if self.complete is not None:
            outcome, trace, search = self.complete.schedule(root)
            return RootReport(root, outcome, trace, search)
        outcome, trace = self.kube.schedule(root)
        return RootReport(root, outcome, trace)

    def outcome(self, root: Any) -> Outcome:
        return self.attempt(root).outcome


def _preempt(snap: Snapshot, runner: _Runner, root: Any, candidates: list[Unit]) -> tuple[Outcome, list[Unit]] | None:
    result = preempt(snap, candidates, lambda: runner.outcome(root))
    return None if result is None else (result.outcome, result.units)


def _would_help(probe: tuple[Outcome, list[Unit]] | None, candidates: list[Unit], asked: bool) -> dict[str, Any]:
    if not candidates:
        return {
            "wouldHelp": False,
            "victims": [],
            "pods": 0,
            "text": "preemption cannot help: nothing of lower priority runs",
        }
    if probe is None:
        return {
            "wouldHelp": False,
            "victims": [],
            "pods": 0,
            "text": "preemption would not help: even evicting every lower-priority unit "
            f"({count_of(len(candidates), 'unit')}) leaves it unplaceable",
        }
    units = probe[1]
    pods = sum(len(unit.pods) for unit in units)
    top = max((unit.priority for unit in units), default=0)
    verb = "evicts" if asked else "would help: evicting"
    return {
        "wouldHelp": True,
        "victims": [unit.name for unit in units],
        "pods": pods,
        "text": f"preemption {verb} {count_of(len(units), 'unit')} ({count_of(pods, 'pod')}, priority up to {top})",
    }


def _answer(
    request: PlacementRequest,
    cluster: Cluster,
    snap: Snapshot,
    strategy: str,
    reports: list[RootReport],
    kube: KubeScheduler,
) -> Placement:
    groups: list[GroupPlacement] = []
    victims: list[Victim] = []
    explained = []
    left: dict[int, dict[str, str]] = {}
    for report in reports:
        results = report.outcome.results if report.outcome.success else {}
        for group in report.root.walk():
            placement = GroupPlacement(group.name, group.kind, group.template, group.parent, needed(group))
            result = results.get(group.name)
            if result is not None:
                placement.domains = dict(result.domains)
                placement.pods = [
                    PodPlacement(group.pod_names[k], cluster.names[i]) for k, i in enumerate(result.nodes)
                ]
                placement.claims = [
                    ClaimPlacement(name, allocation.devices) for name, allocation in sorted(result.claims.items())
                ]
                placement.capacity_left = _left(snap, result.domain, group, kube, left)
            groups.append(placement)
        for unit in report.victims or []:
            pods = [PodPlacement(pod.name, cluster.names[pod.node]) for pod in unit.pods]
            victims.append(Victim(unit.name, unit.kind, unit.priority, pods))
        explained.append(explain_root(report, snap, kube))
    feasible = all(report.outcome.success for report in reports)
    lines = [f"{'feasible' if feasible else 'not feasible'} ({strategy})"]
    for entry in explained:
        lines += [f"- {line}" for line in entry["text"]]
    summary = lines[0] + ": " + "; ".join(entry["text"][0] for entry in explained if entry["text"])
    explanation = {"summary": summary, "roots": explained}
    return Placement(feasible, strategy, groups, victims, explanation, "\n".join(lines))


def _left(
    snap: Snapshot, domain: Domain, group: Any, kube: KubeScheduler, cache: dict[int, dict[str, str]]
) -> dict[str, str]:
    """Free capacity in the group's domain after everything, for the resources its pods request."""
    wanted = {"pods"}
    for member in group.walk():
        if member.is_leaf:
            wanted.update(resource for resource, amount in member.requests.items() if amount > 0)
    free = cache.get(domain.uid)
    if free is None:
        sums = snap.free_sum(domain)
        free = cache[domain.uid] = {
            resource: format_millis(resource, sums[r]) for r, resource in enumerate(snap.cluster.resources)
        }
    return {resource: free[resource] for resource in snap.cluster.resources if resource in wanted}
