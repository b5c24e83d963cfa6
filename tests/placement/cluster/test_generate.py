"""Generated clusters: zone → block → rack → host, contiguous domains, reproducible from a seed.

Node ``i`` sits in rack ``i // hosts_per_rack``, racks fill blocks and blocks
fill zones in order; every node carries the kubelet's labels and the default
allocatable (64 CPUs, 512Gi, 1Ti ephemeral storage, 8 GPUs, 110 pods); a
used node's pod takes at most three quarters of each whole-unit resource;
running groups get priorities 0, 100, 1000 in turn and every other one
``disruptionMode: all``. The shape is checked before anything is made.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workloadbuilder.field import AggregateError
from workloadbuilder.placement.cluster.generate import (
    BLOCK_KEY,
    DEFAULT_ALLOCATABLE,
    HOST_KEY,
    RACK_KEY,
    ZONE_KEY,
    generate,
    generate_kubectl,
    generate_parts,
)

SMALL: dict[str, Any] = {"hosts_per_rack": 2, "racks_per_block": 2, "blocks_per_zone": 2}


def topology(nodes: list[dict[str, Any]]) -> list[tuple[str, str, str, str]]:
    return [
        (n["labels"][ZONE_KEY], n["labels"][BLOCK_KEY], n["labels"][RACK_KEY], n["labels"][HOST_KEY]) for n in nodes
    ]


def test_nodes_fill_racks_blocks_and_zones_in_order() -> None:
    data = generate(10, used_fraction=0, **SMALL)
    assert topology(data.nodes) == [
        ("zone-00", "block-00-0", "rack-00-0-00", "node-00000"),
        ("zone-00", "block-00-0", "rack-00-0-00", "node-00001"),
        ("zone-00", "block-00-0", "rack-00-0-01", "node-00002"),
        ("zone-00", "block-00-0", "rack-00-0-01", "node-00003"),
        ("zone-00", "block-00-1", "rack-00-1-00", "node-00004"),
        ("zone-00", "block-00-1", "rack-00-1-00", "node-00005"),
        ("zone-00", "block-00-1", "rack-00-1-01", "node-00006"),
        ("zone-00", "block-00-1", "rack-00-1-01", "node-00007"),
        ("zone-01", "block-01-0", "rack-01-0-00", "node-00008"),
        ("zone-01", "block-01-0", "rack-01-0-00", "node-00009"),
    ]
    assert data.pods == []
    assert data.groups == []


def test_every_node_has_the_kubelets_labels_and_the_default_allocatable() -> None:
    node = generate(1, used_fraction=0).nodes[0]
    assert node["labels"] == {
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        ZONE_KEY: "zone-00",
        BLOCK_KEY: "block-00-0",
        RACK_KEY: "rack-00-0-00",
        HOST_KEY: "node-00000",
    }
    assert (
        node["allocatable"]
        == DEFAULT_ALLOCATABLE
        == {
            "cpu": "64",
            "memory": "512Gi",
            "ephemeral-storage": "1Ti",
            "nvidia.com/gpu": "8",
            "pods": "110",
        }
    )


def test_keys_node_labels_and_allocatable_can_be_given() -> None:
    node = generate(
        1, used_fraction=0, keys={"rack": "example.com/rack", "host": "h"}, node_labels={}, allocatable={"cpu": "2"}
    ).nodes[0]
    assert node["labels"] == {
        ZONE_KEY: "zone-00",
        BLOCK_KEY: "block-00-0",
        "example.com/rack": "rack-00-0-00",
        "h": "node-00000",
    }
    assert node["allocatable"] == {"cpu": "2"}


def test_the_same_arguments_give_the_same_cluster_and_seeds_differ() -> None:
    assert generate(64, seed=3) == generate(64, seed=3)
    assert [p["node"] for p in generate(64, seed=3).pods] != [p["node"] for p in generate(64, seed=4).pods]


def test_running_groups_share_the_usage_in_turn() -> None:
    data = generate(6, used_fraction=1, running_groups=3)
    assert [(g.name, g.priority, g.disruption_mode) for g in data.groups] == [
        ("running-00000", 0, "all"),
        ("running-00001", 100, "single"),
        ("running-00002", 1000, "all"),
    ]
    assert [(p["name"], p["group"], p["priority"]) for p in data.pods] == [
        ("node-00000-used", "running-00000", 0),
        ("node-00001-used", "running-00001", 100),
        ("node-00002-used", "running-00002", 1000),
        ("node-00003-used", "running-00000", 0),
        ("node-00004-used", "running-00001", 100),
        ("node-00005-used", "running-00002", 1000),
    ]


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**16))
def test_usage_stays_below_three_quarters_of_whole_units(seed: int) -> None:
    for pod in generate(8, seed=seed, used_fraction=1).pods:
        requests = pod["requests"]
        assert set(requests) <= {"cpu", "memory", "nvidia.com/gpu"}
        assert 1 <= int(requests["cpu"]) < 48
        assert requests["memory"].endswith("Gi")
        assert 1 <= int(requests["memory"][:-2]) < 384
        assert 1 <= int(requests.get("nvidia.com/gpu", "1")) < 6


SHAPES = [
    ("negative nodes", {"nodes": -1}, "nodes: Invalid value: -1: must be greater than or equal to 0"),
    (
        "no hosts per rack",
        {"hosts_per_rack": 0},
        "hosts_per_rack: Invalid value: 0: must be greater than or equal to 1",
    ),
    ("a fractional count", {"nodes": 2.5}, "nodes: Invalid value: 2.5: must be of type integer"),
    ("too many nodes", {"nodes": 10**9}, "nodes: Invalid value: 1000000000: must be less than or equal to 200000"),
    ("a share above 1", {"used_fraction": 1.5}, "used_fraction: Invalid value: 1.5: must be a share between 0 and 1"),
    ("a boolean share", {"used_fraction": True}, "used_fraction: Invalid value: true: must be a share between 0 and 1"),
]


@pytest.mark.parametrize(("shape", "message"), [c[1:] for c in SHAPES], ids=[c[0] for c in SHAPES])
def test_a_bad_shape_is_refused_at_its_name(shape: dict[str, Any], message: str) -> None:
    with pytest.raises(AggregateError) as raised:
        generate(**{"nodes": 4, **shape})
    assert str(raised.value) == message


def test_parts_are_parsed_to_millis() -> None:
    parts = generate_parts(2, used_fraction=1, seed=1)
    assert [node["name"] for node in parts.nodes] == ["node-00000", "node-00001"]  # type: ignore[index]
    assert parts.nodes[0]["allocatable"] == {  # type: ignore[index]
        "cpu": 64_000,
        "memory": 512 * (1 << 30) * 1000,
        "ephemeral-storage": (1 << 40) * 1000,
        "nvidia.com/gpu": 8000,
        "pods": 110_000,
    }
    raw = generate(2, used_fraction=1, seed=1).pods
    assert [pod["requests"]["cpu"] for pod in parts.pods] == [int(pod["requests"]["cpu"]) * 1000 for pod in raw]


def test_kubectl_lists() -> None:
    nodes, pods, groups = generate_kubectl(2, used_fraction=1, running_groups=1)
    assert [item["metadata"]["name"] for item in nodes["items"]] == ["node-00000", "node-00001"]
    assert nodes["items"][0]["status"]["allocatable"] == nodes["items"][0]["status"]["capacity"] == DEFAULT_ALLOCATABLE
    pod = pods["items"][0]
    assert (pod["spec"]["nodeName"], pod["spec"]["priority"], pod["spec"]["schedulingGroup"], pod["status"]) == (
        "node-00000",
        0,
        {"podGroupName": "running-00000"},
        {"phase": "Running"},
    )
    assert groups["items"] == [
        {
            "apiVersion": "scheduling.k8s.io/v1beta1",
            "kind": "PodGroup",
            "metadata": {"name": "running-00000", "namespace": "default"},
            "spec": {"priority": 0, "schedulingPolicy": {"gang": {"minCount": 1}}, "disruptionMode": {"all": {}}},
        }
    ]
    assert [lst["kind"] for lst in (nodes, pods, groups)] == ["List", "List", "List"]
