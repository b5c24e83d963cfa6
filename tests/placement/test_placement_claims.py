"""Group resource claims: allocated once per group, members only where the devices reach; first fit can miss (#138765)."""

from __future__ import annotations

from placement_helpers import RACK, checked, cluster, node, pod_group, request, where

from workloadbuilder.placement import place

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
    assert greedy.explanation["roots"][0]["levels"][0]["text"] == "`w`: rack r1 fits 2 of 4 pods; 0 of 1 rack fit 4"
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
