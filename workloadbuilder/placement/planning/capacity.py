"""``capacity``: how many copies of a workload fit, where, what is left stranded, and what to add.

The input's root groups are one unit (one "copy"): what a user would submit
again and again. Copies are placed one after another, each a scheduling cycle
that sees the earlier ones, as kube-scheduler would place them; the count
stops at the first copy that does not fit all or nothing.

Five answers (JSON keys in brackets):

- ``copies``: how many copies fit on the cluster as it is;
- ``perDomain``: for the topology key of the input's first root that has one,
  ``{key: {value: copies}}`` with each domain considered alone;
- ``stranded``: per resource the input's pods request, what stays free after
  those copies on the nodes its pods may use (not cordoned, ready, taints
  tolerated, selectors matched): capacity that exists but this shape cannot use;
- ``unusable``: the other nodes, how many, why and what is free on them
  (never part of ``stranded``);
- ``toAdd``: with ``add_nodes_like``, the fewest empty nodes like that node
  that make ``target`` copies fit (default: one more than fit now).

A ``timeout`` bounds the whole call. A count the bound cut short (the
complete strategy's search gave up on a copy, or time ran out between
copies) is a lower bound and says so: ``undecided`` is true, the text says
"at least", and no answer claims that a further copy does not fit.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workloadbuilder._internal.gofmt import render_bad_value
from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.limits import MAX_COPIES, MAX_NODES, MAX_TIMEOUT
from workloadbuilder.placement.answer import PodPlacement
from workloadbuilder.placement.cluster.derive import add_running, node_named, nodes_like, restrict
from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.cluster.records import RunningPod
from workloadbuilder.placement.engine import STRATEGIES, Cycle, cycles
from workloadbuilder.placement.explain.stages import unusable_reasons, usable_mask
from workloadbuilder.placement.explain.wording import count_of, reason_count
from workloadbuilder.placement.framework.queue import queue_order
from workloadbuilder.placement.k8s.quantity import format_millis, readable_quantity, resource_millis
from workloadbuilder.placement.planning.copies import as_running, copies_of, leaves, pod_sets
from workloadbuilder.placement.request.model import PlacementRequest
from workloadbuilder.placement.strategies.complete import DEFAULT_TIMEOUT

__all__ = ["Capacity", "NodesToAdd", "capacity", "count_copies"]

_LISTED_DOMAINS = 16  # more domains than this are summed up by how many copies each holds


@dataclass(frozen=True)
class NodesToAdd:
    """The fewest nodes like ``like`` that make ``target`` copies fit; ``count`` is ``None`` when no number does,
    or, with ``undecided``, when the time bound was reached before the search ended."""

    like: str
    count: int | None
    target: int
    undecided: bool = False

    def to_dict(self) -> dict[str, Any]:
        """``{"like", "count", "target", "undecided"}``."""
        return {"like": self.like, "count": self.count, "target": self.target, "undecided": self.undecided}


@dataclass(frozen=True)
class Capacity:
    """What ``capacity`` found; ``to_dict()`` gives the JSON shape the module docstring describes."""

    copies: int
    per_domain: dict[str, dict[str, int]] = field(default_factory=dict)
    stranded: dict[str, str] = field(default_factory=dict)
    to_add: NodesToAdd | None = None
    undecided: bool = False
    unusable: dict[str, Any] = field(default_factory=dict)
    """The nodes no pod of the input may use (cordoned, not ready, taints, selectors), kept out of ``stranded``:
    ``{"nodes", "reasons": {why: nodes}, "free": {resource: quantity}}``."""

    def to_dict(self) -> dict[str, Any]:
        """``{"copies", "undecided", "perDomain", "stranded", "unusable", "toAdd"}`` (``toAdd``: ``None`` unless asked).

        With ``undecided``, ``copies`` and the per-domain counts are lower bounds.
        """
        return {
            "copies": self.copies,
            "undecided": self.undecided,
            "perDomain": {key: dict(values) for key, values in self.per_domain.items()},
            "stranded": dict(self.stranded),
            "unusable": dict(self.unusable) if self.unusable else {"nodes": 0, "reasons": {}, "free": {}},
            "toAdd": None if self.to_add is None else self.to_add.to_dict(),
        }

    @property
    def text(self) -> str:
        """A short table for a terminal (beyond 16 domains, how many domains hold how many copies)."""
        if self.undecided:
            lines = [f"copies that fit: at least {self.copies} (undecided past that: the time bound was reached)"]
        else:
            lines = [f"copies that fit: {self.copies}"]
        for key, values in self.per_domain.items():
            lines.append(f"per {key} (each alone):")
            if not values:
                lines.append("  no node carries this label")
            elif len(values) > _LISTED_DOMAINS:
                spread = Counter(values.values())
                lines += [
                    f"  {count_of(count, 'domain')} hold{'s' if count == 1 else ''} {n}"
                    for n, count in sorted(spread.items(), reverse=True)
                ]
            else:
                width = max(len(value) for value in values)
                lines += [f"  {value:<{width}}  {n}" for value, n in values.items()]
        if self.stranded:
            lines.append("stranded after those copies:")
            width = max(len(resource) for resource in self.stranded)
            lines += [
                f"  {resource:<{width}}  {_readable(resource, amount)}" for resource, amount in self.stranded.items()
            ]
        if self.unusable and self.unusable.get("nodes"):
            why = ", ".join(reason_count(n, reason) for reason, n in self.unusable["reasons"].items())
            nodes = self.unusable["nodes"]
            lines.append(f"not usable by its pods (not in stranded): {nodes} node{'s' if nodes != 1 else ''} ({why})")
            free = self.unusable["free"]
            if free:
                width = max(len(resource) for resource in free)
                lines += [f"  {resource:<{width}}  {_readable(resource, amount)}" for resource, amount in free.items()]
        if self.to_add is not None:
            if self.to_add.undecided:
                lines.append(
                    f"undecided: the time bound was reached before finding how many nodes like"
                    f" {self.to_add.like} make {self.to_add.target} copies fit"
                )
            elif self.to_add.count is None:
                lines.append(f"no number of nodes like {self.to_add.like} makes {self.to_add.target} copies fit")
            else:
                lines.append(
                    f"to fit {self.to_add.target} copies: add {count_of(self.to_add.count, 'node')}"
                    f" like {self.to_add.like}"
                )
        return "\n".join(lines)


def _readable(resource: str, amount: str) -> str:
    """An exact quantity of the JSON (``417759Gi``) as ``place`` prints amounts for people (``408Ti``)."""
    return readable_quantity(resource, resource_millis(resource, amount))


def capacity(
    request: PlacementRequest,
    cluster: Cluster,
    *,
    add_nodes_like: str | None = None,
    target: int | None = None,
    strategy: str = "kube-scheduler",
    timeout: float | None = None,
) -> Capacity:
    """How many copies of ``request`` fit on ``cluster``, per domain, what is stranded and what to add.

    Args:
        request: the unit to copy (every root of it, together).
        cluster: the cluster as it is; it is not changed.
        add_nodes_like: a node of the cluster whose labels and allocatable
            new, empty nodes copy, to answer ``toAdd``.
        target: the copies ``toAdd`` aims for; default one more than fit now.
        strategy: the placement strategy, as for ``place``.
        timeout: seconds of wall clock the whole call may take (``None``: no
            bound); what it leaves open is reported as undecided.

    Raises:
        TypeError: an argument of the wrong type (named).
        InvalidArgumentError: ``add_nodes_like`` names no node, ``target`` is
            not from 1 to ``limits.MAX_COPIES``, an unknown strategy, or a
            timeout that is not a positive number of seconds.
    """
    clock = _Clock(timeout)
    _check(request, cluster, add_nodes_like, target, strategy)
    if add_nodes_like is not None:
        node_named(cluster, add_nodes_like)
    counted = _count(request, cluster, strategy, MAX_COPIES, clock)
    undecided = counted.undecided
    key = next((root.topology_key for root in request.roots if root.topology_key), None)
    per_domain: dict[str, dict[str, int]] = {}
    if key is not None:
        per_domain[key] = {}
        for value, domain in cluster.domains(key).items():
            alone = _count(request, restrict(cluster, domain.nodes), strategy, MAX_COPIES, clock)
            per_domain[key][value] = alone.fit
            undecided = undecided or alone.undecided
    to_add = None
    if add_nodes_like is not None:
        goal = target if target is not None else counted.fit + 1
        try:
            fewest = _fewest_nodes(request, cluster, add_nodes_like, goal, strategy, clock)
            to_add = NodesToAdd(add_nodes_like, fewest, goal)
        except _OutOfTime:
            to_add = NodesToAdd(add_nodes_like, None, goal, undecided=True)
    stranded, unusable = _stranded(request, add_running(cluster, counted.pods))
    return Capacity(counted.fit, per_domain, stranded, to_add, undecided, unusable)


def _check(
    request: PlacementRequest, cluster: Cluster, add_nodes_like: str | None, target: int | None, strategy: str
) -> None:
    """``capacity``'s arguments: their types, then their bounds, before any copy is placed."""
    if not isinstance(request, PlacementRequest):
        raise TypeError(f"capacity(): request must be a PlacementRequest, not {type(request).__name__}")
    if not isinstance(cluster, Cluster):
        raise TypeError(f"capacity(): cluster must be a Cluster, not {type(cluster).__name__}")
    if add_nodes_like is not None and not isinstance(add_nodes_like, str):
        raise TypeError(f"capacity(): add_nodes_like must be a node's name, not {type(add_nodes_like).__name__}")
    if target is not None and (isinstance(target, bool) or not isinstance(target, int)):
        raise TypeError(f"capacity(): target must be an int, not {type(target).__name__}")
    if not isinstance(strategy, str):
        raise TypeError(f"capacity(): strategy must be a str, not {type(strategy).__name__}")
    if target is not None and not 1 <= target <= MAX_COPIES:
        raise InvalidArgumentError(f"the target must be from 1 to {MAX_COPIES} copies, not {render_bad_value(target)}")
    if strategy not in STRATEGIES:
        raise InvalidArgumentError(f"unknown strategy {render_bad_value(strategy)}: use one of {', '.join(STRATEGIES)}")


