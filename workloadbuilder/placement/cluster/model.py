"""The cluster model: nodes, their free capacity, topology domains, device pools and what is running.

Built once (from ``kubectl`` JSON, a compact YAML description, or a
generator) and then read by every placement query; nothing here changes
after construction, so one model answers many queries. Per-query state
(what a simulation has assumed) lives in ``Snapshot``.

Storage is a structure of arrays: one list per resource, indexed by node,
every amount an integer number of millis (see ``quantity``), with numpy
columns of them for the vectorized passes (``arrays`` keeps them exact).
Nodes whose free capacity is identical share one *free vector*.

``Cluster`` is the façade of three parts: this module's storage and free
capacity, ``cluster.topology`` (the domains of each topology key, indexed on
first use) and ``cluster.eligibility`` (the pod-and-node filters' verdicts,
decided per class of nodes); its methods answer for all three.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from workloadbuilder._internal.collector import quiet_gc
from workloadbuilder._internal.gofmt import capped
from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.placement.cluster import generate, readers
from workloadbuilder.placement.cluster.arrays import IntArray, exact, exact_sum, gcd_of
from workloadbuilder.placement.cluster.eligibility import Eligibility
from workloadbuilder.placement.cluster.images import ImageIndex
from workloadbuilder.placement.cluster.records import (
    ClusterParts,
    DevicePool,
    NodeColumns,
    RunningGroup,
    RunningPod,
)
from workloadbuilder.placement.cluster.topology import Domain, Topology
from workloadbuilder.placement.filters import Rejection
from workloadbuilder.placement.k8s.constraints import HostPort, NodeSelectorTerm, PodAffinity, PodConstraints, Taint
from workloadbuilder.placement.k8s.disruption import DisruptionBudget
from workloadbuilder.placement.k8s.priorities import PriorityClass, PriorityClasses
from workloadbuilder.placement.k8s.resources import POD_MILLIS

__all__ = [
    "ANTI_AFFINITY_PREFIX",
    "HOST_PORT_PREFIX",
    "SCORE_RESOURCES",
    "Cluster",
    "DevicePool",
    "DisruptionBudget",
    "PriorityClass",
    "RunningGroup",
    "RunningPod",
    "host_port_resource",
    "is_slot",
]

BASE_RESOURCES = ("cpu", "memory", "pods")
SCORE_RESOURCES = (("cpu", 1), ("memory", 1))
"""Resources (and weights) kube-scheduler's resource scoring reads by default."""

HOST_PORT_PREFIX = "hostport:"
"""Host ports are modelled as resources of one slot per node, named ``hostport:<protocol>/<port>``."""

ANTI_AFFINITY_PREFIX = "podantiaffinity:"
"""A per-node anti-affinity term the pods being placed match themselves is a one-slot resource too."""

SLOT_PREFIXES = (HOST_PORT_PREFIX, ANTI_AFFINITY_PREFIX)
"""Resources that are not resources: one slot per node, for rules among the pods being placed."""


def host_port_resource(port: HostPort) -> str:
    """The one-slot resource that stands for a host port (the address is not told apart)."""
    return f"{HOST_PORT_PREFIX}{port.protocol}/{port.port}"


def _zone_key(labels: Mapping[str, str]) -> str:
    """A node's zone as the scheduler's node tree keys it (``GetZoneKey``): region and zone, or ``""``."""
    zone = labels.get("failure-domain.beta.kubernetes.io/zone", labels.get("topology.kubernetes.io/zone", ""))
    region = labels.get("failure-domain.beta.kubernetes.io/region", labels.get("topology.kubernetes.io/region", ""))
    return f"{region}:\x00:{zone}" if region or zone else ""


def is_slot(resource: str) -> bool:
    """Whether ``resource`` is one of the one-slot stand-ins (host ports, per-node anti-affinity)."""
    return resource.startswith(SLOT_PREFIXES)


