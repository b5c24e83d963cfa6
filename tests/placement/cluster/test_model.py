"""The cluster model: compact YAML, kubectl JSON and the generator, read into nodes; bad data is field errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from placement_helpers import BLOCK, RACK, ZONE, cluster, node

from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.field import AggregateError, ErrorList, ErrorType, FieldPath
from workloadbuilder.placement import Cluster, RunningPod
from workloadbuilder.placement.cluster.derive import add_running
from workloadbuilder.placement.cluster.generate import generate_kubectl
from workloadbuilder.placement.k8s.constraints import HostPort
from workloadbuilder.placement.k8s.resources import pod_requests

GI = 2**30


def test_yaml_nodes_resources_and_free_capacity() -> None:
    text = """
nodes:
- name: gpu-001
  labels: {topology.kubernetes.io/zone: zone-a, topology.example.com/rack: rack-1}
  allocatable: {cpu: "64", memory: 512Gi, nvidia.com/gpu: "8", pods: "110"}
  used: {cpu: "8", nvidia.com/gpu: "2"}
- name: gpu-002
  labels: {topology.kubernetes.io/zone: zone-a, topology.example.com/rack: rack-2}
  allocatable: {cpu: 64, memory: 512Gi, nvidia.com/gpu: 8, pods: 110}
  unschedulable: true
