"""Synthetic clusters: zone → block → rack → host topologies, reproducible from a seed.

Node ``i`` sits in rack ``i // hosts_per_rack``; racks fill blocks and blocks
fill zones in order, so every domain is contiguous and every label value is
unique at its level (``zone-00``, ``block-00-1``, ``rack-00-1-07``). A fraction
of the nodes is partly used; with ``running_groups`` that usage belongs to
running PodGroups that preemption may evict. The same cluster is available in
the ``kubectl get ... -o json`` shape, for ingest tests and benchmarks.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from workloadbuilder._internal.collector import quiet_gc
from workloadbuilder._internal.fields_read import read_count
from workloadbuilder.field import ErrorList, FieldPath, invalid
from workloadbuilder.limits import MAX_NODES
from workloadbuilder.placement.cluster.records import ClusterParts, RunningGroup
from workloadbuilder.placement.k8s.resources import read_resource_list

__all__ = [
    "ARCH_KEY",
    "BLOCK_KEY",
    "DEFAULT_ALLOCATABLE",
    "DEFAULT_NODE_LABELS",
    "HOST_KEY",
    "OS_KEY",
    "RACK_KEY",
    "ZONE_KEY",
    "GeneratedCluster",
    "generate",
    "generate_kubectl",
    "generate_parts",
]

ZONE_KEY = "topology.kubernetes.io/zone"
BLOCK_KEY = "topology.example.com/block"
RACK_KEY = "topology.example.com/rack"
HOST_KEY = "kubernetes.io/hostname"
OS_KEY = "kubernetes.io/os"
ARCH_KEY = "kubernetes.io/arch"
DEFAULT_ALLOCATABLE = {
    "cpu": "64",
    "memory": "512Gi",
    "ephemeral-storage": "1Ti",
    "nvidia.com/gpu": "8",
    "pods": "110",
}
"""What each generated node offers by default, as a kubelet reports it (110 pods is the kubelet's ``maxPods``)."""
DEFAULT_NODE_LABELS = {OS_KEY: "linux", ARCH_KEY: "amd64"}
"""The well-known labels a kubelet puts on every node, besides its hostname."""
_PRIORITIES = (0, 100, 1000)


@dataclass(frozen=True)
class GeneratedCluster:
    """A generated cluster as data: nodes, the pods that use them, and their groups.

    ``nodes``: ``{"name", "labels", "allocatable"}`` with quantity strings;
    ``pods``: ``{"name", "node", "requests", "priority", "group"}``;
    ``groups``: the running groups the pods belong to.
    """

    nodes: list[dict[str, Any]]
    pods: list[dict[str, Any]]
    groups: list[RunningGroup]


def generate(
    nodes: int = 1000,
    *,
    seed: int = 0,
    hosts_per_rack: int = 16,
    racks_per_block: int = 16,
    blocks_per_zone: int = 4,
    allocatable: Mapping[str, str] | None = None,
    used_fraction: float = 0.2,
    running_groups: int = 0,
    keys: Mapping[str, str] | None = None,
    node_labels: Mapping[str, str] | None = None,
) -> GeneratedCluster:
    """Describe a synthetic cluster; the same arguments always give the same cluster.

    Args:
        nodes: how many nodes.
        seed: the random seed for which nodes are partly used and by how much.
        hosts_per_rack / racks_per_block / blocks_per_zone: the topology's fan-out.
        allocatable: each node's allocatable quantities (default: 64 CPUs,
            512Gi, 8 ``nvidia.com/gpu``, 110 pods).
        used_fraction: the share of nodes that run something.
        running_groups: spread that usage over this many running PodGroups
            (priorities 0, 100, 1000; every other group ``disruptionMode: all``);
            0 makes each used node's usage one standalone pod of priority 0.
        keys: label keys to use instead of the defaults, by level:
            ``{"zone": ..., "block": ..., "rack": ..., "host": ...}``.
        node_labels: the labels every node carries besides its topology ones
            (default: ``kubernetes.io/os: linux`` and ``kubernetes.io/arch: amd64``,
            as a kubelet sets them).
    """
    _check_shape(nodes, hosts_per_rack, racks_per_block, blocks_per_zone, used_fraction, running_groups)
    label = {"zone": ZONE_KEY, "block": BLOCK_KEY, "rack": RACK_KEY, "host": HOST_KEY, **(keys or {})}
    rng = random.Random(seed)
    alloc = dict(allocatable or DEFAULT_ALLOCATABLE)
    common = dict(DEFAULT_NODE_LABELS if node_labels is None else node_labels)
    whole = {name: _whole_units(name, text) for name, text in alloc.items()}
    out_nodes: list[dict[str, Any]] = []
    pods: list[dict[str, Any]] = []
    for i in range(nodes):
        rack = i // hosts_per_rack
        block = rack // racks_per_block
        zone, b, r = block // blocks_per_zone, block % blocks_per_zone, rack % racks_per_block
        name = f"node-{i:05d}"
        out_nodes.append(
            {
                "name": name,
                "labels": {
                    **common,
                    label["zone"]: f"zone-{zone:02d}",
                    label["block"]: f"block-{zone:02d}-{b}",
                    label["rack"]: f"rack-{zone:02d}-{b}-{r:02d}",
                    label["host"]: name,
                },
                "allocatable": alloc,
            }
        )
        if rng.random() < used_fraction:
            pods.append(
                {"name": f"{name}-used", "node": name, "requests": _usage(rng, whole), "priority": 0, "group": None}
            )
    groups: list[RunningGroup] = []
    if running_groups:
        groups = [
            RunningGroup(
                f"running-{g:05d}", priority=_PRIORITIES[g % 3], disruption_mode="all" if g % 2 == 0 else "single"
            )
            for g in range(running_groups)
        ]
        for k, pod in enumerate(pods):
            group = groups[k % running_groups]
            pod["group"], pod["priority"] = group.name, group.priority
    return GeneratedCluster(out_nodes, pods, groups)


def _check_shape(nodes: int, hosts: int, racks: int, blocks: int, used: float, groups: int) -> None:
    """Refuse a shape the generator cannot make, each argument at its name, before anything is made."""
    errors = ErrorList()
    for name, value, lowest, highest in (
        ("nodes", nodes, 0, MAX_NODES),
        ("hosts_per_rack", hosts, 1, MAX_NODES),
        ("racks_per_block", racks, 1, MAX_NODES),
        ("blocks_per_zone", blocks, 1, MAX_NODES),
        ("running_groups", groups, 0, MAX_NODES),
    ):
        read_count({name: value}, (name,), errors, minimum=lowest, maximum=highest)
    if isinstance(used, bool) or not isinstance(used, (int, float)) or not 0 <= used <= 1:
        errors.append(invalid(FieldPath("used_fraction"), used, "must be a share between 0 and 1"))
    errors.raise_if_any()


def generate_parts(nodes: int = 1000, *, seed: int = 0, **shape: Any) -> ClusterParts:
    """``generate(nodes, seed=seed, **shape)`` parsed for ``Cluster.from_parts`` (what ``Cluster.generate`` builds)."""
    with quiet_gc():
        return _parse(generate(nodes, seed=seed, **shape))


def _parse(data: GeneratedCluster) -> ClusterParts:
    errors = ErrorList()
    parsed_alloc: dict[int, dict[str, int]] = {}
    parsed_nodes = []
    for node in data.nodes:
        alloc = parsed_alloc.get(id(node["allocatable"]))
        if alloc is None:
            alloc = parsed_alloc[id(node["allocatable"])] = read_resource_list(
                node["allocatable"], FieldPath("allocatable"), errors
            )
        parsed_nodes.append({**node, "allocatable": alloc})
    pods = [
        {**pod, "requests": read_resource_list(pod["requests"], FieldPath("requests"), errors)} for pod in data.pods
    ]
    errors.raise_if_any()
    return ClusterParts(parsed_nodes, [], pods, list(data.groups))


def generate_kubectl(
    nodes: int = 1000, *, seed: int = 0, **shape: Any
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The generated cluster as ``kubectl get nodes``, ``get pods -A`` and ``get podgroups -A`` JSON lists."""
    data = generate(nodes, seed=seed, **shape)
    node_items = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": node["name"], "labels": dict(node["labels"])},
            "spec": {},
            "status": {"allocatable": dict(node["allocatable"]), "capacity": dict(node["allocatable"])},
        }
        for node in data.nodes
    ]
    pod_items = []
    for pod in data.pods:
        spec: dict[str, Any] = {
            "nodeName": pod["node"],
            "priority": pod["priority"],
            "containers": [{"name": "main", "image": "busybox", "resources": {"requests": dict(pod["requests"])}}],
        }
        if pod["group"]:
            spec["schedulingGroup"] = {"podGroupName": pod["group"]}
        pod_items.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": pod["name"], "namespace": "default"},
                "spec": spec,
                "status": {"phase": "Running"},
            }
        )
    group_items = [
        {
            "apiVersion": "scheduling.k8s.io/v1beta1",
            "kind": "PodGroup",
            "metadata": {"name": group.name, "namespace": "default"},
            "spec": {
                "priority": group.priority,
                "schedulingPolicy": {"gang": {"minCount": 1}},
                "disruptionMode": {group.disruption_mode: {}},
            },
        }
        for group in data.groups
    ]
    return (
        {"apiVersion": "v1", "kind": "List", "items": node_items},
        {"apiVersion": "v1", "kind": "List", "items": pod_items},
        {"apiVersion": "v1", "kind": "List", "items": group_items},
    )


def _whole_units(name: str, text: str) -> int:
    """How many whole units (cores, GiB, devices) a generated node offers of one resource."""
    if name == "memory" and text.endswith("Gi"):
        return int(text[:-2])
    return int(text) if text.isdigit() else 0


def _usage(rng: random.Random, whole: Mapping[str, int]) -> dict[str, str]:
    """Part of a node's capacity, in whole units, as quantity strings."""
    used: dict[str, str] = {}
    for name, units in whole.items():
        if name == "pods" or units <= 1:
            continue
        amount = rng.randrange(0 if name.endswith("gpu") else 1, max(units * 3 // 4, 2))
        if amount:
            used[name] = f"{amount}Gi" if name == "memory" else str(amount)
    return used
