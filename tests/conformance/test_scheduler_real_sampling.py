"""Pod groups on clusters of 100 nodes and more, where kube-scheduler 1.37.2 samples nodes, replayed without Go.

The instances (``tests/data/scheduler-real/sampling.jsonl.gz``, the ``sampling``
family of ``tools/reference/scheduler/generate_groups.py``) are one PodGroup of
1 to 40 pods, without a key or on zones, on 100 to 450 nodes; the harness
(``groups.go``, ``parallelism: 1``) ran a whole scheduler over each twice. The
engine places them with ``score_all_nodes=False`` (``framework.sampling``: each
pod scored on the first ``numFeasibleNodesToFind`` feasible nodes from the
rotating start, ties taken as Go's heap takes them) and must give one recorded
outcome's verdict, domains and nodes, except where
``sampling-known-differences.json`` lists the instance and answer.
"""

from __future__ import annotations

import collections
import functools
import json
from typing import Any

import pytest
from scheduler_harness import RECORDINGS, script

DATA = RECORDINGS / "sampling.jsonl.gz"
KNOWN = RECORDINGS / "sampling-known-differences.json"
compare = script("compare_groups")

HEADER, _CASES = compare.load(DATA)
CASES: dict[str, dict[str, Any]] = {case["id"]: case for case in _CASES}
IDS = list(CASES)
KNOWN_DIFFERENCES: dict[str, list[str]] = json.loads(KNOWN.read_text())["differences"]
ANSWERS = ("verdict", "domains", "nodes")


@functools.cache
def _judged(case_id: str) -> dict[str, bool]:
    return compare.judge(CASES[case_id])


def test_the_recording_samples_nodes() -> None:
    assert HEADER["revision"] == "k8s.io/kubernetes v1.37.2"
    assert collections.Counter(case["family"] for case in CASES.values()) == {"sampling": 120}
    assert all(100 <= len(case["nodes"]) <= 450 for case in CASES.values())
    assert all(not case["result"].get("error") for case in CASES.values())


def test_few_answers_are_known_to_differ() -> None:
    assert set(KNOWN_DIFFERENCES) <= set(CASES)
    assert len(KNOWN_DIFFERENCES) <= 11  # 109 of 120 agree on every answer; the list may only shrink


@pytest.mark.parametrize("case_id", IDS, ids=IDS)
def test_the_engine_with_sampling_gives_a_recorded_answer(case_id: str) -> None:
    judged = _judged(case_id)
    expected = [answer for answer in ANSWERS if answer not in KNOWN_DIFFERENCES.get(case_id, ())]
    assert [answer for answer in expected if not judged[answer]] == []
