"""A Volcano Job's pods as its job controller and webhook make them (``adapters.volcano.pods``)."""

from __future__ import annotations

from workloadbuilder.adapters.volcano.pods import render_pod_template

JOB = {
    "apiVersion": "batch.volcano.sh/v1alpha1",
    "kind": "Job",
    "metadata": {"name": "v", "namespace": "ns", "uid": "u"},
    "spec": {
        "schedulerName": "volcano",
        "priorityClassName": "high",
        "tasks": [{"name": "a", "replicas": 1, "template": {"spec": {"containers": [{"name": "c"}]}}}],
    },
}


def test_a_tasks_pod_gets_volcanos_annotations_labels_and_the_jobs_scheduler_and_priority() -> None:
    assert render_pod_template(JOB, 0) == {
        "metadata": {
            "annotations": {
                "volcano.sh/task-spec": "a",
                "scheduling.k8s.io/group-name": "v-u",
                "volcano.sh/job-name": "v",
                "volcano.sh/queue-name": "default",
                "volcano.sh/job-version": "0",
                "volcano.sh/template-uid": "v-a",
                "volcano.sh/job-retry-count": "0",
            },
            "labels": {
                "volcano.sh/job-name": "v",
                "volcano.sh/task-spec": "a",
                "volcano.sh/job-namespace": "ns",
                "volcano.sh/queue-name": "default",
            },
        },
        "spec": {"containers": [{"name": "c"}], "schedulerName": "volcano", "priorityClassName": "high"},
    }


def test_a_task_that_is_not_there_renders_nothing() -> None:
    assert render_pod_template(JOB, 5) is None