"""
    cl = Cluster.from_yaml(text)
    assert cl.names == ["gpu-001", "gpu-002"]
    assert cl.resources == ("cpu", "memory", "pods", "nvidia.com/gpu")
    assert cl.free(0) == (56_000, 512 * GI * 1000, 110_000, 6000)
    assert cl.free(1) == (64_000, 512 * GI * 1000, 110_000, 8000)  # cordoning is a filter, not a lack of room
    assert cl.schedulable == [True, False]
    assert cl.schedulable == [True, False]


def test_yaml_running_groups_and_pools() -> None:
    cl = cluster(
        node("n1", rack="r1"),
        node("n2", rack="r1"),
        devicePools=[
            {"name": "r1-nics", "deviceClass": "rdma", "count": 4, "domain": {RACK: "r1"}},
            {"name": "n1-nic", "deviceClass": "rdma", "count": 1, "allocated": 1, "node": "n1"},
        ],
        running=[
            {"name": "batch", "kind": "CompositePodGroup", "priority": 10, "disruptionMode": "all"},
            {
                "name": "batch-a",
                "priority": 10,
                "parent": "batch",
                "pods": [{"name": "a-0", "node": "n1", "requests": {"cpu": "4", "nvidia.com/gpu": "2"}}],
            },
            {"name": "lone", "kind": "Pod", "priority": 5, "node": "n2", "requests": {"cpu": "1"}},
        ],
    )
    assert [p.name for p in cl.pools] == ["r1-nics", "n1-nic"]
    assert cl.pools[0].domain == (RACK, "r1")
    assert cl.running_groups["batch-a"].parent == "batch"
    assert [(p.name, p.group, p.priority) for p in cl.running_pods] == [("a-0", "batch-a", 10), ("lone", None, 5)]
    # running pods take their requests and one pod slot on their node
    assert cl.free(0)[:4] == (60_000, 256 * GI * 1000, 109_000, 6000)


YAML_ERRORS = [
    ("missing name", {"nodes": [{"allocatable": {"cpu": "1"}}]}, [(ErrorType.REQUIRED, "nodes[0].name")]),
    (
        "malformed quantity",
        {"nodes": [{"name": "a", "allocatable": {"cpu": "1x"}}]},
        [(ErrorType.INVALID, "nodes[0].allocatable[cpu]")],
    ),
    (
        "negative quantity",
        {"nodes": [{"name": "a", "allocatable": {"cpu": "-1"}}]},
        [(ErrorType.INVALID, "nodes[0].allocatable[cpu]")],
    ),
    (
        "bool quantity",
        {"nodes": [{"name": "a", "allocatable": {"cpu": True}}]},
        [(ErrorType.TYPE_INVALID, "nodes[0].allocatable[cpu]")],
    ),
    ("missing allocatable", {"nodes": [{"name": "a"}]}, [(ErrorType.REQUIRED, "nodes[0].allocatable")]),
    (
        "unknown field",
        {"nodes": [{"name": "a", "allocatble": {}, "allocatable": {}}]},
        [(ErrorType.FORBIDDEN, "nodes[0].allocatble")],
    ),
    (
        "used above allocatable",
        {"nodes": [{"name": "a", "allocatable": {"cpu": "1"}, "used": {"cpu": "2"}}]},
        [(ErrorType.INVALID, "nodes[0].used[cpu]")],
    ),
    (
        "duplicate name",
        {"nodes": [{"name": "a", "allocatable": {}}, {"name": "a", "allocatable": {}}]},
        [(ErrorType.DUPLICATE, "nodes[1].name")],
    ),
    ("no nodes", {}, [(ErrorType.REQUIRED, "nodes")]),
    (
        "pool without reach",
        {"nodes": [{"name": "a", "allocatable": {}}], "devicePools": [{"name": "p", "deviceClass": "x", "count": 1}]},
        [(ErrorType.INVALID, "devicePools[0]")],
    ),
    (
        "pool on unknown node",
        {
            "nodes": [{"name": "a", "allocatable": {}}],
            "devicePools": [{"name": "p", "deviceClass": "x", "count": 1, "node": "b"}],
        },
        [(ErrorType.INVALID, "devicePools[0].node")],
    ),
    (
        "running pod on unknown node",
        {"nodes": [{"name": "a", "allocatable": {}}], "running": [{"name": "g", "pods": [{"name": "p", "node": "b"}]}]},
        [(ErrorType.INVALID, "running[0].pods[0].node")],
    ),
    (
        "bad disruption mode",
        {"nodes": [{"name": "a", "allocatable": {}}], "running": [{"name": "g", "disruptionMode": "some"}]},
        [(ErrorType.NOT_SUPPORTED, "running[0].disruptionMode")],
    ),
]


@pytest.mark.parametrize(("data", "expected"), [(d, e) for _, d, e in YAML_ERRORS], ids=[i for i, _, _ in YAML_ERRORS])
def test_yaml_errors_at_their_paths(data: dict[str, Any], expected: list[tuple[ErrorType, str]]) -> None:
    with pytest.raises(AggregateError) as err:
        Cluster.from_yaml(data)
    assert [(e.type, e.field) for e in err.value.field_errors] == expected


def test_malformed_quantity_message() -> None:
    with pytest.raises(AggregateError) as err:
        Cluster.from_yaml({"nodes": [{"name": "a", "allocatable": {"memory": "64GB"}}]})
    assert str(err.value) == (
        'nodes[0].allocatable[memory]: Invalid value: "64GB": quantities must match the regular expression '
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )


def _node(name: str, labels: dict[str, str] | None = None, **allocatable: str) -> dict[str, Any]:
    return {
        "kind": "Node",
        "metadata": {"name": name, "labels": labels or {}},
        "status": {"allocatable": allocatable or {"cpu": "16", "memory": "64Gi", "pods": "110"}},
    }


def _pod(name: str, node_name: str | None, *, phase: str = "Running", **spec: Any) -> dict[str, Any]:
    body = {"nodeName": node_name, **spec} if node_name else dict(spec)
    return {"kind": "Pod", "metadata": {"name": name, "namespace": "ml"}, "spec": body, "status": {"phase": phase}}


def test_kubectl_usage_from_running_pods() -> None:
    containers = [
        {"name": "a", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}},
        {"name": "b", "resources": {"limits": {"cpu": "500m"}}},
    ]  # requests default to limits
    init = [
        {"name": "setup", "resources": {"requests": {"cpu": "4"}}},
        {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "250m"}}},
    ]
    nodes = {"kind": "List", "items": [_node("n1"), _node("n2")]}
    pods = {
        "items": [
            _pod(
                "train-0",
                "n1",
                containers=containers,
                initContainers=init,
                overhead={"cpu": "100m"},
                priority=5,
                schedulingGroup={"podGroupName": "train"},
            ),
            _pod("done", "n1", phase="Succeeded", containers=containers),
            _pod("pending", None, containers=containers),
            _pod("elsewhere", "n9", containers=containers),
        ]
    }
    groups = {
        "items": [
            {
                "kind": "PodGroup",
                "metadata": {"name": "train", "namespace": "ml"},
                "spec": {"priority": 5, "disruptionMode": {"all": {}}},
            }
        ]
    }
    cl = Cluster.from_kubectl(json.dumps(nodes), pods, groups)
    # containers 1.5 CPU and the sidecar 0.25 run together (1.75); `setup` runs before
    # the sidecar starts (4): the pod needs 4, plus 0.1 overhead
    assert cl.free(0)[:3] == (16_000 - 4100, 63 * GI * 1000, 109_000)
    assert cl.free(1)[:3] == (16_000, 64 * GI * 1000, 110_000)
    assert cl.running_groups["ml/train"].disruption_mode == "all"
    assert [(p.name, p.group) for p in cl.running_pods] == [("ml/train-0", "ml/train")]


def test_kubectl_errors_at_their_paths() -> None:
    nodes = [_node("n1", cpu="lots"), {"kind": "Node", "metadata": {}, "status": {"allocatable": {}}}]
    pods = [_pod("p", "n1", containers=[{"name": "a", "resources": {"requests": {"memory": "1Q"}}}])]
    with pytest.raises(AggregateError) as err:
        Cluster.from_kubectl(nodes, pods)
    assert [(e.type, e.field) for e in err.value.field_errors] == [
        (ErrorType.INVALID, "nodes[0].status.allocatable[cpu]"),
        (ErrorType.REQUIRED, "nodes[1].metadata.name"),
        (ErrorType.INVALID, "pods[0].spec.containers[0].resources.requests[memory]"),
    ]


def test_cordoned_node() -> None:
    item = _node("n1")
    item["spec"] = {"unschedulable": True}
    assert Cluster.from_kubectl([item]).schedulable == [False]


def test_generated_cluster_is_reproducible_and_matches_its_kubectl_form() -> None:
    a = Cluster.generate(300, seed=7, hosts_per_rack=4, racks_per_block=5, blocks_per_zone=3)
    b = Cluster.generate(300, seed=7, hosts_per_rack=4, racks_per_block=5, blocks_per_zone=3)
    assert [a.free(i) for i in range(300)] == [b.free(i) for i in range(300)]
    assert [a.free(i) for i in range(300)] != [Cluster.generate(300, seed=8).free(i) for i in range(300)]
    nodes, pods, groups = generate_kubectl(300, seed=7, hosts_per_rack=4, racks_per_block=5, blocks_per_zone=3)
    ingested = Cluster.from_kubectl(nodes, pods, groups)
    assert [ingested.free(i) for i in range(300)] == [a.free(i) for i in range(300)]
    assert len(a.domains(ZONE)) == 5
    assert len(a.domains(BLOCK)) == 15
    assert len(a.domains(RACK)) == 75
    assert a.labels[299] == {
        ZONE: "zone-04",
        BLOCK: "block-04-2",
        RACK: "rack-04-2-04",
        "kubernetes.io/hostname": "node-00299",
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
    }


def test_generated_running_groups() -> None:
    cl = Cluster.generate(200, seed=1, running_groups=4)
    assert [(g.name, g.priority, g.disruption_mode) for g in cl.running_groups.values()] == [
        ("running-00000", 0, "all"),
        ("running-00001", 100, "single"),
        ("running-00002", 1000, "all"),
        ("running-00003", 0, "single"),
    ]
    assert {p.group for p in cl.running_pods} == set(cl.running_groups)


POD_REQUESTS = [
    (
        "containers add up",
        {"containers": [{"resources": {"requests": {"cpu": "1"}}}, {"resources": {"requests": {"cpu": "2"}}}]},
        {"cpu": 3000},
    ),
    (
        "init container peak",
        {
            "containers": [{"resources": {"requests": {"cpu": "1"}}}],
            "initContainers": [{"resources": {"requests": {"cpu": "3"}}}],
        },
        {"cpu": 3000},
    ),
    (
        "sidecar runs alongside",
        {
            "containers": [{"resources": {"requests": {"cpu": "1"}}}],
            "initContainers": [
                {"restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}},
                {"resources": {"requests": {"cpu": "3"}}},
            ],
        },
        {"cpu": 4000},
    ),
    (
        "pod-level requests",
        {
            "resources": {"requests": {"cpu": "8"}},
            "containers": [{"resources": {"requests": {"cpu": "1", "memory": "1"}}}],
        },
        {"cpu": 8000, "memory": 1000},
    ),
    ("overhead", {"containers": [], "overhead": {"memory": "1Ki"}}, {"memory": 1024 * 1000}),
]


@pytest.mark.parametrize(
    ("spec", "expected"), [(s, e) for _, s, e in POD_REQUESTS], ids=[i for i, _, _ in POD_REQUESTS]
)
def test_pod_requests(spec: dict[str, Any], expected: dict[str, int]) -> None:
    errors = ErrorList()
    assert pod_requests(spec, FieldPath("spec"), errors) == expected
    assert errors == []


SLOT_NODES = [
    {"name": "a", "labels": {RACK: "r1"}, "allocatable": {"cpu": 4000, "pods": 3000, "example.com/nic": 2000}},
    {"name": "b", "labels": {RACK: "r1"}, "allocatable": {"cpu": 4000, "pods": 3000}, "schedulable": False},
]
SLOT_PODS = [
    {"name": "web", "node": "a", "requests": {"cpu": 1000}, "host_ports": (HostPort(8080),)},
    {"name": "dns", "node": "b", "requests": {"cpu": 500}, "host_ports": (HostPort(53, "UDP"),)},
    {"name": "batch", "node": "b", "requests": {"cpu": 500, "example.com/nic": 1000}},
]
ADDED_SLOTS = [
    ("a port that sorts last", ["hostport:TCP/9090"]),
    ("a port that sorts between", ["hostport:TCP/80"]),
    ("a port the running pods hold and a new one", ["hostport:TCP/8080", "hostport:SCTP/1"]),
    ("an anti-affinity slot", ["podantiaffinity:0"]),
    ("nothing new", ["hostport:UDP/53"]),
]


def _model(cluster: Cluster) -> tuple[Any, ...]:
    return (
        cluster.names,
        cluster.labels,
        cluster.resources,
        cluster.allocatable,
        cluster.used,
        cluster.schedulable,
        cluster.taints,
        [(pod.name, pod.node, pod.requests, pod.host_ports) for pod in cluster.running_pods],
        [cluster.free(i) for i in range(len(cluster))],
    )


@pytest.mark.parametrize("slots", [slots for _, slots in ADDED_SLOTS], ids=[name for name, _ in ADDED_SLOTS])
def test_with_slots_is_the_cluster_built_with_them(slots: list[str]) -> None:
    plain = Cluster.build(SLOT_NODES, running_pods=SLOT_PODS)
    assert _model(plain.with_slots(slots)) == _model(Cluster.build(SLOT_NODES, running_pods=SLOT_PODS, slots=slots))


def test_with_slots_counts_a_running_pod_that_holds_a_new_slot() -> None:
    plain = Cluster.build(SLOT_NODES, running_pods=SLOT_PODS[:2])
    extra = RunningPod("late", 1, (0,) * len(plain.resources), host_ports=(HostPort(7070),))
    grown = add_running(plain, [extra]).with_slots(["hostport:TCP/7070"])
    late = {**SLOT_PODS[0], "name": "late", "node": "b", "requests": {}, "host_ports": (HostPort(7070),)}
    built = Cluster.build(SLOT_NODES, running_pods=[*SLOT_PODS[:2], late])
    index = built.resource_index["hostport:TCP/7070"]
    assert grown.used[grown.resource_index["hostport:TCP/7070"]] == built.used[index] == [0, 1000]
    assert grown.running_pods[-1].requests[grown.resource_index["hostport:TCP/7070"]] == 1000


RESOURCES_WITHOUT_SCORED = {
    "none": ((), "()"),
    "no-cpu": (("memory", "pods"), "('memory', 'pods')"),
    "no-memory": (("cpu",), "('cpu',)"),
    "gpus-only": (("nvidia.com/gpu",), "('nvidia.com/gpu',)"),
}


@pytest.mark.parametrize(("resources", "shown"), RESOURCES_WITHOUT_SCORED.values(), ids=RESOURCES_WITHOUT_SCORED.keys())
def test_a_cluster_whose_resources_miss_cpu_or_memory_is_refused_by_name(resources, shown) -> None:
    columns = [[0] for _ in resources]
    with pytest.raises(InvalidArgumentError) as caught:
        Cluster(["n1"], [{}], list(resources), columns, [list(column) for column in columns])
    assert str(caught.value) == (
        "Cluster(): resources must name cpu and memory (kube-scheduler scores them; give 0 where a node has none),"
        f" got {shown}"
    )


def test_a_huge_resource_list_is_shown_capped() -> None:
    names = ["cpu", *(f"example.com/r{i}" for i in range(500))]
    with pytest.raises(InvalidArgumentError) as caught:
        Cluster(["n1"], [{}], names, [[0] for _ in names], [[0] for _ in names])
    assert str(caught.value).endswith("...")
    assert len(str(caught.value)) < 1200
