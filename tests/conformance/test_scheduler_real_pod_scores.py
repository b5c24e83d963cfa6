"""PodTopologySpread and InterPodAffinity scores of the real kube-scheduler 1.37.2, replayed through the engine.

The instances (``tests/data/scheduler-real/pod-scores.jsonl.gz``) come from
``tools/reference/scheduler/generate_pod_scores.py`` run through the harness
(``main.go``, ``sequence.go``): single pods with ``ScheduleAnyway`` spread
constraints (``spread``) or preferred pod (anti-)affinity among running pods
with terms of their own (``podaffinity``), and gangs of 2 to 8 copies of one
pod placed one after another, each scored with the copies before it assumed
(``gangs``, a third of them without CPU or memory requests).

Asserted on every instance, at every step: the feasible nodes; the engine's
``pod_scores`` against the real 2 x PodTopologySpread + 2 x InterPodAffinity;
the total of every score against the real weighted total; and the nodes
``place`` binds the pods to (a single pod: one of the real best; a gang: the
recorded sequence, each copy on the first of the real best by name).
``compare_pod_scores.py`` in the harness folder prints the same per family.
"""

from __future__ import annotations

import collections
import functools
from typing import Any

import pytest
from scheduler_harness import RECORDINGS, script

DATA = RECORDINGS / "pod-scores.jsonl.gz"
compare = script("compare_pod_scores")

HEADER, _CASES = compare.load(DATA)
CASES: dict[str, dict[str, Any]] = {case["id"]: case for case in _CASES}
IDS = list(CASES)
PLUGINS = ("PodTopologySpread", "InterPodAffinity")


@functools.cache
def _steps(case_id: str) -> list[dict[str, Any]]:
    return list(compare.engine_steps(CASES[case_id]))


def _real_steps(case_id: str) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = compare.steps_of(CASES[case_id])[0]
    return steps


def test_the_recording_is_the_real_scheduler_s_and_covers_the_scores() -> None:
    assert HEADER["revision"] == "k8s.io/kubernetes v1.37.2"
    assert set(HEADER["gates"]) >= {"GenericWorkload", "TopologyAwareWorkloadScheduling"}
    assert len(CASES) >= 300
    families = collections.Counter(case["family"] for case in CASES.values())
    assert set(families) == set(HEADER["families"]) == {"spread", "podaffinity", "gangs"}
    steps = [step for case_id in IDS for step in _real_steps(case_id)]
    assert all(not step.get("error") for step in steps)
    for plugin in PLUGINS:  # each plugin tells nodes apart in many steps, not only scores them all alike
        varied = sum(len({s["normalized"].get(plugin) for s in step["scores"].values()}) > 1 for step in steps)
        assert varied >= 150, plugin


@pytest.mark.parametrize("case_id", IDS, ids=IDS)
def test_feasible_nodes_are_the_real_scheduler_s(case_id: str) -> None:
    real = [sorted(step["feasible"]) for step in _real_steps(case_id)]
    assert [step["feasible"] for step in _steps(case_id)] == real


@pytest.mark.parametrize("case_id", IDS, ids=IDS)
def test_spread_and_pod_affinity_scores_are_the_real_scheduler_s(case_id: str) -> None:
    real = [
        {
            node: sum(step["scores"][node]["normalized"].get(p, 0) * step["weights"][p] for p in PLUGINS)
            for node in step["feasible"]
        }
        for step in _real_steps(case_id)
    ]
    assert [step["pods"] for step in _steps(case_id)] == real


@pytest.mark.parametrize("case_id", IDS, ids=IDS)
def test_total_scores_are_the_real_scheduler_s(case_id: str) -> None:
    real = [{node: step["scores"][node]["total"] for node in step["feasible"]} for step in _real_steps(case_id)]
    assert [step["totals"] for step in _steps(case_id)] == real


@pytest.mark.parametrize("case_id", IDS, ids=IDS)
def test_the_bound_nodes_are_the_real_scheduler_s(case_id: str) -> None:
    case = CASES[case_id]
    bound = compare.engine_chosen(case)
    if "steps" in case["result"]:
        assert bound == case["result"]["chosen"]
    else:
        best = case["result"]["best"]
        assert (len(bound) == 1 and bound[0] in best) if best else bound == []
