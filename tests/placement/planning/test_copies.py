"""Copies of a request: every group, pod and claim renamed ``<name>-<prefix><k>``, the shape and quorum kept.

Copies never share a group, a pod or a claim; groups of one copy that
shared a claim still share it. ``placed_roots`` says per root whether an
answer placed it, ``leaves`` and ``pod_sets`` walk the PodGroups and their
shapes, and ``as_running`` turns placed pods into running pods of the
cluster (their requests aligned to its resources, one pod slot included).
"""

from __future__ import annotations

from placement_helpers import RACK, cluster, composite, node, pod_group, request

from workloadbuilder.placement.engine import place
from workloadbuilder.placement.planning.copies import as_running, copies_of, copy_name, leaves, placed_roots, pod_sets
from workloadbuilder.placement.request.model import PlacementRequest, PodSet


def shared_claim_request() -> PlacementRequest:
    claim = [{"name": "nic", "resourceClaimName": "shared"}]
    return request(
        [
            composite("cpg", 2, key=RACK),
            pod_group("pg-1", 2, parent="cpg", claims=claim),
            pod_group("pg-2", 1, parent="cpg", claims=claim),
            pod_group("solo", 3),
        ],
        {"pg-1": (2, {"cpu": "1"}), "pg-2": (1, {"cpu": "2"}), "solo": (3, {"cpu": "60"})},
        {"shared": {"deviceClass": "nic", "count": 1}},
    )


def test_copy_name() -> None:
    assert copy_name("workers", "3") == "workers-3"
    assert copy_name("workers", "sim7") == "workers-sim7"


def test_copies_are_renamed_copy_by_copy_roots_in_order() -> None:
    original = shared_claim_request()
    copies = copies_of(original, 2, 2, "x")
    assert [(g.name, g.parent) for g in copies.groups] == [
        ("cpg-x2", None),
        ("pg-1-x2", "cpg-x2"),
        ("pg-2-x2", "cpg-x2"),
        ("solo-x2", None),
        ("cpg-x3", None),
        ("pg-1-x3", "cpg-x3"),
        ("pg-2-x3", "cpg-x3"),
        ("solo-x3", None),
    ]
    assert copies.group("pg-1-x3").pod_names == ("pg-1-0-x3", "pg-1-1-x3")
    assert [g.name for g in copies.roots[0].children] == ["pg-1-x2", "pg-2-x2"]


def test_copies_keep_shape_quorum_and_topology() -> None:
    original = shared_claim_request()
    copy = copies_of(original, 1, 1).group("pg-1-1")
    source = original.group("pg-1")
    assert (copy.kind, copy.minimum, copy.count, copy.requests, copy.topology_key, copy.disruption_mode) == (
        source.kind,
        source.minimum,
        source.count,
        source.requests,
        source.topology_key,
        source.disruption_mode,
    )
    assert copies_of(original, 1, 1).roots[0].topology_key == RACK


def test_claims_are_private_to_each_copy_and_shared_within_one() -> None:
    copies = copies_of(shared_claim_request(), 1, 2)
    assert [claim.identity for claim in copies.group("pg-1-1").claims] == [("claim", "shared", "copy-1")]
    assert [claim.identity for claim in copies.group("pg-2-1").claims] == [("claim", "shared", "copy-1")]
    assert [claim.identity for claim in copies.group("pg-1-2").claims] == [("claim", "shared", "copy-2")]
    assert copies.group("pg-1-2").claims[0].device == shared_claim_request().group("pg-1").claims[0].device


def test_the_original_is_left_alone() -> None:
    original = shared_claim_request()
    copies_of(original, 1, 3)
    assert [g.name for g in original.groups] == ["cpg", "pg-1", "pg-2", "solo"]
    assert original.group("pg-1").pod_names == ("pg-1-0", "pg-1-1")
    assert [c.identity for c in original.group("pg-1").claims] == [("claim", "shared")]


def test_no_copies() -> None:
    assert copies_of(shared_claim_request(), 1, 0).roots == []


def test_leaves_and_pod_sets() -> None:
    req = shared_claim_request()
    assert [g.name for g in leaves(req.roots)] == ["pg-1", "pg-2", "solo"]
    pg2 = req.group("pg-2")
    assert [(s.count, dict(s.requests)) for s in pod_sets(pg2)] == [(1, {"cpu": 2000})]
    bare = copies_of(req, 1, 1).group("pg-2-1")
    bare.pod_sets = ()
    assert pod_sets(bare) == (PodSet(1, {"cpu": 2000}, names=("pg-2-0-1",)),)


def test_placed_roots_and_as_running() -> None:
    cl = cluster(node("n1", 8, cpu="64", rack="r1"))
    req = request(
        [pod_group("fits", 2), pod_group("too-big", 1)],
        {"fits": (2, {"cpu": "4", "nvidia.com/gpu": "1"}), "too-big": (1, {"cpu": "100"})},
    )
    answer = place(req, cl)
    assert placed_roots(answer, req) == [True, False]
    placed = next(g for g in answer.groups if g.name == "fits").pods
    running = as_running(req.group("fits"), placed, cl, priority=50, start="t0")
    vector = dict.fromkeys(cl.resources, 0) | {"cpu": 4000, "nvidia.com/gpu": 1000, "pods": 1000}
    assert [(p.name, p.node, p.requests, p.priority, p.group, p.start, p.namespace) for p in running] == [
        ("fits-0", 0, tuple(vector[r] for r in cl.resources), 50, "fits", "t0", "default"),
        ("fits-1", 0, tuple(vector[r] for r in cl.resources), 50, "fits", "t0", "default"),
    ]
