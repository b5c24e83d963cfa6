"""Placement with kube-scheduler's filters: taints, cordons, selectors, node names, host ports, limits."""

from __future__ import annotations

from typing import Any

import pytest
from placement_helpers import checked, cluster, node, pod_group, request, where

from workloadbuilder.field import ErrorList, FieldPath
from workloadbuilder.placement import Cluster, Pods, place
from workloadbuilder.placement.k8s.resources import pod_requests

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
TOLERATE_GPU = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def tainted(name: str, *taints: dict[str, str], gpus: int = 8, **labels: str) -> dict[str, Any]:
    entry = node(name, gpus, **labels)
    entry["taints"] = list(taints)
    return entry


def template(gpus: int = 1, **spec: Any) -> dict[str, Any]:
    resources = (
        {"limits": {"nvidia.com/gpu": str(gpus)}, "requests": {"cpu": "1"}} if gpus else {"requests": {"cpu": "1"}}
    )
    return {"spec": {"containers": [{"name": "main", "resources": resources}], **spec}}


@pytest.fixture
def gpu_cluster() -> Cluster:
    return cluster(
        tainted("gpu-1", GPU_TAINT, pool="a"),
        tainted("gpu-2", GPU_TAINT, {"key": "dedicated", "value": "inference", "effect": "NoSchedule"}, pool="a"),
        tainted("gpu-3", GPU_TAINT, {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}, pool="b"),
        {**tainted("gpu-4", GPU_TAINT, pool="b"), "unschedulable": True},
        node("cpu-1", 0, pool="c"),
    )


CASES = [
    ("GPU pods go only where they tolerate every taint", template(4, tolerations=TOLERATE_GPU), 2, True, ["gpu-1"]),
    ("a limit without a request is a request: 9 GPUs fit nowhere", template(9, tolerations=TOLERATE_GPU), 1, False, []),
    ("without the toleration only the untainted CPU node is left", template(1), 1, False, []),
    ("a CPU pod lands on the untainted node", template(0), 1, True, ["cpu-1"]),
    (
        "a nodeSelector is honoured",
        template(0, tolerations=[{"operator": "Exists"}], nodeSelector={"pool": "b"}),
        2,
        True,
        ["gpu-3", "gpu-4"],
    ),
    ("nodeName pins the pod", template(1, tolerations=[{"operator": "Exists"}], nodeName="gpu-2"), 1, True, ["gpu-2"]),
    (
        "a host port keeps the gang's pods apart",
        {
            "spec": {
                "tolerations": TOLERATE_GPU,
                "containers": [
                    {
                        "name": "m",
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                        "ports": [{"containerPort": 80, "hostPort": 8080}],
                    }
                ],
            }
        },
        2,
        False,
        [],
    ),
]


