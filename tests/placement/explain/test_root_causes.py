"""Explanations state only true causes: what was tried, after what, pinned by which claim, taken by which root.

Each case is the smallest instance that showed a wrong text before (a count
that was an artifact of kube-scheduler's early abort, "fits 4 of 3 pods",
"rack r1 in rack r1", a pinning claim left unnamed, a failing root blamed on
nothing) and the whole explanation it now gets. Every node has 8 GPUs
unless it says otherwise; every pod asks for one.
"""

from __future__ import annotations

from typing import Any

import pytest
from placement_helpers import BLOCK, RACK, ZONE, cluster, composite, node, pod_group, request

from workloadbuilder.placement import Cluster, PlacementRequest, place, verdict

GPU = {"nvidia.com/gpu": "1"}
NO_PREEMPTION = "preemption cannot help: nothing of lower priority runs"


def _gang_of(children: int, need: int, pods: list[int], key: str = RACK) -> PlacementRequest:
    """CompositePodGroup ``c`` (``need`` of ``children``, on ``key``) over PodGroups g0.. of ``pods[i]`` pods each."""
    groups = [composite("c", need, key=key)]
    groups += [pod_group(f"g{i}", pods[i], parent="c") for i in range(children)]
    return request(groups, {f"g{i}": (pods[i], GPU) for i in range(children)})


def _abort_after_the_first() -> tuple[PlacementRequest, Cluster]:
    """``g0`` (rack key) passes the block's capacity bound but fits no rack; the six 1-pod siblings are never tried."""
    groups = [composite("c", 7, key=BLOCK), pod_group("g0", 6, key=RACK, parent="c")]
    groups += [pod_group(f"g{i}", 1, parent="c") for i in range(1, 7)]
    req = request(groups, {"g0": (6, GPU), **{f"g{i}": (1, GPU) for i in range(1, 7)}})
    return req, cluster(node("n1", 4, block="b1", rack="r1"), node("n2", 4, block="b1", rack="r2"))


def _never_tried() -> tuple[PlacementRequest, Cluster]:
    """``big`` fits rack r1 alone, but zone a is ruled out by ``small`` (its nodes have 2 CPUs, it needs 4)."""
    req = request(
        [
            composite("root", 2, key=ZONE),
            pod_group("big", 8, key=RACK, parent="root"),
            pod_group("small", 1, parent="root"),
        ],
        {"big": (8, GPU), "small": (1, {"cpu": "4"})},
    )
    cl = cluster(
        node("a1", 8, cpu="2", zone="a", rack="r1"),
        node("b1", 4, zone="b", rack="r3"),
        node("b2", 4, zone="b", rack="r4"),
    )
    return req, cl


def _rack_across_zones() -> tuple[PlacementRequest, Cluster]:
    """Rack r1 spans zones a and b (4 GPUs in each): it holds ``w``'s 6 alone, no zone's part of it does."""
    req = request(
        [composite("root", 1, key=ZONE), pod_group("w", 6, key=RACK, parent="root")],
        {"w": (6, GPU)},
    )
    nodes = [node("a1", 4, zone="a", rack="r1"), node("a2", 4, zone="a", rack="r2"), node("b1", 4, zone="b", rack="r1")]
    return req, cluster(*nodes)


def _two_of(
    key: str | None, pods: int, count: int, nodes: list[tuple[str, int, str]]
) -> tuple[PlacementRequest, Cluster]:
    """CompositePodGroup ``root`` (2 of 2, on ``key``) over ``x`` and ``y`` (rack key, ``pods`` of ``count``)."""
    req = request(
        [
            composite("root", 2, key=key),
            pod_group("x", pods, key=RACK, parent="root"),
            pod_group("y", pods, key=RACK, parent="root"),
        ],
        {"x": (count, GPU), "y": (count, GPU)},
    )
    return req, cluster(*(node(name, gpus, rack=rack) for name, gpus, rack in nodes))


