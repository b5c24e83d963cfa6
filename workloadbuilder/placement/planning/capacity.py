"""``capacity``: how many copies of a workload fit, where, what is left stranded, and what to add.

The input's root groups are one unit (one "copy"): what a user would submit
again and again. Copies are placed one after another, each a scheduling cycle
that sees the earlier ones, as kube-scheduler would place them; the count
stops at the first copy that does not fit all or nothing.

Four answers (JSON keys in brackets):

- ``copies``: how many copies fit on the cluster as it is;
- ``perDomain``: for the topology key of the input's first root that has one,
  ``{key: {value: copies}}`` with each domain considered alone;
- ``stranded``: per resource the input's pods request, what stays free after
  those copies: capacity that exists but this shape cannot use;
- ``toAdd``: with ``add_nodes_like``, the fewest empty nodes like that node
  that make ``target`` copies fit (default: one more than fit now).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.placement.cluster.derive import add_running, node_named, nodes_like, restrict
from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.cluster.records import RunningPod
from workloadbuilder.placement.engine import place
from workloadbuilder.placement.k8s.quantity import format_millis
from workloadbuilder.placement.planning.copies import as_running, copies_of, leaves, placed_roots, pod_sets
from workloadbuilder.placement.request.model import PlacementRequest

__all__ = ["MAX_COPIES", "Capacity", "NodesToAdd", "capacity", "count_copies"]

_LISTED_DOMAINS = 16  # more domains than this are summed up by how many copies each holds

MAX_COPIES = 100_000
"""Counting stops here: a copy that requests almost nothing would otherwise be counted for ever."""


@dataclass(frozen=True)
class NodesToAdd:
    """The fewest nodes like ``like`` that make ``target`` copies fit; ``count`` is ``None`` when no number does."""

    like: str
    count: int | None
    target: int

    def to_dict(self) -> dict[str, Any]:
        """``{"like", "count", "target"}``."""
        return {"like": self.like, "count": self.count, "target": self.target}


@dataclass(frozen=True)
class Capacity:
    """What ``capacity`` found; ``to_dict()`` gives the JSON shape the module docstring describes."""

    copies: int
    per_domain: dict[str, dict[str, int]] = field(default_factory=dict)
    stranded: dict[str, str] = field(default_factory=dict)
    to_add: NodesToAdd | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"copies", "perDomain", "stranded", "toAdd"}``; ``toAdd`` is ``None`` unless asked for."""
        return {
            "copies": self.copies,
            "perDomain": {key: dict(values) for key, values in self.per_domain.items()},
            "stranded": dict(self.stranded),
            "toAdd": None if self.to_add is None else self.to_add.to_dict(),
        }

    @property
    def text(self) -> str:
        """A short table for a terminal (beyond 16 domains, how many domains hold how many copies)."""
        lines = [f"copies that fit: {self.copies}"]
        for key, values in self.per_domain.items():
            lines.append(f"per {key} (each alone):")
            if not values:
                lines.append("  no node carries this label")
            elif len(values) > _LISTED_DOMAINS:
                spread = Counter(values.values())
                lines += [f"  {count} domain(s) hold {n}" for n, count in sorted(spread.items(), reverse=True)]
            else:
                width = max(len(value) for value in values)
                lines += [f"  {value:<{width}}  {n}" for value, n in values.items()]
        if self.stranded:
            lines.append("stranded after those copies:")
            width = max(len(resource) for resource in self.stranded)
            lines += [f"  {resource:<{width}}  {amount}" for resource, amount in self.stranded.items()]
        if self.to_add is not None:
            if self.to_add.count is None:
                lines.append(f"no number of nodes like {self.to_add.like} makes {self.to_add.target} copies fit")
            else:
                lines.append(
                    f"to fit {self.to_add.target} copies: add {self.to_add.count} node(s) like {self.to_add.like}"
                )
        return "\n".join(lines)


