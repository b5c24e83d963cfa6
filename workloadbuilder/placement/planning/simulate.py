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
import math
import operator
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from workloadbuilder._internal.gofmt import capped, render_bad_value
from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.limits import MAX_COPIES, MAX_PODS, MAX_SECONDS, MAX_TIMEOUT
from workloadbuilder.placement.answer import PodPlacement
from workloadbuilder.placement.cluster.derive import with_usage
from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.cluster.records import RunningGroup, RunningPod
from workloadbuilder.placement.engine import STRATEGIES, Cycle, Session, cycles, place
from workloadbuilder.placement.framework.preemption import RunningUnits, Unit, running_units
from workloadbuilder.placement.framework.queue import queue_order, resolve_request
from workloadbuilder.placement.k8s.priorities import PriorityClass, PriorityError, PrioritySpec
from workloadbuilder.placement.k8s.resources import POD_MILLIS
from workloadbuilder.placement.planning.copies import as_running, copies_of, leaves, pod_sets
from workloadbuilder.placement.request.model import PlacementRequest
from workloadbuilder.placement.strategies.complete import DEFAULT_TIMEOUT
from workloadbuilder.placement.verdict import verdict

__all__ = ["CopyRun", "Eviction", "QueueEntry", "Simulation", "simulate"]


