"""Group resource claims: allocated once per group, members only where the devices reach; first fit can miss
(#138765)."""

from __future__ import annotations

from collections.abc import Callable
from unittest import mock

import pytest
from placement_helpers import BLOCK, RACK, checked, cluster, composite, node, pod_group, request, where

from workloadbuilder.placement import Cluster, PlacementRequest, place
from workloadbuilder.placement.framework.claims import pools_within
from workloadbuilder.placement.strategies import complete

GPU = {"nvidia.com/gpu": "1"}
NICS = [{"name": "nics", "resourceClaimTemplateName": "rdma-pair"}]


def _pools(node_devices: int = 2, rack_devices: int = 2) -> list[dict[str, object]]:
    return [
        {"name": "n1-nics", "deviceClass": "rdma", "count": node_devices, "node": "n1"},
        {"name": "r1-nics", "deviceClass": "rdma", "count": rack_devices, "domain": {RACK: "r1"}},
    ]


def test_first_fit_pins_the_gang_to_one_node_complete_does_not() -> None:
    cl = cluster(node("n1", 2, rack="r1"), node("n2", 2, rack="r1"), devicePools=_pools())
    req = request(
        [pod_group("w", 4, key=RACK, claims=NICS)], {"w": (4, GPU)}, {"rdma-pair": {"deviceClass": "rdma", "count": 2}}
    )
    greedy = checked(req, cl, place(req, cl))
    # the first pod lands on n1, whose own NICs come first: the claim then only reaches n1, which holds 2 pods
    assert not greedy.feasible
    assert greedy.explanation["roots"][0]["levels"][0]["text"] == (
        "`w`: rack r1 fits 2 of 4 pods (claim `nics` pins it to node n1: first-fit for the first pod took `n1-nics`); "
        "0 of 1 rack fit 4"
    )
    found = checked(req, cl, place(req, cl, strategy="complete"))
    assert where(found) == {"w": ({"rack": "r1"}, ["n1", "n1", "n2", "n2"])}
    assert [claim.to_dict() for claim in found.group("w").claims] == [
        {"name": "nics", "devices": [{"pool": "r1-nics", "count": 2}]}
    ]
    assert found.explanation["roots"][0]["greedyGap"] == (
        "a placement exists but kube-scheduler's greedy order will not find it, because it allocates `nics` of `w` "
        "first-fit for the first pod (kubernetes#138765), which leaves the group's other pods no node that reaches "
        "those devices"
    )


def test_kube_scheduler_allocates_first_fit_where_that_works() -> None:
    cl = cluster(node("n1", 4, rack="r1"), node("n2", 4, rack="r1"), devicePools=_pools())
    req = request(
        [pod_group("w", 4, key=RACK, claims=NICS)], {"w": (4, GPU)}, {"rdma-pair": {"deviceClass": "rdma", "count": 2}}
    )
    answer = checked(req, cl, place(req, cl))
    assert where(answer) == {"w": ({"rack": "r1"}, ["n1"] * 4)}
    assert answer.group("w").claims[0].devices == (("n1-nics", 2),)


def test_a_shared_claim_keeps_every_group_within_its_reach() -> None:
    cl = cluster(
        node("n1", 2, rack="r1"),
        node("n2", 2, rack="r2"),
        devicePools=[{"name": "r2-fabric", "deviceClass": "fabric", "count": 1, "domain": {RACK: "r2"}}],
    )
    shared = [{"name": "fabric", "resourceClaimName": "job-fabric"}]
    req = request(
        [pod_group("a", 1, claims=shared), pod_group("b", 1, claims=shared)],
        {"a": (1, GPU), "b": (1, GPU)},
        {"job-fabric": {"deviceClass": "fabric"}},
    )
    answer = checked(req, cl, place(req, cl))
    assert where(answer) == {"a": ({}, ["n2"]), "b": ({}, ["n2"])}
    assert answer.group("a").claims == answer.group("b").claims


def test_a_claim_no_pool_can_serve_is_explained() -> None:
    cl = cluster(node("n1", 2, rack="r1"), node("n2", 2, rack="r1"), devicePools=_pools(node_devices=1, rack_devices=1))
    req = request(
        [pod_group("w", 2, key=RACK, claims=NICS)], {"w": (2, GPU)}, {"rdma-pair": {"deviceClass": "rdma", "count": 3}}
    )
    for strategy in ("kube-scheduler", "complete"):
        answer = checked(req, cl, place(req, cl, strategy=strategy))
        assert not answer.feasible
        assert [(c["claim"], c["reason"]) for c in answer.explanation["roots"][0]["claims"]] == [
            ("nics", "only 2 free `rdma` devices in the cluster")
        ]


