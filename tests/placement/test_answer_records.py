"""Explanations as typed records: ``Placement.explained`` holds what ``explanation["roots"]`` holds, by attribute."""

from __future__ import annotations

import json

import pytest
from placement_helpers import cluster, node, pod_group, request

from workloadbuilder.placement import Cluster, PlacementRequest, Pods, place
from workloadbuilder.placement.answer import FitErrorLine, QuorumEntry, RootExplanation


@pytest.mark.parametrize("strategy", ["kube-scheduler", "complete"], ids=["kube-scheduler", "complete"])
def test_the_records_are_the_json(kep_cluster: Cluster, kep_request: PlacementRequest, strategy: str) -> None:
    answer = place(kep_request, kep_cluster, strategy)
    assert [root.to_dict() for root in answer.explained] == answer.explanation["roots"]
    assert [RootExplanation.from_dict(json.loads(json.dumps(root))) for root in answer.explanation["roots"]] == list(
        answer.explained
    )


def test_a_failing_root_reads_by_attribute() -> None:
    cl = cluster(node("a", 1))
    req = request([pod_group("pg", 2)], {"pg": Pods(2, requests={"nvidia.com/gpu": "2"})})
    (root,) = place(req, cl).explained
    assert root.feasible is False
    assert root.quorum == (QuorumEntry("pg", "PodGroup", 2, 2, "pods", True),)
    assert root.fit_errors == (
        FitErrorLine("pg", "pg-0", "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."),
        FitErrorLine(
            "pg",
            "pg-1",
            "pod group is unschedulable, 0/1 placements are available, "
            "first placement status: minCount (2) cannot be satisfied: 0 scheduled, 1 remaining",
        ),
    )
    assert root.levels[0].text == "`pg`: the cluster fits 0 of 2 pods"
