"""``place``: run a strategy over every root of a request, with optional preemption, and build the answer.

Roots are separate scheduling cycles, in kube-scheduler's queue order
(higher priority first, then creation order; ``framework.queue.queue_order``):
each sees what the earlier ones placed (and evicted), and is explained
right after its cycle, on the cluster as it saw it. Priorities are
resolved first, from the cluster's PriorityClasses and any given here. A
root short of its quorum is not tried, as kube-scheduler's queue would not
admit it. The answer lists roots in request order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from workloadbuilder._internal.collector import quiet_gc
from workloadbuilder._internal.gofmt import capped, render_bad_value
from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.field import ErrorList
from workloadbuilder.limits import MAX_TIMEOUT
from workloadbuilder.placement.answer import (
    ClaimPlacement,
    GroupPlacement,
    Placement,
    PodList,
    PodPlacement,
    RootExplanation,
    Victim,
)
from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.cluster.topology import Domain
from workloadbuilder.placement.explain.preemption import report as preemption_report
from workloadbuilder.placement.explain.root import RootReport, explain_root
from workloadbuilder.placement.explain.stages import unusable_reasons, usable_mask
from workloadbuilder.placement.framework.outcome import Outcome
from workloadbuilder.placement.framework.preemption import Candidates, Unit, Victims, candidates_below, preempt
from workloadbuilder.placement.framework.queue import admissible, queue_order, resolve_request
from workloadbuilder.placement.framework.sampling import NodeSampling
from workloadbuilder.placement.framework.snapshot import Block, Snapshot, slots_of
from workloadbuilder.placement.k8s.priorities import (
    PREEMPT_NEVER,
    PriorityClass,
    read_priority_classes,
)
from workloadbuilder.placement.k8s.quantity import format_millis
from workloadbuilder.placement.request.model import GroupRequest, PlacementRequest
from workloadbuilder.placement.strategies.complete import DEFAULT_TIMEOUT, Complete
from workloadbuilder.placement.strategies.kube_scheduler import KubeScheduler

__all__ = ["STRATEGIES", "Cycle", "Session", "cycles", "place"]

STRATEGIES = ("kube-scheduler", "complete")


def place(
    request: PlacementRequest,
    cluster: Cluster,
    strategy: str = "kube-scheduler",
    preempt: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
    priority_classes: Iterable[PriorityClass | Mapping[str, Any]] = (),
    *,
    score_all_nodes: bool = True,
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
        priority_classes: PriorityClasses beyond the cluster's (``PriorityClass``
            records or ``scheduling.k8s.io/v1`` objects), for the groups'
            ``priorityClassName``.
        score_all_nodes: score every feasible node of a placement for each
            pod (``True``), or only those kube-scheduler's node sampling
            finds (``False``: in placements of 100 nodes or more, the first
            ``numFeasibleNodesToFind`` from a start that rotates from pod to
            pod, beginning at 0 as a new scheduler does; see
            ``framework.sampling``). Only where pods land can differ.

    Raises:
        TypeError: an argument of the wrong type (named).
        InvalidArgumentError: an unknown strategy, or a timeout that is not a
            positive number of seconds up to ``limits.MAX_TIMEOUT``.
        AggregateError: a malformed PriorityClass, at ``priorityClasses[i]``.
        PriorityError: a group's priority that admission would reject (an unknown class).
        MissingDependencyError: the complete strategy has to search and
            OR-tools (the ``solver`` extra) is not installed.
    """
    _check_arguments(request, cluster, strategy, preempt, timeout)
    if not isinstance(score_all_nodes, bool):
        raise TypeError(f"place(): score_all_nodes must be a bool, not {type(score_all_nodes).__name__}")
    resolve_request(request, cluster.priority_classes.with_classes(_classes(priority_classes)))
    with quiet_gc():
        return _place(request, cluster, strategy, preempt, timeout, None if score_all_nodes else NodeSampling())