def _nested_same_key() -> tuple[PlacementRequest, Cluster]:
    req = request(
        [
            composite("outer", 1, key=RACK),
            composite("inner", 2, key=RACK, parent="outer"),
            pod_group("x", 6, parent="inner"),
            pod_group("y", 6, parent="inner"),
        ],
        {"x": (6, GPU), "y": (6, GPU)},
    )
    return req, cluster(node("a1", 4, rack="r1"), node("a2", 4, rack="r1"))


# id -> (request, cluster, the explanation's lines after the verdict line)
CASES: dict[str, tuple[PlacementRequest, Cluster, list[str]]] = {
    # 1. no count that is an artifact of the early abort
    "abort-after-a-failure": (
        _gang_of(7, 7, [3] * 7),
        cluster(node("n1", 8, rack="r1")),
        [
            "`c` cannot be placed",
            "`c`: in rack r1, child groups `g0`, `g1` fit, `g2` does not; "
            "the other 4 were not tried, since 7 must fit; 0 of 1 rack fit 7",
            "`g2`: rack r1 fits 3 of 3 pods on its own, 2 once `g0`, `g1` took their share; 1 of 1 rack fit 3",
            NO_PREEMPTION,
        ],
    ),
    "abort-after-the-first-child": (
        *_abort_after_the_first(),
        [
            "`c` cannot be placed",
            "`c`: in block b1, child group `g0` does not fit; the other 6 were not tried, since 7 must fit; "
            "0 of 1 block fit 7",
            "`g0`: rack r1 in block b1 fits 4 of 6 pods; 0 of 2 racks fit 6",
            NO_PREEMPTION,
        ],
    ),
    "ruled-out-by-the-capacity-bound": (
        _gang_of(7, 7, [9, 1, 1, 1, 1, 1, 1]),
        cluster(node("n1", 8, rack="r1")),
        [
            "`c` cannot be placed",
            "`c`: in rack r1, at most 6 of its 7 child groups fit, each on its own: `g0` does not; 0 of 1 rack fit 7",
            "`g0`: rack r1 fits 8 of 9 pods; 0 of 1 rack fit 9",
            NO_PREEMPTION,
        ],
    ),
    "fitting-domains-never-tried": (
        *_never_tried(),
        [
            "`root` cannot be placed",
            "`root`: in zone b, child group `big` does not fit; the other child group was not tried, since 2 must fit; "
            "0 of 2 zones fit 2",
            "`big`: rack r3 in zone b fits 4 of 8 pods; 1 of 3 racks fit 8 on its own, but it was not tried",
            NO_PREEMPTION,
        ],
    ),
    "a-rack-split-by-zones": (
        *_rack_across_zones(),
        [
            "`root` cannot be placed",
            "`root`: zone a fits 0 of 1 child group; 0 of 2 zones fit 1",
            "`w`: rack r1 in zone a fits 4 of 6 pods; 1 of 2 racks fit 6 on its own, but not within one zone",
            NO_PREEMPTION,
        ],
    ),
    # 2. no "fits 4 of 3 pods": a domain that holds the minimum alone says what was left of it when tried
    "more-pods-than-min-count": (
        *_two_of(None, 3, 4, [("a1", 4, "r1"), ("a2", 2, "r2")]),
        [
            "`root` cannot be placed",
            "`root`: the cluster fits 1 of 2 child groups",
            "`y`: rack r1 fits 3 of 3 pods on its own, 0 once `x` took its share; 1 of 2 racks fit 3",
            NO_PREEMPTION,
        ],
    ),
    # 3. no "rack r1 in rack r1": a key repeated below its parent is one level
    "child-repeats-its-parents-key": (
        *_two_of(RACK, 6, 6, [("a1", 4, "r1"), ("a2", 4, "r1")]),
        [
            "`root` cannot be placed",
            "`root`: rack r1 fits 1 of 2 child groups; 0 of 1 rack fit 2",
            "`y`: rack r1 fits 6 of 6 pods on its own, 2 once `x` took its share; 1 of 1 rack fit 6",
            NO_PREEMPTION,
        ],
    ),
    "nested-composites-on-one-key": (
        *_nested_same_key(),
        [
            "`outer` cannot be placed",
            "`outer`: rack r1 fits 0 of 1 child group; 0 of 1 rack fit 1",
            "`inner`: rack r1 fits 1 of 2 child groups; 0 of 1 rack fit 2",
            "`y`: rack r1 fits 6 of 6 pods on its own, 2 once `x` took its share; 1 of 1 rack fit 6",
            NO_PREEMPTION,
        ],
    ),
}