def test_allocated_devices_are_not_free() -> None:
    pools = [{"name": "r1-nics", "deviceClass": "rdma", "count": 2, "allocated": 1, "domain": {RACK: "r1"}}]
    cl = cluster(node("n1", 2, rack="r1"), devicePools=pools)
    req = request([pod_group("w", 1, claims=NICS)], {"w": (1, GPU)}, {"rdma-pair": {"deviceClass": "rdma", "count": 2}})
    assert not place(req, cl, strategy="complete").feasible


# -- minimal instances of the audit's root causes (issue 11) ---------------------------------------

BLOCK_FABRIC = [{"name": "fabric", "resourceClaimName": "job-fabric"}]


def _block_pool_shared_by_two_racks() -> tuple[Cluster, PlacementRequest]:
    """A block-level pool shared by two rack-constrained groups: the second group's rack is in its reach too.

    kube-scheduler's greedy order steals the 7-GPU rack for `w0`, so only
    the exact search places it.
    """
    cl = cluster(
        node("a1", 5, block="A", rack="r1"),
        node("a2", 7, block="A", rack="r2"),
        devicePools=[{"name": "a-fabric", "deviceClass": "fabric", "count": 1, "domain": {BLOCK: "A"}}],
    )
    req = request(
        [
            composite("root", 2, key=BLOCK),
            pod_group("w0", 5, key=RACK, parent="root", claims=BLOCK_FABRIC),
            pod_group("w1", 7, key=RACK, parent="root", claims=BLOCK_FABRIC),
        ],
        {"w0": (7, GPU), "w1": (7, GPU)},
        {"job-fabric": {"deviceClass": "fabric"}},
    )
    return cl, req


def _claim_allocated_by_an_earlier_root() -> tuple[Cluster, PlacementRequest]:
    """`first` allocates the shared claim from rack r1's pool; the later root must use that allocation.

    `w1` (5 of 7, no claim) greedily takes r1's 7 GPUs, leaving `w0` (whose
    claim only reaches r1) nowhere, so only the exact search places it.
    """
    cl = cluster(
        node("n1", 7, rack="r1"),
        node("n2", 5, rack="r2"),
        devicePools=[
            {"name": "r1-fabric", "deviceClass": "fabric", "count": 1, "domain": {RACK: "r1"}},
            {"name": "r2-fabric", "deviceClass": "fabric", "count": 1, "domain": {RACK: "r2"}},
        ],
    )
    req = request(
        [
            pod_group("first", 1, claims=BLOCK_FABRIC),
            composite("root", 2),
            pod_group("w1", 5, key=RACK, parent="root"),
            pod_group("w0", 5, key=RACK, parent="root", claims=BLOCK_FABRIC),
        ],
        {"first": (1, {"cpu": "1"}), "w1": (7, GPU), "w0": (5, GPU)},
        {"job-fabric": {"deviceClass": "fabric"}},
    )
    return cl, req


ROOT_CAUSES = [
    (
        "block pool shared by two rack gangs",
        _block_pool_shared_by_two_racks,
        {
            "root": ({"block": "A"}, []),
            "w0": ({"block": "A", "rack": "r1"}, ["a1"] * 5),
            "w1": ({"block": "A", "rack": "r2"}, ["a2"] * 7),
        },
        {"w0": (("a-fabric", 1),), "w1": (("a-fabric", 1),)},
    ),
    (
        "claim allocated by an earlier root",
        _claim_allocated_by_an_earlier_root,
        {
            "first": ({}, ["n1"]),
            "w1": ({"rack": "r2"}, ["n2"] * 5),
            "w0": ({"rack": "r1"}, ["n1"] * 5),
        },
        {"first": (("r1-fabric", 1),), "w0": (("r1-fabric", 1),)},
    ),
]


@pytest.mark.parametrize(
    ("make", "placed", "devices"),
    [(m, p, d) for _, m, p, d in ROOT_CAUSES],
    ids=[name for name, _, _, _ in ROOT_CAUSES],
)
def test_shared_claims_keep_one_allocation_the_search_can_use(
    make: Callable[[], tuple[Cluster, PlacementRequest]],
    placed: dict[str, tuple[dict[str, str], list[str]]],
    devices: dict[str, tuple[tuple[str, int], ...]],
) -> None:
    cl, req = make()
    assert not place(req, cl).feasible
    found = checked(req, cl, place(req, cl, strategy="complete"))
    assert found.feasible
    assert where(found) == placed
    assert {g.name: c.devices for g in found.groups for c in g.claims} == devices