@dataclass
class Cycle:
    """One root's scheduling cycle as ``cycles`` ran it, without an explanation.

    ``outcome.results`` holds each placed group's nodes as indexes of the
    cluster ``cycles`` was given (and its pods' names where they are not the
    group's first pods in order); ``victims`` are the units preemption
    evicted for the root, or ``None``; ``timed_out`` says the complete
    strategy's search reached its time bound on it.
    """

    root: GroupRequest
    outcome: Outcome
    victims: list[Unit] | None = None
    timed_out: bool = False

    @property
    def placed(self) -> bool:
        """Whether some pod of the root was placed (a root is placed all or nothing)."""
        return self.outcome.success and any(result.nodes for result in self.outcome.results.values())


def cycles(
    request: PlacementRequest,
    cluster: Cluster,
    strategy: str = "kube-scheduler",
    preempt: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
    priority_classes: Iterable[PriorityClass | Mapping[str, Any]] = (),
    stop: Callable[[int, Cycle], bool] | None = None,
    *,
    score_all_nodes: bool = True,
) -> list[Cycle]:
    """``place``'s scheduling cycles with neither explanations nor an answer, for callers that place many times.

    The roots of ``request`` go in queue order on one snapshot of
    ``cluster``, each seeing what the earlier ones placed and evicted, as in
    ``place``: where a root lands and what it evicts are ``place``'s. The
    cycles come back in queue order. ``stop(position, cycle)``, called after
    each cycle with its position in queue order, ends the run when true.
    ``score_all_nodes`` is ``place``'s (node sampling starts at index 0 in
    each call).

    Raises ``place``'s errors, for the same arguments.
    """
    _check_arguments(request, cluster, strategy, preempt, timeout)
    resolve_request(request, cluster.priority_classes.with_classes(_classes(priority_classes)))
    out: list[Cycle] = []
    with quiet_gc():
        cluster = cluster.with_slots(slot for pod in request.pod_constraints() for slot in slots_of(pod))
        snap = Snapshot(cluster)
        runner = _Runner(snap, strategy, timeout, None if score_all_nodes else NodeSampling())
        gone: set[str] = set()
        for position, root in enumerate(queue_order(request.roots)):
            report = _cycle(snap, runner, root, preempt, gone, explain=False)
            timed_out = report.search is not None and report.search.timed_out
            out.append(Cycle(root, report.outcome, report.victims, timed_out))
            if report.victims:
                gone.update(unit.name for unit in report.victims)
            if stop is not None and stop(position, out[-1]):
                break
    return out


