"""The Volcano Job adapter: gang sizes from minAvailable, per-task gangs under composites, field errors, warnings."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from workloadbuilder.adapters import VolcanoJobAdapter, plan_object
from workloadbuilder.adapters.volcano import JOB_NAME_LABEL, TASK_SPEC_LABEL

DATA = Path(__file__).resolve().parents[2] / "data" / "upstream" / "volcano"


def upstream(name: str) -> dict[str, Any]:
    return next(doc for doc in yaml.safe_load_all((DATA / name).read_text()) if doc)


def job(**spec: Any) -> dict[str, Any]:
    """A small Volcano Job of two tasks (``a`` of 2 pods, ``b`` of 3), with ``spec`` fields replaced."""

    def task(name: str, replicas: int) -> dict[str, Any]:
        pod = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}
        return {"name": name, "replicas": replicas, "template": pod}

    body = {"tasks": [task("a", 2), task("b", 3)], **spec}
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "v", "uid": "u"},
        "spec": body,
    }


def with_task(obj: dict[str, Any], index: int, **fields: Any) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out["spec"]["tasks"][index].update(fields)
    return out


def gangs(plan: Any) -> list[tuple[str, Any]]:
    compiled = plan.compile()
    return [
        (group.metadata.name.rsplit("-", 1)[0].removeprefix(f"{compiled.workload.metadata.name}-"), _policy(group))
        for group in compiled.hierarchy.objects()
    ]


def _policy(group: Any) -> Any:
    policy = group.spec.scheduling_policy
    if policy.gang is not None:
        return ("gang", getattr(policy.gang, "min_count", None) or getattr(policy.gang, "min_group_count", None))
    return "basic"


@pytest.mark.parametrize(
    ("obj", "composite", "expected"),
    [
        (upstream("vcjob.yaml"), False, [("test-job", ("gang", 3))]),
        (upstream("gang-mpi-example.yaml"), False, [("lm-mpi-job", ("gang", 4))]),
        (job(), False, [("v", ("gang", 5))]),
        (job(minAvailable=0), False, [("v", ("gang", 5))]),
        (with_task(job(), 1, minAvailable=1), False, [("v", ("gang", 3))]),
        (job(), True, [("v", ("gang", 2)), ("a", ("gang", 2)), ("b", ("gang", 3))]),
        (with_task(job(), 1, minAvailable=1), True, [("v", ("gang", 2)), ("a", ("gang", 2)), ("b", ("gang", 1))]),
    ],
    ids=[
        "upstream-vcjob",
        "upstream-mpi",
        "defaults-to-every-pod",
        "zero-is-defaulted-as-unset",
        "task-minimum-sums-into-the-job",
        "composite-one-gang-per-task",
        "composite-task-minimum",
    ],
)
def test_gang_sizes(obj: dict[str, Any], composite: bool, expected: list[tuple[str, Any]]):
    assert gangs(VolcanoJobAdapter(composite_pod_groups=composite).plan(obj)) == expected


def test_pods_are_assigned_by_volcano_labels():
    compiled = plan_object(job()).compile()
    assert [(p.selector, p.count, p.stamp_path) for p in compiled.pods] == [
        ({JOB_NAME_LABEL: "v", TASK_SPEC_LABEL: "a"}, 2, "spec.tasks[0].template"),
        ({JOB_NAME_LABEL: "v", TASK_SPEC_LABEL: "b"}, 3, "spec.tasks[1].template"),
    ]


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (
            job(minAvailable=6),
            [
                (
                    "spec.minAvailable: Invalid value: 6: job 'minAvailable' should not be greater than total replicas "
                    "in tasks"
                )
            ],
        ),
        (
            with_task(job(), 0, minAvailable=3),
            [
                (
                    "spec.tasks[0].minAvailable: Invalid value: 3: 'minAvailable' is greater than 'replicas' in task: "
                    "a, job: v"
                )
            ],
        ),
        (job(minAvailable=-1), ["spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"]),
        (with_task(job(), 1, name="a"), ['spec.tasks[1].name: Invalid value: "a": duplicated task name a']),
        (with_task(job(), 0, name=None), []),
        (job(tasks=[]), ["spec.tasks: Required value: No task specified in job spec"]),
        (
            job(
                policies=[{"event": "PodFailed", "action": "RestartJob"}, {"event": "PodFailed", "action": "AbortJob"}]
            ),
            ['spec.policies[1].event: Invalid value: "PodFailed": duplicate event PodFailed  across different policy'],
        ),
        (
            with_task(job(), 0, policies=[{"exitCode": 0, "action": "RestartJob"}]),
            ["spec.tasks[0].policies[0].exitCode: Invalid value: 0: 0 is not a valid error code"],
        ),
        (
            job(policies=[{"event": "PodFailed", "exitCode": 3, "action": "RestartJob"}]),
            [
                'spec.policies[0]: Invalid value: {"action":"RestartJob","event":"PodFailed","exitCode":3}: '
                "must not specify event and exitCode simultaneously"
            ],
        ),
        (
            job(policies=[{"event": "*", "action": "AbortJob"}, {"event": "PodEvicted", "action": "RestartJob"}]),
            ['spec.policies[0].event: Invalid value: "*": if there\'s * here, no other policy should be here'],
        ),
        (with_task(job(), 0, replicass=2), ["spec.tasks[0].replicass: unknown field"]),
        (job(minAvailable="3"), ['spec.minAvailable: Invalid value: "3": must be of type integer']),
    ],
    ids=[
        "more-than-every-pod",
        "task-minimum-above-replicas",
        "negative",
        "duplicate-task",
        "task-without-name-is-named-default0",
        "no-task",
        "duplicated-policy-event",
        "task-exit-code-zero",
        "event-and-exit-code",
        "any-event-beside-another",
        "typo",
        "wrong-type",
    ],
)
def test_errors(obj: dict[str, Any], expected: list[str]):
    assert [str(f.error) for f in plan_object(obj).validate()] == expected


def test_what_has_no_native_equivalent_is_a_warning():
    obj = with_task(job(queue="research", schedulerName="volcano"), 1, minAvailable=1, dependsOn={"name": ["a"]})
    warnings = [str(f.error) for f in plan_object(obj).warnings]
    assert warnings == [
        (
            "spec.tasks[1].minAvailable: Unsupported value: 1: one PodGroup holds every task's pods and its gang "
            "counts "
            "pods across tasks (spec.minAvailable): a per-task minimum has no equivalent there; plan with "
            "CompositePodGroups for one gang per task"
        ),
        (
            'spec.queue: Unsupported value: "research": Volcano\'s queue has no equivalent in the Workload API: '
            "quota and "
            "queueing are Kueue's (a LocalQueue and the kueue.x-k8s.io/queue-name label)"
        ),
        (
            'spec.schedulerName: Unsupported value: "volcano": the Workload and its groups are read by kube-scheduler; '
            "pods this scheduler places ignore them: remove schedulerName to schedule the pods natively"
        ),
        (
            "spec.tasks[1].dependsOn: Unsupported value: Volcano starts this task after the tasks it depends on; the "
            "Workload's groups do not order tasks, and a gang over tasks started one after another waits for pods not "
            "yet created"
        ),
    ]


def test_priority_class_name_is_the_groups():
    compiled = plan_object(job(priorityClassName="high")).compile()
    assert compiled.workload.spec.pod_group_templates[0].priority_class_name == "high"


def test_kueue_required_topology_is_the_gangs_constraint():
    obj = job()
    for task in obj["spec"]["tasks"]:
        task["template"]["metadata"] = {"annotations": {"kueue.x-k8s.io/podset-required-topology": "rack"}}
    templates = plan_object(obj).compile().workload.spec.pod_group_templates
    assert [[c.key for c in t.scheduling_constraints.topology] for t in templates] == [["rack"]]
