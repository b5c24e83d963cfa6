"""The kube-scheduler strategy reproduces kube-scheduler 1.37: exhaustive domains, greedy children, best score."""

from __future__ import annotations

from placement_helpers import BLOCK, RACK, ZONE, checked, cluster, composite, node, pod_group, request, where

from workloadbuilder.placement import Cluster, PlacementRequest, place
from workloadbuilder.placement.framework.snapshot import Snapshot
from workloadbuilder.placement.strategies.kube_scheduler import KubeScheduler

GPU = {"nvidia.com/gpu": "1"}


def test_kep_6012_worked_example(kep_cluster: Cluster, kep_request: PlacementRequest) -> None:
    answer = checked(kep_request, kep_cluster, place(kep_request, kep_cluster))
    assert answer.feasible
    assert where(answer) == {
        "cpg-root": ({"block": "block-B"}, []),
        "pg-1": ({"block": "block-B", "rack": "rack-B1"}, ["b1"] * 5),
        "pg-2": ({"block": "block-B", "rack": "rack-B2"}, ["b2"] * 5),
    }


def test_kep_6012_block_a_rejected_because_pg_1_took_rack_a2(
    kep_cluster: Cluster, kep_request: PlacementRequest
) -> None:
    outcome, trace = KubeScheduler(Snapshot(kep_cluster)).schedule(kep_request.roots[0])
    block_a, block_b = trace.candidates
    assert (block_a.domain.value, block_a.placed, block_a.success) == ("block-A", 1, False)
    pg1, pg2 = block_a.children
    assert [(d.value, fit) for d, fit, _ in pg1.fits] == [("rack-A1", 3), ("rack-A2", 5)]
    assert pg1.chosen is not None
    assert pg1.chosen.value == "rack-A2"
    assert [(d.value, fit) for d, fit, _ in pg2.fits] == [("rack-A1", 3), ("rack-A2", 0)]
    assert pg2.chosen is None
    assert (block_b.domain.value, block_b.placed, block_b.success) == ("block-B", 2, True)
    assert outcome.success


def test_most_pods_then_tightest_fit() -> None:
    cl = cluster(
        node("n1", rack="r1"),
        node("n2", rack="r2", used={"cpu": "32"}),
        node("n3", 5, rack="r3"),
    )
    req = request([pod_group("w", 4, key=RACK)], {"w": (6, {"cpu": "1", **GPU})})
    answer = checked(req, cl, place(req, cl))
    # r1 and r2 both fit all 6 pods, r3 only 5; r2 is already busier: the tighter fit
    assert where(answer) == {"w": ({"rack": "r2"}, ["n2"] * 6)}


def test_ties_go_to_the_smallest_label_value() -> None:
    cl = cluster(node("n1", rack="rack-b"), node("n2", rack="rack-a"))
    req = request([pod_group("w", 2, key=RACK)], {"w": (2, GPU)})
    assert where(checked(req, cl, place(req, cl))) == {"w": ({"rack": "rack-a"}, ["n2", "n2"])}


def test_pods_go_one_by_one_to_the_best_scoring_node() -> None:
    cl = cluster(node("n1", rack="r"), node("n2", rack="r", used={"cpu": "48"}), node("n3", rack="r"))
    req = request([pod_group("w", 3, key=RACK)], {"w": (3, {"cpu": "8"})})
    # least allocated first: n1, then n3 (n1 now busier), then n1 again (a tie goes to the node listed first)
    assert where(checked(req, cl, place(req, cl))) == {"w": ({"rack": "r"}, ["n1", "n3", "n1"])}


def test_pods_beyond_min_count_are_placed_when_they_fit() -> None:
    cl = cluster(node("n1", 6, rack="r1"))
    req = request([pod_group("w", 4, key=RACK)], {"w": (8, GPU)})
    answer = checked(req, cl, place(req, cl))
    assert answer.feasible
    assert len(answer.group("w").pods) == 6


def test_groups_without_a_constraint_take_the_parents_nodes() -> None:
    cl = cluster(node("a1", 2, zone="a"), node("a2", 2, zone="a"), node("b1", 4, zone="b"), node("b2", 4, zone="b"))
    req = request(
        [composite("root", 2, key=ZONE), pod_group("x", 3, parent="root"), pod_group("y", 3, parent="root")],
        {"x": (3, GPU), "y": (3, GPU)},
    )
    # zone a cannot hold both; in zone b the GPU-only pods barely move the CPU and
    # memory scores, which stay tied, and ties go to the node listed first
    assert where(checked(req, cl, place(req, cl))) == {
        "root": ({"zone": "b"}, []),
        "x": ({"zone": "b"}, ["b1", "b1", "b1"]),
        "y": ({"zone": "b"}, ["b1", "b2", "b2"]),
    }