class Session:
    """Scheduling cycles, one root at a time, on one snapshot of a cluster that lives across cycles.

    A placed root's pods stay assumed in the snapshot, and so do preemption's
    evictions, as between the roots of one ``place``; ``take`` adds or
    removes running pods in between (a copy that ends, say). A cycle here
    is the cycle ``cycles`` runs on a cluster whose usage is the session's
    cluster plus everything assumed since. Preemption evicts from the
    candidates the caller gives, which must be the units running on the
    snapshot as it is; the filters read no other running pod than the
    cluster's own, so pods whose filters read running pods (inter-pod
    affinity, topology spread, host ports) need ``cycles`` on a cluster that
    lists them instead.
    """

    def __init__(
        self,
        cluster: Cluster,
        strategy: str = "kube-scheduler",
        slots: Iterable[str] = (),
        *,
        score_all_nodes: bool = True,
    ) -> None:
        if strategy not in STRATEGIES:
            raise InvalidArgumentError(f"unknown strategy {capped(strategy)!r}: use one of {', '.join(STRATEGIES)}")
        self.cluster = cluster.with_slots(slots)  # the cluster under the snapshot; its node indexes are the session's
        self.snap = Snapshot(self.cluster)  # every assumption since the session began (its undo log only grows)
        self.strategy = strategy
        # ``place``'s ``score_all_nodes=False``: one sampling state (its rotating start) for the whole session
        self.sampling = None if score_all_nodes else NodeSampling()
        self._kube = _Runner(
            self.snap, "kube-scheduler", DEFAULT_TIMEOUT, self.sampling
        )  # one scheduler, its shapes kept

    def mark(self) -> int:
        """A point to ``revert`` to: what runs now."""
        return self.snap.mark()

    def revert(self, mark: int) -> None:
        """Undo every cycle and ``take`` since ``mark``."""
        with quiet_gc():
            self.snap.revert(mark)

    def take(self, per_node: Mapping[int, Sequence[int]], sign: int = 1) -> None:
        """Take ``sign`` times ``per_node[i]`` (a vector over ``cluster.resources``) more on each node ``i``."""
        if per_node:
            with quiet_gc():
                self.snap.add_block(Block.of(per_node, sign, len(self.cluster.resources)))

    def cycle(
        self,
        root: GroupRequest,
        timeout: float = DEFAULT_TIMEOUT,
        candidates: Callable[[int], Candidates] | None = None,
    ) -> Cycle:
        """One cycle of ``root`` (its priorities resolved); with ``candidates`` (by priority), preemption when it fails.

        ``timeout`` bounds the complete strategy's search in this cycle.
        """
        with quiet_gc():
            runner = (
                self._kube
                if self.strategy == "kube-scheduler"
                else _Runner(self.snap, self.strategy, timeout, self.sampling)
            )
            if not admissible(root):
                return Cycle(root, Outcome(False))
            report = runner.attempt(root)
            timed_out = report.search is not None and report.search.timed_out
            if report.outcome.success or candidates is None or root.preemption_policy == PREEMPT_NEVER:
                return Cycle(root, report.outcome, None, timed_out)
            evicted = _preempt(self.snap, runner, root, candidates(root.priority))
            if evicted is None:
                return Cycle(root, report.outcome, None, timed_out)
            return Cycle(root, evicted.outcome, evicted.units, False)


def _check_arguments(request: Any, cluster: Any, strategy: Any, preempt: Any, timeout: Any) -> None:
    """``place``'s arguments, by type and then by value, before any work."""
    if not isinstance(request, PlacementRequest):
        raise TypeError(f"place(): request must be a PlacementRequest, not {type(request).__name__}")
    if not isinstance(cluster, Cluster):
        raise TypeError(f"place(): cluster must be a Cluster, not {type(cluster).__name__}")
    if not isinstance(strategy, str):
        raise TypeError(f"place(): strategy must be a str, not {type(strategy).__name__}")
    if not isinstance(preempt, bool):
        raise TypeError(f"place(): preempt must be a bool, not {type(preempt).__name__}")
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise TypeError(f"place(): timeout must be a number of seconds, not {type(timeout).__name__}")
    if strategy not in STRATEGIES:
        raise InvalidArgumentError(f"unknown strategy {capped(strategy)!r}: use one of {', '.join(STRATEGIES)}")
    if not 0 < timeout <= MAX_TIMEOUT:  # NaN fails both comparisons; a huge int compares without overflow
        raise InvalidArgumentError(
            f"timeout must be a positive number of seconds up to {MAX_TIMEOUT:g}, got {render_bad_value(timeout)}"
        )


def _place(
    request: PlacementRequest,
    cluster: Cluster,
    strategy: str,
    preempt: bool,
    timeout: float,
    sampling: NodeSampling | None = None,
) -> Placement:
    """``place`` once its arguments are checked and the request's priorities resolved."""
    cluster = cluster.with_slots(slot for pod in request.pod_constraints() for slot in slots_of(pod))
    snap = Snapshot(cluster)
    runner = _Runner(snap, strategy, timeout, sampling)
    reports: dict[str, RootReport] = {}
    explained: dict[str, RootExplanation] = {}
    gone: set[str] = set()
    placed: list[RootReport] = []
    for root in queue_order(request.roots):
        reports[root.name] = report = _cycle(snap, runner, root, preempt, gone)
        report.earlier = tuple(placed)
        explained[root.name] = explain_root(report, snap, runner.kube)
        if report.outcome.success:
            placed.append(report)
        if report.victims:
            gone.update(unit.name for unit in report.victims)
    ordered = [(reports[root.name], explained[root.name]) for root in request.roots]
    return _answer(request, cluster, snap, strategy, ordered, runner.kube)


