"""``assign_pods`` places a run of equal pods exactly as one heap of every node, re-scored after each pod, would.

The heap is the rule as kube-scheduler states it (``columnar_cases.reference_assign``);
the fast paths (the landing order of the best nodes, the heap of the chosen
ones) must give the same nodes in the same order and leave the same
snapshot behind, on random clusters.
"""

from __future__ import annotations

import numpy as np
from columnar_cases import assumed, clusters, reference_assign, shapes
from hypothesis import given
from hypothesis import strategies as st
from placement_helpers import COLUMNAR_SETTINGS

from workloadbuilder.placement import Cluster
from workloadbuilder.placement.framework.assign import _best_positions, assign_pods
from workloadbuilder.placement.framework.snapshot import Snapshot

TEN_NODES = Cluster.from_yaml({"nodes": [{"name": f"n{i}", "allocatable": {"cpu": 1}} for i in range(10)]})


@COLUMNAR_SETTINGS
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 9)), min_size=1, max_size=10, unique_by=lambda e: e[1]),
    st.booleans(),
    st.data(),
)
def test_best_positions_are_the_highest_scores_then_the_lowest_nodes(
    entries: list[tuple[int, int]], whole: bool, data: st.DataObject
) -> None:
    if whole:  # every node, as the cluster's own node array
        entries = [(data.draw(st.integers(0, 3)), i) for i in range(10)]
    scores = np.array([score for score, _ in entries], dtype=np.int64)
    nodes = TEN_NODES.root.node_array if whole else np.array([node for _, node in entries], dtype=np.int64)
    count = data.draw(st.integers(1, len(entries)))
    ranked = sorted(range(len(entries)), key=lambda p: (-entries[p][0], entries[p][1]))
    assert _best_positions(scores, nodes, count, TEN_NODES).tolist() == sorted(ranked[:count])


@COLUMNAR_SETTINGS
@given(clusters(), shapes, st.lists(st.integers(0, 100), max_size=6), st.integers(1, 60))
def test_assign_pods_equals_one_heap_of_every_node(
    cluster: Cluster, requests: dict[str, int], picks: list[int], count: int
) -> None:
    fast, slow = assumed(cluster, requests, picks), assumed(cluster, requests, picks)
    nodes = list(range(len(cluster)))
    assert assign_pods(fast, fast.shape(requests), nodes, count) == reference_assign(slow, requests, nodes, count)
    assert [fast.free(i) for i in nodes] == [slow.free(i) for i in nodes]


def test_assign_pods_falls_back_to_the_heap_when_later_pods_pass_2_to_the_53() -> None:
    """The first scores are exact in floats, the second pod's are not: the best nodes go to the heap, as they are."""
    big, pod = 2**53 - 1000, 2**50
    nodes = [
        {"name": "full", "allocatable": {"cpu": 8000, "memory": big, "pods": 8000}, "used": {"memory": big - pod}},
        {"name": "a", "allocatable": {"cpu": 8000, "memory": big, "pods": 8000}},
        {"name": "b", "allocatable": {"cpu": 8000, "memory": big, "pods": 8000}},
    ]
    cluster = Cluster.build(nodes)
    requests = {"cpu": 100, "memory": pod}
    fast, slow = Snapshot(cluster), Snapshot(cluster)
    placed = assign_pods(fast, fast.shape(requests), cluster.root.node_array, 2)
    assert placed == reference_assign(slow, requests, [0, 1, 2], 2)
    assert len(placed) == 2
