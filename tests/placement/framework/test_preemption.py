"""Workload-aware preemption: units by disruption mode, remove all, place once, reprieve from the most important."""

from __future__ import annotations

from typing import Any

import pytest
from placement_helpers import checked, cluster, node, pod_group, request, where

from workloadbuilder.placement import Cluster, place
from workloadbuilder.placement.framework.preemption import units_below


def _pod(name: str, node_name: str, gpus: int) -> dict[str, Any]:
    return {"name": name, "node": node_name, "requests": {"nvidia.com/gpu": str(gpus)}}


@pytest.fixture
def busy() -> Cluster:
    """Three full 4-GPU nodes: an `all` group on n1, a `single` group and a lone pod on n2, important work on n3."""
    return cluster(
        node("n1", 4),
        node("n2", 4),
        node("n3", 4),
        running=[
            {
                "name": "batch-all",
                "priority": 10,
                "disruptionMode": "all",
                "pods": [_pod("a-0", "n1", 2), _pod("a-1", "n1", 2)],
            },
            {"name": "batch-single", "priority": 10, "pods": [_pod("s-0", "n2", 2), _pod("s-1", "n2", 1)]},
            {"name": "lone", "kind": "Pod", "priority": 0, "node": "n2", "requests": {"nvidia.com/gpu": "1"}},
            {"name": "important", "priority": 1000, "disruptionMode": "all", "pods": [_pod("i-0", "n3", 4)]},
        ],
    )


def test_units_follow_disruption_modes(busy: Cluster) -> None:
    units = units_below(busy, 100)
    assert sorted((u.name, u.kind, u.priority, len(u.pods)) for u in units) == [
        ("batch-all", "PodGroup", 10, 2),
        ("lone", "Pod", 0, 1),
        ("s-0", "Pod", 10, 1),
        ("s-1", "Pod", 10, 1),
    ]


def test_preemption_evicts_what_the_placement_needs_and_reprieves_the_rest(busy: Cluster) -> None:
    req = request([pod_group("w", 4, priority=100)], {"w": (4, {"nvidia.com/gpu": "1"})})
    assert not place(req, busy).feasible
    answer = checked(req, busy, place(req, busy, preempt=True))
    assert answer.feasible
    assert where(answer) == {"w": ({}, ["n1"] * 4)}
    assert [victim.to_dict() for victim in answer.victims] == [
        {
            "name": "batch-all",
            "kind": "PodGroup",
            "priority": 10,
            "pods": [{"name": "a-0", "node": "n1"}, {"name": "a-1", "node": "n1"}],
        }
    ]
    assert answer.text.splitlines()[-1] == "- evicts 1 unit (2 pods, priority up to 10): `batch-all`"


def test_without_preempt_the_explanation_says_whether_it_would_help(busy: Cluster) -> None:
    req = request([pod_group("w", 4, priority=100)], {"w": (4, {"nvidia.com/gpu": "1"})})
    preemption = place(req, busy).explanation["roots"][0]["preemption"]
    assert preemption == {
        "wouldHelp": True,
        "eligible": True,
        "status": None,
        "victims": ["batch-all"],
        "pods": 2,
        "violations": 0,
        "reasons": [
            {
                "name": "batch-all",
                "kind": "PodGroup",
                "priority": 10,
                "pods": 2,
                "nodes": ["n1"],
                "violatesBudget": False,
                "text": "`batch-all` (PodGroup, priority 10 < 100): 2 pods on n1; "
                "with it back, a placed pod would not fit there",
            }
        ],
        "text": "preemption would help: evicting 1 unit (2 pods, priority up to 10)",
    }
    big = request([pod_group("w", 10, priority=100)], {"w": (10, {"nvidia.com/gpu": "1"})})
    assert place(big, busy).explanation["roots"][0]["preemption"]["text"] == (
        "preemption would not help: even evicting every lower-priority unit (4 units) leaves it unplaceable"
    )
    low = request([pod_group("w", 4, priority=0)], {"w": (4, {"nvidia.com/gpu": "1"})})
    assert place(low, busy).explanation["roots"][0]["preemption"]["text"] == (
        "preemption cannot help: nothing of lower priority runs"
    )


def test_a_composite_ancestor_with_all_is_one_unit() -> None:
    cl = cluster(
        node("n1", 4),
        node("n2", 4),
        running=[
            {"name": "train", "kind": "CompositePodGroup", "priority": 5, "disruptionMode": "all"},
            {"name": "train-a", "priority": 5, "parent": "train", "pods": [_pod("ta-0", "n1", 4)]},
            {"name": "train-b", "priority": 5, "parent": "train", "pods": [_pod("tb-0", "n2", 4)]},
        ],
    )
    (unit,) = units_below(cl, 100)
    assert (unit.name, unit.kind, [p.name for p in unit.pods]) == ("train", "CompositePodGroup", ["ta-0", "tb-0"])
    req = request([pod_group("w", 2, priority=100)], {"w": (2, {"nvidia.com/gpu": "1"})})
    answer = checked(req, cl, place(req, cl, preempt=True))
    # the placement needs one node, but `train` goes as a whole
    assert [(v.name, len(v.pods)) for v in answer.victims] == [("train", 2)]


def test_more_important_victims_are_reprieved_first() -> None:
    cl = cluster(
        node("n1", 2),
        node("n2", 2),
        running=[
            {
                "name": "old",
                "priority": 10,
                "disruptionMode": "all",
                "startTime": "2026-01-01T00:00:00Z",
                "pods": [_pod("old-0", "n1", 2)],
            },
            {
                "name": "new",
                "priority": 10,
                "disruptionMode": "all",
                "startTime": "2026-01-02T00:00:00Z",
                "pods": [_pod("new-0", "n2", 2)],
            },
        ],
    )
    req = request([pod_group("w", 2, priority=100)], {"w": (2, {"nvidia.com/gpu": "1"})})
    answer = checked(req, cl, place(req, cl, preempt=True))
    # both freed, the pods go to n1; `old` (older: more important) is reprieved first but must go; `new` stays
    assert where(answer) == {"w": ({}, ["n1", "n1"])}
    assert [v.name for v in answer.victims] == ["old"]


@pytest.mark.parametrize("strategy", ["kube-scheduler", "complete"], ids=["kube-scheduler", "complete"])
def test_the_reprieve_checks_every_pod_set_of_a_mixed_group(strategy: str) -> None:
    """A leader without GPUs and GPU workers: the eviction the workers need is kept, not reprieved.

    The reprieve used to check only the first pod set's resources (none
    here), so it gave the victim back and the workers over-committed n1.
    """
    cl = cluster(
        node("n1", 2),
        running=[{"name": "run", "priority": 0, "disruptionMode": "all", "pods": [_pod("run-0", "n1", 1)]}],
    )
    req = request([pod_group("g", 3, priority=5)], {"g": [(1, {"nvidia.com/gpu": "0"}), (3, {"nvidia.com/gpu": "1"})]})
    answer = checked(req, cl, place(req, cl, strategy, preempt=True))
    assert (answer.feasible, where(answer), [victim.name for victim in answer.victims]) == (
        True,
        {"g": ({}, ["n1", "n1", "n1"])},
        ["run"],
    )
