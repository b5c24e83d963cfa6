"""Migration from Volcano, coscheduling and Kueue pod groups to native Workloads and PodGroups."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from workloadbuilder.migration.gangs import (
    is_foreign_pod_group,
    is_kueue_pod,
    migrate_kueue_pods,
    migrate_pod_group,
    pod_group_members,
)
from workloadbuilder.validation.objects import validate_pod_group, validate_workload

UPSTREAM = Path(__file__).resolve().parents[1] / "data" / "upstream"


def volcano(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "pg", "namespace": "ml"},
        "spec": spec,
    }


def coscheduling(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "metadata": {"name": "pg"}, "spec": spec}


@pytest.mark.parametrize(
    ("obj", "policy", "dropped"),
    [
        (volcano(minMember=4), {"gang": {"minCount": 4}}, []),
        (volcano(minMember=1), {"basic": {}}, []),
        (
            volcano(minMember=4, minResources={"cpu": "4"}, queue="q", minTaskMember={"w": 3}),
            {"gang": {"minCount": 4}},
            [
                (
                    "spec.minResources: no native equivalent: kube-scheduler's gang waits for pods, not for an amount "
                    "of "
                    "resources"
                ),
                (
                    "spec.queue: no native equivalent: queueing and quota are Kueue's: a LocalQueue and the "
                    "kueue.x-k8s.io/queue-name label"
                ),
                (
                    "spec.minTaskMember: no native equivalent: per-task minimums need one PodGroup per task (a "
                    "CompositePodGroup over them)"
                ),
            ],
        ),
        (
            coscheduling(minMember=3, scheduleTimeoutSeconds=10, minResources={"cpu": "3"}),
            {"gang": {"minCount": 3}},
            [
                (
                    "spec.scheduleTimeoutSeconds: no native equivalent: a native gang waits until its pods fit; "
                    "kube-scheduler has no gang timeout"
                ),
                (
                    "spec.minResources: no native equivalent: kube-scheduler's gang waits for pods, not for an amount "
                    "of "
                    "resources"
                ),
            ],
        ),
    ],
    ids=["volcano-gang", "volcano-one-member-is-basic", "volcano-lossy-fields", "coscheduling"],
)
def test_foreign_pod_groups_become_native(obj: dict[str, Any], policy: dict[str, Any], dropped: list[str]):
    assert is_foreign_pod_group(obj)
    result = migrate_pod_group(obj)
    workload, pod_group = result.objects
    assert (workload["kind"], pod_group["kind"]) == ("Workload", "PodGroup")
    assert pod_group["spec"]["schedulingPolicy"] == policy
    assert workload["spec"]["podGroupTemplates"][0]["schedulingPolicy"] == policy
    assert pod_group["spec"]["workloadRef"] == {"workloadName": "pg", "templateName": "pg"}
    assert result.dropped == dropped
    assert validate_workload(workload) == []
    assert validate_pod_group(pod_group) == []


def test_volcano_priority_class_is_carried():
    workload, pod_group = migrate_pod_group(volcano(minMember=2, priorityClassName="high")).objects
    assert workload["spec"]["podGroupTemplates"][0]["priorityClassName"] == "high"
    assert pod_group["spec"]["priorityClassName"] == "high"


def test_kueue_pod_group_becomes_a_gang_of_its_total_count():
    pods = [doc for doc in yaml.safe_load_all((UPSTREAM / "kueue" / "kueue-pod-group.yaml").read_text()) if doc]
    assert all(is_kueue_pod(pod) for pod in pods)
    result = migrate_kueue_pods(pods)
    _workload, pod_group, *members = result.objects
    assert pod_group["metadata"] == {"name": "sample-group"}
    assert pod_group["spec"]["schedulingPolicy"] == {"gang": {"minCount": 2}}
    assert [pod["spec"]["schedulingGroup"] for pod in members] == [{"podGroupName": "sample-group"}] * 2
    assert [pod["metadata"]["generateName"] for pod in members] == ["sample-leader-", "sample-worker-"]
    assert result.dropped == []


def test_kueue_pods_without_a_count_are_sized_by_the_input():
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "a", "labels": {"kueue.x-k8s.io/pod-group-name": "g"}},
    }
    result = migrate_kueue_pods([pod, {**pod, "metadata": {**pod["metadata"], "name": "b"}}, pod])
    assert result.objects[1]["spec"]["schedulingPolicy"] == {"gang": {"minCount": 3}}
    assert result.dropped == [
        'pod group "g": its Pods do not give kueue.x-k8s.io/pod-group-total-count: sized by its 3 Pods in the input'
    ]


def test_not_a_foreign_pod_group_is_a_type_error():
    with pytest.raises(TypeError):
        migrate_pod_group({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup"})


@pytest.mark.parametrize(
    ("scheduler", "kept"),
    [("volcano", False), ("scheduler-plugins-scheduler", False), ("default-scheduler", True), (None, True)],
    ids=["volcano", "scheduler-plugins", "default-named", "unnamed"],
)
def test_a_member_of_another_scheduler_is_moved_to_kube_scheduler_with_a_note(scheduler: str | None, kept: bool):
    group = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": {"name": "g"}}
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "x"}]}
    if scheduler is not None:
        spec["schedulerName"] = scheduler
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "annotations": {"scheduling.k8s.io/group-name": "g"}},
        "spec": spec,
    }
    [member] = pod_group_members(group, [group, pod])
    assert member.object["spec"].get("schedulerName") == (scheduler if kept else None)
    assert member.object["spec"]["schedulingGroup"] == {"podGroupName": "g"}
    removed = (
        f'; spec.schedulerName: "{scheduler}" removed: the pods go to default-scheduler, whose gang scheduling reads'
        " the native PodGroup (the other scheduler would ignore it)"
    )
    assert member.note.endswith(removed) is not kept
    assert pod["spec"].get("schedulerName") == scheduler  # the input is not changed
