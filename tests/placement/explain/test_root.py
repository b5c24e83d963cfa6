"""Explanations: the quorum, the best domain per level and its shortfall, the excluding resource, preemption."""

from __future__ import annotations

from placement_helpers import RACK, ZONE, checked, cluster, composite, node, pod_group, request

from workloadbuilder.placement import Cluster, place
from workloadbuilder.placement.cluster.generate import RACK_KEY


def _two_zones() -> Cluster:
    return cluster(
        node("n1", zone="a", rack="r1", used={"nvidia.com/gpu": "6"}),
        node("n2", zone="a", rack="r1", used={"nvidia.com/gpu": "4"}),
        node("n3", zone="a", rack="r2", used={"nvidia.com/gpu": "2"}),
        node("n4", zone="a", rack="r2", used={"nvidia.com/gpu": "8"}),
        node("n5", zone="b", rack="r3", used={"nvidia.com/gpu": "4"}),
        node("n6", zone="b", rack="r3", used={"nvidia.com/gpu": "4"}),
        node("n7", zone="b", rack="r4", cpu="8"),
        node("n8", zone="b", rack="r4", used={"nvidia.com/gpu": "8"}),
        running=[
            {
                "name": "low",
                "priority": 1,
                "disruptionMode": "all",
                "pods": [{"name": "low-0", "node": "n8", "requests": {"cpu": "1"}}],
            }
        ],
    )


def _train() -> object:
    return request(
        [
            composite("train", 2, key=ZONE, priority=100),
            pod_group("workers", 8, key=RACK, parent="train", priority=100),
            pod_group("ps", 1, parent="train", priority=100),
        ],
        {"workers": (8, {"nvidia.com/gpu": "2", "cpu": "2"}), "ps": (1, {"cpu": "4"})},
    )


def test_per_level_best_domain_and_shortfall() -> None:
    cl, req = _two_zones(), _train()
    answer = checked(req, cl, place(req, cl))
    assert answer.text.splitlines() == [
        "not feasible (kube-scheduler)",
        "- `train` cannot be placed",
        "- `train`: in zone b, child group `workers` does not fit; the other child group was not tried, "
        "since 2 must fit; 0 of 2 zones fit 2",
        "- `workers`: rack r3 in zone b fits 4 of 8 pods; 0 of 4 racks fit 8",
        "- `workers`: rack r4 in zone b: 2 nodes; 1 Insufficient nvidia.com/gpu; 1 fits 4 pods",
        "- `workers`: nvidia.com/gpu rules out the most nodes (2 of 8 lack room for one pod)",
        "- preemption would not help: even evicting every lower-priority unit (1 unit) leaves it unplaceable",
    ]
    (root,) = answer.explanation["roots"]
    assert root["levels"][1] == {
        "group": "workers",
        "kind": "PodGroup",
        "topologyKey": RACK,
        "need": 8,
        "candidates": 4,
        "fitting": 0,
        "best": {"domain": {ZONE: "b", RACK: "r3"}, "fits": 4, "alone": None},
        "text": "`workers`: rack r3 in zone b fits 4 of 8 pods; 0 of 4 racks fit 8",
        "alike": [],
        "exclusions": [
            {
                "domain": {ZONE: "b", RACK: "r4"},
                "nodes": 2,
                "excluded": [{"reason": "Insufficient nvidia.com/gpu", "nodes": 1}],
                "fit": [{"pods": 4, "nodes": 1}],
                "text": "rack r4 in zone b: 2 nodes; 1 Insufficient nvidia.com/gpu; 1 fits 4 pods",
            }
        ],
    }
    assert root["resources"] == [
        {"group": "workers", "resource": "nvidia.com/gpu", "nodes": 2, "of": 8, "passed": 8, "pod": None}
    ]
    assert root["filters"] == []  # no node is turned away before NodeResourcesFit
    assert answer.explanation["summary"] == "not feasible (kube-scheduler): `train` cannot be placed"


