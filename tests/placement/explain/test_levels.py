"""Explanation levels: per group that failed somewhere, what kube-scheduler tried where and what came of it.

A PodGroup's level counts every domain of its innermost key on its own and,
when some would hold its minimum alone, says what was left of the best one
tried once the groups placed before it took their share; a
CompositePodGroup's level is its closest candidate, child by child, with
the children never tried counted as such; identical siblings failing alike
share one level; a PodGroup never simulated is reported when it fits
nowhere on its own. (``exclusions``, the node-by-node counts, are another
module's and are left out of these comparisons.)
"""

from __future__ import annotations

from typing import Any

import pytest
from placement_helpers import BLOCK, RACK, ZONE, cluster, composite, node, pod_group, request

from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.explain.levels import every_trace, levels
from workloadbuilder.placement.framework.snapshot import Snapshot
from workloadbuilder.placement.request.model import PlacementRequest
from workloadbuilder.placement.strategies.kube_scheduler import KubeScheduler

G = {"nvidia.com/gpu": "1"}


def explained(cl: Cluster, req: PlacementRequest) -> list[dict[str, Any]]:
    _, trace = KubeScheduler(Snapshot(cl)).schedule(req.roots[0])
    fresh = Snapshot(cl)
    out = levels(trace, fresh, KubeScheduler(fresh))
    for level in out:
        level.pop("exclusions", None)
    return out


def leaf(group: str, need: int, candidates: int, fitting: int, best: Any, text: str, key: str = RACK) -> dict[str, Any]:
    return {
        "group": group,
        "kind": "PodGroup",
        "topologyKey": key,
        "need": need,
        "candidates": candidates,
        "fitting": fitting,
        "best": best,
        "text": text,
        "alike": [],
    }


def test_a_podgroup_that_fits_no_rack() -> None:
    cl = cluster(node("n1", 3, rack="r1"), node("n2", 2, rack="r2"))
    req = request([pod_group("pg", 4, key=RACK)], {"pg": (4, G)})
    assert explained(cl, req) == [
        leaf(
            "pg",
            4,
            2,
            0,
            {"domain": {RACK: "r1"}, "fits": 3, "alone": None},
            "`pg`: rack r1 fits 3 of 4 pods; 0 of 2 racks fit 4",
        )
    ]


def test_no_node_has_the_key() -> None:
    cl = cluster(node("n1", 3, rack="r1"))
    req = request([pod_group("pg", 2, key=ZONE)], {"pg": (2, G)})
    assert explained(cl, req) == [leaf("pg", 2, 0, 0, None, f"`pg`: no node has the label `{ZONE}`", key=ZONE)]


def test_kep_blocks_where_the_first_child_took_the_second_ones_rack() -> None:
    """KEP-6012's cluster with rack-B2 one slot short: in each block pg-1 takes the 5-slot rack, pg-2 is left short."""
    cl = cluster(
        node("a1", 3, block="block-A", rack="rack-A1"),
        node("a2", 5, block="block-A", rack="rack-A2"),
        node("b1", 5, block="block-B", rack="rack-B1"),
        node("b2", 4, block="block-B", rack="rack-B2"),
    )
    req = request(
        [
            composite("cpg", 2, key=BLOCK),
            pod_group("pg-1", 5, key=RACK, parent="cpg"),
            pod_group("pg-2", 5, key=RACK, parent="cpg"),
        ],
        {"pg-1": (5, G), "pg-2": (5, G)},
    )
    assert explained(cl, req) == [
        {
            "group": "cpg",
            "kind": "CompositePodGroup",
            "topologyKey": BLOCK,
            "need": 2,
            "candidates": 2,
            "fitting": 0,
            "best": {"domain": {BLOCK: "block-A"}, "fits": 1, "alone": None},
            "text": "`cpg`: block block-A fits 1 of 2 child groups; 0 of 2 blocks fit 2",
            "alike": [],
        },
        leaf(
            "pg-2",
            5,
            4,
            2,
            {"domain": {BLOCK: "block-A", RACK: "rack-A2"}, "fits": 0, "alone": 5},
            "`pg-2`: rack rack-A2 in block block-A fits 5 of 5 pods on its own, 0 once `pg-1` took its share; "
            "2 of 4 racks fit 5",
        ),
    ]


@pytest.fixture
def two_racks() -> Cluster:
    return cluster(node("n1", 4, rack="r1"), node("n2", 4, rack="r2"))


SHORT = {"domain": {RACK: "r1"}, "fits": 4, "alone": None}


def test_identical_siblings_share_one_level(two_racks: Cluster) -> None:
    req = request(
        [composite("cpg", 1), *(pod_group(name, 5, key=RACK, parent="cpg") for name in "abc")],
        dict.fromkeys("abc", (5, G)),
    )
    cpg, a = explained(two_racks, req)
    assert cpg["text"] == "`cpg`: the cluster fits 0 of 1 child group"
    assert a == {
        **leaf("a", 5, 2, 0, SHORT, ""),
        "text": "`a` (and 2 siblings like it): rack r1 fits 4 of 5 pods; 0 of 2 racks fit 5",
        "alike": ["b", "c"],
    }


def test_children_never_tried_are_counted_and_reported_when_they_fit_nowhere(two_racks: Cluster) -> None:
    req = request(
        [composite("cpg", 2), pod_group("a", 5, key=RACK, parent="cpg"), pod_group("b", 5, key=RACK, parent="cpg")],
        {"a": (5, G), "b": (5, G)},
    )
    assert [level["text"] for level in explained(two_racks, req)] == [
        "`cpg`: in the cluster, child group `a` does not fit; the other child group was not tried, since 2 must fit",
        "`a`: rack r1 fits 4 of 5 pods; 0 of 2 racks fit 5",
        "`b`: rack r1 fits 4 of 5 pods; 0 of 2 racks fit 5",
    ]


def test_a_placed_root_still_explains_the_child_that_failed(two_racks: Cluster) -> None:
    req = request(
        [composite("cpg", 2), *(pod_group(name, 4, key=RACK, parent="cpg") for name in "abc")],
        {"a": (4, {"nvidia.com/gpu": "2"}), "b": (4, G), "c": (4, G)},
    )
    assert explained(two_racks, req) == [
        leaf(
            "a",
            4,
            2,
            0,
            {"domain": {RACK: "r1"}, "fits": 2, "alone": None},
            "`a`: rack r1 fits 2 of 4 pods; 0 of 2 racks fit 4",
        )
    ]


def test_every_trace_walks_parents_first(two_racks: Cluster) -> None:
    req = request(
        [composite("cpg", 2, key=RACK), pod_group("a", 1, parent="cpg"), pod_group("b", 4, parent="cpg")],
        {"a": (1, G), "b": (4, G)},
    )
    _, trace = KubeScheduler(Snapshot(two_racks)).schedule(req.roots[0])
    # each rack is a candidate of cpg, simulated child by child: a takes 1 of its 4 GPUs, b is left 3 of 4
    assert [t.group.name for t in every_trace(trace)] == ["cpg", "a", "b", "a", "b"]
