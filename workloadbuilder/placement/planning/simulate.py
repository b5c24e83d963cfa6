"""``simulate``: a queue of gangs played out over time on a cluster, without the cluster.

Each workload arrives at its ``arrival`` time (seconds), is queued, and runs
``duration`` seconds once placed, then frees what it took. Whenever work
arrives or capacity frees, the queue is tried in kube-scheduler's order:
priority (highest first), then arrival, then a tie-break drawn from the seed
for workloads that arrive together with equal priority (the copies of one
workload keep their order). There is no
head-of-line blocking: a later gang that fits starts while an earlier one
waits. A gang that does not fit may preempt lower-priority running gangs as
kube-scheduler's workload-aware preemption would; a preempted gang loses its
progress and is queued again, keeping its arrival.

Two shortcuts keep a long queue cheap, both exact for the all-or-nothing
placement the engine does: copies of one request at one priority are alike
(workloads that share a ``request`` object included), so once one does not
fit in a pass the others wait too; and
a pass after an arrival alone only tries what arrived (nothing freed, so what
waited still waits).
"""

from __future__ import annotations

import copy
import heapq
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.placement.cluster.derive import with_usage
from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.cluster.records import RunningGroup, RunningPod
from workloadbuilder.placement.engine import place
from workloadbuilder.placement.framework.queue import resolve_request
from workloadbuilder.placement.k8s.priorities import PriorityClass, PriorityError, PrioritySpec
from workloadbuilder.placement.k8s.resources import POD_MILLIS
from workloadbuilder.placement.planning.copies import as_running, copies_of, leaves, pod_sets
from workloadbuilder.placement.request.model import PlacementRequest

__all__ = ["CopyRun", "Simulation", "Workload", "simulate"]


@dataclass(frozen=True)
class Workload:
    """One entry of the queue: ``count`` copies of ``request``, all arriving at ``arrival``.

    ``priority`` (a value) or ``priority_class_name`` (a PriorityClass of the
    cluster, of ``simulate``'s ``priority_classes`` or a built-in one)
    overrides what every group of the request says of its priority; with
    neither, the request's own priorities stand.
    """

    name: str
    request: PlacementRequest
    arrival: float
    duration: float
    count: int = 1
    priority: int | None = None
    priority_class_name: str | None = None


@dataclass
class CopyRun:
    """What happened to one copy: when it arrived, started and ended, how often it was preempted.

    ``start``, ``end`` and ``wait`` are ``None`` for a copy that never ran to
    the end (it never fit).
    """

    name: str
    arrival: float
    start: float | None = None
    end: float | None = None
    preempted: int = 0

    @property
    def wait(self) -> float | None:
        """Seconds from arrival to the start that ran to the end."""
        return None if self.start is None else self.start - self.arrival

    def to_dict(self) -> dict[str, Any]:
        """``{"name", "arrival", "start", "end", "wait", "preempted"}``."""
        return {
            "name": self.name,
            "arrival": self.arrival,
            "start": self.start,
            "end": self.end,
            "wait": self.wait,
            "preempted": self.preempted,
        }