def _classes(given: Iterable[PriorityClass | Mapping[str, Any]]) -> list[PriorityClass]:
    """``place``'s extra PriorityClasses as records; malformed objects raise together."""
    items = list(given)
    records = [item for item in items if isinstance(item, PriorityClass)]
    objects = [item for item in items if not isinstance(item, PriorityClass)]
    errors = ErrorList()
    records += read_priority_classes(objects, "priorityClasses", errors)
    errors.raise_if_any()
    return records


def _cycle(snap: Snapshot, runner: _Runner, root: Any, asked: bool, gone: set[str], explain: bool = True) -> RootReport:
    """One root's scheduling cycle, then (when it fails) its PodGroupPostFilter: preemption, or whether it helps.

    Without ``explain``, the report gets no preemption record, and a root
    that may not preempt is not probed for whether preemption would help.
    """
    if not admissible(root):
        return RootReport(root, Outcome(False))
    report = runner.attempt(root)
    if report.outcome.success:
        return report
    if not explain and (not asked or root.preemption_policy == PREEMPT_NEVER):
        return report
    candidates = candidates_below(snap.cluster, root.priority, gone)
    if root.preemption_policy == PREEMPT_NEVER:
        report.preemption = preemption_report(None, candidates.units, asked, root.priority, snap.cluster, never=True)
        return report
    if asked:
        evicted = _preempt(snap, runner, root, candidates)
        if evicted is not None:
            # the first attempt's trace and search describe a cluster without the evictions
            report = RootReport(root, evicted.outcome, victims=evicted.units)
            if explain:
                report.preemption = preemption_report(evicted, candidates.units, asked, root.priority, snap.cluster)
            return report
        if explain:
            report.preemption = preemption_report(None, candidates.units, asked, root.priority, snap.cluster)
        return report
    probe = _preempt(snap, runner, root, candidates, assume=False)
    report.preemption = preemption_report(probe, candidates.units, asked, root.priority, snap.cluster)
    return report


class _Runner:
    """One strategy, run root by root in the same snapshot."""

    def __init__(self, snap: Snapshot, strategy: str, timeout: float, sampling: NodeSampling | None = None) -> None:
        self.complete = Complete(snap, timeout, sampling) if strategy == "complete" else None
        self.kube = self.complete.kube if self.complete is not None else KubeScheduler(snap, sampling)

    def attempt(self, root: Any) -> RootReport:
        if self.complete is not None:
            outcome, trace, search = self.complete.schedule(root)
            return RootReport(root, outcome, trace, search)
        outcome, trace = self.kube.schedule(root)
        return RootReport(root, outcome, trace)

    def outcome(self, root: Any) -> Outcome:
        return self.attempt(root).outcome


def _preempt(snap: Snapshot, runner: _Runner, root: Any, candidates: Candidates, assume: bool = True) -> Victims | None:
    """Preemption for ``root`` with the runner's strategy; ``assume=False`` probes, leaving ``snap`` as it was."""
    budgets = snap.cluster.disruption_budgets
    return preempt(snap, root, candidates, lambda: runner.outcome(root), runner.kube.shapes, budgets, assume)


