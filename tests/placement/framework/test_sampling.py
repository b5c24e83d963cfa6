"""kube-scheduler's node sampling: how many nodes are scored, in which order, and which of equal nodes wins.

``nodes_to_find`` follows ``numFeasibleNodesToFind`` (schedule_one.go at
v1.37.2); ``Cluster.scheduling_order`` interleaves zones as the node tree
does; ``heap_winner`` equals the root Go's ``container/heap`` leaves on
seeded score lists (the heap written out here as Go's ``Init`` does it); and
a placement with sampling moves the start from pod to pod.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from placement_helpers import checked, node, pod_group, request, where

from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.placement import Cluster, Pods, place
from workloadbuilder.placement.framework.sampling import NodeSampling, heap_winner, nodes_to_find

TO_FIND = [
    ("below 100 nodes every node", 99, 0, 99),
    ("at 100 nodes the floor of 100", 100, 0, 100),
    ("adaptive percentage at 1000 nodes: 42", 1000, 0, 420),
    ("adaptive at 5000 nodes: 10 percent", 5000, 0, 500),
    ("adaptive at 6000 nodes: the 5 percent floor", 6000, 0, 300),
    ("adaptive at 50000 nodes", 50000, 0, 2500),
    ("a set percentage", 1000, 30, 300),
    ("never fewer than 100", 1000, 1, 100),
]


@pytest.mark.parametrize(("nodes", "percentage", "expected"), [c[1:] for c in TO_FIND], ids=[c[0] for c in TO_FIND])
def test_nodes_to_find_is_num_feasible_nodes_to_find(nodes: int, percentage: int, expected: int) -> None:
    assert nodes_to_find(nodes, percentage) == expected


def _go_heap_root(scores: list[int]) -> int:
    """The index ``heap.Init`` then ``heap.Pop`` gives over ``scores`` (higher first, no randomizer)."""
    heap = list(range(len(scores)))

    def less(i: int, j: int) -> bool:
        return scores[heap[i]] > scores[heap[j]]

    def down(i: int) -> None:
        while 2 * i + 1 < len(heap):
            j = 2 * i + 1
            if j + 1 < len(heap) and less(j + 1, j):
                j += 1
            if not less(j, i):
                return
            heap[i], heap[j] = heap[j], heap[i]
            i = j

    for i in range(len(heap) // 2 - 1, -1, -1):
        down(i)
    return heap[0]


@pytest.mark.parametrize("seed", range(300), ids=[f"seed-{seed}" for seed in range(300)])
def test_heap_winner_is_the_root_go_s_heap_leaves(seed: int) -> None:
    rng = random.Random(seed)
    scores = [rng.randint(0, rng.choice((1, 3, 10))) for _ in range(rng.randint(1, 400))]
    assert heap_winner(np.asarray(scores, dtype=np.int64)) == _go_heap_root(scores)


def _named(name: str, zone: str | None) -> dict[str, Any]:
    labels = {"topology.kubernetes.io/zone": zone} if zone else {}
    return {"metadata": {"name": name, "labels": labels}, "status": {"allocatable": {"cpu": "8", "pods": "110"}}}


def test_the_scheduling_order_interleaves_zones_by_name() -> None:
    items = [_named("d", "b"), _named("a", "a"), _named("c", "a"), _named("b", "b"), _named("e", None)]
    cluster = Cluster.from_kubectl(items)
    # by name: a (zone a), b (zone b), c (a), d (b), e (no zone): zones a, b, "" in that order, one of each in turn
    assert [cluster.names[i] for i in cluster.scheduling_order] == ["a", "b", "e", "c", "d"]
    assert cluster.scheduling_rank[cluster.scheduling_order].tolist() == list(range(5))


def test_a_percentage_outside_0_to_100_is_refused() -> None:
    with pytest.raises(
        InvalidArgumentError, match="percentageOfNodesToScore must be an integer from 0 to 100, not 101"
    ):
        NodeSampling(101)
    with pytest.raises(TypeError, match="NodeSampling\\(\\): percentage must be an int, not float"):
        NodeSampling(2.5)  # type: ignore[arg-type]


def test_with_sampling_each_pod_looks_further_on() -> None:
    # 200 equal empty nodes, 100 of them scored per pod. Pod 1 finds n000..n099 (all tie: the heap keeps
    # n000) and the search stops at n100, so the start moves on by 100; pod 2 finds n100..n199 and takes
    # n100, the start wraps to 0; pod 3 finds n000..n099 again, where n000 now scores lower: n001.
    nodes = [node(f"n{i:03d}", 0, cpu="8", memory="32Gi") for i in range(200)]
    cl = Cluster.from_yaml({"nodes": nodes})
    spec = {"containers": [{"name": "m", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}
    req = request([pod_group("g", 3)], {"g": Pods(3, template={"spec": spec})})
    assert where(checked(req, cl, place(req, cl, score_all_nodes=False)))["g"][1] == ["n000", "n100", "n001"]
    assert where(checked(req, cl, place(req, cl)))["g"][1] == ["n000", "n001", "n002"]


def test_score_all_nodes_must_be_a_bool() -> None:
    cl = Cluster.from_yaml({"nodes": [node("a")]})
    req = request([pod_group("g", 1)], {"g": Pods(1, requests={"cpu": "1"})})
    with pytest.raises(TypeError, match="place\\(\\): score_all_nodes must be a bool, not str"):
        place(req, cl, score_all_nodes="no")  # type: ignore[arg-type]