def _stealing(first: str) -> tuple[Cluster, PlacementRequest]:
    """One block; rack-A1 has 5 free GPUs, rack-A2 7. workers-0 wants 5 (up to 7), workers-1 exactly 7."""
    cl = cluster(node("a1", 5, block="A", rack="rack-A1"), node("a2", 7, block="A", rack="rack-A2"))
    groups = [
        composite("root", 2, key=BLOCK),
        pod_group("workers-0", 5, key=RACK, parent="root"),
        pod_group("workers-1", 7, key=RACK, parent="root"),
    ]
    stamps = {"workers-0": "2026-01-01T00:00:01Z", "workers-1": "2026-01-01T00:00:02Z"}
    if first == "workers-1":
        stamps = {"workers-0": "2026-01-01T00:00:02Z", "workers-1": "2026-01-01T00:00:01Z"}
    for group in groups[1:]:
        group["metadata"]["creationTimestamp"] = stamps[group["metadata"]["name"]]
    return cl, request(groups, {"workers-0": (7, GPU), "workers-1": (7, GPU)})


def test_children_go_in_creation_order_without_backtracking() -> None:
    cl, req = _stealing(first="workers-0")
    answer = checked(req, cl, place(req, cl))
    # workers-0 places more pods in rack-A2 (7 > 5), and workers-1 then fits nowhere
    assert not answer.feasible
    cl, req = _stealing(first="workers-1")
    answer = checked(req, cl, place(req, cl))
    assert where(answer) == {
        "root": ({"block": "A"}, []),
        "workers-0": ({"block": "A", "rack": "rack-A1"}, ["a1"] * 5),
        "workers-1": ({"block": "A", "rack": "rack-A2"}, ["a2"] * 7),
    }


def test_a_composite_stops_once_min_group_count_is_out_of_reach() -> None:
    cl = cluster(node("n1", 2))
    req = request(
        [
            composite("root", 3),
            pod_group("a", 2, parent="root"),
            pod_group("b", 2, parent="root"),
            pod_group("c", 1, parent="root"),
        ],
        {"a": (2, GPU), "b": (2, GPU), "c": (1, GPU)},
    )
    outcome, trace = KubeScheduler(Snapshot(cl)).schedule(req.roots[0])
    (candidate,) = trace.candidates
    assert not outcome.success
    # `a` takes both GPUs, `b` fails: 1 placed + 1 remaining < 3, so `c` is never tried
    assert [(child.group.name, child.chosen is not None) for child in candidate.children] == [("a", True), ("b", False)]


def test_basic_policy_places_what_fits() -> None:
    cl = cluster(node("n1", 2))
    req = request([pod_group("driver", None)], {"driver": (3, GPU)})
    answer = checked(req, cl, place(req, cl))
    assert answer.feasible
    assert [pod.name for pod in answer.group("driver").pods] == ["driver-0", "driver-1"]


def test_a_gang_short_of_its_quorum_is_not_tried() -> None:
    cl = cluster(node("n1"))
    req = request([pod_group("w", 4)], {"w": (3, GPU)})
    answer = checked(req, cl, place(req, cl))
    assert not answer.feasible
    assert answer.explanation["roots"][0]["quorum"] == [
        {"group": "w", "kind": "PodGroup", "have": 3, "need": 4, "unit": "pods", "ok": False}
    ]


def test_roots_are_separate_cycles_in_creation_order() -> None:
    cl = cluster(node("n1", 4, rack="r1"), node("n2", 2, rack="r2"))
    first, second = pod_group("first", 3, key=RACK), pod_group("second", 2, key=RACK)
    first["metadata"]["creationTimestamp"] = "2026-01-01T00:00:00Z"
    second["metadata"]["creationTimestamp"] = "2026-01-01T00:00:09Z"
    req = request([second, first], {"first": (3, GPU), "second": (2, GPU)})
    assert where(checked(req, cl, place(req, cl))) == {
        "first": ({"rack": "r1"}, ["n1"] * 3),
        "second": ({"rack": "r2"}, ["n2"] * 2),
    }