def test_complete_says_no_placement_exists() -> None:
    cl, req = _two_zones(), _train()
    assert (
        "- no placement exists (proved by the complete search)" in place(req, cl, strategy="complete").text.splitlines()
    )


def test_a_large_gang_on_a_generated_cluster() -> None:
    cl = Cluster.generate(256, seed=3)
    req = request([pod_group("workers", 150, key=RACK_KEY)], {"workers": (150, {"nvidia.com/gpu": "1", "cpu": "4"})})
    lines = checked(req, cl, place(req, cl)).text.splitlines()
    assert "- `workers`: rack rack-00-0-14 fits 128 of 150 pods; 0 of 16 racks fit 150" in lines
    # kube-scheduler's events come from its first placement, one rack of 16 nodes, after the 111 pods it took
    assert lines[1:3] == [
        "- `workers` cannot be placed",
        "- `workers` pod `workers-111`: 0/16 nodes are available: 1 Insufficient cpu, 16 Insufficient nvidia.com/gpu.",
    ]


def test_a_resource_no_node_has() -> None:
    cl = cluster(node("n1"), node("n2"))
    req = request([pod_group("fpga", 2)], {"fpga": (2, {"example.com/fpga": "1"})})
    (root,) = place(req, cl).explanation["roots"]
    assert root["resources"] == [
        {"group": "fpga", "resource": "example.com/fpga", "nodes": 2, "of": 2, "passed": 2, "pod": None}
    ]
    assert root["text"][1:5] == [
        "`fpga` pod `fpga-0`: 0/2 nodes are available: 2 Insufficient example.com/fpga.",
        "`fpga` pod `fpga-1`: pod group is unschedulable, 0/1 placements are available, "
        "first placement status: minCount (2) cannot be satisfied: 0 scheduled, 1 remaining",
        "`fpga`: the cluster fits 0 of 2 pods",
        "`fpga`: example.com/fpga rules out the most nodes (2 of 2 lack room for one pod)",
    ]


def test_cordoned_nodes_are_counted() -> None:
    cl = cluster(node("n1", 1), {**node("n2", 4), "unschedulable": True})
    req = request([pod_group("w", 2)], {"w": (2, {"nvidia.com/gpu": "1"})})
    assert "- `w`: 1 of 2 nodes is cordoned" in place(req, cl).text.splitlines()


def test_a_quorum_that_is_not_met() -> None:
    cl = cluster(node("n1"))
    req = request(
        [composite("r", 2), pod_group("a", 3, parent="r"), pod_group("b", 2, parent="r")], {"a": (2, {}), "b": (1, {})}
    )
    assert place(req, cl).text.splitlines()[1] == (
        "- `r` waits for its quorum: `r` can admit 0 of the 2 child groups its minGroupCount needs; "
        "`a` has 2 of the 3 pods its minCount needs; `b` has 1 of the 2 pods its minCount needs"
    )


def test_groups_that_fit_alone_but_not_after_their_siblings() -> None:
    cl = cluster(node("a1", 5, block="A", rack="rack-A1"), node("a2", 7, block="A", rack="rack-A2"))
    req = request(
        [
            composite("root", 2),
            pod_group("workers-0", 5, key=RACK, parent="root"),
            pod_group("workers-1", 7, key=RACK, parent="root"),
        ],
        {"workers-0": (7, {"nvidia.com/gpu": "1"}), "workers-1": (7, {"nvidia.com/gpu": "1"})},
    )
    lines = place(req, cl).text.splitlines()
    assert (
        lines[3] == "- `workers-1`: rack rack-A2 fits 7 of 7 pods on its own, 0 once `workers-0` took its share; "
        "1 of 2 racks fit 7"
    )


def test_a_placed_answer_summarizes_where() -> None:
    cl = cluster(node("n1", rack="r1"))
    req = request([pod_group("w", 2, key=RACK)], {"w": (2, {"nvidia.com/gpu": "1"})})
    assert place(req, cl).text == "feasible (kube-scheduler)\n- `w`: placed 2 pods of 1 group in rack r1"
