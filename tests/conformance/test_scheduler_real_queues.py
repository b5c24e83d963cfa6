"""Queues of gangs played by a whole kube-scheduler 1.37.2 in simulated time, replayed through ``simulate`` without Go.

The instances (``tests/data/scheduler-real/queues.jsonl.gz``) come from the
project's seeded generator (``tools/reference/scheduler/generate_queues.py``)
run through the project's harness (``tools/reference/scheduler/queues.go``):
``scheduler.New`` over a fake clientset on a fake clock, driven through
``simulate``'s events (arrivals, completions at start plus duration, the
gangs the scheduler preempted started over), every binding recorded with the
event time it happened at; each queue played several times (the real
scheduler breaks ties at random), every distinct outcome kept.

For each instance and each compared answer (``starts``: every workload's
start; ``order``: the order the workloads started in; see
``compare_queues.py``) ``simulate(..., score_all_nodes=False)``, every pod
placed as kube-scheduler's cycle places it, must give the answer of one of the
recorded outcomes, except where ``queues-known-differences.json`` lists the
instance and answer as one it does not get right. Those are not asserted;
the summary test prints how many of them agree now, so that the list can
shrink.
"""

from __future__ import annotations

import collections
import functools
import json
from typing import Any

import pytest
from scheduler_harness import RECORDINGS, script

DATA = RECORDINGS / "queues.jsonl.gz"
KNOWN = RECORDINGS / "queues-known-differences.json"
compare = script("compare_queues")

HEADER, _CASES = compare.load(DATA)
CASES: dict[str, dict[str, Any]] = {case["id"]: case for case in _CASES}
IDS = list(CASES)
KNOWN_DIFFERENCES: dict[str, list[str]] = json.loads(KNOWN.read_text())["differences"]
ANSWERS = ("starts", "order")


@functools.cache
def _judged(case_id: str) -> dict[str, bool]:
    return compare.judge(CASES[case_id])


def test_the_recording_is_the_real_scheduler_s_and_large_enough() -> None:
    assert HEADER["revision"] == "k8s.io/kubernetes v1.37.2"
    assert HEADER["gates"] == {
        "GenericWorkload": True,
        "TopologyAwareWorkloadScheduling": True,
        "CompositePodGroup": True,
        "DRAWorkloadResourceClaims": True,
        "PodGroupPreemptionPolicy": True,
    }
    assert HEADER["seed"] == 34
    families = collections.Counter(case["family"] for case in CASES.values())
    assert set(families) == set(HEADER["families"])
    assert len(CASES) >= 100
    for case in CASES.values():
        result = case["result"]
        assert not result.get("error"), case["id"]
        assert sum(o["count"] for o in result["outcomes"]) == result["runs"] == HEADER["runs"]
        assert not any(o["timedOut"] or o["partial"] or o.get("panic") for o in result["outcomes"]), case["id"]
        assert 10 <= len(case["queue"]) <= 50
        assert len(case["nodes"]) < 100


def test_every_pod_of_a_start_that_ran_is_bound_and_ordered() -> None:
    """Each pod of a start that ran to its end has a node, and the order lists exactly the workloads that started.

    A pod is ``<group>-<i>`` (``-r<k>`` in the k-th restart after a preemption), and every
    generated workload is one PodGroup named as the workload, without a dash.
    """
    for case in CASES.values():
        for outcome in case["result"]["outcomes"]:
            for pod, node in outcome["nodes"].items():
                assert node, (case["id"], pod)
                assert outcome["starts"][pod.split("-", 1)[0]] is not None, (case["id"], pod)
            started = sorted(name for name, start in outcome["starts"].items() if start is not None)
            assert sorted(outcome["order"] or []) == started, case["id"]


def test_the_known_differences_name_recorded_instances_and_answers() -> None:
    assert set(KNOWN_DIFFERENCES) <= set(CASES)
    assert all(answers and set(answers) <= set(ANSWERS) for answers in KNOWN_DIFFERENCES.values())


@pytest.mark.parametrize("case_id", IDS, ids=IDS)
def test_simulate_gives_a_recorded_answer(case_id: str) -> None:
    judged = _judged(case_id)
    expected = [answer for answer in ANSWERS if answer not in KNOWN_DIFFERENCES.get(case_id, ())]
    assert [answer for answer in expected if not judged[answer]] == []


def test_agreement_per_family(capsys: pytest.CaptureFixture[str]) -> None:
    """Print the agreement table and how many known differences agree now (pytest -s shows it)."""
    fixed = sorted(
        (case_id, answer)
        for case_id, answers in KNOWN_DIFFERENCES.items()
        for answer in answers
        if _judged(case_id)[answer]
    )
    with capsys.disabled():
        print()
        print(compare.table(list(CASES.values())))
        print(f"known differences that agree now: {len(fixed)} {fixed[:10]}")
    assert all(isinstance(ok, bool) for case_id in IDS for ok in _judged(case_id).values())
