"""The cluster model: nodes, their free capacity, topology domains, device pools and what is running.

Built once (from ``kubectl`` JSON, a compact YAML description, or a
generator) and then read by every placement query; nothing here changes
after construction, so one model answers many queries. Per-query state
(what a simulation has assumed) lives in ``Snapshot``.

Storage is a structure of arrays: one list per resource, indexed by node,
every amount an integer number of millis (see ``quantity``), with numpy
columns of them for the vectorized passes (``arrays`` keeps them exact).
Nodes whose free capacity is identical share one *free vector*. Topology
domains are indexed per label key on first use: the key's domains form a
``DomainSet`` that knows every node's domain and each domain's summed
allocatable and usage, so a figure for every rack is one pass; domains of a
key that nest inside the domains of another key (rack inside block) are
found without scanning nodes again.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from workloadbuilder._internal.collector import quiet_gc
from workloadbuilder._internal.gofmt import capped
from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.placement.cluster import generate, readers
from workloadbuilder.placement.cluster.arrays import IntArray, exact, exact_sum, gcd_of, group_sums
from workloadbuilder.placement.cluster.images import ImageIndex
from workloadbuilder.placement.cluster.records import (
    ClusterParts,
    DevicePool,
    NodeColumns,
    RunningGroup,
    RunningPod,
)
from workloadbuilder.placement.filters import (
    Rejection,
    interpodaffinity,
    nodeaffinity,
    nodeunschedulable,
    static_rejection,
    tainttoleration,
)
from workloadbuilder.placement.k8s.constraints import AffinityTerm, HostPort, NodeSelectorTerm, PodConstraints, Taint
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
    "Domain",
    "DomainSet",
    "alloc_sums",
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


class Domain:
    """One topology domain: the nodes whose label ``key`` has ``value`` (or every node, for the root).

    Every domain belongs to one ``DomainSet`` (the domains of its key, a
    partition of a parent, or the root alone) at ``position``: per-domain
    figures of a whole set (how many pods of a shape fit, the scored
    resources given out) are computed for all its domains in one pass.
    """

    __slots__ = ("_array", "family", "key", "label", "nodes", "position", "uid", "value")

    def __init__(self, key: str | None, value: str | None, nodes: list[int], uid: int) -> None:
        self.key = key
        self.value = value
        self.nodes = nodes
        self.uid = uid
        self.label = "the cluster" if key is None else f"{key}={value}"
        self.family: DomainSet | None = None
        self.position = 0
        self._array: npt.NDArray[np.int64] | None = None

    @property
    def node_array(self) -> npt.NDArray[np.int64]:
        """``nodes`` as an array."""
        if self._array is None:
            self._array = np.asarray(self.nodes, dtype=np.int64)
        return self._array

    @property
    def alloc_sum(self) -> tuple[int, ...]:
        """The scored resources' allocatable, added over the domain's nodes."""
        assert self.family is not None
        return self.family.alloc_sums[self.position]

    @property
    def used_sum(self) -> tuple[int, ...]:
        """The scored resources running pods take, added over the domain's nodes."""
        assert self.family is not None
        return self.family.used_sums[self.position]

    def __repr__(self) -> str:
        return f"Domain({self.label}, {len(self.nodes)} nodes)"