@pytest.mark.parametrize(("req", "cl", "expected"), CASES.values(), ids=CASES.keys())
def test_each_line_says_what_was_tried(req: PlacementRequest, cl: Cluster, expected: list[str]) -> None:
    (root,) = place(req, cl).explanation["roots"]
    assert root["text"] == expected


def _pin_cases() -> dict[str, tuple[PlacementRequest, Cluster, str, list[dict[str, Any]]]]:
    nics = [{"name": "nics", "resourceClaimTemplateName": "rdma-pair"}]
    pools = [
        {"name": "n1-nics", "deviceClass": "rdma", "count": 2, "node": "n1"},
        {"name": "r1-nics", "deviceClass": "rdma", "count": 2, "domain": {RACK: "r1"}},
    ]
    first_fit = (
        request(
            [pod_group("w", 4, key=RACK, claims=nics)],
            {"w": (4, GPU)},
            {"rdma-pair": {"deviceClass": "rdma", "count": 2}},
        ),
        cluster(node("n1", 2, rack="r1"), node("n2", 2, rack="r1"), devicePools=pools),
    )
    shared = [{"name": "fabric", "resourceClaimName": "job-fabric"}]
    earlier = (
        request(
            [pod_group("a", 1, claims=shared), pod_group("b", 2, claims=shared)],
            {"a": (1, GPU), "b": (2, GPU)},
            {"job-fabric": {"deviceClass": "fabric"}},
        ),
        cluster(
            node("n1", 2),
            node("n2", 4),
            devicePools=[{"name": "n1-fab", "deviceClass": "fabric", "count": 1, "node": "n1"}],
        ),
    )
    return {
        "first-fit-takes-node-local-devices": (
            *first_fit,
            "`w`: rack r1 fits 2 of 4 pods "
            "(claim `nics` pins it to node n1: first-fit for the first pod took `n1-nics`); 0 of 1 rack fit 4",
            [
                {
                    "group": "w",
                    "claim": "nics",
                    "deviceClass": "rdma",
                    "count": 2,
                    "free": 4,
                    "reason": "it pins the group to node n1: first-fit for the first pod took `n1-nics`",
                    "text": "`w`: claim `nics` needs 2 `rdma` devices: it pins the group to node n1: "
                    "first-fit for the first pod took `n1-nics`",
                }
            ],
        ),
        # before, this said "only 0 free `fabric` devices in the cluster": the claim needs none, it is allocated
        "a-shared-claim-another-group-holds": (
            *earlier,
            "`b`: the cluster fits 1 of 2 pods "
            "(claim `fabric` pins it to node n1: it was allocated already, from `n1-fab`)",
            [
                {
                    "group": "b",
                    "claim": "fabric",
                    "deviceClass": "fabric",
                    "count": 1,
                    "free": 0,
                    "reason": "it pins the group to node n1: it was allocated already, from `n1-fab`",
                    "text": "`b`: claim `fabric` needs 1 `fabric` devices: it pins the group to node n1: "
                    "it was allocated already, from `n1-fab`",
                }
            ],
        ),
    }


PINS = _pin_cases()