class _OutOfTime(Exception):
    """The time bound was reached in the middle of a search that needs a whole answer."""


class _Clock:
    """The time bound of one ``capacity`` call: what is left of it, for each placement."""

    def __init__(self, timeout: float | None) -> None:
        if timeout is not None:
            if isinstance(timeout, bool) or not isinstance(timeout, int | float):
                raise TypeError(f"capacity(): timeout must be a number of seconds, not {type(timeout).__name__}")
            if not 0 < timeout <= MAX_TIMEOUT:  # NaN fails both comparisons
                raise InvalidArgumentError(
                    f"timeout must be a positive number of seconds up to {MAX_TIMEOUT:g},"
                    f" got {render_bad_value(timeout)}"
                )
        self.deadline = None if timeout is None else time.monotonic() + timeout

    def left(self) -> float:
        """Seconds a placement may search: what is left of the bound (a little at least), or the default."""
        if self.deadline is None:
            return DEFAULT_TIMEOUT
        return max(self.deadline - time.monotonic(), 0.001)

    @property
    def over(self) -> bool:
        """Whether the bound has been reached."""
        return self.deadline is not None and time.monotonic() >= self.deadline


@dataclass
class _Counted:
    fit: int
    pods: list[RunningPod]
    undecided: bool  # whether a copy past ``fit`` might fit too: the time bound stopped the count


