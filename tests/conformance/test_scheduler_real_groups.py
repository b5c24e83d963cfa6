"""Pod groups placed by a whole kube-scheduler 1.37.2, replayed through the engine without Go.

The instances (``tests/data/scheduler-real/groups.jsonl.gz``) come from the
project's seeded generator (``tools/reference/scheduler/generate_groups.py``)
run through the project's harness (``tools/reference/scheduler/groups.go``):
``scheduler.New`` over a fake clientset, ``sched.Run``, bindings and pod
deletions recorded by the clientset's reactors, each instance run several
times (the real scheduler breaks ties at random), every distinct outcome kept.

For each instance and each compared answer (``verdict``, ``domains``,
``nodes``, ``victims``; see ``compare_groups.py``) the engine, placing as
kube-scheduler does pod by pod (``place(score_all_nodes=False)``: node
sampling and the heap's tie-breaking), must give the answer of one of the
recorded outcomes, except where
``groups-known-differences.json`` lists the instance and answer as one the
engine does not get right yet. Those are not asserted; the summary test
prints how many of them agree now, so that the list can shrink.
"""

from __future__ import annotations

import collections
import functools
import json
from typing import Any

import pytest
from scheduler_harness import RECORDINGS, script

DATA = RECORDINGS / "groups.jsonl.gz"
KNOWN = RECORDINGS / "groups-known-differences.json"
compare = script("compare_groups")

HEADER, _CASES = compare.load(DATA)
CASES: dict[str, dict[str, Any]] = {case["id"]: case for case in _CASES}
IDS = list(CASES)
KNOWN_DIFFERENCES: dict[str, list[str]] = json.loads(KNOWN.read_text())["differences"]
ANSWERS = ("verdict", "domains", "nodes", "victims")


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
    families = collections.Counter(case["family"] for case in CASES.values())
    assert set(families) == set(HEADER["families"])
    assert families["gangs"] + families["composites"] + families["roots"] >= 500
    assert families["preemption"] >= 200
    for case in CASES.values():
        result = case["result"]
        assert not result.get("error"), case["id"]
        assert sum(o["count"] for o in result["outcomes"]) == result["runs"] == HEADER["runs"]
        assert not any(o["timedOut"] or o.get("panic") for o in result["outcomes"]), case["id"]
        assert len(case["nodes"]) < 100


def test_the_known_differences_name_recorded_instances_and_answers() -> None:
    assert set(KNOWN_DIFFERENCES) <= set(CASES)
    assert all(answers and set(answers) <= set(ANSWERS) for answers in KNOWN_DIFFERENCES.values())


@pytest.mark.parametrize("case_id", IDS, ids=IDS)
def test_the_engine_gives_a_recorded_answer(case_id: str) -> None:
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