@pytest.mark.parametrize(("req", "cl", "level", "claims"), PINS.values(), ids=PINS.keys())
def test_a_claim_that_pins_the_group_is_named(
    req: PlacementRequest, cl: Cluster, level: str, claims: list[dict[str, Any]]
) -> None:
    root = place(req, cl).explanation["roots"][-1]
    assert [entry["text"] for entry in root["levels"]] == [level]
    assert root["claims"] == claims


def _roots(sizes: dict[str, int], key: str | None) -> PlacementRequest:
    return request(
        [pod_group(name, n, key=key) for name, n in sizes.items()], {name: (n, GPU) for name, n in sizes.items()}
    )


def _events(fit: str, untried: str, placements: int, need: int, scheduled: int) -> list[str]:
    """kube-scheduler's FailedScheduling messages for ``b``: the FitError of its first pod that does not fit, the
    pod-group message of its first pod never tried, and the one its pods that fit get (the prefix twice, then
    the preemption verdict)."""
    status = (
        f"pod group is unschedulable, 0/{placements} placements are available, first placement status: "
        f"minCount ({need}) cannot be satisfied: {scheduled} scheduled, {need - scheduled - 1} remaining"
    )
    return [
        fit,
        f"`b` pod `{untried}`: {status}",
        f"`b` pod `b-0`: pod group is unschedulable, {status}, "
        "pod group preemption: No preemption victims found for incoming preemptor",
    ]


TWO_RACKS = cluster(node("n1", 8, rack="r1"), node("n2", 8, rack="r2"))

# id -> (request, strategy, the last root's lines, its placedBefore, its interplay roots)
ROOTS: dict[str, tuple[PlacementRequest, str, list[str], list[str], list[str]]] = {
    "one-earlier-root-in-the-way": (
        _roots({"a": 6, "c": 6, "b": 6}, RACK),
        "kube-scheduler",
        [
            "`b` cannot be placed",
            *_events("`b` pod `b-2`: 0/1 nodes are available: 1 Insufficient nvidia.com/gpu.", "b-3", 2, 6, 2),
            "`b`: rack r1 fits 2 of 6 pods; 0 of 2 racks fit 6",
            "`a` was placed first and took the room `b` needs: "
            "without it, `b` fits in rack r1, where `a` placed 6 pods",
            NO_PREEMPTION,
        ],
        ["a", "c"],
        ["a"],
    ),
    "two-earlier-roots-in-the-way": (
        _roots({"a": 6, "c": 6, "b": 12}, None),
        "kube-scheduler",
        [
            "`b` cannot be placed",
            *_events("`b` pod `b-4`: 0/2 nodes are available: 2 Insufficient nvidia.com/gpu.", "b-5", 1, 12, 4),
            "`b`: the cluster fits 4 of 12 pods",
            "`b`: nvidia.com/gpu rules out the most nodes (1 of 2 lack room for one pod)",
            "`a`, `c` were placed first and took the room `b` needs: without them, `b` fits on the nodes where "
            "`a` placed 6 pods and `c` 6",
            NO_PREEMPTION,
        ],
        ["a", "c"],
        ["a", "c"],
    ),
    # the proof holds beside what the earlier roots placed, and says so
    "complete-proves-it-beside-the-earlier-roots": (
        _roots({"a": 6, "c": 6, "b": 12}, None),
        "complete",
        [
            "`b` cannot be placed",
            *_events("`b` pod `b-4`: 0/2 nodes are available: 2 Insufficient nvidia.com/gpu.", "b-5", 1, 12, 4),
            "`b`: the cluster fits 4 of 12 pods",
            "`b`: nvidia.com/gpu rules out the most nodes (1 of 2 lack room for one pod)",
            "`a`, `c` were placed first and took the room `b` needs: without them, `b` fits on the nodes where "
            "`a` placed 6 pods and `c` 6",
            "no placement exists beside what `a`, `c` placed (proved by the complete search)",
            NO_PREEMPTION,
        ],
        ["a", "c"],
        ["a", "c"],
    ),
    "too-large-even-alone": (
        _roots({"a": 6, "b": 20}, None),
        "kube-scheduler",
        [
            "`b` cannot be placed",
            *_events("`b` pod `b-10`: 0/2 nodes are available: 2 Insufficient nvidia.com/gpu.", "b-11", 1, 20, 10),
            "`b`: the cluster fits 10 of 20 pods",
            NO_PREEMPTION,
        ],
        ["a"],
        [],
    ),
}