def capacity(
    request: PlacementRequest,
    cluster: Cluster,
    *,
    add_nodes_like: str | None = None,
    target: int | None = None,
    strategy: str = "kube-scheduler",
) -> Capacity:
    """How many copies of ``request`` fit on ``cluster``, per domain, what is stranded and what to add.

    Args:
        request: the unit to copy (every root of it, together).
        cluster: the cluster as it is; it is not changed.
        add_nodes_like: a node of the cluster whose labels and allocatable
            new, empty nodes copy, to answer ``toAdd``.
        target: the copies ``toAdd`` aims for; default one more than fit now.
        strategy: the placement strategy, as for ``place``.

    Raises:
        InvalidArgumentError: ``add_nodes_like`` names no node, or ``target`` is below 1.
    """
    if target is not None and target < 1:
        raise InvalidArgumentError(f"the target must be at least 1 copy, not {target}")
    fit, placed = _count(request, cluster, strategy, MAX_COPIES)
    key = next((root.topology_key for root in request.roots if root.topology_key), None)
    per_domain: dict[str, dict[str, int]] = {}
    if key is not None:
        per_domain[key] = {
            value: _count(request, restrict(cluster, domain.nodes), strategy, MAX_COPIES)[0]
            for value, domain in cluster.domains(key).items()
        }
    to_add = None
    if add_nodes_like is not None:
        goal = target if target is not None else fit + 1
        to_add = NodesToAdd(add_nodes_like, _fewest_nodes(request, cluster, add_nodes_like, goal, strategy), goal)
    return Capacity(fit, per_domain, _stranded(request, add_running(cluster, placed)), to_add)


def count_copies(
    request: PlacementRequest, cluster: Cluster, limit: int = MAX_COPIES, strategy: str = "kube-scheduler"
) -> int:
    """How many copies of ``request`` fit one after another, counting no further than ``limit``."""
    return _count(request, cluster, strategy, limit)[0]


def _count(request: PlacementRequest, cluster: Cluster, strategy: str, limit: int) -> tuple[int, list[RunningPod]]:
    """Copies that fit (at most ``limit``) and the pods they place.

    Copies are placed in runs of doubling length, each run on top of what the
    earlier runs placed, so the work is proportional to the copies that fit
    (plus one run's failures), not to ``limit``.
    """
    fit = 0
    pods: list[RunningPod] = []
    state = cluster
    batch = 1
    while fit < limit:
        batch = min(batch, limit - fit)
        run = copies_of(request, fit + 1, batch)
        answer = place(run, state, strategy=strategy)
        placed = placed_roots(answer, run)
        roots = len(request.roots)
        whole = 0
        while whole < batch and all(placed[whole * roots : (whole + 1) * roots]):
            whole += 1
        new = _running(answer, run, state, whole * roots)
        pods += new
        fit += whole
        if whole < batch:
            break
        state = add_running(state, new)
        batch *= 2
    return fit, pods


def _running(answer: Any, run: PlacementRequest, cluster: Cluster, roots: int) -> list[RunningPod]:
    """The pods of the first ``roots`` roots of ``run`` as running pods of ``cluster``."""
    out: list[RunningPod] = []
    by_name = {group.name: group for group in answer.groups}
    for group in leaves(run.roots[:roots]):
        out += as_running(group, by_name[group.name].pods, cluster, group.priority)
    return out


def _fewest_nodes(request: PlacementRequest, cluster: Cluster, like: str, goal: int, strategy: str) -> int | None:
    """The fewest nodes like ``like`` that make ``goal`` copies fit, or ``None`` when none do.

    More nodes never fit fewer copies, so the answer is found by doubling
    then bisecting. The search gives up beyond one new node per pod of
    ``goal`` copies: more cannot help a shape that fits on such a node at all.
    """
    node_named(cluster, like)
    if _count(request, cluster, strategy, goal)[0] >= goal:
        return 0
    pods_per_copy = sum(group.count for group in leaves(request.roots))
    ceiling = max(1, goal * pods_per_copy)

    def enough(k: int) -> bool:
        return _count(request, nodes_like(cluster, like, k), strategy, goal)[0] >= goal

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


def _stranded(request: PlacementRequest, cluster: Cluster) -> dict[str, str]:
    """Free capacity of schedulable nodes per resource the request's pods ask for (``pods`` included)."""
    wanted: list[str] = []
    for group in leaves(request.roots):
        for pods in pod_sets(group):
            wanted += [r for r, amount in pods.requests.items() if amount > 0 and r not in wanted]
    if "pods" not in wanted:
        wanted.append("pods")
    out: dict[str, str] = {}
    for resource in sorted(wanted):
        r = cluster.resource_index.get(resource)
        if r is None:
            continue
        free = _free_sum(cluster.allocatable[r], cluster.used[r], cluster.schedulable)
        out[resource] = format_millis(resource, free)
    return out


def _free_sum(allocatable: Sequence[int], used: Sequence[int], schedulable: Sequence[bool]) -> int:
    return sum(max(0, a - u) for a, u, ok in zip(allocatable, used, schedulable, strict=True) if ok)