def count_copies(
    request: PlacementRequest, cluster: Cluster, limit: int = MAX_COPIES, strategy: str = "kube-scheduler"
) -> int:
    """How many copies of ``request`` fit one after another, counting no further than ``limit``."""
    return _count(request, cluster, strategy, limit, _Clock(None)).fit


def _count(request: PlacementRequest, cluster: Cluster, strategy: str, limit: int, clock: _Clock) -> _Counted:
    """Copies that fit (at most ``limit``), the pods they place, and whether the time bound cut the count short.

    Copies are placed in runs of doubling length, each run one ``place`` on
    top of what the earlier runs placed, so that the runs are few; a run's
    cycles stop once no later root can change what the copies before its
    first failing one get. No cycle is explained, so the work is
    proportional to the copies that fit, not to ``limit`` nor to their
    square.
    """
    fit = 0
    pods: list[RunningPod] = []
    state = cluster
    batch = 1
    roots = len(request.roots)
    while fit < limit:
        if clock.over:
            return _Counted(fit, pods, True)
        batch = min(batch, limit - fit)
        run = copies_of(request, fit + 1, batch)
        whole, tried = _run(run, roots, batch, state, strategy, clock.left())
        by_root = {id(cycle.root): cycle for cycle in tried}
        new: list[RunningPod] = []
        for root in run.roots[: whole * roots]:  # request order, as the running pods of a cluster are listed
            new += _running(by_root[id(root)], state)
        pods += new
        fit += whole
        if whole < batch:
            return _Counted(fit, pods, any(cycle.timed_out for cycle in tried))
        state = add_running(state, new)
        batch *= 2
    return _Counted(fit, pods, False)


