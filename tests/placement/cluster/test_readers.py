"""``--cluster`` as kubectl prints it: one mixed List of nodes, pods, priority classes, budgets, groups and slices."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from workloadbuilder.field import AggregateError
from workloadbuilder.placement import Cluster, DevicePool
from workloadbuilder.placement.k8s.disruption import DisruptionBudget
from workloadbuilder.placement.k8s.priorities import PriorityClass

DUMP = Path(__file__).resolve().parents[3] / "examples" / "gpu_cluster"

EXTRA: list[dict[str, Any]] = [
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "batch"}, "value": 100},
    {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "serving"},
        "value": 1000,
        "globalDefault": True,
        "preemptionPolicy": "Never",
    },
    {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "train", "namespace": "research"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "train"}}},
        "status": {"disruptionsAllowed": 0, "disruptedPods": {"train-7f9c-0": "2026-11-30T10:00:00Z"}},
    },
    {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "train", "namespace": "research"},
        "spec": {"priority": 100, "disruptionMode": {"all": {}}, "schedulingPolicy": {"gang": {"minCount": 1}}},
    },
    {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "gpu-01-nics"},
        "spec": {
            "driver": "nic.example.com",
            "pool": {"name": "gpu-01"},
            "nodeName": "gpu-01",
            "devices": [{"name": "nic-0"}, {"name": "nic-1"}],
        },
    },
    {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "zone-a-fabric"},
        "spec": {
            "driver": "fabric.example.com",
            "pool": {"name": "fabric"},
            "nodeSelector": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1a"]}
                        ]
                    }
                ]
            },
            "devices": [{"name": f"link-{i}"} for i in range(4)],
        },
    },
]


def mixed_list() -> dict[str, Any]:
    nodes = json.loads((DUMP / "nodes.json").read_text())["items"]
    pods = json.loads((DUMP / "pods.json").read_text())["items"]
    items = [*pods[:3], *EXTRA[:2], *nodes, *EXTRA[2:], *pods[3:]]
    return {"apiVersion": "v1", "kind": "List", "items": items}


def test_a_mixed_list_is_sorted_by_kind() -> None:
    cl = Cluster.from_kubectl(mixed_list())
    separate = Cluster.from_kubectl((DUMP / "nodes.json").read_text(), (DUMP / "pods.json").read_text())
    assert cl.names == separate.names
    assert sorted(pod.name for pod in cl.running_pods) == sorted(pod.name for pod in separate.running_pods)
    assert cl.free(2) == separate.free(2)
    assert {name: cl.priority_classes[name] for name in ("batch", "serving")} == {
        "batch": PriorityClass("batch", 100),
        "serving": PriorityClass("serving", 1000, True, "Never"),
    }
    assert cl.disruption_budgets == (
        DisruptionBudget("train", "research", {"matchLabels": {"app": "train"}}, 0, ("train-7f9c-0",)),
    )
    assert cl.running_groups["research/train"].disruption_mode == "all"
    assert cl.pools == (
        DevicePool("nic.example.com/gpu-01/gpu-01-nics", "nic.example.com", 2, 0, "gpu-01", None),
        DevicePool(
            "fabric.example.com/fabric/zone-a-fabric",
            "fabric.example.com",
            4,
            0,
            None,
            ("topology.kubernetes.io/zone", "us-east-1a"),
        ),
    )


BAD = [
    (
        "an unknown kind",
        {"kind": "ConfigMap", "metadata": {"name": "x"}},
        (
            'items[0].kind: Unsupported value: "ConfigMap": supported values: "Node", "Pod", "PodGroup", '
            '"CompositePodGroup", "PriorityClass", "PodDisruptionBudget", "ResourceSlice"'
        ),
    ),
    (
        "a priority class without a value",
        {"kind": "PriorityClass", "metadata": {"name": "x"}},
        "items[0].value: Required value",
    ),
    (
        "an unknown preemption policy",
        {"kind": "PriorityClass", "metadata": {"name": "x"}, "value": 1, "preemptionPolicy": "Maybe"},
        'items[0].preemptionPolicy: Unsupported value: "Maybe": supported values: "PreemptLowerPriority", "Never"',
    ),
    (
        "a label value that is not a string",
        {"kind": "Node", "metadata": {"name": "n", "labels": {"zone": 1}}, "status": {"allocatable": {"cpu": "1"}}},
        "nodes[0].metadata.labels[zone]: Invalid value: 1: must be of type string",
    ),
    (
        "a slice on a node that is not there",
        {
            "kind": "ResourceSlice",
            "metadata": {"name": "s"},
            "spec": {"driver": "d", "nodeName": "ghost", "devices": [{"name": "a"}]},
        },
        'items[0].spec.nodeName: Invalid value: "ghost": no such node',
    ),
]


@pytest.mark.parametrize(("item", "expected"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_a_bad_object_in_the_list_is_a_field_error(item: dict[str, Any], expected: str) -> None:
    with pytest.raises(AggregateError) as caught:
        Cluster.from_kubectl({"kind": "List", "items": [item]})
    assert [str(error) for error in caught.value.field_errors] == [expected]


def _node_items() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = json.loads((DUMP / "nodes.json").read_text())["items"]
    return items


ORDERS = [
    ("nodes first, other kinds last", lambda nodes, others: [*nodes, *others]),
    ("other kinds first", lambda nodes, others: [*others, *nodes]),
    ("another kind between nodes", lambda nodes, others: [*nodes[:2], *others, *nodes[2:]]),
    ("nodes without kind, then others", lambda nodes, others: [*({**n, "kind": None} for n in nodes), *others]),
]


@pytest.mark.parametrize("order", [o[1] for o in ORDERS], ids=[o[0] for o in ORDERS])
def test_a_list_is_sorted_by_kind_wherever_its_nodes_are(order: Any) -> None:
    """The List is first read as a node dump; an item of another kind, anywhere, makes it a mixed List."""
    cl = Cluster.from_kubectl({"kind": "List", "items": order(_node_items(), EXTRA[:2])})
    assert cl.names == Cluster.from_kubectl((DUMP / "nodes.json").read_text()).names
    assert cl.priority_classes["batch"] == PriorityClass("batch", 100)


def test_a_bad_node_of_a_mixed_list_is_an_error_at_its_index_in_the_list() -> None:
    nodes = _node_items()
    del nodes[2]["status"]["allocatable"]
    with pytest.raises(AggregateError) as caught:
        Cluster.from_kubectl({"kind": "List", "items": [*nodes[:3], EXTRA[0], *nodes[3:]]})
    assert [str(error) for error in caught.value.field_errors] == ["items[2].status.allocatable: Required value"]
    with pytest.raises(AggregateError) as caught:
        Cluster.from_kubectl({"kind": "List", "items": nodes})
    assert [str(error) for error in caught.value.field_errors] == ["nodes[2].status.allocatable: Required value"]
