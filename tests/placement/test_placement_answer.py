"""The answer format: documented ``to_dict()`` keys in a fixed order, JSON, and the same bytes every time."""

from __future__ import annotations

import json

from placement_helpers import checked

from workloadbuilder.placement import Cluster, PlacementRequest, place


def test_to_dict_shape(kep_cluster: Cluster, kep_request: PlacementRequest) -> None:
    answer = checked(kep_request, kep_cluster, place(kep_request, kep_cluster))
    data = answer.to_dict()
    assert list(data) == ["feasible", "strategy", "groups", "victims", "explanation", "text", "warnings"]
    assert [list(group) for group in data["groups"]] == [
        ["name", "kind", "template", "parent", "domains", "pods", "required", "claims", "capacityLeft"]
    ] * 3
    assert data["groups"][1] == {
        "name": "pg-1",
        "kind": "PodGroup",
        "template": None,
        "parent": "cpg-root",
        "domains": {"topology.example.com/block": "block-B", "topology.example.com/rack": "rack-B1"},
        "pods": [{"name": f"pg-1-{i}", "node": "b1"} for i in range(5)],
        "required": 5,
        "claims": [],
        "capacityLeft": {"pods": "105", "nvidia.com/gpu": "0"},  # what its pods request, left in rack-B1
    }
    assert data["groups"][0]["capacityLeft"] == {"pods": "210", "nvidia.com/gpu": "0"}  # left in block-B
    assert list(data["explanation"]) == ["summary", "roots"]
    assert list(data["explanation"]["roots"][0]) == [
        "group",
        "feasible",
        "quorum",
        "levels",
        "resources",
        "claims",
        "preemption",
        "search",
        "greedyGap",
        "fitErrors",
        "text",
        "placedBefore",
        "interplay",
    ]


def test_json_is_the_dict(kep_cluster: Cluster, kep_request: PlacementRequest) -> None:
    answer = place(kep_request, kep_cluster, strategy="complete")
    assert json.loads(answer.to_json()) == answer.to_dict()


def test_same_input_same_bytes(kep_request: PlacementRequest) -> None:
    cluster = Cluster.generate(512, seed=11)
    outputs = {place(kep_request, cluster, strategy=strategy).to_json() for strategy in ("kube-scheduler",) * 3}
    assert len(outputs) == 1
