"""A domain's nodes counted for a gang that fits nowhere: each node once, under the first filter that rejects it."""

from __future__ import annotations

import numpy as np
import pytest
from placement_helpers import cluster, node

from workloadbuilder.placement.explain.exclusions import Exclusions, exclusions
from workloadbuilder.placement.framework.snapshot import Snapshot
from workloadbuilder.placement.k8s.constraints import PodConstraints


@pytest.mark.parametrize(
    ("counted", "text"),
    [
        (
            Exclusions(8, (("not ready", 1), ("untolerated taint", 1), ("Insufficient nvidia.com/gpu", 1)), ((1, 5),)),
            "rack r1: 8 nodes; 1 not ready, 1 untolerated taint, 1 Insufficient nvidia.com/gpu; 5 fit 1 pod each",
        ),
        (Exclusions(2, (), ((3, 1), (1, 1))), "rack r1: 2 nodes; none excluded; 1 fits 3 pods, 1 fits 1 pod"),
        (Exclusions(2, (("Insufficient cpu", 2),), ()), "rack r1: 2 nodes; 2 Insufficient cpu; none takes a pod"),
    ],
    ids=["the-issue-example", "nothing-excluded", "none-takes-a-pod"],
)
def test_the_text_counts_each_kind_once(counted: Exclusions, text: str) -> None:
    assert counted.text("rack r1") == text


def test_nodes_are_counted_under_the_first_filter_that_rejects_them() -> None:
    tainted = node("n1", 8)
    tainted["taints"] = [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]
    cordoned = node("n0", 8)
    cordoned["unschedulable"] = True
    cl = cluster(cordoned, tainted, node("n2", 1), node("n3", 8), node("n4", 8))
    snap = Snapshot(cl)
    shape = snap.shape({"cpu": 1000, "nvidia.com/gpu": 2000, "pods": 1}, PodConstraints())
    counted = exclusions(snap, shape, np.arange(len(cl), dtype=np.int64))
    assert counted == Exclusions(
        5, (("cordoned", 1), ("untolerated taint", 1), ("Insufficient nvidia.com/gpu", 1)), ((4, 2),)
    )