def test_a_node_that_scores_zero_still_takes_the_first_pod() -> None:
    """CPU and memory all given out: a pod asking for neither scores 0 on every node, and still fits on n2."""
    full = {"cpu": "64", "memory": "256Gi"}
    cl = cluster(
        node("n1", 0, rack="r1", used=full),
        node("n2", 2, rack="r1", used=full),
        devicePools=[{"name": "r1-nics", "deviceClass": "rdma", "count": 2, "domain": {RACK: "r1"}}],
    )
    req = request(
        [pod_group("w", 2, key=RACK, claims=NICS)], {"w": (2, GPU)}, {"rdma-pair": {"deviceClass": "rdma", "count": 2}}
    )
    answer = checked(req, cl, place(req, cl))
    assert where(answer) == {"w": ({"rack": "r1"}, ["n2", "n2"])}


def test_the_first_pod_of_a_claim_group_weighs_prefer_no_schedule_taints() -> None:
    """Equal nodes but for a PreferNoSchedule taint on n1: TaintToleration sends the first pod (and the claim) to n2."""
    cl = cluster(
        {**node("n1", 2, rack="r1"), "taints": [{"key": "spot", "value": "yes", "effect": "PreferNoSchedule"}]},
        node("n2", 2, rack="r1"),
        devicePools=[
            {"name": "n1-nics", "deviceClass": "rdma", "count": 2, "node": "n1"},
            {"name": "n2-nics", "deviceClass": "rdma", "count": 2, "node": "n2"},
        ],
    )
    req = request(
        [pod_group("w", 2, key=RACK, claims=NICS)], {"w": (2, GPU)}, {"rdma-pair": {"deviceClass": "rdma", "count": 2}}
    )
    answer = checked(req, cl, place(req, cl))
    assert where(answer) == {"w": ({"rack": "r1"}, ["n2", "n2"])}
    assert answer.group("w").claims[0].devices == (("n2-nics", 2),)


def _racks_with_nics(racks: int) -> Cluster:
    """``racks`` racks of two 4-GPU nodes, each rack with a pool of 4 NICs; n0 of rack 0 has 2 NICs of its own."""
    nodes = [node(f"r{r}-n{n}", 4, rack=f"r{r}") for r in range(racks) for n in range(2)]
    pools = [{"name": f"r{r}-nics", "deviceClass": "rdma", "count": 4, "domain": {RACK: f"r{r}"}} for r in range(racks)]
    pools.append({"name": "r0-n0-nics", "deviceClass": "rdma", "count": 2, "node": "r0-n0"})
    return cluster(*nodes, devicePools=pools)


POOLS_WITHIN = [
    ("one rack's nodes", ["r1-n0", "r1-n1"], ["r1-nics"]),
    ("a node with its own pool", ["r0-n0"], ["r0-nics", "r0-n0-nics"]),
    ("two racks", ["r0-n1", "r2-n0"], ["r0-nics", "r2-nics"]),
    ("no node", [], []),
]


@pytest.mark.parametrize(("nodes", "expected"), [c[1:] for c in POOLS_WITHIN], ids=[c[0] for c in POOLS_WITHIN])
def test_pools_within_are_those_the_nodes_reach(nodes: list[str], expected: list[str]) -> None:
    cl = _racks_with_nics(3)
    found = pools_within(cl, {"rdma"}, [cl.node_index[name] for name in nodes])
    assert [pool.name for pool in found] == expected


def test_a_claim_no_domain_can_supply_is_proved_impossible_without_a_search() -> None:
    """Seven NICs for the group, four in each rack's pool (six in r0, with n0's own): no rack can hold them.

    The pools each rack reaches say so before any exact search starts (once per rack, it made the complete
    strategy's cost grow with the square of the cluster).
    """
    cl = _racks_with_nics(40)
    req = request(
        [pod_group("w", 2, key=RACK, claims=NICS)], {"w": (2, GPU)}, {"rdma-pair": {"deviceClass": "rdma", "count": 7}}
    )
    with mock.patch.object(complete, "solve", wraps=complete.solve) as search:
        answer = checked(req, cl, place(req, cl, strategy="complete"))
    assert search.call_count == 0
    assert not answer.feasible
    assert answer.explanation["roots"][0]["search"] == {"greedy": False, "timeout": 5.0, "timedOut": False}
    assert "- no placement exists (proved by the complete search)" in answer.text.splitlines()