@dataclass(frozen=True)
class QueueEntry:
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
    the end: it never fit, or, when ``undecided``, whether it fits was left
    open (the complete search reached its time bound, or the simulation's
    time bound stopped the play first). A copy that never fit has a
    ``reason``: the verdict ``place`` gives its workload on the cluster as
    given (``waiting-for-capacity`` when the cluster's own running pods hold
    what it needs, ``never`` with the cause when it fits no arrangement of
    the emptied cluster), or ``None`` when the time bound left no time to ask.
    """

    name: str
    arrival: float
    start: float | None = None
    end: float | None = None
    preempted: int = 0
    undecided: bool = False
    reason: str | None = None

    @property
    def wait(self) -> float | None:
        """Seconds from arrival to the start that ran to the end."""
        return None if self.start is None else self.start - self.arrival

    def to_dict(self) -> dict[str, Any]:
        """``{"name", "arrival", "start", "end", "wait", "preempted", "undecided", "reason"}``."""
        return {
            "name": self.name,
            "arrival": self.arrival,
            "start": self.start,
            "end": self.end,
            "wait": self.wait,
            "preempted": self.preempted,
            "undecided": self.undecided,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Eviction:
    """One unit a starting copy evicted: a copy of the queue or something the cluster ran.

    ``victim`` is the copy's name (``kind`` ``copy``: it is queued again), or
    the cluster's running Pod's or group's own name (``kind`` ``Pod``,
    ``PodGroup`` or ``CompositePodGroup``: it is gone).
    """

    time: float
    by: str
    victim: str
    kind: str
    priority: int
    pods: int

    def to_dict(self) -> dict[str, Any]:
        """``{"time", "by", "victim", "kind", "priority", "pods"}``."""
        return {
            "time": self.time,
            "by": self.by,
            "victim": self.victim,
            "kind": self.kind,
            "priority": self.priority,
            "pods": self.pods,
        }

    @property
    def text(self) -> str:
        """``at 0s: urgent evicted Pod low (priority 0, 1 pod)``."""
        pods = f"{self.pods} pod" if self.pods == 1 else f"{self.pods} pods"
        return f"at {_t(self.time)}: {self.by} evicted {self.kind} {self.victim} (priority {self.priority}, {pods})"


@dataclass(frozen=True)
class Simulation:
    """The played-out queue.

    Attributes:
        workloads: one ``CopyRun`` per copy, in queue-file order, copies in order.
        makespan: when the last copy ended (``None`` if some copy never ran
            or is undecided).
        utilization: per resource the workloads request, ``[time, fraction]``
            points: the share of the cluster's allocatable in use from that
            time on (the cluster's own running pods included, a node's use
            beyond its allocatable not), never above 1.
        stopped: the simulated time at which the time bound (``timeout``
            seconds of wall clock) stopped the play, or ``None`` when it ran
            to the end; copies not ended by then are undecided.
        timeout: the time bound the simulation ran under.
        evictions: every unit a starting copy evicted, in time order; an
            evicted copy is queued again, an evicted running pod of the
            cluster is gone and frees what it held.
        seed: the seed of the tie-breaks between equal arrivals.
    """

    workloads: list[CopyRun]
    makespan: float | None
    utilization: dict[str, list[list[float]]] = field(default_factory=dict)
    stopped: float | None = None
    timeout: float | None = None
    evictions: list[Eviction] = field(default_factory=list)
    seed: int = 0

    @property
    def undecided(self) -> bool:
        """Whether some copy's fate was left open by a time bound."""
        return any(run.undecided for run in self.workloads)

    @property
    def never_placed(self) -> list[CopyRun]:
        """The copies that never started and whose fate no time bound left open."""
        return [run for run in self.workloads if run.start is None and not run.undecided]

    def to_dict(self) -> dict[str, Any]:
        """``{"workloads", "makespan", "undecided", "stopped", "utilization", "evictions", "seed"}``."""
        return {
            "workloads": [run.to_dict() for run in self.workloads],
            "makespan": self.makespan,
            "undecided": self.undecided,
            "stopped": self.stopped,
            "utilization": {
                resource: [list(point) for point in points] for resource, points in self.utilization.items()
            },
            "evictions": [eviction.to_dict() for eviction in self.evictions],
            "seed": self.seed,
        }

    @property
    def text(self) -> str:
        """One line per copy, one per eviction, then the makespan."""
        lines = []
        bound = "-" if self.timeout is None else f"{self.timeout:.3g} s"
        for run in self.workloads:
            if run.start is None and run.undecided:
                lines.append(f"{run.name}: arrived {_t(run.arrival)}, undecided (a time bound was reached)")
            elif run.start is None:
                why = "" if run.reason is None else f" ({run.reason})"
                lines.append(f"{run.name}: arrived {_t(run.arrival)}, never placed{why}")
            else:
                extra = f", preempted {run.preempted}x" if run.preempted else ""
                lines.append(
                    f"{run.name}: arrived {_t(run.arrival)}, started {_t(run.start)}, ended {_t(run.end)}"
                    f" (waited {_t(run.wait)}{extra})"
                )
        lines += [eviction.text for eviction in self.evictions]
        if self.stopped is not None:
            lines.append(f"stopped at {_t(self.stopped)}: the time bound ({bound}) was reached")
        if self.makespan is not None:
            lines.append("makespan: " + _t(self.makespan))
        elif self.undecided:
            lines.append("makespan: undecided (a time bound was reached)")
        else:
            lines.append("makespan: never (some copies never ran)")
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
    reads_running: bool = False  # some pod's filters read the running pods (inter-pod affinity, spread, ports)
    pods: list[RunningPod] = field(default_factory=list)
    groups: list[RunningGroup] = field(default_factory=list)
    units: list[Unit] = field(default_factory=list)  # what preemption may evict of the copy while it runs
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
    workloads: Sequence[QueueEntry],
    cluster: Cluster,
    *,
    seed: int = 0,
    strategy: str = "kube-scheduler",
    priority_classes: Iterable[PriorityClass] = (),
    timeout: float | None = None,
    score_all_nodes: bool = True,
) -> Simulation:
    """Play ``workloads`` out on ``cluster`` (not changed), deterministically for a given ``seed``.

    ``priority_classes`` add to the cluster's, for the groups' ``priorityClassName``.
    ``timeout`` bounds the whole simulation in seconds of wall clock (``None``:
    no bound): the complete strategy's searches share it, and once it is
    reached the play stops, with every copy not yet ended undecided.
    ``score_all_nodes`` is ``place``'s: ``False`` places every pod as
    kube-scheduler's cycle does (node sampling, the heap's choice among
    equal nodes), one sampling state for the whole play.

    Every bound is checked before anything is placed: arrivals and durations
    are finite numbers from 0 to ``limits.MAX_SECONDS``, and the queue makes at
    most ``limits.MAX_COPIES`` copies and ``limits.MAX_PODS`` pods in all.

    Raises:
        TypeError: an argument of the wrong type (named).
        InvalidArgumentError: a negative, non-finite or too large arrival or
            duration, a count below 1, a queue past its bounds, an unknown
            strategy, a timeout that is not a positive number, or a priority
            that admission would reject (an unknown class).
    """
    started = time.monotonic()
    _check_arguments(workloads, cluster, seed, strategy, timeout)
    if not isinstance(score_all_nodes, bool):
        raise TypeError(f"simulate(): score_all_nodes must be a bool, not {type(score_all_nodes).__name__}")
    rng = random.Random(seed)
    extra = tuple(priority_classes)
    if not all(isinstance(c, PriorityClass) for c in extra):
        raise TypeError("simulate(): priority_classes must be PriorityClass records")
    classes = cluster.priority_classes.with_classes(extra)
    copies: list[_Copy] = []
    origins: list[int] = []  # per copy, the index of its workload in ``workloads``
    resolved: set[tuple[int, PrioritySpec | None]] = set()  # (request id, priority) pairs that resolve
    for e, workload in enumerate(workloads):
        tie = rng.random()  # one draw per entry: its copies keep their order
        spec = _entry_priority(workload)
        if (id(workload.request), spec) not in resolved:
            try:
                # once under the user's own names, so that a refusal names their group (and once per request
                # and priority: entries that share both resolve alike)
                resolve_request(_with_priority(copy.deepcopy(workload.request), spec), classes)
            except PriorityError as problem:
                raise InvalidArgumentError(f"workloads[{e}] ({capped(workload.name)}): {problem}") from None
            resolved.add((id(workload.request), spec))
        for k in range(1, workload.count + 1):
            name = workload.name if workload.count == 1 else f"{workload.name}-{k}"
            request = _with_priority(copies_of(workload.request, k, 1, prefix=f"q{e}-"), spec)
            resolve_request(request, classes)
            priority = max((root.priority for root in request.roots), default=0)
            run = CopyRun(name, workload.arrival)
            shape = (id(workload.request), priority)
            reads = _reads_running(request)
            copies.append(_Copy(run, request, priority, workload.duration, tie, len(copies), shape, reads))
            origins.append(e)
    deadline = None if timeout is None else started + timeout
    played = _Player(cluster, copies, strategy, extra, deadline, timeout, score_all_nodes).play()
    _explain_never_placed(played, workloads, origins, cluster, strategy, extra, deadline)
    return replace(played, seed=seed)


