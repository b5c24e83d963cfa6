"""The controllers' webhook defaults, applied before the strict checks as the apiserver applies them."""

from __future__ import annotations

from typing import Any

import pytest

from workloadbuilder.adapters._shared.defaults import defaulted
from workloadbuilder.adapters._shared.strict import schema_errors

POD = {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}


def jobset(**spec: Any) -> dict[str, Any]:
    rjob = {"name": "w", "template": {"spec": {"template": POD}}}
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "js"},
        "spec": {"replicatedJobs": [rjob], **spec},
    }


def volcano(**spec: Any) -> dict[str, Any]:
    tasks = [{"replicas": 2, "template": POD}, {"name": "b", "replicas": 3, "minAvailable": 1, "template": POD}]
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "v"},
        "spec": {"tasks": tasks, **spec},
    }


def lws() -> dict[str, Any]:
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "l"},
        "spec": {"leaderWorkerTemplate": {"restartPolicy": "Default", "workerTemplate": POD}},
    }


@pytest.mark.parametrize(
    ("obj", "path", "expected"),
    [
        (
            jobset(failurePolicy={"rules": [{"action": "FailJobSet"}, {"name": "mine", "action": "RestartJobSet"}]}),
            ("spec", "failurePolicy", "rules"),
            [{"action": "FailJobSet", "name": "failurePolicyRule0"}, {"name": "mine", "action": "RestartJobSet"}],
        ),
        (jobset(), ("spec", "successPolicy"), {"operator": "All"}),
        (jobset(), ("spec", "startupPolicy"), {"startupPolicyOrder": "AnyOrder"}),
        (jobset(), ("spec", "network"), {"enableDNSHostnames": True, "publishNotReadyAddresses": True}),
        (jobset(), ("spec", "replicatedJobs", 0, "template", "spec", "completionMode"), "Indexed"),
        (jobset(), ("spec", "replicatedJobs", 0, "template", "spec", "template", "spec", "restartPolicy"), "OnFailure"),
        (
            jobset(volumeClaimPolicies=[{"templates": []}]),
            ("spec", "volumeClaimPolicies", 0, "retentionPolicy"),
            {"whenDeleted": "Delete"},
        ),
        (lws(), ("spec", "leaderWorkerTemplate", "restartPolicy"), "None"),
        (
            lws(),
            ("spec", "rolloutStrategy"),
            {
                "type": "RollingUpdate",
                "rollingUpdateConfiguration": {"maxUnavailable": 1, "maxSurge": 0, "partition": 0},
            },
        ),
        (lws(), ("spec", "networkConfig"), {"subdomainPolicy": "Shared"}),
        (volcano(), ("spec", "tasks", 0, "name"), "default0"),
        (volcano(), ("spec", "tasks", 0, "minAvailable"), 2),
        (volcano(), ("spec", "minAvailable"), 3),
        (volcano(minAvailable=0), ("spec", "minAvailable"), 3),
        (volcano(), ("spec", "queue"), "default"),
        (volcano(plugins={"mpi": []}), ("spec", "plugins"), {"mpi": [], "svc": [], "ssh": []}),
    ],
    ids=[
        "jobset-rule-names",
        "jobset-success-policy",
        "jobset-startup-policy",
        "jobset-network",
        "jobset-indexed",
        "jobset-restart-policy",
        "jobset-claim-retention",
        "lws-deprecated-default-restart",
        "lws-rollout",
        "lws-subdomain",
        "volcano-task-name",
        "volcano-task-minimum",
        "volcano-job-minimum",
        "volcano-zero-minimum",
        "volcano-queue",
        "volcano-plugins",
    ],
)
def test_defaults(obj: dict[str, Any], path: tuple[Any, ...], expected: Any):
    value: Any = defaulted(obj)
    for step in path:
        value = value[step]
    assert value == expected


def test_the_input_is_not_changed_and_a_missing_template_stays_missing():
    obj = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "js"},
        "spec": {"replicatedJobs": [{"name": "w"}]},
    }
    before = repr(obj)
    assert [str(e) for e in schema_errors(obj)] == ["spec.replicatedJobs[0].template: Required value"]
    assert repr(obj) == before


def test_an_unnamed_rule_is_no_required_value():
    obj = jobset(failurePolicy={"rules": [{"action": "FailJobSet"}]})
    assert [str(e) for e in schema_errors(obj)] == []
