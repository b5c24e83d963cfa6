"""The ``preemption`` part of an explanation: kube-scheduler's PostFilter statuses, the victims and why each goes."""

from __future__ import annotations

from typing import Any

import pytest
from placement_helpers import cluster, node

from workloadbuilder.placement.answer import PreemptionReport
from workloadbuilder.placement.cluster.records import RunningPod
from workloadbuilder.placement.explain.preemption import NEVER_STATUS, NO_VICTIMS_STATUS, report
from workloadbuilder.placement.framework.outcome import Outcome
from workloadbuilder.placement.framework.preemption import Unit, Victims

CLUSTER = cluster(node("n0", 8), node("n1", 8))


def _unit(name: str, priority: int, nodes: list[int]) -> Unit:
    pods = tuple(RunningPod(f"{name}-{k}", node=i, requests=(0,)) for k, i in enumerate(nodes))
    return Unit(name, "PodGroup", priority, pods)


LOW, LOWER = _unit("low", 10, [0, 1]), _unit("lower", 0, [1])


@pytest.mark.parametrize(
    ("found", "candidates", "asked", "never", "expected"),
    [
        (
            None,
            [LOW],
            False,
            True,
            {
                "wouldHelp": False,
                "eligible": False,
                "status": NEVER_STATUS,
                "victims": [],
                "text": f"preemption cannot help: the preemptor's preemptionPolicy is Never ({NEVER_STATUS})",
            },
        ),
        (
            None,
            [],
            False,
            False,
            {
                "wouldHelp": False,
                "eligible": True,
                "status": NO_VICTIMS_STATUS,
                "victims": [],
                "text": "preemption cannot help: nothing of lower priority runs",
            },
        ),
        (
            None,
            [LOW, LOWER],
            True,
            False,
            {
                "wouldHelp": False,
                "eligible": True,
                "status": None,
                "victims": [],
                "text": (
                    "preemption would not help: even evicting every lower-priority unit (2 units) leaves it unplaceable"
                ),
            },
        ),
        (
            Victims(Outcome(True), [LOW], []),
            [LOW, LOWER],
            False,
            False,
            {
                "wouldHelp": True,
                "eligible": True,
                "status": None,
                "victims": ["low"],
                "text": "preemption would help: evicting 1 unit (2 pods, priority up to 10)",
            },
        ),
        (
            Victims(Outcome(True), [LOW, LOWER], [LOWER]),
            [LOW, LOWER],
            True,
            False,
            {
                "wouldHelp": True,
                "eligible": True,
                "status": None,
                "victims": ["low", "lower"],
                "text": "preemption evicts 2 units (3 pods, priority up to 10), 1 PodDisruptionBudget violation",
            },
        ),
    ],
    ids=["policy-never", "nothing-lower", "would-not-help", "probe-would-help", "evicted-with-a-budget-violation"],
)
def test_report(
    found: Victims | None, candidates: list[Unit], asked: bool, never: bool, expected: dict[str, Any]
) -> None:
    got = report(found, candidates, asked, 100, CLUSTER, never=never).to_dict()
    assert {key: got[key] for key in expected} == expected


def test_each_victim_says_why_it_goes() -> None:
    got = report(Victims(Outcome(True), [LOW, LOWER], [LOWER]), [LOW, LOWER], True, 100, CLUSTER).to_dict()
    assert got["pods"] == 3
    assert got["violations"] == 1
    assert [reason["text"] for reason in got["reasons"]] == [
        "`low` (PodGroup, priority 10 < 100): 2 pods on n0, n1; with it back, a placed pod would not fit there",
        "`lower` (PodGroup, priority 0 < 100): 1 pod on n1; with it back, a placed pod would not fit there; "
        "evicting it violates a PodDisruptionBudget (no reprieve kept the budget)",
    ]


def test_the_report_is_typed_and_its_json_reads_back() -> None:
    got = report(Victims(Outcome(True), [LOW, LOWER], [LOWER]), [LOW, LOWER], False, 100, CLUSTER)
    assert (got.would_help, got.victims, got.pods, got.violations) == (True, ("low", "lower"), 3, 1)
    assert [(r.name, r.violates_budget) for r in got.reasons] == [("low", False), ("lower", True)]
    assert PreemptionReport.from_dict(got.to_dict()) == got