def _run(
    run: PlacementRequest, roots: int, batch: int, state: Cluster, strategy: str, timeout: float
) -> tuple[int, list[Cycle]]:
    """``(whole, cycles)``: how many leading copies of ``run`` were placed whole, and the cycles run.

    Roots are cycled in queue order (copy ``k``'s roots are ``run.roots[k * roots:(k + 1) * roots]``); the
    cycles end once every later root belongs to a copy at or past the first one with a root not placed.
    """
    copy_at = {id(root): k // roots for k, root in enumerate(run.roots)}
    order = [copy_at[id(root)] for root in queue_order(run.roots)]
    later = [batch] * (len(order) + 1)  # later[p]: the first copy among the roots at queue position p or after
    for p in range(len(order) - 1, -1, -1):
        later[p] = min(order[p], later[p + 1])
    failed = batch  # the first copy with a root not placed

    def stop(position: int, cycle: Cycle) -> bool:
        nonlocal failed
        if not _whole(cycle):
            failed = min(failed, order[position])
        return later[position + 1] >= failed

    tried = cycles(run, state, strategy=strategy, timeout=timeout, stop=stop)
    return failed, tried


def _whole(cycle: Cycle) -> bool:
    """Whether the cycle placed every pod of its root: a gang is placed whole or not at all, but the pods of a
    basic (non-gang) group are scheduled one by one, and a copy of which some did not fit is not a copy that fits."""
    if not cycle.placed:
        return False
    results = cycle.outcome.results
    return all(
        group.name in results and len(results[group.name].nodes) >= group.count for group in leaves([cycle.root])
    )


def _running(cycle: Cycle, cluster: Cluster) -> list[RunningPod]:
    """The pods a placed root's cycle put on ``cluster``'s nodes, as running pods of ``cluster``."""
    out: list[RunningPod] = []
    results = cycle.outcome.results
    for group in leaves([cycle.root]):
        result = results.get(group.name)
        if result is None:
            continue
        names = result.names if result.names is not None else group.pod_names
        placed = [PodPlacement(name, cluster.names[i]) for name, i in zip(names, result.nodes, strict=False)]
        out += as_running(group, placed, cluster, group.priority)
    return out


def _fewest_nodes(
    request: PlacementRequest, cluster: Cluster, like: str, goal: int, strategy: str, clock: _Clock
) -> int | None:
    """The fewest nodes like ``like`` that make ``goal`` copies fit, or ``None`` when none do.

    More nodes never fit fewer copies, so the answer is found by doubling
    then bisecting. The search gives up beyond one new node per pod of
    ``goal`` copies (more cannot help a shape that fits on such a node at
    all), and beyond ``limits.MAX_NODES`` nodes in all.

    Raises:
        _OutOfTime: the time bound left some step of the search undecided.
    """

    def fits(on: Cluster) -> bool:
        counted = _count(request, on, strategy, goal, clock)
        if counted.fit < goal and counted.undecided:
            raise _OutOfTime
        return counted.fit >= goal

    if fits(cluster):
        return 0
    pods_per_copy = sum(group.count for group in leaves(request.roots))
    ceiling = max(1, min(goal * pods_per_copy, MAX_NODES - len(cluster)))

    def enough(k: int) -> bool:
        return fits(nodes_like(cluster, like, k))

    high = 1
    while not enough(high):
        if high >= ceiling:
            return None
        high = min(high * 2, ceiling)
    low = high // 2  # known not to be enough (or 0, tried above)
    while high - low > 1:
        middle = (low + high) // 2
        if enough(middle):
            high = middle
        else:
            low = middle
    return high


def _stranded(request: PlacementRequest, cluster: Cluster) -> tuple[dict[str, str], dict[str, Any]]:
    """Free capacity per resource the request's pods ask for (``pods`` included), on the nodes they may use.

    A node counts when some pod of the request passes its pod-and-node
    filters there (not cordoned, ready, taints tolerated, selectors and
    required affinity matched: ``stages.usable_mask``). The other nodes are
    the second answer, ``{"nodes", "reasons", "free"}``: how many, why (as
    the first pod set sees them) and what is free on them.
    """
    wanted: list[str] = []
    constraints = []
    for group in leaves(request.roots):
        for pods in pod_sets(group):
            wanted += [r for r, amount in pods.requests.items() if amount > 0 and r not in wanted]
            if pods.constraints not in constraints:
                constraints.append(pods.constraints)
    if "pods" not in wanted:
        wanted.append("pods")
    nodes = np.arange(len(cluster), dtype=np.int64)
    usable = usable_mask(cluster, constraints, nodes) if constraints else np.ones(len(cluster), dtype=np.bool_)
    out: dict[str, str] = {}
    elsewhere: dict[str, str] = {}
    for resource in sorted(wanted):
        r = cluster.resource_index.get(resource)
        if r is None:
            continue
        free = [max(0, a - u) for a, u in zip(cluster.allocatable[r], cluster.used[r], strict=True)]
        out[resource] = format_millis(resource, sum(f for f, ok in zip(free, usable.tolist(), strict=True) if ok))
        elsewhere[resource] = format_millis(
            resource, sum(f for f, ok in zip(free, usable.tolist(), strict=True) if not ok)
        )
    unusable: dict[str, Any] = {}
    if not usable.all():
        out_nodes = nodes[~usable]
        unusable = {
            "nodes": len(out_nodes),
            "reasons": unusable_reasons(cluster, constraints[0], out_nodes),
            "free": elsewhere,
        }
    return out, unusable
