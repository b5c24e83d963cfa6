"""The independent checker catches every kind of broken placement, at its path in ``to_dict()``."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
from placement_helpers import BLOCK, RACK, cluster, composite, node, pod_group, request

from workloadbuilder.field import ErrorType
from workloadbuilder.placement import (
    ClaimPlacement,
    Cluster,
    GroupPlacement,
    Placement,
    PlacementRequest,
    PodPlacement,
    Victim,
    place,
    verify,
)

GPU = {"nvidia.com/gpu": "1"}


def _setup() -> tuple[Cluster, PlacementRequest, Placement]:
    cl = cluster(
        node("a1", 4, block="A", rack="r1"),
        node("a2", 4, block="A", rack="r2"),
        node("b1", 1, block="B", rack="r3"),
        {**node("c1", 8, block="B", rack="r3"), "unschedulable": True},
        devicePools=[{"name": "r1-nics", "deviceClass": "rdma", "count": 2, "domain": {RACK: "r1"}}],
    )
    req = request(
        [
            composite("root", 2, key=BLOCK),
            pod_group("x", 2, key=RACK, parent="root", claims=[{"name": "nics", "resourceClaimTemplateName": "nic"}]),
            pod_group("y", 2, key=RACK, parent="root"),
        ],
        {"x": (2, GPU), "y": (2, GPU)},
        {"nic": {"deviceClass": "rdma", "count": 1}},
    )
    answer = place(req, cl)
    assert answer.feasible
    assert verify(req, cl, answer) == []
    return cl, req, answer


def _move(group: str, node_name: str) -> Callable[[Placement], None]:
    def mutate(answer: Placement) -> None:
        placed = answer.group(group)
        placed.pods = [PodPlacement(pod.name, node_name) for pod in placed.pods]

    return mutate


def _drop_one(answer: Placement) -> None:
    answer.group("y").pods.pop()


def _bad_devices(answer: Placement) -> None:
    answer.group("x").claims = [ClaimPlacement("nics", (("r1-nics", 2),))]


def _rename(answer: Placement) -> None:
    answer.group("y").pods[1] = PodPlacement("y-0", answer.group("y").pods[1].node)


def _flag(answer: Placement) -> None:
    answer.feasible = False


def _phantom_victim(answer: Placement) -> None:
    answer.victims.append(Victim("ghost", "Pod", 0, [PodPlacement("ghost", "a1")]))


def _reorder(answer: Placement) -> None:
    answer.groups.reverse()


def _stray_key(answer: Placement) -> None:
    answer.group("x").domains["kubernetes.io/hostname"] = "a1"


BROKEN = [
    (
        "over capacity",
        _move("y", "b1"),
        [
            (ErrorType.INVALID, "nodes[b1][nvidia.com/gpu]"),
            (ErrorType.INVALID, "groups[2].pods[0].node"),
            (ErrorType.INVALID, "groups[2].pods[1].node"),  # block A
            (ErrorType.INVALID, "groups[2].pods[0].node"),
            (ErrorType.INVALID, "groups[2].pods[1].node"),  # rack r1
        ],
    ),
    (
        "outside its rack",
        _move("y", "a2"),
        [
            (ErrorType.INVALID, "groups[2].pods[0].node"),
            (ErrorType.INVALID, "groups[2].pods[1].node"),
        ],
    ),
    (
        "cordoned node",
        _move("y", "c1"),
        [
            (ErrorType.INVALID, "groups[2].pods[0].node"),
            (ErrorType.INVALID, "groups[2].pods[1].node"),  # cordoned
            (ErrorType.INVALID, "groups[2].pods[0].node"),
            (ErrorType.INVALID, "groups[2].pods[1].node"),
            (ErrorType.INVALID, "groups[2].pods[0].node"),
            (ErrorType.INVALID, "groups[2].pods[1].node"),
        ],
    ),
    (
        "unknown node",
        _move("x", "zz"),
        [
            (ErrorType.NOT_FOUND, "groups[1].pods[0].node"),
            (ErrorType.NOT_FOUND, "groups[1].pods[1].node"),
        ],
    ),
    (
        "partial gang",
        _drop_one,
        [(ErrorType.INVALID, "groups[2].pods"), (ErrorType.INVALID, "groups[0]"), (ErrorType.INVALID, "feasible")],
    ),
    ("claim size", _bad_devices, [(ErrorType.INVALID, "groups[1].claims[nics]")]),
    ("pod placed twice", _rename, [(ErrorType.INVALID, "groups[2].pods[1].name")]),
    ("feasible flag", _flag, [(ErrorType.INVALID, "feasible")]),
    (
        "unknown victim",
        _phantom_victim,
        [
            (ErrorType.NOT_FOUND, "victims[0].name"),
            (ErrorType.INVALID, "victims[0].priority"),
            (ErrorType.NOT_FOUND, "victims[0].pods[0]"),
        ],
    ),
    ("groups out of order", _reorder, [(ErrorType.INVALID, "groups")]),
    ("a key from nowhere", _stray_key, [(ErrorType.INVALID, "groups[1].domains[kubernetes.io/hostname]")]),
]


@pytest.mark.parametrize(("mutate", "expected"), [(m, e) for _, m, e in BROKEN], ids=[i for i, _, _ in BROKEN])
def test_broken_placements_are_caught(
    mutate: Callable[[Placement], None], expected: list[tuple[ErrorType, str]]
) -> None:
    cl, req, answer = _setup()
    broken = copy.deepcopy(answer)
    mutate(broken)
    assert [(e.type, e.field) for e in verify(req, cl, broken)] == expected


def test_a_claim_whose_devices_do_not_reach_the_pods() -> None:
    cl, req, answer = _setup()
    broken = copy.deepcopy(answer)
    _move("x", "a2")(broken)
    problems = [(e.type, e.field, e.detail) for e in verify(req, cl, broken)]
    assert (ErrorType.INVALID, "groups[1].pods[0].node", "cannot reach pool r1-nics") in problems


def _debt_setup() -> tuple[Cluster, PlacementRequest]:
    """n1 is already one GPU over its 2 (used 2, plus a running pod of 1): evicting that pod frees no room."""
    cl = cluster(
        node("n1", 2, used={"nvidia.com/gpu": "2"}),
        running=[{"name": "low", "priority": 1, "pods": [{"name": "low-0", "node": "n1", "requests": GPU}]}],
    )
    return cl, request([pod_group("hi", 1, priority=10)], {"hi": (1, GPU)})


def _evicting(priority: int, pods: list[str]) -> Placement:
    group = GroupPlacement("hi", "PodGroup", None, None, 1, pods=[PodPlacement("hi-0", "n1")])
    victim = Victim("low-0", "Pod", priority, [PodPlacement(name, "n1") for name in pods])
    return Placement(True, "kube-scheduler", [group], [victim], {}, "")


VICTIMS = [
    ("debt stays after eviction", _evicting(1, ["low-0"]), [(ErrorType.INVALID, "nodes[n1][nvidia.com/gpu]")]),
    (
        "victim priority misreported",
        _evicting(0, ["low-0"]),
        [(ErrorType.INVALID, "victims[0].priority"), (ErrorType.INVALID, "nodes[n1][nvidia.com/gpu]")],
    ),
    (
        "victim not below the preemptor",
        _evicting(10, ["low-0"]),
        [
            (ErrorType.INVALID, "victims[0].priority"),
            (ErrorType.INVALID, "victims[0].priority"),
            (ErrorType.INVALID, "nodes[n1][nvidia.com/gpu]"),
        ],
    ),
    (
        "victim missing its pod",
        _evicting(1, []),
        [(ErrorType.INVALID, "victims[0].pods"), (ErrorType.INVALID, "nodes[n1][nvidia.com/gpu]")],
    ),
]


@pytest.mark.parametrize(("answer", "expected"), [(a, e) for _, a, e in VICTIMS], ids=[i for i, _, _ in VICTIMS])
def test_victims_and_signed_free_capacity(answer: Placement, expected: list[tuple[ErrorType, str]]) -> None:
    cl, req = _debt_setup()
    assert [(e.type, e.field) for e in verify(req, cl, answer)] == expected


def test_a_claim_on_a_group_that_has_none() -> None:
    cl, req, answer = _setup()
    broken = copy.deepcopy(answer)
    broken.group("root").claims = [ClaimPlacement("nics", (("r1-nics", 1),))]
    assert [(e.type, e.field, e.detail) for e in verify(req, cl, broken)] == [
        (ErrorType.INVALID, "groups[0].claims[0]", "not a claim of this group, or the group places no pods")
    ]