def _explain_never_placed(
    played: Simulation,
    workloads: Sequence[QueueEntry],
    origins: list[int],
    cluster: Cluster,
    strategy: str,
    classes: tuple[PriorityClass, ...],
    deadline: float | None,
) -> None:
    """Give every never-placed copy the verdict ``place`` gives its workload on ``cluster``, asked once a workload.

    The copies of one workload are alike, so one ``place`` and its verdict
    speak for all of them; what is left of ``deadline`` bounds each, and a
    copy asked after it passed keeps ``reason`` ``None``.
    """
    asked: dict[int, str | None] = {}
    for run, e in zip(played.workloads, origins, strict=True):
        if run.start is not None or run.undecided:
            continue
        if e not in asked:
            left = DEFAULT_TIMEOUT if deadline is None else deadline - time.monotonic()
            if left <= 0:
                asked[e] = None
            else:
                workload = workloads[e]
                request = _with_priority(copy.deepcopy(workload.request), _entry_priority(workload))
                answer = place(request, cluster, strategy, timeout=left, priority_classes=classes)
                found = verdict(request, cluster, answer, classes, timeout=left)
                asked[e] = found.text.removeprefix("verdict: ")
        run.reason = asked[e]


def _check_arguments(
    workloads: Sequence[QueueEntry], cluster: Cluster, seed: int, strategy: str, timeout: float | None
) -> None:
    """``simulate``'s arguments, their types and every bound of the queue, before any work."""
    if isinstance(workloads, str | bytes) or not isinstance(workloads, Sequence):
        raise TypeError(f"simulate(): workloads must be a sequence of QueueEntry, not {type(workloads).__name__}")
    if not isinstance(cluster, Cluster):
        raise TypeError(f"simulate(): cluster must be a Cluster, not {type(cluster).__name__}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"simulate(): seed must be an int, not {type(seed).__name__}")
    if not isinstance(strategy, str):
        raise TypeError(f"simulate(): strategy must be a str, not {type(strategy).__name__}")
    if strategy not in STRATEGIES:
        raise InvalidArgumentError(f"unknown strategy {capped(strategy)!r}: use one of {', '.join(STRATEGIES)}")
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout, int | float):
            raise TypeError(f"simulate(): timeout must be a number of seconds, not {type(timeout).__name__}")
        if not 0 < timeout <= MAX_TIMEOUT:
            raise InvalidArgumentError(
                f"timeout must be a positive number of seconds up to {MAX_TIMEOUT:g}, got {render_bad_value(timeout)}"
            )
    copies = pods = 0
    for e, workload in enumerate(workloads):
        if not isinstance(workload, QueueEntry):
            raise TypeError(f"simulate(): workloads[{e}] must be a QueueEntry, not {type(workload).__name__}")
        if not isinstance(workload.request, PlacementRequest):
            raise TypeError(f"simulate(): workloads[{e}].request must be a PlacementRequest")
        where = f"workloads[{e}] ({capped(str(workload.name))})"
        for key in ("arrival", "duration"):
            value = getattr(workload, key)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"simulate(): {where}.{key} must be a number of seconds, not {type(value).__name__}")
            if not (isinstance(value, int) or math.isfinite(value)) or not 0 <= value <= MAX_SECONDS:
                raise InvalidArgumentError(
                    f"{where}: {key} must be a finite number of seconds from 0 to {MAX_SECONDS}, got"
                    f" {render_bad_value(value)}"
                )
        count = workload.count
        if isinstance(count, bool) or not isinstance(count, int):
            raise TypeError(f"simulate(): {where}.count must be an int, not {type(count).__name__}")
        if count < 1:
            raise InvalidArgumentError(f"{where}: count must be at least 1, got {render_bad_value(count)}")
        copies += count
        pods += count * sum(group.count for group in leaves(workload.request.roots))
        if copies > MAX_COPIES:
            raise InvalidArgumentError(
                f"{where}: the queue makes more than {MAX_COPIES} copies (workloadbuilder simulates at most"
                f" {MAX_COPIES})"
            )
        if pods > MAX_PODS:
            raise InvalidArgumentError(
                f"{where}: the queue makes more than {MAX_PODS} pods (workloadbuilder simulates at most {MAX_PODS})"
            )


