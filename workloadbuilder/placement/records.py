"""The plain records a cluster is made of, shared by the readers and the ``Cluster`` model.

Readers (``ingest``, ``generate``) turn their input into ``ClusterParts``;
``Cluster.build`` indexes them. Keeping the records here, below both, is
what lets ``cluster`` import its readers without a cycle.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from workloadbuilder.placement.constraints import HostPort

if TYPE_CHECKING:
    from workloadbuilder.placement.disruption import DisruptionBudget
    from workloadbuilder.placement.priorities import PriorityClass

__all__ = ["ClusterParts", "DevicePool", "RunningGroup", "RunningPod"]


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
    spread match; ``host_ports`` what NodePorts checks.
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
class ClusterParts:
    """What a reader found, before indexing: parsed nodes and pods as dicts, and the records above.

    ``nodes``: ``{"name", "labels", "allocatable", "used", "schedulable",
    "taints"}`` (amounts in millis); ``pods``: ``{"name", "node", "requests",
    "priority", "group", "start", "namespace", "labels", "host_ports"}``;
    ``warnings``: what the reader noticed that changes placement but is not
    an error (a NotReady node without its taint).
    """

    nodes: list[dict[str, Any]] = field(default_factory=list)
    pools: list[DevicePool] = field(default_factory=list)
    pods: list[dict[str, Any]] = field(default_factory=list)
    groups: list[RunningGroup] = field(default_factory=list)
    priority_classes: list[PriorityClass] = field(default_factory=list)
    disruption_budgets: list[DisruptionBudget] = field(default_factory=list)
    """PriorityClass and PodDisruptionBudget records (``priorities``, ``disruption``)."""
    warnings: list[str] = field(default_factory=list)
