"""The answer format: documented ``to_dict()`` keys in a fixed order, JSON, and the same bytes every time."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from placement_helpers import checked

from workloadbuilder.placement import Cluster, PlacementRequest, PodList, PodPlacement, place


def test_to_dict_shape(kep_cluster: Cluster, kep_request: PlacementRequest) -> None:
    answer = checked(kep_request, kep_cluster, place(kep_request, kep_cluster))
    data = answer.to_dict()
    assert list(data) == ["feasible", "strategy", "groups", "victims", "explanation", "text", "warnings"]
    assert [list(group) for group in data["groups"]] == [
        ["name", "kind", "template", "parent", "domains", "pods", "required", "claims", "capacityLeft", "unusable"]
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
        "unusable": {"nodes": 0, "reasons": {}, "free": {}},  # every node of rack-B1 may take its pods
    }
    assert data["groups"][0]["capacityLeft"] == {"pods": "210", "nvidia.com/gpu": "0"}  # left in block-B
    assert list(data["explanation"]) == ["summary", "roots"]
    assert list(data["explanation"]["roots"][0]) == [
        "group",
        "feasible",
        "quorum",
        "levels",
        "filters",
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


def _lazy() -> PodList:
    return PodList(names=["w-0", "w-1", "w-2"], nodes=[2, 0, 2], node_names=["a", "b", "c"])


BUILT = [PodPlacement("w-0", "c"), PodPlacement("w-1", "a"), PodPlacement("w-2", "c")]


def _set_second(pods: PodList) -> object:
    pods[1] = PodPlacement("x", "b")
    return pods.to_dicts()


POD_LIST_READS = [
    ("len, unbuilt", len, 3),
    (
        "to_dicts, unbuilt",
        PodList.to_dicts,
        [{"name": "w-0", "node": "c"}, {"name": "w-1", "node": "a"}, {"name": "w-2", "node": "c"}],
    ),
    ("equal to the list", lambda pods: pods == BUILT, True),
    ("the list equal to it", lambda pods: BUILT == pods, True),  # noqa: SIM300 - the list's side: the reflected __eq__
    ("equal to another order", lambda pods: pods == BUILT[::-1], False),
    ("index", lambda pods: pods[-1], PodPlacement("w-2", "c")),
    ("slice", lambda pods: pods[:1], [PodPlacement("w-0", "c")]),
    ("iterated", lambda pods: [pod.node for pod in pods], ["c", "a", "c"]),
    (
        "set, then to_dicts",
        _set_second,
        [{"name": "w-0", "node": "c"}, {"name": "x", "node": "b"}, {"name": "w-2", "node": "c"}],
    ),
    ("appended", lambda pods: (pods.append(PodPlacement("y", "a")), len(pods))[1], 4),
    ("deleted", lambda pods: (pods.__delitem__(0), [pod.name for pod in pods])[1], ["w-1", "w-2"]),
    ("repr", repr, repr(BUILT)),
]


@pytest.mark.parametrize(("read", "expected"), [c[1:] for c in POD_LIST_READS], ids=[c[0] for c in POD_LIST_READS])
def test_pod_list_reads_as_the_list_it_builds(read: Callable[[PodList], object], expected: object) -> None:
    assert read(_lazy()) == expected
    assert read(PodList(BUILT)) == expected  # the same on a list of records given whole


def test_a_placed_group_has_a_pod_list(kep_cluster: Cluster, kep_request: PlacementRequest) -> None:
    pods = place(kep_request, kep_cluster).group("pg-1").pods
    assert isinstance(pods, PodList)
    assert pods == [PodPlacement(f"pg-1-{i}", "b1") for i in range(5)]