def _entry_priority(workload: QueueEntry) -> PrioritySpec | None:
    """What the entry says of its copies' priority, or ``None`` when it leaves the request's own."""
    if workload.priority is None and workload.priority_class_name is None:
        return None
    return PrioritySpec(workload.priority_class_name, workload.priority)


def _with_priority(request: PlacementRequest, spec: PrioritySpec | None) -> PlacementRequest:
    """``request`` with ``spec`` as what every group says of its priority (``None``: unchanged)."""
    if spec is not None:
        for group in (g for root in request.roots for g in root.walk()):
            group.priority_spec = spec
            group.pod_priority = None
    return request


class _Player:
    def __init__(
        self,
        cluster: Cluster,
        copies: list[_Copy],
        strategy: str,
        classes: tuple[PriorityClass, ...],
        deadline: float | None = None,
        timeout: float | None = None,
        score_all_nodes: bool = True,
    ) -> None:
        self.base = cluster
        self.score_all_nodes = score_all_nodes  # ``place``'s, for every cycle of the play
        self.deadline = deadline
        self.timeout = timeout
        self.stopped: float | None = None
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
        # what is in use, each node counted up to its allocatable (a debt is no use of more than there is)
        self.in_use = [
            sum(min(max(u, 0), a) for a, u in zip(alloc, used, strict=True))
            for alloc, used in zip(cluster.allocatable, cluster.used, strict=True)
        ]
        self.evictions: list[Eviction] = []
        # the cluster's own running pods by (name, node name), and those an eviction removed
        self.base_pods = {(pod.name, cluster.names[pod.node]): pod for pod in cluster.running_pods}
        self.gone: set[tuple[str, str]] = set()
        self.base_running = list(cluster.running_pods)  # the cluster's own running pods but the gone ones
        self.cached: Cluster | None = None
        ok = cluster.schedulable
        self.free = [
            sum(max(0, a - u) for a, u, schedulable in zip(alloc, used, ok, strict=True) if schedulable)
            for alloc, used in zip(cluster.allocatable, cluster.used, strict=True)
        ]
        self.held: dict[int, list[int]] = {}  # priority -> what running pods of that priority request
        # the cluster as the play goes on, for the copies whose filters read no running pod: its snapshot holds
        # what ``used`` holds beyond the cluster's own usage (running copies, less the evicted pods of the cluster)
        self.session = Session(cluster, strategy, score_all_nodes=score_all_nodes)
        self.units = RunningUnits(cluster)  # what runs on the session's cluster, as preemption's candidates
        for pod in cluster.running_pods:
            self._hold(pod.priority, pod.requests, +1)

    def play(self) -> Simulation:
        events: list[tuple[float, int, int, int]] = []  # (time, kind 0=end 1=arrival, copy, epoch)
        for i, c in enumerate(self.copies):
            heapq.heappush(events, (c.run.arrival, 1, i, 0))
        while events:
            now = events[0][0]
            if self.stopped is not None:
                break
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
        if self.stopped is not None:
            for c in self.copies:
                if c.run.end is None:
                    c.run.start, c.run.undecided = None, True
        ends = [c.run.end for c in self.copies]
        makespan = None if any(end is None for end in ends) else max((e for e in ends if e is not None), default=0.0)
        return Simulation(
            [c.run for c in self.copies], makespan, self.utilization, self.stopped, self.timeout, self.evictions
        )

    def _pass(self, candidates: list[int], now: float) -> list[int]:
        """Try ``candidates`` in queue order; start those that fit. Returns the started copies."""
        started: list[int] = []
        blocked: set[tuple[int, int]] = set()
        for i in sorted(set(candidates), key=lambda j: self.copies[j].order()):
            c = self.copies[i]
            if c.shape in blocked or i in self.running:
                continue
            if self.deadline is not None and time.monotonic() >= self.deadline:
                self.stopped = now
                break
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
            used = [list(column) for column in self.used]
            self.cached = with_usage(self.base, used, pods, groups, own=self.base_running)
        return self.cached

    def _hold(self, priority: int, requests: tuple[int, ...], sign: int) -> None:
        amounts = self.held.setdefault(priority, [0] * len(requests))
        for r, amount in enumerate(requests):
            amounts[r] += sign * amount

    def _account(self, c: _Copy, sign: int) -> None:
        """Add (``sign`` 1) or remove (-1) the copy's pods from the running state."""
        for pod in c.pods:
            self._move(pod, sign)
        per_node: dict[int, tuple[int, ...]] = {}
        for pod in c.pods:
            held = per_node.get(pod.node)
            per_node[pod.node] = pod.requests if held is None else tuple(map(operator.add, held, pod.requests))
        self.session.take(per_node, sign)

    def _move(self, pod: RunningPod, sign: int) -> None:
        """Add (``sign`` 1) or remove (-1) one pod's requests on its node."""
        self.cached = None
        ok = self.base.schedulable
        self._hold(pod.priority, pod.requests, sign)
        for r, amount in enumerate(pod.requests):
            if amount:
                alloc, used = self.base.allocatable[r][pod.node], self.used[r][pod.node]
                after = used + sign * amount
                if ok[pod.node]:
                    self.free[r] += max(0, alloc - after) - max(0, alloc - used)
                self.used[r][pod.node] = after
                self.in_use[r] += min(max(after, 0), alloc) - min(max(used, 0), alloc)

    def _stop(self, i: int) -> None:
        c = self.running.pop(i)
        self._account(c, -1)
        for unit in c.units:
            self.units.remove(unit.name)
        c.units = []
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
        timeout = DEFAULT_TIMEOUT if self.deadline is None else max(self.deadline - time.monotonic(), 0.001)
        tried = self._cycles(c, timeout)
        if not all(cycle.outcome.success for cycle in tried):
            if any(cycle.timed_out for cycle in tried):
                c.run.undecided = True
            return False
        c.run.undecided = False
        copies: dict[int, int] = {}  # evicted copy -> how many of its pods the victims name
        for victim in (unit for cycle in tried for unit in cycle.victims or ()):
            owners = {self.by_pod.get(evicted.name) for evicted in victim.pods} - {None}
            owned = [j for j in owners if j is not None and j in self.running]
            if owned:
                for j in owned:
                    copies[j] = copies.get(j, 0) + len(victim.pods)
                continue
            for evicted in victim.pods:
                key = (evicted.name, self.base.names[evicted.node])
                if key in self.base_pods:
                    self._evict_base(key)
            self.units.remove(victim.name)
            gone = Eviction(now, c.run.name, victim.name, victim.kind, victim.priority, len(victim.pods))
            self.evictions.append(gone)
        for j, pods in copies.items():
            self._evict(j)
            evicted_copy = self.copies[j]
            self.evictions.append(Eviction(now, c.run.name, evicted_copy.run.name, "copy", evicted_copy.priority, pods))
        c.started = now
        c.pods, c.groups = _as_running(tried, c, self.base)
        for running in c.pods:
            self.by_pod[running.name] = i
        self.running[i] = c
        self._account(c, +1)
        c.units = running_units(c.pods, c.groups)
        for unit in c.units:
            self.units.add(unit)
        return True

    def _cycles(self, c: _Copy, timeout: float) -> list[Cycle]:
        """The copy's cycles with preemption, in request order, on what runs now; nothing stays assumed.

        A copy whose pods' filters read no running pod is cycled on the
        session's snapshot (the candidates for preemption read from the
        cluster with everything running, made only then); another on that
        cluster itself.
        """
        if not c.reads_running:
            session = self.session
            mark = session.mark()
            gone: set[str] = set()
            tried = []
            for root in queue_order(c.request.roots):
                cycle = session.cycle(root, timeout, lambda priority: self.units.below(priority, gone))
                tried.append(cycle)
                gone.update(unit.name for unit in cycle.victims or ())
            session.revert(mark)  # what started and what it evicted are accounted by the player
        else:
            tried = cycles(
                c.request,
                self._state(),
                strategy=self.strategy,
                preempt=True,
                timeout=timeout,
                priority_classes=self.classes,
                score_all_nodes=self.score_all_nodes,
            )
        position = {id(root): k for k, root in enumerate(c.request.roots)}
        return sorted(tried, key=lambda cycle: position[id(cycle.root)])

    def _evict_base(self, key: tuple[str, str]) -> None:
        """Remove one of the cluster's own running pods: it is gone for the rest of the play."""
        if key in self.gone:
            return
        self.gone.add(key)
        pod = self.base_pods[key]
        self._move(pod, -1)
        self.session.take({pod.node: pod.requests}, -1)
        names = self.base.names
        self.base_running = [p for p in self.base_running if (p.name, names[p.node]) != key]

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


