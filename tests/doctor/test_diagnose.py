"""``diagnose`` on hand-written live states, without a server: the reasons the recorded scenarios do not reach."""

from __future__ import annotations

from typing import Any

import pytest

from workloadbuilder.doctor import LiveState, diagnose

NODE = {"kind": "Node", "metadata": {"name": "n0"}, "status": {"allocatable": {"cpu": "4", "pods": "110"}}}


def pod_group(name: str, min_count: int) -> dict[str, Any]:
    return {
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "ml"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}, "workloadRef": {"workloadName": "wl"}},
    }


def pod(name: str, group: str, node: str | None = None, cpu: str = "1") -> dict[str, Any]:
    spec: dict[str, Any] = {
        "schedulingGroup": {"podGroupName": group},
        "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}],
    }
    if node:
        spec["nodeName"] = node
    return {"kind": "Pod", "metadata": {"name": name, "namespace": "ml"}, "spec": spec, "status": {"phase": "Pending"}}


def state(target: dict[str, Any], **parts: Any) -> LiveState:
    empty: dict[str, Any] = {
        "workloads": [],
        "pod_groups": [],
        "composite_pod_groups": [],
        "pods": [],
        "events": [],
        "nodes": [NODE],
        "priority_classes": [],
        "disruption_budgets": [],
        "resource_slices": [],
    }
    return LiveState(target=target, **{**empty, **parts})


JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "ml"}}
WORKLOAD = {"kind": "Workload", "metadata": {"name": "wl", "namespace": "ml"}, "spec": {}}

# id -> (state, (problem, reason, replay))
CASES = {
    "no-workload": (
        state(JOB),
        (
            "no-workload",
            "no Workload names Job ml/j in spec.controllerRef: its pods are not gang-scheduled",
            "not replayed: no Workload",
        ),
    ),
    "workload-without-pod-groups": (
        state(WORKLOAD),
        ("no-pod-groups", "Workload wl has no PodGroup yet: no pod can be scheduled", "not replayed: no PodGroup"),
    ),
    "pending-without-an-event-yet": (
        state(
            pod_group("pg", 2),
            workloads=[WORKLOAD],
            pod_groups=[pod_group("pg", 2)],
            pods=[pod("a", "pg"), pod("b", "pg")],
        ),
        (
            "unschedulable",
            "0 of 2 pods of pg scheduled; the scheduler has not reported on the pending pods yet",
            "feasible (kube-scheduler)\n- `pg`: placed 2 pods of 1 group",
        ),
    ),
    "last-pod-of-a-gang-too-big": (
        state(
            pod_group("pg", 2),
            workloads=[WORKLOAD],
            pod_groups=[pod_group("pg", 2)],
            pods=[pod("a", "pg", node="n0", cpu="3"), pod("b", "pg", cpu="3")],
        ),
        (
            "unschedulable",
            "1 of 2 pods of pg scheduled; the scheduler has not reported on the pending pods yet",
            "not feasible (kube-scheduler)\n- `pg` cannot be placed\n"
            "- `pg` pod `b`: 0/1 nodes are available: 1 Insufficient cpu.\n- `pg`: the cluster fits 0 of 1 pods\n"
            "- `pg`: cpu rules out the most nodes (1 of 1 lack room for one pod)\n"
            "- preemption cannot help: nothing of lower priority runs",
        ),
    ),
}


@pytest.mark.parametrize(("live", "expected"), CASES.values(), ids=CASES.keys())
def test_diagnose(live: LiveState, expected: tuple[str, str, str]):
    got = diagnose(live)
    assert (got.problem, got.reason, got.replay) == expected
    assert got.healthy is False


def test_a_gang_past_the_engine_limits_is_not_replayed():
    huge = pod_group("pg", 2**31 - 1)
    got = diagnose(state(huge, workloads=[WORKLOAD], pod_groups=[huge], pods=[pod("a", "pg")]))
    assert (got.problem, got.replay) == (
        "waiting-for-quorum",
        "not replayed: PodGroup pg would replay 2147483647 pods (minCount 2147483647); "
        "the engine models at most 100000 pods per replay",
    )


def test_malformed_live_values_are_skipped_and_capped():
    group = {
        **pod_group("pg", 2),
        "status": {"conditions": ["not-a-condition", {"type": "X", "status": "False", "message": "m" * 5000}]},
    }
    got = diagnose(state(group, workloads=[WORKLOAD], pod_groups=[group]))
    assert got.evidence[0] == "PodGroup pg: X=False: " + "m" * 1000 + "..."


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("live", "diagnose(): state must be a LiveState, not str"),
        (None, "diagnose(): state.target must be a JSON object (dict), not NoneType"),
    ],
    ids=["not-a-state", "target-none"],
)
def test_diagnose_refuses_wrong_types(argument: Any, message: str):
    live = argument if isinstance(argument, str) else state(JOB)
    if argument is None:
        live = LiveState(**{**live.__dict__, "target": None})
    with pytest.raises(TypeError) as refused:
        diagnose(live)
    assert str(refused.value) == message