class Cluster:
    """Nodes with labels, taints, allocatable and used resources, device pools and running groups.

    Build one with ``Cluster.from_kubectl``, ``Cluster.from_yaml``,
    ``Cluster.generate`` or ``Cluster.build``; all amounts are millis.

    Attributes:
        names: node names, in input order (ties between equal nodes go to the earlier one).
        labels: each node's labels.
        taints: each node's taints, in the node's order.
        resources: resource names; ``cpu``, ``memory`` and ``pods`` come first,
            host-port slots (``hostport:TCP/8080``) last.
        allocatable: ``allocatable[r][i]``, node ``i``'s allocatable amount of resource ``r``.
        used: ``used[r][i]``, what running pods (and ``used`` in YAML) already take.
        schedulable: ``False`` for cordoned nodes (``spec.unschedulable``).
        pools: device pools for group resource claims.
        running_pods / running_groups: what workload-aware preemption may evict.
        priority_classes: the cluster's PriorityClasses by name (the system ones included).
        disruption_budgets: the PodDisruptionBudgets preemption counts.
        warnings: what the readers noticed that changes placement (a NotReady
            node without its taint), for every answer on this cluster.
        images: the nodes' ``status.images``: by image name, the nodes that
            list it and its size on each (ImageLocality's input).
    """

    def __init__(
        self,
        names: list[str],
        labels: list[dict[str, str]],
        resources: Sequence[str],
        allocatable: list[list[int]],
        used: list[list[int]],
        schedulable: list[bool] | None = None,
        pools: Iterable[DevicePool] = (),
        running_pods: Iterable[RunningPod] = (),
        running_groups: Iterable[RunningGroup] = (),
        taints: list[tuple[Taint, ...]] | None = None,
        priority_classes: Iterable[PriorityClass] = (),
        disruption_budgets: Iterable[DisruptionBudget] = (),
        warnings: Iterable[str] = (),
        images: ImageIndex | None = None,
    ) -> None:
        # A Cluster is immutable once built: the model's fields below never change (a changed cluster is a new
        # Cluster, see ``replace`` and ``placement.cluster.derive``); the private caches fill in as queries first
        # ask for them and keep their answers for the cluster's life.
        self.names = names
        self.labels = labels
        self.taints = taints if taints is not None else [()] * len(names)
        self.resources = tuple(resources)
        self.resource_index = {name: r for r, name in enumerate(self.resources)}  # resource name -> column r
        self.allocatable = allocatable
        self.used = used
        self.schedulable = schedulable if schedulable is not None else [True] * len(names)
        self.pools = tuple(pools)
        self._pools = {pool.name: pool for pool in self.pools}  # the pools by name, for ``pool(name)``
        self.running_pods = tuple(running_pods)
        self.running_groups = {group.name: group for group in running_groups}  # by name
        self.priority_classes = PriorityClasses(priority_classes)
        self.disruption_budgets = tuple(disruption_budgets)
        self.warnings = tuple(warnings)
        self.images = images if images is not None else ImageIndex()
        self.has_images = bool(self.images)  # some node lists an image (ImageLocality then scores)
        missing = [name for name, _ in SCORE_RESOURCES if name not in self.resource_index]
        if missing:  # the scores read them on every node: a node with none has 0 of each
            raise InvalidArgumentError(
                f"Cluster(): resources must name {' and '.join(name for name, _ in SCORE_RESOURCES)}"
                f" (kube-scheduler scores them; give 0 where a node has none), got {capped(repr(self.resources))}"
            )
        # the columns of the resources LeastAllocated scores (cpu, memory), in SCORE_RESOURCES order
        self.score_index = tuple(self.resource_index[name] for name, _ in SCORE_RESOURCES)
        # every distinct free vector (allocatable - used per resource), in order of first use; filled once below
        self.vectors: list[tuple[int, ...]] = []
        self._free_columns: list[IntArray] | None = None  # ``vectors`` column by column, made on first use
        self._node_columns: dict[tuple[str, int], IntArray] = {}  # ("allocatable" | "used", r) -> exact array
        self._free_sums: dict[int, tuple[int, ...]] = {}  # Domain uid -> its summed free capacity per resource
        self._ranges: dict[tuple[str, int], tuple[int, int]] = {}  # (column name, r) -> (least, greatest)
        self._grain: dict[int, int] = {}  # r -> a common divisor of every allocatable and used amount of r
        self._float_columns: dict[tuple[str, int], npt.NDArray[np.float64]] = {}  # (name, r) -> column as floats
        # node i's free vector is vectors[vector_of[i]]
        self.vector_of: list[int] = self._intern_free_vectors()
        self.vector_index = np.asarray(self.vector_of, dtype=np.int64)  # ``vector_of`` as an array
        self.vector_per_node = bool((self.vector_index == np.arange(len(self.vector_of))).all())
        """Whether node ``i``'s free vector is vector ``i`` (every node's free capacity differs)."""
        self.topology = Topology(self)  # the topology keys' domains, indexed as queries first name a key
        self.root = self.topology.root  # the whole cluster, one domain
        self.eligibility = Eligibility(self, self.topology)  # the filters' verdicts, kept per kind of pod
        # whether some node has a PreferNoSchedule taint (TaintToleration then scores)
        self.has_preferences = any(t.effect == "PreferNoSchedule" for taints in self.taints for t in taints)
        self._covers: dict[tuple[str, int], bool] = {}  # (pool name, Domain uid) -> every node reaches the pool

    @functools.cached_property
    def scheduling_order(self) -> npt.NDArray[np.int64]:
        """The nodes in kube-scheduler's node order, which node sampling walks (``framework.sampling``).

        The scheduler's node tree lists one node of each zone in turn, the
        zones in the order their first node was added, until every zone is
        exhausted; nodes are added as the informer lists them, by name. A
        node's zone is its region and zone labels (the deprecated
        ``failure-domain.beta.kubernetes.io`` ones first); nodes with
        neither share one zone.
        """
        zones: dict[str, list[int]] = {}
        for i in sorted(range(len(self.names)), key=self.names.__getitem__):
            zones.setdefault(_zone_key(self.labels[i]), []).append(i)
        order: list[int] = []
        members = list(zones.values())
        for k in range(max((len(m) for m in members), default=0)):
            order += [m[k] for m in members if k < len(m)]
        return np.asarray(order, dtype=np.int64)

    @functools.cached_property
    def scheduling_rank(self) -> npt.NDArray[np.int64]:
        """Each node's position in ``scheduling_order``."""
        rank = np.empty(len(self.names), dtype=np.int64)
        rank[self.scheduling_order] = np.arange(len(self.names), dtype=np.int64)
        return rank

    @functools.cached_property
    def node_index(self) -> dict[str, int]:
        """By node name, the node's index in ``names`` (built when first read: placing a gang does not need it)."""
        return dict(zip(self.names, range(len(self.names)), strict=True))

    def replace(self, **changes: Any) -> Cluster:
        """A new cluster with this one's constructor arguments, but for ``changes`` (by argument name).

        Every argument of ``__init__`` is carried over; a per-node argument
        changed for one node list must be changed for all of them (see
        ``placement.derive``).
        """
        arguments: dict[str, Any] = {
            "names": self.names,
            "labels": self.labels,
            "resources": self.resources,
            "allocatable": self.allocatable,
            "used": self.used,
            "schedulable": self.schedulable,
            "pools": self.pools,
            "running_pods": self.running_pods,
            "running_groups": self.running_groups.values(),
            "taints": self.taints,
            "priority_classes": self.priority_classes.values(),
            "disruption_budgets": self.disruption_budgets,
            "warnings": self.warnings,
            "images": self.images,
        }
        unknown = set(changes) - set(arguments)
        if unknown:
            raise TypeError(f"Cluster.replace: unknown arguments {sorted(unknown)}")
        return Cluster(**{**arguments, **changes})

    @classmethod
    def build(
        cls,
        nodes: Iterable[Mapping[str, Any]] | NodeColumns,
        pools: Iterable[DevicePool] = (),
        running_pods: Iterable[Mapping[str, Any]] = (),
        running_groups: Iterable[RunningGroup] = (),
        *,
        slots: Iterable[str] = (),
        priority_classes: Iterable[PriorityClass] = (),
        disruption_budgets: Iterable[DisruptionBudget] = (),
        warnings: Iterable[str] = (),
    ) -> Cluster:
        """A cluster from already-parsed nodes: ``{"name", "labels", "allocatable", "used", "schedulable", "taints"}``.

        ``allocatable`` and ``used`` map resource names to millis (``nodes``
        may also be ``NodeColumns``, the same column by column). Each running
        pod is ``{"name", "node" (a name), "requests" (millis), "priority",
        "group", "start", "namespace", "labels", "host_ports"}`` and
        optionally ``"unset"`` and ``"affinity"`` (``RunningPod.unset``, ``.affinity``); its requests, one pod
        slot and its host ports add to its node's ``used``.
        ``slots`` names more one-slot resources than the running pods' host
        ports (those the pods to place want), so that each has its column.
        """
        table = nodes if isinstance(nodes, NodeColumns) else NodeColumns.from_records(list(nodes))
        running_pods = list(running_pods)
        names = table.names
        count = len(names)
        ports = {host_port_resource(port) for pod in running_pods for port in pod.get("host_ports", ())}
        ports.update(slots)
        extra = sorted(set(table.allocatable) - set(BASE_RESOURCES) - ports)
        resources = (*BASE_RESOURCES, *extra, *sorted(ports))
        allocatable = [
            [POD_MILLIS] * count if r in ports else table.allocatable.get(r) or [0] * count for r in resources
        ]
        used = [list(table.used[r]) if r in table.used else [0] * count for r in resources]
        index = {name: i for i, name in enumerate(names)} if running_pods else {}
        pods: list[RunningPod] = []
        for pod in running_pods:
            i = index[pod["node"]]
            held = dict(pod["requests"])
            held["pods"] = held.get("pods", 0) + POD_MILLIS
            for port in pod.get("host_ports", ()):
                held[host_port_resource(port)] = POD_MILLIS
            vector = tuple(held.get(r, 0) for r in resources)
            for r, amount in enumerate(vector):
                used[r][i] += amount
            pods.append(
                RunningPod(
                    pod["name"],
                    i,
                    vector,
                    pod.get("priority", 0),
                    pod.get("group"),
                    pod.get("start", ""),
                    pod.get("namespace", "default"),
                    pod.get("labels") or {},
                    tuple(pod.get("host_ports", ())),
                    tuple(pod.get("unset", (0, 0))),
                    pod.get("affinity") or PodAffinity(),
                )
            )
        return cls(
            names,
            table.labels,
            resources,
            allocatable,
            used,
            table.schedulable,
            pools,
            pods,
            running_groups,
            table.taints,
            priority_classes,
            disruption_budgets,
            warnings,
            table.images,
        )

    @classmethod
    def from_parts(cls, parts: ClusterParts) -> Cluster:
        """A cluster from what a reader found (``readers``, ``generate``).

        Indexing makes no reference cycles: the cycle collector is paused
        meanwhile, as it is while reading (``collector.quiet_gc``).
        """
        with quiet_gc():
            return cls.build(
                parts.nodes,
                parts.pools,
                parts.pods,
                parts.groups,
                priority_classes=parts.priority_classes,
                disruption_budgets=parts.disruption_budgets,
                warnings=parts.warnings,
            )

    def with_slots(self, slots: Iterable[str]) -> Cluster:
        """This cluster, or a copy that also has each of the one-slot resources ``slots`` it lacks.

        ``place`` calls it with the slots the pods to place use (host ports,
        per-node anti-affinity), so that two pods holding one slot never
        share a node. A new slot offers one unit on every node and is used
        on the nodes of the running pods that hold it; slots stay sorted
        after the other resources, as ``Cluster.build`` orders them, and the
        columns of the other resources are shared with this cluster.
        """
        missing = set(slots) - set(self.resources)
        if not missing:
            return self
        resources = (
            *(r for r in self.resources if not is_slot(r)),
            *sorted({r for r in self.resources if is_slot(r)} | missing),
        )
        nodes = len(self.names)
        allocatable = [
            self.allocatable[self.resource_index[r]] if r in self.resource_index else [POD_MILLIS] * nodes
            for r in resources
        ]
        used = [self.used[self.resource_index[r]] if r in self.resource_index else [0] * nodes for r in resources]
        pods = []
        for pod in self.running_pods:
            held = {host_port_resource(port) for port in pod.host_ports} & missing
            requests = tuple(
                pod.requests[self.resource_index[r]] if r in self.resource_index else POD_MILLIS if r in held else 0
                for r in resources
            )
            for resource in held:  # a new slot's column is a new list
                used[resources.index(resource)][pod.node] += POD_MILLIS
            pods.append(dataclasses.replace(pod, requests=requests))
        return self.replace(resources=resources, allocatable=allocatable, used=used, running_pods=pods)

    @classmethod
    def from_kubectl(
        cls, nodes_json: Any, pods_json: Any = None, groups_json: Any = None, policies_json: Any = None
    ) -> Cluster:
        """A cluster from ``kubectl get nodes -o json`` and ``kubectl get pods -A -o json`` output.

        Each argument may be the JSON text, the parsed ``List`` or a list of
        items. ``groups_json`` (``kubectl get podgroups,compositepodgroups -A
        -o json``) tells preemption each running group's priority, disruption
        mode and parent; without it a running pod's group is ``single``.
        ``policies_json`` (``kubectl get priorityclasses,poddisruptionbudgets
        -A -o json``) gives the PriorityClasses that running pods' and groups'
        ``priorityClassName`` resolve through (when ``spec.priority`` is
        absent) and the PodDisruptionBudgets preemption counts; a mixed
        ``nodes_json`` List may hold all of these itself.

        Raises:
            AggregateError: every malformed node or pod, each at its path.
        """
        return cls.from_parts(readers.read_kubectl(nodes_json, pods_json, groups_json, policies_json))

    @classmethod
    def from_yaml(cls, source: Any) -> Cluster:
        """A cluster from the compact YAML description (text, a path, or the parsed mapping).

        Raises:
            AggregateError: every malformed entry, each at its path (``nodes[3].allocatable[cpu]``).
        """
        return cls.from_parts(readers.read_yaml(source))

    @classmethod
    def generate(cls, nodes: int = 1000, *, seed: int = 0, **shape: Any) -> Cluster:
        """A synthetic zone → block → rack → host cluster; see ``generate.generate``."""
        return cls.from_parts(generate.generate_parts(nodes, seed=seed, **shape))

    # -- filters (``cluster.eligibility``) --------------------------------------

    def allowed(self, pod: PodConstraints) -> list[bool] | None:
        """Which nodes pass the pod-and-node filters for ``pod`` (``None``: every node does); see ``Eligibility``."""
        return self.eligibility.allowed(pod)

    def allowed_mask(self, pod: PodConstraints) -> npt.NDArray[np.bool_] | None:
        """The same as a boolean array, computed once per kind of pod; see ``Eligibility.allowed_mask``."""
        return self.eligibility.allowed_mask(pod)

    def taint_classes(self) -> tuple[npt.NDArray[np.int64], list[tuple[Taint, ...]]]:
        """Each node's class of equal taints (and cordon), and each class's taints: inputs read once per class."""
        return self.eligibility.taint_classes()

    def term_mask(self, term: NodeSelectorTerm) -> npt.NDArray[np.bool_]:
        """The nodes a node selector term matches (decided once per distinct label value), as ``nodeaffinity`` does."""
        return self.eligibility.term_mask(term)

    def pod_affinity_reason(self, pod: PodConstraints, i: int) -> str | None:
        """InterPodAffinity's reason to reject node ``i`` for ``pod``, counting running pods (``None``: it passes)."""
        return self.eligibility.pod_affinity_reason(pod, i)

    def rejection(self, pod: PodConstraints, i: int) -> Rejection | None:
        """The first pod-and-node filter that rejects node ``i`` for ``pod``, with its reasons."""
        return self.eligibility.rejection(pod, i)

    def class_rejections(
        self, pod: PodConstraints, nodes: npt.NDArray[np.int64]
    ) -> list[tuple[Rejection | None, npt.NDArray[np.int64]]]:
        """``nodes`` by the rejection each gives a pod that selects no nodes; see ``Eligibility.class_rejections``."""
        return self.eligibility.class_rejections(pod, nodes)

    def __len__(self) -> int:
        return len(self.names)

    def __repr__(self) -> str:
        return f"Cluster({len(self.names)} nodes, resources={list(self.resources)})"

    # -- free capacity -------------------------------------------------------

    def _intern_free_vectors(self) -> list[int]:
        """Give every node the id of its free vector (cordons are a filter, not a lack of room).

        Free capacity is signed: a node whose running pods take more than its
        allocatable (a kubelet that admitted them before a resize, static
        pods) has a debt, and evicting less than the debt frees nothing.
        """
        columns = [  # a resource nothing uses (most of them, on most clusters) is free as allocatable
            [a - u for a, u in zip(alloc, used)] if any(used) else alloc
            for alloc, used in zip(self.allocatable, self.used)
        ]
        per_node = list(zip(*columns))
        distinct = dict.fromkeys(per_node)  # in order of first use
        self.vectors.extend(distinct)
        if len(distinct) == len(per_node):  # every node's free capacity differs: node i has vector i
            return list(range(len(per_node)))
        ids = dict(zip(distinct, itertools.count()))
        return list(map(ids.__getitem__, per_node))

    def free_columns(self) -> list[IntArray]:
        """The free vectors column by column: ``free_columns()[r][v]`` is vector ``v``'s free amount of ``r``."""
        if self._free_columns is None:
            rows = zip(*self.vectors) if self.vectors else [()] * len(self.resources)
            self._free_columns = [exact(list(column)) for column in rows]
        return self._free_columns

    def free_sum(self, domain: Domain) -> tuple[int, ...]:
        """``domain``'s free capacity per resource, added over its nodes (a node's debt counts as 0); kept."""
        sums = self._free_sums.get(domain.uid)
        if sums is None:
            vectors = self.vector_index[domain.node_array]
            sums = tuple(exact_sum(np.maximum(column[vectors], 0)) for column in self.free_columns())
            self._free_sums[domain.uid] = sums
        return sums

    def allocatable_array(self, r: int) -> IntArray:
        """``allocatable[r]`` as an exact array over the nodes."""
        return self._node_column("allocatable", r, self.allocatable)

    def allocatable_floats(self, r: int) -> npt.NDArray[np.float64]:
        """``allocatable[r]`` as floats over the nodes (exact below 2**53); kept."""
        return self._float_column("allocatable", r, self.allocatable_array)

    def used_floats(self, r: int) -> npt.NDArray[np.float64]:
        """``used[r]`` as floats over the nodes (exact below 2**53); kept."""
        return self._float_column("used", r, self.used_array)

    def _float_column(self, name: str, r: int, column_of: Callable[[int], IntArray]) -> npt.NDArray[np.float64]:
        column = self._float_columns.get((name, r))
        if column is None:
            column = self._float_columns[(name, r)] = column_of(r).astype(np.float64)
        return column

    def allocatable_range(self, r: int) -> tuple[int, int]:
        """The least and the greatest of ``allocatable[r]`` over the nodes (``(0, 0)`` without nodes); kept."""
        return self._range("allocatable", r, self.allocatable_array)

    def free_range(self, r: int) -> tuple[int, int]:
        """The least and the greatest free amount of resource ``r`` over the free vectors (``(0, 0)`` without); kept."""
        return self._range("free", r, self.free_columns().__getitem__)

    def _range(self, name: str, r: int, column_of: Callable[[int], IntArray]) -> tuple[int, int]:
        known = self._ranges.get((name, r))
        if known is None:
            column = column_of(r)
            known = self._ranges[(name, r)] = (int(column.min()), int(column.max())) if len(column) else (0, 0)
        return known

    def grain(self, r: int) -> int:
        """A common divisor of every node's allocatable and used amount of resource ``r`` (0: all are 0); kept."""
        known = self._grain.get(r)
        if known is None:
            known = self._grain[r] = math.gcd(gcd_of(self.allocatable_array(r)), gcd_of(self.used_array(r)))
        return known

    def used_range(self, r: int) -> tuple[int, int]:
        """The least and the greatest of ``used[r]`` over the nodes (``(0, 0)`` without nodes); kept."""
        return self._range("used", r, self.used_array)

    def used_array(self, r: int) -> IntArray:
        """``used[r]`` as an exact array over the nodes."""
        return self._node_column("used", r, self.used)

    def unset_array(self, c: int) -> IntArray:
        """Per node, what ``NodeResourcesFit`` counts on top of ``used`` for scored resource ``c`` (0 CPU, 1 memory).

        The sum of the running pods' ``RunningPod.unset`` (the defaults of
        containers that leave the resource unset), made on first use.
        """
        column = self._node_columns.get(("unset", c))
        if column is None:
            sums = [0] * len(self.names)
            for pod in self.running_pods:
                if pod.unset[c]:
                    sums[pod.node] += pod.unset[c]
            column = self._node_columns[("unset", c)] = exact(sums, 100)
        return column

    def _node_column(self, name: str, r: int, columns: list[list[int]]) -> IntArray:
        column = self._node_columns.get((name, r))
        if column is None:
            column = self._node_columns[(name, r)] = exact(columns[r], 100)
        return column

    def free(self, i: int) -> tuple[int, ...]:
        """Node ``i``'s free capacity per resource, negative where it is over-committed."""
        return self.vectors[self.vector_of[i]]

    # -- topology (``cluster.topology``) ------------------------------------------

    def domains(self, key: str) -> dict[str, Domain]:
        """Every domain of a topology key, by label value in string order; nodes without the label are in none."""
        return self.topology.domains(key)

    def label_values(self, key: str) -> list[str | None]:
        """Each node's value of ``key`` (``None`` where the label is missing)."""
        return self.topology.label_values(key)

    def subdomains(self, parent: Domain, key: str) -> list[Domain]:
        """The domains of ``key`` inside ``parent``, in label-value order; see ``Topology.subdomains``."""
        return self.topology.subdomains(parent, key)

    # -- device pools --------------------------------------------------------

    def pool(self, name: str) -> DevicePool:
        """The device pool of that name."""
        return self._pools[name]

    def reaches(self, pool: DevicePool, i: int) -> bool:
        """Whether pods on node ``i`` can use devices of ``pool``."""
        return bool(self.reach(pool, np.asarray([i]))[0])

    def reaches_all(self, pool: DevicePool, domain: Domain) -> bool:
        """Whether pods on every node of ``domain`` can use devices of ``pool`` (computed once per pair)."""
        key = (pool.name, domain.uid)
        answer = self._covers.get(key)
        if answer is None:
            answer = self._covers[key] = bool(self.reach(pool, domain.node_array).all())
        return answer

    def reach(self, pool: DevicePool, nodes: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
        """Which of ``nodes`` can use devices of ``pool``: the pool's node, its domain's nodes, or all of them."""
        if pool.node is not None:
            here: npt.NDArray[np.bool_] = nodes == self.node_index.get(pool.node, -1)
            return here
        if pool.domain is not None:
            key, value = pool.domain
            domain = self.domains(key).get(value)
            if domain is None or domain.family is None:
                return np.zeros(len(nodes), dtype=np.bool_)
            inside: npt.NDArray[np.bool_] = domain.family.codes[nodes] == domain.position
            return inside
        return np.ones(len(nodes), dtype=np.bool_)