class DomainSet:
    """Disjoint domains, each node's position among them (``codes``; -1: in none), and per-domain sums.

    ``alloc_columns`` / ``used_columns`` hold, per scored resource, the
    domains' summed allocatable and used amounts as exact arrays
    (``arrays.exact``); ``alloc_sums`` / ``used_sums`` are the same per
    domain as tuples of Python integers. ``complete`` says whether every
    node of the cluster is in one of the domains, and ``runs`` (when the
    nodes come domain by domain, in order) where each domain's nodes start.
    """

    __slots__ = (
        "_every",
        "_members",
        "alloc_columns",
        "alloc_sums",
        "codes",
        "complete",
        "domains",
        "runs",
        "uid",
        "used_columns",
        "used_sums",
    )

    def __init__(self, cluster: Cluster, domains: list[Domain], uid: int) -> None:
        # Made once per partition of a cluster (a topology key, or a key within a parent domain) and never
        # changed after: every attribute is set here but ``_members``, filled on first use.
        self.uid = uid  # unique within the cluster, a cache key
        self.domains = domains  # the domains, in value order; each learns its family and position here
        self._every = np.arange(len(domains), dtype=np.int64)  # the positions of all domains, 0..n-1
        # the nodes of all domains one domain after another, and where each starts: made on first ``members``
        self._members: tuple[npt.NDArray[np.int64], list[int]] | None = None
        codes = np.full(len(cluster.names), -1, dtype=np.int64)
        for position, domain in enumerate(domains):
            domain.family = self
            domain.position = position
            codes[domain.node_array] = position
        self.codes = codes
        self.complete = bool((codes >= 0).all())  # every node is in one of the domains
        in_turn = self.complete and len(codes) > 0 and bool((np.diff(codes) >= 0).all())
        self.runs = np.flatnonzero(np.diff(codes, prepend=-1)) if in_turn else None
        count = len(domains)
        self.alloc_columns = [group_sums(codes, cluster.allocatable_array(r), count) for r in cluster.score_index]
        self.used_columns = [group_sums(codes, cluster.used_array(r), count) for r in cluster.score_index]
        self.alloc_sums = list(zip(*(column.tolist() for column in self.alloc_columns), strict=True))
        self.used_sums = list(zip(*(column.tolist() for column in self.used_columns), strict=True))

    def positions(self, domains: Sequence[Domain]) -> npt.NDArray[np.int64] | None:
        """Where each of ``domains`` is in this set (``None``: one of them is not in it)."""
        if self._is_every(domains):
            return self._every
        positions = []
        for domain in domains:
            if domain.family is not self:
                return None
            positions.append(domain.position)
        return np.asarray(positions, dtype=np.int64)

    def members(self, domains: Sequence[Domain]) -> tuple[npt.NDArray[np.int64], list[int]]:
        """The nodes of ``domains``, one domain after the other, and where each domain's nodes start (and end)."""
        if self._is_every(domains):
            if self._members is None:
                self._members = self._concatenate(self.domains)
            return self._members
        return self._concatenate(domains)

    def _is_every(self, domains: Sequence[Domain]) -> bool:
        """Whether ``domains`` are this set's domains, all of them in order."""
        return len(domains) == len(self.domains) and list(domains) == self.domains

    @staticmethod
    def _concatenate(domains: Sequence[Domain]) -> tuple[npt.NDArray[np.int64], list[int]]:
        offsets = [0]
        for domain in domains:
            offsets.append(offsets[-1] + len(domain.nodes))
        return np.concatenate([domain.node_array for domain in domains]), offsets

    def __len__(self) -> int:
        return len(self.domains)


def alloc_sums(domains: Sequence[Domain]) -> list[IntArray]:
    """The summed allocatable of each of ``domains`` (one ``DomainSet``), one exact array per scored resource."""
    family = domains[0].family
    assert family is not None
    positions = family.positions(domains)
    assert positions is not None, "the domains belong to one DomainSet"
    return [column[positions] for column in family.alloc_columns]