def _answer(
    request: PlacementRequest,
    cluster: Cluster,
    snap: Snapshot,
    strategy: str,
    reports: list[tuple[RootReport, RootExplanation]],
    kube: KubeScheduler,
) -> Placement:
    groups: list[GroupPlacement] = []
    victims: list[Victim] = []
    explained = []
    left: dict[Any, tuple[dict[str, str], dict[str, Any]]] = {}
    for report, said in reports:
        results = report.outcome.results if report.outcome.success else {}
        for group in report.root.walk():
            placement = GroupPlacement(group.name, group.kind, group.template, group.parent, group.needed)
            result = results.get(group.name)
            if result is not None:
                placement.domains = dict(result.domains)
                names = result.names if result.names is not None else group.pod_names
                placement.pods = PodList(names=names, nodes=result.nodes, node_names=cluster.names)
                placement.claims = [
                    ClaimPlacement(name, allocation.devices) for name, allocation in sorted(result.claims.items())
                ]
                placement.capacity_left, placement.unusable = _left(snap, result.domain, group, kube, left)
            groups.append(placement)
        for unit in report.victims or []:
            pods = [PodPlacement(pod.name, cluster.names[pod.node]) for pod in unit.pods]
            victims.append(Victim(unit.name, unit.kind, unit.priority, pods))
        explained.append(said)
    feasible = all(report.outcome.success for report, _ in reports)
    lines = [f"{'feasible' if feasible else 'not feasible'} ({strategy})"]
    for entry in explained:
        lines += [f"- {line}" for line in entry.text]
    summary = lines[0] + ": " + "; ".join(entry.text[0] for entry in explained if entry.text)
    explanation = {"summary": summary, "roots": [entry.to_dict() for entry in explained]}
    warnings = list(dict.fromkeys([*cluster.warnings, *request.warnings]))
    lines += [f"warning: {warning}" for warning in warnings]
    return Placement(feasible, strategy, groups, victims, explanation, "\n".join(lines), warnings, explained)


def _left(
    snap: Snapshot,
    domain: Domain,
    group: Any,
    kube: KubeScheduler,
    cache: dict[Any, tuple[dict[str, str], dict[str, Any]]],
) -> tuple[dict[str, str], dict[str, Any]]:
    """Free capacity in the group's domain after everything, for the resources its pods request.

    Only nodes some pod of the group may use count (``stages.usable_mask``:
    not cordoned, ready, taints tolerated, selectors matched); the others
    are the second answer, ``{"nodes", "reasons", "free"}``, with why.
    """
    wanted = {"pods"}
    shapes = []
    for member in group.walk():
        if member.is_leaf:
            wanted.update(resource for resource, amount in member.requests.items() if amount > 0)
            shapes += [shape for shape, _ in kube.shapes(member)]
    resources = tuple(resource for resource in snap.cluster.resources if resource in wanted)
    key = (domain.uid, tuple(sorted({shape.uid for shape in shapes})), resources)
    known = cache.get(key)
    if known is None:
        nodes = domain.node_array
        usable = usable_mask(snap.cluster, [shape.constraints for shape in shapes], nodes)
        if usable.all():  # the domain's sums, corrected on the changed nodes: no pass over the domain
            sums = snap.free_sum(domain)
            index = snap.cluster.resource_index
            left = {resource: format_millis(resource, sums[index[resource]]) for resource in resources}
        else:
            left = _free_on(snap, nodes[usable], resources)
        out = nodes[~usable]
        unusable: dict[str, Any] = {"nodes": 0, "reasons": {}, "free": {}}
        if len(out):
            unusable = {
                "nodes": len(out),
                "reasons": unusable_reasons(snap.cluster, shapes[0].constraints, out) if shapes else {},
                "free": _free_on(snap, out, resources),
            }
        known = cache[key] = (left, unusable)
    left, unusable = known
    if unusable["nodes"]:
        unusable = {**unusable, "free": dict(unusable["free"])}
    return dict(left), unusable  # each group's own dicts: the answer's records may be edited by their reader


def _free_on(snap: Snapshot, nodes: Any, resources: tuple[str, ...]) -> dict[str, str]:
    """What is free on ``nodes`` now of each of ``resources``, in that order (a node's debt counts as 0)."""
    return {
        resource: format_millis(resource, int(np.maximum(snap.free_at(resource, nodes), 0).sum()))
        for resource in resources
    }
