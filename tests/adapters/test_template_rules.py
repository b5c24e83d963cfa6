"""Every controller's pod-template rules on an object of any kind (``adapters.template_rules``)."""

from __future__ import annotations

from typing import Any

from workloadbuilder.adapters._shared.pod_rules import pod_template_errors
from workloadbuilder.adapters.template_rules import template_errors
from workloadbuilder.adapters.trainer.pods import ANCESTOR_LABEL

STEP = "spec.template.spec.replicatedJobs[0].template.spec.template.spec"


def runtime(container: str) -> dict[str, Any]:
    step = {
        "name": "node",
        "template": {
            "metadata": {"labels": {ANCESTOR_LABEL: "trainer"}},
            "spec": {"template": {"spec": {"containers": [{"name": container, "image": "i"}]}}},
        },
    }
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "ClusterTrainingRuntime",
        "metadata": {"name": "r"},
        "spec": {"template": {"spec": {"replicatedJobs": [step]}}},
    }


def volcano(volumes: list[dict[str, Any]]) -> dict[str, Any]:
    task = {"name": "a", "replicas": 1, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "v"},
        "spec": {"tasks": [task], "volumes": volumes},
    }


def test_a_runtime_step_without_its_container_breaks_trainers_rule_after_the_pod_rules() -> None:
    assert [str(e) for e in template_errors(runtime("trainer"))] == [
        f"{STEP}.containers: Invalid value: must contain the required container for the ancestor: node"
    ]
    assert list(template_errors(runtime("node"))) == []


def test_a_volcano_jobs_volumes_are_judged_by_validate_io() -> None:
    assert [str(e) for e in template_errors(volcano([{"mountPath": "/data"}]))] == [
        "spec.volumes[0]: Required value: either VolumeClaim or VolumeClaimName must be specified"
    ]


def test_the_shared_pod_rules_alone_run_no_controllers_rule() -> None:
    assert list(pod_template_errors(runtime("trainer"))) == []
    assert list(pod_template_errors(volcano([{"mountPath": "/data"}]))) == []


def test_the_pod_rules_come_first_then_the_controllers_rules() -> None:
    obj = runtime("Trainer")  # not a DNS label, and not the step's container
    assert [str(e).split(": ", 2)[1] for e in template_errors(obj)] == ["Invalid value", "Invalid value"]
    assert [str(e.field) for e in template_errors(obj)] == [f"{STEP}.containers[0].name", f"{STEP}.containers"]
