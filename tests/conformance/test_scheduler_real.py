"""Single pods placed by the real kube-scheduler 1.37.2 framework, replayed through the engine without Go.

The instances (``tests/data/scheduler-real/single-pods.jsonl.gz``) come from the
project's seeded generator (``tools/reference/scheduler/generate.py``) run through
the project's harness (``tools/reference/scheduler/main.go``), which runs the
default in-tree plugin registry and the default v1 profile in process. Each
instance holds Kubernetes JSON nodes, running pods and the pod to place; its
``result`` holds the real feasible nodes, each score plugin's normalized score per
feasible node, the weighted totals and the best nodes.

What is asserted here, on every instance:

* the feasible node set: the engine finds no filter reason on exactly the nodes the
  real filters pass;
* the resource scores: on every real feasible node, the engine's ``node_score``
  equals the real NodeResourcesFit + NodeResourcesBalancedAllocation;
* the scores placing does not change: the engine's ``preference_scores`` equal the
  real 3 x TaintToleration + 2 x NodeAffinity + ImageLocality;
* the totals: their sum equals the real weighted total of every plugin (the
  instances' pods have no inter-pod affinity or spread constraint and no Service
  selects them, so InterPodAffinity and PodTopologySpread score 0 on every node);
* the node ``place`` binds the pod to is one of the real best (the real scheduler
  picks among them at random), or nothing where no node is feasible.

``compare.py`` in the harness folder prints the same agreement per family.
"""

from __future__ import annotations

import collections
import functools
from typing import Any

import pytest
from scheduler_harness import RECORDINGS, script

DATA = RECORDINGS / "single-pods.jsonl.gz"
compare = script("compare")

HEADER, _CASES = compare.load(DATA)
CASES: dict[str, dict[str, Any]] = {case["id"]: case for case in _CASES}
IDS = list(CASES)


@functools.cache
def _engine(case_id: str) -> dict[str, Any]:
    return compare.engine_view(CASES[case_id])


def test_the_recording_is_the_real_scheduler_s_and_large_enough() -> None:
    assert HEADER["revision"] == "k8s.io/kubernetes v1.37.2"
    assert HEADER["gates"] == {
        "GenericWorkload": True,
        "TopologyAwareWorkloadScheduling": True,
        "CompositePodGroup": True,
        "DRAWorkloadResourceClaims": True,
        "PodGroupPreemptionPolicy": True,
    }
    assert len(CASES) >= 1000
    families = collections.Counter(case["family"] for case in CASES.values())
    assert set(families) == set(HEADER["families"])
    assert all(not case["result"].get("error") for case in CASES.values())
    assert all(len(case["nodes"]) < 100 for case in CASES.values())


@pytest.mark.parametrize("case_id", IDS, ids=IDS)
def test_feasible_nodes_are_the_real_scheduler_s(case_id: str) -> None:
    assert _engine(case_id)["feasible"] == sorted(CASES[case_id]["result"]["feasible"])


@pytest.mark.parametrize("case_id", IDS, ids=IDS)
def test_preference_scores_are_the_real_scheduler_s(case_id: str) -> None:
    result = CASES[case_id]["result"]
    weights = result["weights"]
    real = {
        node: sum(
            result["scores"][node]["normalized"].get(p, 0) * weights[p]
            for p in ("TaintToleration", "NodeAffinity", "ImageLocality")
        )
        for node in result["feasible"]
    }
    assert _engine(case_id)["preferences"] == real


def _real(case_id: str, plugins: tuple[str, ...]) -> dict[str, int]:
    result = CASES[case_id]["result"]
    weights = result["weights"]
    return {
        node: sum(result["scores"][node]["normalized"].get(p, 0) * weights[p] for p in plugins)
        for node in result["feasible"]
    }


@pytest.mark.parametrize("case_id", IDS, ids=IDS)
def test_resource_scores_are_the_real_scheduler_s(case_id: str) -> None:
    resources = ("NodeResourcesFit", "NodeResourcesBalancedAllocation")
    assert _engine(case_id)["resources"] == _real(case_id, resources)


@pytest.mark.parametrize("case_id", IDS, ids=IDS)
def test_total_scores_are_the_real_scheduler_s(case_id: str) -> None:
    result = CASES[case_id]["result"]
    assert _engine(case_id)["scores"] == {node: result["scores"][node]["total"] for node in result["feasible"]}


@pytest.mark.parametrize("case_id", IDS, ids=IDS)
def test_the_bound_node_is_one_of_the_real_best(case_id: str) -> None:
    best = CASES[case_id]["result"]["best"]
    chosen = _engine(case_id)["chosen"]
    assert chosen in best if best else chosen is None
