"""The plain records a cluster is made of, shared by the readers and the ``Cluster`` model.

Readers (``readers``, ``generate``) turn their input into ``ClusterParts``;
``Cluster.build`` indexes them, their nodes as ``NodeColumns``. Keeping the
records here, below both, is what lets ``model`` import its readers
without a cycle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from workloadbuilder.placement.cluster.images import ImageIndex, index_of
from workloadbuilder.placement.k8s.constraints import HostPort, PodAffinity, Taint

if TYPE_CHECKING:
    from workloadbuilder.placement.k8s.disruption import DisruptionBudget
    from workloadbuilder.placement.k8s.priorities import PriorityClass

__all__ = ["ClusterParts", "DevicePool", "NodeColumns", "RunningGroup", "RunningPod"]


@dataclass(frozen=True)
class DevicePool:
    """Devices of one class that pods on some nodes can reach.

    Exactly one of ``node`` (devices local to one node) and ``domain`` (a
    ``(topology key, value)`` pair: devices shared by every node of that
    domain, such as the NICs of a rack) says who can reach them.
    """

    name: str
    device_class: str
    count: int
    allocated: int = 0
    node: str | None = None
    domain: tuple[str, str] | None = None


@dataclass(frozen=True)
class RunningPod:
    """A pod already bound to a node, holding ``requests`` (aligned to ``Cluster.resources``).

    ``namespace`` and ``labels`` are what inter-pod affinity and topology
    spread match; ``host_ports`` what NodePorts checks; ``affinity`` the
    pod's own pod (anti-)affinity terms, which InterPodAffinity's score
    reads against the pod to place.
    """

    name: str
    node: int
    requests: tuple[int, ...]
    priority: int = 0
    group: str | None = None
    start: str = ""
    namespace: str = "default"
    labels: Mapping[str, str] = field(default_factory=dict, hash=False, compare=False)
    host_ports: tuple[HostPort, ...] = ()
    unset: tuple[int, int] = (0, 0)
    """What kube-scheduler's ``NodeResourcesFit`` score counts on top of ``requests`` for CPU and memory: the
    100m and 200Mi defaults of the containers that leave them unset (``k8s.resources.pod_score_requests``)."""
    affinity: PodAffinity = field(default=PodAffinity(), compare=False)


@dataclass(frozen=True)
class RunningGroup:
    """A running PodGroup or CompositePodGroup, for workload-aware preemption.

    ``disruption_mode`` is ``"single"`` or ``"all"``; ``parent`` names the
    parent CompositePodGroup, if any.
    """

    name: str
    kind: str = "PodGroup"
    priority: int = 0
    disruption_mode: str = "single"
    parent: str | None = None
    start: str = ""


@dataclass
class NodeColumns:
    """Nodes column by column, as ``Cluster.build`` indexes them: one list per field, indexed by node.

    ``allocatable`` and ``used`` map each resource some node has to every
    node's amount of it in millis (0 where a node has none). The kubectl
    reader gives its nodes so; node records are turned into them by
    ``from_records``.
    """

    names: list[str]
    labels: list[dict[str, str]]
    allocatable: dict[str, list[int]]
    used: dict[str, list[int]]
    schedulable: list[bool]
    taints: list[tuple[Taint, ...]]
    images: ImageIndex | None = None
    """The nodes' ``status.images`` by image name (``None``: no node lists any)."""

    @classmethod
    def from_records(cls, nodes: Sequence[Mapping[str, Any]]) -> NodeColumns:
        """The columns of node records ``{"name", "labels", "allocatable", "used", "schedulable", "taints", "images"}``.

        Only ``name`` and ``allocatable`` are required: no labels, nothing
        used, schedulable, no taints and no images (``(name, sizeBytes)``
        pairs) by default.
        """
        return cls(
            [node["name"] for node in nodes],
            [node.get("labels", {}) for node in nodes],
            _amount_columns([node["allocatable"] for node in nodes]),
            _amount_columns([node.get("used") or {} for node in nodes]),
            [bool(node.get("schedulable", True)) for node in nodes],
            [tuple(node.get("taints", ())) for node in nodes],
            index_of([node.get("images", ()) for node in nodes]) if any(node.get("images") for node in nodes) else None,
        )


def _amount_columns(rows: list[Mapping[str, int]]) -> dict[str, list[int]]:
    """Per-resource columns of per-node ``{resource: millis}`` maps (0 where a map lacks the resource)."""
    resources: set[str] = set().union(*rows)
    return {resource: [row.get(resource, 0) for row in rows] for resource in sorted(resources)}


@dataclass
class ClusterParts:
    """What a reader found, before indexing: parsed nodes and pods as dicts, and the records above.

    ``nodes``: ``NodeColumns``, or records ``{"name", "labels",
    "allocatable", "used", "schedulable", "taints"}`` (amounts in millis,
    see ``NodeColumns.from_records``); ``pods``: ``{"name", "node", "requests",
    "priority", "group", "start", "namespace", "labels", "host_ports"}``;
    ``warnings``: what the reader noticed that changes placement but is not
    an error (a NotReady node without its taint).
    """

    nodes: list[dict[str, Any]] | NodeColumns = field(default_factory=list)
    pools: list[DevicePool] = field(default_factory=list)
    pods: list[dict[str, Any]] = field(default_factory=list)
    groups: list[RunningGroup] = field(default_factory=list)
    priority_classes: list[PriorityClass] = field(default_factory=list)
    disruption_budgets: list[DisruptionBudget] = field(default_factory=list)
    """PriorityClass and PodDisruptionBudget records (``priorities``, ``disruption``)."""
    warnings: list[str] = field(default_factory=list)