@pytest.mark.parametrize(("req", "strategy", "expected", "before", "named"), ROOTS.values(), ids=ROOTS.keys())
def test_earlier_roots_that_took_the_room_are_named(
    req: PlacementRequest, strategy: str, expected: list[str], before: list[str], named: list[str]
) -> None:
    root = place(req, TWO_RACKS, strategy=strategy).explanation["roots"][-1]
    assert root["text"] == expected
    assert root["placedBefore"] == before
    assert (root["interplay"] or {"roots": []})["roots"] == named


def _stealing(gpus: int) -> tuple[PlacementRequest, Cluster]:
    """KEP-6012's resource stealing: ``w0`` (5 of 7) takes the 7-GPU rack ``w1`` (7 of 7) needs."""
    req = request(
        [
            composite("root", 2),
            pod_group("w0", 5, key=RACK, parent="root"),
            pod_group("w1", 7, key=RACK, parent="root"),
        ],
        {"w0": (7, GPU), "w1": (7, GPU)},
    )
    return req, cluster(node("a1", 5, block="A", rack="rack-A1"), node("a2", gpus, block="A", rack="rack-A2"))


# id -> (rack-A2's GPUs, timeout, the answer's text, the verdict line)
COMPLETE: dict[str, tuple[int, float, list[str], str]] = {
    "found-where-greedy-fails": (
        7,
        5.0,
        [
            "feasible (complete)",
            "- `root`: placed 12 pods of 3 groups",
            "- a placement exists but kube-scheduler's greedy order will not find it, because `w0` takes rack "
            "`rack-A2` first",
        ],
        "verdict: placeable",
    ),
    "proved-infeasible": (
        6,
        5.0,
        [
            "not feasible (complete)",
            "- `root` cannot be placed",
            "- `root`: the cluster fits 1 of 2 child groups",
            "- `w1`: rack rack-A2 fits 6 of 7 pods; 0 of 2 racks fit 7",
            "- no placement exists (proved by the complete search)",
            f"- {NO_PREEMPTION}",
        ],
        "verdict: never: even with no pod running: `root`: the cluster fits 1 of 2 child groups; "
        "`w1`: rack rack-A2 fits 6 of 7 pods; 0 of 2 racks fit 7; no placement exists (proved by the complete search)",
    ),
    # a search cut short rules nothing out: neither "cannot be placed" nor a "never" verdict
    "cut-short-by-its-bound": (
        7,
        1e-6,
        [
            "not feasible (complete)",
            "- `root` is not placed",
            "- `root`: the cluster fits 1 of 2 child groups",
            "- `w1`: rack rack-A2 fits 7 of 7 pods on its own, 0 once `w0` took its share; 1 of 2 racks fit 7",
            "- the complete search reached its time bound (1e-06 s): no placement found, none ruled out",
            f"- {NO_PREEMPTION}",
        ],
        "verdict: undecided: the complete search reached its time bound (1e-06 s) on this cluster",
    ),
}


@pytest.mark.parametrize(("gpus", "timeout", "text", "tier"), COMPLETE.values(), ids=COMPLETE.keys())
def test_complete_verdict_is_never_contradicted(gpus: int, timeout: float, text: list[str], tier: str) -> None:
    req, cl = _stealing(gpus)
    answer = place(req, cl, strategy="complete", timeout=timeout)
    assert answer.text.splitlines() == text
    assert verdict(req, cl, answer, timeout=timeout).text == tier