def _reads_running(request: PlacementRequest) -> bool:
    """Whether a filter of some pod of ``request`` reads the running pods: inter-pod affinity, spread, host ports."""
    return any(
        pod.pod_affinity or pod.pod_anti_affinity or pod.spread or pod.host_ports for pod in request.pod_constraints()
    )


def _stamp(seconds: float) -> str:
    """A start time that sorts as text, as creation timestamps do."""
    return f"{seconds:020.6f}"


def _as_running(tried: list[Cycle], c: _Copy, cluster: Cluster) -> tuple[list[RunningPod], list[RunningGroup]]:
    """The started copy's pods and groups as ``cluster`` runs them, from its cycles (in request order)."""
    pods: list[RunningPod] = []
    groups: list[RunningGroup] = []
    for cycle in tried:
        results = cycle.outcome.results
        for group in cycle.root.walk():
            groups.append(
                RunningGroup(group.name, group.kind, c.priority, group.disruption_mode, group.parent, _stamp(c.started))
            )
            result = results.get(group.name)
            if group.is_leaf and result is not None:
                names = result.names if result.names is not None else group.pod_names
                placed = [PodPlacement(name, cluster.names[n]) for name, n in zip(names, result.nodes, strict=False)]
                pods += as_running(group, placed, cluster, c.priority, _stamp(c.started))
    return pods, groups