@pytest.mark.parametrize(("pod", "count", "feasible", "nodes"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
@pytest.mark.parametrize("strategy", ["kube-scheduler", "complete"], ids=["kube-scheduler", "complete"])
def test_filters_decide_where_pods_go(
    gpu_cluster: Cluster, strategy: str, pod: dict[str, Any], count: int, feasible: bool, nodes: list[str]
) -> None:
    req = request([pod_group("pg", count)], {"pg": Pods(count, template=pod)})
    answer = checked(req, gpu_cluster, place(req, gpu_cluster, strategy))
    assert answer.feasible is feasible
    assert sorted(where(answer).get("pg", ({}, []))[1]) == sorted(nodes * (count if len(nodes) == 1 else 1))


def test_host_ports_of_a_gang_spread_it_over_nodes() -> None:
    cl = cluster(node("n1"), node("n2"), node("n3"))
    pod = {"spec": {"containers": [{"name": "m", "ports": [{"containerPort": 80, "hostPort": 8080}]}]}}
    req = request([pod_group("pg", 3)], {"pg": Pods(3, template=pod)})
    answer = checked(req, cl, place(req, cl))
    assert sorted(where(answer)["pg"][1]) == ["n1", "n2", "n3"]


def test_a_running_pod_holding_the_host_port_keeps_the_node_away() -> None:
    cl = cluster(
        node("n1"),
        node("n2"),
        running=[{"name": "web", "kind": "Pod", "node": "n1", "requests": {"cpu": "1"}, "hostPorts": [8080]}],
    )
    pod = {"spec": {"containers": [{"name": "m", "ports": [{"containerPort": 80, "hostPort": 8080}]}]}}
    req = request([pod_group("pg", 1)], {"pg": Pods(1, template=pod)})
    answer = checked(req, cl, place(req, cl))
    assert where(answer)["pg"][1] == ["n2"]


def kubectl_node(name: str, ready: str, taints: list[dict[str, str]]) -> dict[str, Any]:
    return {
        "kind": "Node",
        "metadata": {"name": name},
        "spec": {"taints": taints},
        "status": {
            "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"},
            "conditions": [{"type": "Ready", "status": ready}],
        },
    }


def test_a_not_ready_node_without_its_taint_is_used_but_warned_about() -> None:
    cl = Cluster.from_kubectl(
        [
            kubectl_node("ok", "True", []),
            kubectl_node("tainted", "False", [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]),
            kubectl_node("lagging", "Unknown", []),
        ]
    )
    assert cl.warnings == (
        (
            "node lagging reports Ready=Unknown but has no node.kubernetes.io/not-ready or unreachable taint: "
            "kube-scheduler still places pods on it, and so does this model"
        ),
    )
    req = request([pod_group("pg", 2)], {"pg": Pods(2, requests={"cpu": "3"})})
    answer = place(req, cl)
    assert sorted(where(answer)["pg"][1]) == ["lagging", "ok"]
    assert answer.to_dict()["warnings"] == list(cl.warnings)


REQUEST_CASES = [
    (
        "a limit defaults its own request only",
        {"containers": [{"resources": {"requests": {"cpu": "1"}, "limits": {"nvidia.com/gpu": "8", "cpu": "4"}}}]},
        {"cpu": 1000, "nvidia.com/gpu": 8000},
    ),
    (
        "limits alone are the requests",
        {"containers": [{"resources": {"limits": {"cpu": "2", "memory": "1Gi"}}}]},
        {"cpu": 2000, "memory": 1024**3 * 1000},
    ),
    (
        "containers add up",
        {"containers": [{"resources": {"requests": {"cpu": "1"}}}, {"resources": {"requests": {"cpu": "500m"}}}]},
        {"cpu": 1500},
    ),
    (
        "an init container larger than the sum wins",
        {
            "initContainers": [{"resources": {"requests": {"cpu": "3"}}}],
            "containers": [{"resources": {"requests": {"cpu": "1"}}}],
        },
        {"cpu": 3000},
    ),
    (
        "a sidecar adds to the pod and to the init containers after it",
        {
            "initContainers": [
                {"restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}},
                {"resources": {"requests": {"cpu": "2"}}},
            ],
            "containers": [{"resources": {"requests": {"cpu": "1"}}}],
        },
        {"cpu": 3000},
    ),
    (
        "overhead is added",
        {"overhead": {"cpu": "250m"}, "containers": [{"resources": {"requests": {"cpu": "1"}}}]},
        {"cpu": 1250},
    ),
    (
        "pod-level requests replace CPU and memory only",
        {
            "resources": {"requests": {"cpu": "4"}, "limits": {"memory": "2Gi"}},
            "containers": [{"resources": {"requests": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "1"}}}],
        },
        {"cpu": 4000, "memory": 2 * 1024**3 * 1000, "nvidia.com/gpu": 1000},
    ),
    (
        "hugepages and ephemeral storage are resources like any other",
        {"containers": [{"resources": {"limits": {"hugepages-2Mi": "4Mi", "ephemeral-storage": "1Gi"}}}]},
        {"hugepages-2Mi": 4 * 1024**2 * 1000, "ephemeral-storage": 1024**3 * 1000},
    ),
]


@pytest.mark.parametrize(("spec", "expected"), [c[1:] for c in REQUEST_CASES], ids=[c[0] for c in REQUEST_CASES])
def test_pod_requests_as_the_apiserver_defaults_and_the_scheduler_adds_them(
    spec: dict[str, Any], expected: dict[str, int]
) -> None:
    errors = ErrorList()
    assert pod_requests(spec, FieldPath("spec"), errors) == expected
    assert list(errors) == []