@dataclass(frozen=True)
class Simulation:
    """The played-out queue.

    Attributes:
        workloads: one ``CopyRun`` per copy, in queue-file order, copies in order.
        makespan: when the last copy ended (``None`` if some copy never ran).
        utilization: per resource the workloads request, ``[time, fraction]``
            points: the share of the cluster's allocatable in use from that
            time on (the cluster's own running pods included).
    """

    workloads: list[CopyRun]
    makespan: float | None
    utilization: dict[str, list[list[float]]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """``{"workloads", "makespan", "utilization"}``."""
        return {
            "workloads": [run.to_dict() for run in self.workloads],
            "makespan": self.makespan,
            "utilization": {
                resource: [list(point) for point in points] for resource, points in self.utilization.items()
            },
        }

    @property
    def text(self) -> str:
        """One line per copy, then the makespan."""
        lines = []
        for run in self.workloads:
            if run.start is None:
                lines.append(f"{run.name}: arrived {_t(run.arrival)}, never placed")
            else:
                extra = f", preempted {run.preempted}x" if run.preempted else ""
                lines.append(
                    f"{run.name}: arrived {_t(run.arrival)}, started {_t(run.start)}, ended {_t(run.end)}"
                    f" (waited {_t(run.wait)}{extra})"
                )
        lines.append("makespan: " + ("never (some copies never ran)" if self.makespan is None else _t(self.makespan)))
        return "\n".join(lines)


def _t(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds:g}s"


@dataclass
class _Copy:
    run: CopyRun
    request: PlacementRequest
    priority: int
    duration: float
    tie: float
    index: int
    shape: tuple[int, int] = (0, 0)  # equal for copies that are alike: same request object, same priority
    pods: list[RunningPod] = field(default_factory=list)
    groups: list[RunningGroup] = field(default_factory=list)
    started: float = 0.0
    epoch: int = 0  # bumped when preempted, so a stale end event is ignored

    def order(self) -> tuple[int, float, float, int]:
        return (-self.priority, self.run.arrival, self.tie, self.index)

    def demand(self, cluster: Cluster) -> list[int]:
        """At least what the copy's quorum needs in all, per resource of ``cluster`` (one pod slot per pod).

        A PodGroup of several shapes is counted at its smallest request per resource.
        """
        total = [0] * len(cluster.resources)
        for group in leaves(self.request.roots):
            shapes = pod_sets(group)
            for r, resource in enumerate(cluster.resources):
                least = min(pods.requests.get(resource, 0) for pods in shapes)
                total[r] += group.minimum * (least + (POD_MILLIS if resource == "pods" else 0))
        return total


def simulate(
    workloads: Sequence[Workload],
    cluster: Cluster,
    *,
    seed: int = 0,
    strategy: str = "kube-scheduler",
    priority_classes: Iterable[PriorityClass] = (),
) -> Simulation:
    """Play ``workloads`` out on ``cluster`` (not changed), deterministically for a given ``seed``.

    ``priority_classes`` add to the cluster's, for the groups' ``priorityClassName``.

    Raises:
        InvalidArgumentError: a negative arrival or duration, a count below 1,
            or a priority that admission would reject (an unknown class).
    """
    rng = random.Random(seed)
    extra = tuple(priority_classes)
    classes = cluster.priority_classes.with_classes(extra)
    copies: list[_Copy] = []
    for e, workload in enumerate(workloads):
        if workload.arrival < 0 or workload.duration < 0 or workload.count < 1:
            raise InvalidArgumentError(
                f"workloads[{e}] ({workload.name}): arrival and duration must not be negative and count must be"
                f" at least 1, not {workload.arrival}, {workload.duration}, {workload.count}"
            )
        tie = rng.random()  # one draw per entry: its copies keep their order
        spec = None
        if workload.priority is not None or workload.priority_class_name is not None:
            spec = PrioritySpec(workload.priority_class_name, workload.priority)
        try:
            # once under the user's own names, so that a refusal names their group
            resolve_request(_with_priority(copy.deepcopy(workload.request), spec), classes)
        except PriorityError as problem:
            raise InvalidArgumentError(f"workloads[{e}] ({workload.name}): {problem}") from None
        for k in range(1, workload.count + 1):
            name = workload.name if workload.count == 1 else f"{workload.name}-{k}"
            request = _with_priority(copies_of(workload.request, k, 1, prefix=f"q{e}-"), spec)
            resolve_request(request, classes)
            priority = max((root.priority for root in request.roots), default=0)
            run = CopyRun(name, workload.arrival)
            shape = (id(workload.request), priority)
            copies.append(_Copy(run, request, priority, workload.duration, tie, len(copies), shape))
    return _Player(cluster, copies, strategy, extra).play()


def _with_priority(request: PlacementRequest, spec: PrioritySpec | None) -> PlacementRequest:
    """``request`` with ``spec`` as what every group says of its priority (``None``: unchanged)."""
    if spec is not None:
        for group in (g for root in request.roots for g in root.walk()):
            group.priority_spec = spec
            group.pod_priority = None
    return request


class _Player:
    def __init__(
        self, cluster: Cluster, copies: list[_Copy], strategy: str, classes: tuple[PriorityClass, ...]
    ) -> None:
        self.base = cluster
        self.classes = classes
        self.copies = copies
        self.strategy = strategy
        self.running: dict[int, _Copy] = {}
        self.waiting: set[int] = set()
        self.by_pod: dict[str, int] = {}
        self.resources = sorted(
            {
                r
                for c in copies
                for g in leaves(c.request.roots)
                for pods in pod_sets(g)
                for r, q in pods.requests.items()
                if q > 0
            }
            | {"pods"}
        )
        self.utilization: dict[str, list[list[float]]] = {r: [] for r in self.resources if r in cluster.resource_index}
        self.used = [list(column) for column in cluster.used]
        self.totals = [sum(column) for column in cluster.allocatable]
        self.in_use = [sum(column) for column in cluster.used]
        self.cached: Cluster | None = None
        ok = cluster.schedulable
        self.free = [
            sum(max(0, a - u) for a, u, schedulable in zip(alloc, used, ok, strict=True) if schedulable)
            for alloc, used in zip(cluster.allocatable, cluster.used, strict=True)
        ]
        self.held: dict[int, list[int]] = {}  # priority -> what running pods of that priority request
        for pod in cluster.running_pods:
            self._hold(pod.priority, pod.requests, +1)

    def play(self) -> Simulation:
        events: list[tuple[float, int, int, int]] = []  # (time, kind 0=end 1=arrival, copy, epoch)
        for i, c in enumerate(self.copies):
            heapq.heappush(events, (c.run.arrival, 1, i, 0))
        while events:
            now = events[0][0]
            freed = False
            arrived: list[int] = []
            while events and events[0][0] == now:
                _, kind, i, epoch = heapq.heappop(events)
                c = self.copies[i]
                if kind == 0:
                    if epoch == c.epoch and i in self.running:
                        self._stop(i)
                        c.run.start, c.run.end = c.started, now
                        freed = True
                else:
                    arrived.append(i)
            self.waiting.update(arrived)
            for i in self._pass(list(self.waiting) if freed else arrived, now):
                heapq.heappush(events, (now + self.copies[i].duration, 0, i, self.copies[i].epoch))
            self._record(now)
        ends = [c.run.end for c in self.copies]
        makespan = None if any(end is None for end in ends) else max((e for e in ends if e is not None), default=0.0)
        return Simulation([c.run for c in self.copies], makespan, self.utilization)

    def _pass(self, candidates: list[int], now: float) -> list[int]:
        """Try ``candidates`` in queue order; start those that fit. Returns the started copies."""
        started: list[int] = []
        blocked: set[tuple[int, int]] = set()
        for i in sorted(set(candidates), key=lambda j: self.copies[j].order()):
            c = self.copies[i]
            if c.shape in blocked or i in self.running:
                continue
            if self._start(i, now):
                started.append(i)
                self.waiting.discard(i)
            else:
                blocked.add(c.shape)
        return [i for i in started if i in self.running]

    def _state(self) -> Cluster:
        """The cluster with every running copy; rebuilt only after something started or stopped."""
        if self.cached is None:
            pods = [pod for c in self.running.values() for pod in c.pods]
            groups = [group for c in self.running.values() for group in c.groups]
            self.cached = with_usage(self.base, [list(column) for column in self.used], pods, groups)
        return self.cached

    def _hold(self, priority: int, requests: tuple[int, ...], sign: int) -> None:
        amounts = self.held.setdefault(priority, [0] * len(requests))
        for r, amount in enumerate(requests):
            amounts[r] += sign * amount

    def _account(self, c: _Copy, sign: int) -> None:
        """Add (``sign`` 1) or remove (-1) the copy's pods from the running state."""
        self.cached = None
        ok = self.base.schedulable
        for pod in c.pods:
            self._hold(pod.priority, pod.requests, sign)
            for r, amount in enumerate(pod.requests):
                if amount:
                    alloc, used = self.base.allocatable[r][pod.node], self.used[r][pod.node]
                    after = used + sign * amount
                    if ok[pod.node]:
                        self.free[r] += max(0, alloc - after) - max(0, alloc - used)
                    self.used[r][pod.node] = after
                    self.in_use[r] += sign * amount

    def _stop(self, i: int) -> None:
        c = self.running.pop(i)
        self._account(c, -1)
        for pod in c.pods:
            self.by_pod.pop(pod.name, None)

    def _may_fit(self, c: _Copy) -> bool:
        """A necessary condition, one step per resource: the copy's quorum needs at most what is free
        on schedulable nodes plus what lower-priority work holds."""
        held = [0] * len(self.free)
        for priority, amounts in self.held.items():
            if priority < c.priority:
                held = [h + a for h, a in zip(held, amounts, strict=True)]
        return all(d <= f + h for d, f, h in zip(c.demand(self.base), self.free, held, strict=True))

    def _start(self, i: int, now: float) -> bool:
        c = self.copies[i]
        if not self._may_fit(c):
            return False
        state = self._state()
        answer = place(c.request, state, strategy=self.strategy, preempt=True, priority_classes=self.classes)
        if not answer.feasible:
            return False
        for victim in answer.victims:
            for evicted in victim.pods:
                j = self.by_pod.get(evicted.name)
                if j is not None and j in self.running:
                    self._evict(j)
        c.started = now
        c.pods, c.groups = _as_running(answer, c, state)
        for running in c.pods:
            self.by_pod[running.name] = i
        self.running[i] = c
        self._account(c, +1)
        return True

    def _evict(self, j: int) -> None:
        victim = self.copies[j]
        self._stop(j)
        victim.epoch += 1
        victim.run.preempted += 1
        victim.pods, victim.groups = [], []
        self.waiting.add(j)

    def _record(self, now: float) -> None:
        for r, points in self.utilization.items():
            index = self.base.resource_index[r]
            total = self.totals[index]
            fraction = round(self.in_use[index] / total, 6) if total else 0.0
            if not points or points[-1][1] != fraction:
                points.append([now, fraction])


def _stamp(seconds: float) -> str:
    """A start time that sorts as text, as creation timestamps do."""
    return f"{seconds:020.6f}"


def _as_running(answer: Any, c: _Copy, cluster: Cluster) -> tuple[list[RunningPod], list[RunningGroup]]:
    pods: list[RunningPod] = []
    groups: list[RunningGroup] = []
    placed = {group.name: group for group in answer.groups}
    for root in c.request.roots:
        for group in root.walk():
            groups.append(
                RunningGroup(group.name, group.kind, c.priority, group.disruption_mode, group.parent, _stamp(c.started))
            )
            if group.is_leaf:
                pods += as_running(group, placed[group.name].pods, cluster, c.priority, _stamp(c.started))
    return pods, groups