@dataclass
class _KeyIndex:
    values: list[str | None]
    domains: dict[str, Domain]
    family: DomainSet
    nested_in: dict[str, dict[str, list[Domain]] | None] = field(default_factory=dict)


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
        self._uids = itertools.count()  # the next uid of a Domain or DomainSet made for this cluster
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
        self.root = Domain(None, None, list(range(len(names))), next(self._uids))  # the whole cluster, one domain
        DomainSet(self, [self.root], next(self._uids))
        self._keys: dict[str, _KeyIndex] = {}  # topology key -> each node's value and the key's domains
        self._partitions: dict[tuple[int, str], list[Domain]] = {}  # (parent domain uid, key) -> its parts
        self._restricted = any(self.taints) or not all(self.schedulable)  # some node may turn a pod away
        # whether some node has a PreferNoSchedule taint (TaintToleration then scores)
        self.has_preferences = any(t.effect == "PreferNoSchedule" for taints in self.taints for t in taints)
        self._allowed: dict[PodConstraints, list[bool] | None] = {}  # pod -> the nodes its filters pass (None: all)
        self._allowed_masks: dict[PodConstraints, npt.NDArray[np.bool_] | None] = {}  # pod -> its filters' verdicts
        # each node's class of equal (taints, cordon) and the classes' (taints, cordoned), made on first use
        self._classes: tuple[npt.NDArray[np.int64], list[tuple[tuple[Taint, ...], bool]]] | None = None
        # label key -> each node's value code (-1: unlabelled), the values by code and the codes by value
        self._label_index: dict[str, tuple[npt.NDArray[np.int64], list[str], dict[str, int]]] = {}
        # (pod selecting no nodes, class of ``_classes``) -> the rejection every node of the class gives the pod
        self._rejections: dict[tuple[PodConstraints, int], Rejection | None] = {}
        # pod -> for each (anti-)affinity term, the topology values its matching running pods occupy
        self._affinity_domains: dict[PodConstraints, tuple[list[frozenset[str]], list[frozenset[str]]]] = {}
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
        optionally ``"unset"`` (``RunningPod.unset``); its requests, one pod
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

    # -- filters -------------------------------------------------------------

    def allowed(self, pod: PodConstraints) -> list[bool] | None:
        """Which nodes pass the pod-and-node filters for ``pod`` (``None``: every node does).

        ``allowed_mask(pod)`` as a list, made once per kind of pod.
        """
        if pod not in self._allowed:
            mask = self.allowed_mask(pod)
            self._allowed[pod] = None if mask is None else mask.tolist()
        return self._allowed[pod]

    def allowed_mask(self, pod: PodConstraints) -> npt.NDArray[np.bool_] | None:
        """Which nodes pass the pod-and-node filters for ``pod``, as a boolean array (``None``: every node does).

        Computed once per kind of pod, with no Python pass over the nodes:
        the cordon and taint filters are decided once per class of nodes
        with equal taints and cordon, each node selector pair and affinity
        requirement once per distinct value of its label, and the verdicts
        reach the nodes by indexing with each node's class or value code.
        The verdict is the conjunction of the filters, as ``rejection`` and
        ``pod_affinity_reason`` find them node by node.
        """
        if pod in self._allowed_masks:
            return self._allowed_masks[pod]
        mask: npt.NDArray[np.bool_] | None = None
        if self._restricted:
            codes, classes = self._constraint_classes()
            verdicts = np.fromiter(
                (
                    nodeunschedulable.check(cordoned, pod.tolerations) is None
                    and tainttoleration.check(taints, pod.tolerations) is None
                    for taints, cordoned in classes
                ),
                dtype=np.bool_,
                count=len(classes),
            )
            if not verdicts.all():
                mask = verdicts[codes]
        if pod.selects_nodes:
            selected = self._selected(pod)
            mask = selected if mask is None else mask & selected
        if mask is not None and mask.all():
            mask = None
        self._allowed_masks[pod] = mask
        return mask

    def _constraint_classes(self) -> tuple[npt.NDArray[np.int64], list[tuple[tuple[Taint, ...], bool]]]:
        """Each node's class of equal taints and cordon, and each class's ``(taints, cordoned)``; made once.

        Readers share one tuple among nodes with equal taint lists, so the
        nodes are grouped by the tuple's identity (without a Python loop over
        them) and the distinct tuples then by value: equal lists that are
        distinct tuples land in one class.
        """
        if self._classes is None:
            identities = list(map(id, self.taints))
            by_value: dict[tuple[Taint, ...], int] = {}  # a taint list -> its code, in order of first use
            code_of = {
                identity: by_value.setdefault(taints, len(by_value))
                for identity, taints in dict(zip(identities, self.taints, strict=True)).items()
            }
            if len(by_value) == 1:  # one taint list on every node (often): no codes to look up
                codes = np.zeros(len(identities), dtype=np.int64)
            else:
                codes = np.fromiter(map(code_of.__getitem__, identities), dtype=np.int64, count=len(identities))
            lists = list(by_value)
            if all(self.schedulable):
                self._classes = (codes, [(taints, False) for taints in lists])
            else:
                keys = codes * 2 + ~np.asarray(self.schedulable, dtype=np.bool_)
                distinct, inverse = np.unique(keys, return_inverse=True)
                classes = [(lists[key // 2], bool(key % 2)) for key in distinct.tolist()]
                self._classes = (inverse.astype(np.int64).reshape(-1), classes)
        return self._classes

    def taint_classes(self) -> tuple[npt.NDArray[np.int64], list[tuple[Taint, ...]]]:
        """Each node's class of equal taints (and cordon), and each class's taints: inputs read once per class."""
        codes, classes = self._constraint_classes()
        return codes, [taints for taints, _ in classes]

    def term_mask(self, term: NodeSelectorTerm) -> npt.NDArray[np.bool_]:
        """The nodes a node selector term matches (decided once per distinct label value), as ``nodeaffinity`` does."""
        return self._term_mask(term)

    def _label_codes(self, key: str) -> tuple[npt.NDArray[np.int64], list[str], dict[str, int]]:
        """Each node's code for its value of label ``key`` (-1: no such label), the values by code, codes by value.

        A topology key already indexed lends its domains' positions; other
        keys are read once and kept.
        """
        known = self._label_index.get(key)
        if known is None:
            index = self._keys.get(key)
            if index is not None:
                values = list(index.domains)
                known = (index.family.codes, values, {value: code for code, value in enumerate(values)})
            else:
                code_of: dict[str, int] = {}
                codes = [
                    -1 if (value := labels.get(key)) is None else code_of.setdefault(value, len(code_of))
                    for labels in self.labels
                ]
                known = (np.asarray(codes, dtype=np.int64), list(code_of), code_of)
            self._label_index[key] = known
        return known

    def _value_mask(self, key: str, wanted: Iterable[str]) -> npt.NDArray[np.bool_]:
        """The nodes whose label ``key`` is one of ``wanted`` (nodes without the label are not)."""
        codes, values, code_of = self._label_codes(key)
        verdicts = np.zeros(len(values) + 1, dtype=np.bool_)  # the last entry is read by code -1
        for value in wanted:
            code = code_of.get(value)
            if code is not None:
                verdicts[code] = True
        return verdicts[codes]

    def _named(self, name: str) -> npt.NDArray[np.bool_]:
        """The nodes called ``name``."""
        if len(self.node_index) == len(self.names):
            mask = np.zeros(len(self.names), dtype=np.bool_)
            i = self.node_index.get(name)
            if i is not None:
                mask[i] = True
            return mask
        return np.asarray([node == name for node in self.names], dtype=np.bool_)

    def _selected(self, pod: PodConstraints) -> npt.NDArray[np.bool_]:
        """The nodes NodeName, NodeAffinity, InterPodAffinity and the spread keys let ``pod`` use."""
        mask = np.ones(len(self.names), dtype=np.bool_)
        if pod.node_name:
            mask &= self._named(pod.node_name)
        for key, value in pod.node_selector:
            mask &= self._value_mask(key, (value,))
        if pod.affinity is not None:
            matched = np.zeros(len(self.names), dtype=np.bool_)
            for term in pod.affinity:
                matched |= self._term_mask(term)
            mask &= matched
        if pod.pod_affinity or pod.pod_anti_affinity:
            affinity_domains, anti_domains = self._pod_affinity_domains(pod)
            if pod.pod_affinity:
                present = np.ones(len(self.names), dtype=np.bool_)
                for wanted, domains in zip(pod.pod_affinity, affinity_domains, strict=True):
                    mask &= self._label_codes(wanted.topology_key)[0] >= 0
                    present &= self._value_mask(wanted.topology_key, domains)
                if not interpodaffinity.first_of_series(pod, affinity_domains):
                    mask &= present
            for avoided, domains in zip(pod.pod_anti_affinity, anti_domains, strict=True):
                mask &= ~self._value_mask(avoided.topology_key, domains)
        for constraint in pod.spread:
            mask &= self._label_codes(constraint.topology_key)[0] >= 0
        return mask

    def _term_mask(self, term: NodeSelectorTerm) -> npt.NDArray[np.bool_]:
        """The nodes a required node affinity term matches, as ``nodeaffinity`` decides it for one node."""
        if not term.expressions and not term.fields:
            return np.zeros(len(self.names), dtype=np.bool_)
        mask = np.ones(len(self.names), dtype=np.bool_)
        for requirement in term.expressions:
            codes, values, _ = self._label_codes(requirement.key)
            mask &= np.asarray(nodeaffinity.value_verdicts(requirement, values), dtype=np.bool_)[codes]
        for requirement in term.fields:
            if requirement.key != "metadata.name" or requirement.operator not in ("In", "NotIn"):
                return np.zeros(len(self.names), dtype=np.bool_)
            if len(requirement.values) != 1:
                return np.zeros(len(self.names), dtype=np.bool_)
            named = self._named(requirement.values[0])
            mask &= named if requirement.operator == "In" else ~named
        return mask

    def _pod_affinity_domains(self, pod: PodConstraints) -> tuple[list[frozenset[str]], list[frozenset[str]]]:
        """Per (anti-)affinity term of ``pod``, the topology values its matching running pods occupy; kept."""
        domains = self._affinity_domains.get(pod)
        if domains is None:
            domains = self._affinity_domains[pod] = (
                [self._term_domains(term) for term in pod.pod_affinity],
                [self._term_domains(term) for term in pod.pod_anti_affinity],
            )
        return domains

    def pod_affinity_reason(self, pod: PodConstraints, i: int) -> str | None:
        """InterPodAffinity's reason to reject node ``i`` for ``pod``, counting running pods (``None``: it passes)."""
        if not pod.pod_affinity and not pod.pod_anti_affinity:
            return None
        domains = self._pod_affinity_domains(pod)
        return interpodaffinity.check(pod, self.labels[i], domains[0], domains[1])

    def _term_domains(self, term: AffinityTerm) -> frozenset[str]:
        """The values of the term's topology key where a running pod the term matches runs."""
        values = set()
        for running in self.running_pods:
            value = self.labels[running.node].get(term.topology_key)
            if value is not None and term.matches(running.namespace, running.labels):
                values.add(value)
        return frozenset(values)

    def rejection(self, pod: PodConstraints, i: int) -> Rejection | None:
        """The first pod-and-node filter that rejects node ``i`` for ``pod``, with its reasons.

        For a pod that selects no nodes by name or label, only the node's
        taints and cordon matter: the answer is kept per class of nodes.
        """
        if pod.selects_nodes:
            return static_rejection(pod, self.names[i], self.labels[i], self.taints[i], not self.schedulable[i])
        key = (pod, int(self._constraint_classes()[0][i]))
        if key not in self._rejections:
            self._rejections[key] = static_rejection(pod, self.names[i], {}, self.taints[i], not self.schedulable[i])
        return self._rejections[key]

    def class_rejections(
        self, pod: PodConstraints, nodes: npt.NDArray[np.int64]
    ) -> list[tuple[Rejection | None, npt.NDArray[np.int64]]]:
        """``nodes`` by the rejection each gives ``pod``, for a pod that selects no nodes by name or label.

        Such a pod is turned away by taints and cordons alone, so the nodes
        of one class of ``_constraint_classes`` share one answer: each class
        among ``nodes`` is one entry, its rejection and its nodes (in order).
        """
        if pod.selects_nodes:
            raise ValueError("class_rejections: the pod selects nodes by name or label; ask rejection node by node")
        if len(nodes) == 0:
            return []
        codes = self._constraint_classes()[0][nodes]
        order = np.argsort(codes, kind="stable")
        starts = np.unique(codes[order], return_index=True)[1]
        return [(self.rejection(pod, int(group[0])), group) for group in np.split(nodes[order], starts[1:])]

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

    # -- topology ------------------------------------------------------------

    def _key(self, key: str) -> _KeyIndex:
        index = self._keys.get(key)
        if index is None:
            values = [labels.get(key) for labels in self.labels]
            members: dict[str, list[int]] = {}
            for i, value in enumerate(values):
                if value is not None:
                    members.setdefault(value, []).append(i)
            domains = {value: Domain(key, value, members[value], next(self._uids)) for value in sorted(members)}
            family = DomainSet(self, list(domains.values()), next(self._uids))
            index = self._keys[key] = _KeyIndex(values, domains, family)
        return index

    def domains(self, key: str) -> dict[str, Domain]:
        """Every domain of a topology key, by label value in string order; nodes without the label are in none."""
        return self._key(key).domains

    def label_values(self, key: str) -> list[str | None]:
        """Each node's value of ``key`` (``None`` where the label is missing)."""
        return self._key(key).values

    def subdomains(self, parent: Domain, key: str) -> list[Domain]:
        """The domains of ``key`` inside ``parent``, in label-value order, as kube-scheduler partitions a placement.

        When every ``key`` domain lies inside one ``parent.key`` domain (racks
        in blocks), the answer is read from the index; otherwise ``parent``'s
        nodes are partitioned afresh.
        """
        if parent.key is None:
            return list(self.domains(key).values())
        if parent.key == key:
            return [parent]
        child = self._key(key)
        if parent.key not in child.nested_in:
            child.nested_in[parent.key] = self._nesting(child, parent.key)
        nested = child.nested_in[parent.key]
        if nested is not None and self.domains(parent.key).get(parent.value or "") is parent:
            return nested.get(parent.value or "", [])
        return self._partition(parent, key)

    def _nesting(self, child: _KeyIndex, parent_key: str) -> dict[str, list[Domain]] | None:
        parent_values = self.label_values(parent_key)
        by_parent: dict[str, list[Domain]] = {}
        for domain in child.domains.values():
            owners = {parent_values[i] for i in domain.nodes}
            if len(owners) != 1 or None in owners:
                return None
            by_parent.setdefault(owners.pop(), []).append(domain)  # type: ignore[arg-type]
        return by_parent

    def _partition(self, parent: Domain, key: str) -> list[Domain]:
        cached = self._partitions.get((parent.uid, key))
        if cached is not None:
            return cached
        values = self.label_values(key)
        members: dict[str, list[int]] = {}
        for i in parent.nodes:
            value = values[i]
            if value is not None:
                members.setdefault(value, []).append(i)
        parts = [Domain(key, value, members[value], next(self._uids)) for value in sorted(members)]
        DomainSet(self, parts, next(self._uids))
        self._partitions[(parent.uid, key)] = parts
        return parts

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
