"""Materialization of runtime PodGroups and CompositePodGroups from templates (port of upstream podgroup_test.go)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from kubernetes.client import (
    V1beta1CompositePodGroupTemplate,
    V1beta1PodGroupTemplate,
    V1beta1Workload,
    V1OwnerReference,
)

from workloadbuilder import to_dict
from workloadbuilder.podgroup import new_composite_pod_group, new_pod_group

ZONE = "topology.kubernetes.io/zone"


def gang_workload() -> V1beta1Workload:
    """One leaf template ``workers`` with every scheduling field set."""
    return V1beta1Workload.model_validate(
        {
            "metadata": {"name": "job-abc", "namespace": "training"},
            "spec": {
                "podGroupTemplates": [
                    {
                        "name": "workers",
                        "schedulingPolicy": {"gang": {"minCount": 4}},
                        "schedulingConstraints": {"topology": [{"key": ZONE}]},
                        "disruptionMode": {"all": {}},
                        "resourceClaims": [{"name": "gpu", "resourceClaimName": "shared-gpu"}],
                        "priorityClassName": "high",
                        "priority": 1000,
                    }
                ]
            },
        }
    )


def composite_workload() -> V1beta1Workload:
    """A composite template ``top`` (gang of 2, priority set) holding a basic composite ``nested``."""
    return V1beta1Workload.model_validate(
        {
            "metadata": {"name": "job-abc", "namespace": "training"},
            "spec": {
                "compositePodGroupTemplates": [
                    {
                        "name": "top",
                        "schedulingPolicy": {"gang": {"minGroupCount": 2}},
                        "priorityClassName": "high",
                        "priority": 1000,
                        "compositePodGroupTemplates": [{"name": "nested", "schedulingPolicy": {"basic": {}}}],
                    }
                ]
            },
        }
    )


def first_leaf(workload: V1beta1Workload) -> V1beta1PodGroupTemplate:
    return workload.spec.pod_group_templates[0]


def top_composite(workload: V1beta1Workload) -> V1beta1CompositePodGroupTemplate:
    return workload.spec.composite_pod_group_templates[0]


def nested_composite(workload: V1beta1Workload) -> V1beta1CompositePodGroupTemplate:
    return workload.spec.composite_pod_group_templates[0].composite_pod_group_templates[0]


JOB_OWNER = {"apiVersion": "batch/v1", "kind": "Job", "name": "job", "uid": "job-uid"}


def owners(*refs: dict[str, Any]) -> list[V1OwnerReference]:
    return [V1OwnerReference.model_validate(ref) for ref in refs]


# --- TestNewPodGroup ---


def test_new_pod_group_materializes_every_field() -> None:
    """TestNewPodGroup/materializes every field from the template.

    The kubernetes client requires an owner ``uid``, which the Go fixture leaves out; uids are added.
    """
    controller = {"apiVersion": "batch/v1", "kind": "Job", "name": "job", "uid": "job-uid", "controller": True}
    workload_owner = {
        "apiVersion": "scheduling.k8s.io/v1alpha3",
        "kind": "Workload",
        "name": "job-abc",
        "uid": "wl-uid",
    }
    workload = gang_workload()

    pod_group = new_pod_group(workload, first_leaf(workload), "job-abc-workers-xyz", owners(controller, workload_owner))

    assert to_dict(pod_group) == {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {
            "name": "job-abc-workers-xyz",
            "namespace": "training",
            "ownerReferences": [controller, workload_owner],
        },
        "spec": {
            "workloadRef": {"workloadName": "job-abc", "templateName": "workers"},
            "schedulingPolicy": {"gang": {"minCount": 4}},
            "schedulingConstraints": {"topology": [{"key": ZONE}]},
            "disruptionMode": {"all": {}},
            "resourceClaims": [{"name": "gpu", "resourceClaimName": "shared-gpu"}],
            "priorityClassName": "high",
            "priority": 1000,
        },
    }


def test_new_pod_group_does_not_alias_the_template() -> None:
    """TestNewPodGroup/does not alias the workload template."""
    workload = gang_workload()
    template_before = to_dict(first_leaf(workload))

    pod_group = new_pod_group(workload, first_leaf(workload), "pg", [])
    pod_group.spec.scheduling_policy.gang.min_count = 99
    pod_group.spec.scheduling_constraints.topology[0].key = "changed"
    pod_group.spec.resource_claims[0].name = "changed"
    pod_group.spec.disruption_mode.all["x"] = "changed"
    pod_group.spec.priority = 1

    assert to_dict(first_leaf(workload)) == template_before
    assert to_dict(pod_group)["spec"]["schedulingPolicy"] == {"gang": {"minCount": 99}}


# --- TestNewCompositePodGroup ---


def expected_composite(
    name: str, template: str, spec: dict[str, Any], owner_refs: list[dict[str, Any]]
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": "training"}
    if owner_refs:
        metadata["ownerReferences"] = owner_refs
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha3",
        "kind": "CompositePodGroup",
        "metadata": metadata,
        "spec": {"workloadRef": {"workloadName": "job-abc", "templateName": template}, **spec},
    }


TOP_SPEC = {"schedulingPolicy": {"gang": {"minGroupCount": 2}}, "priorityClassName": "high", "priority": 1000}


@pytest.mark.parametrize(
    ("pick", "name", "owner_refs", "expected"),
    [
        pytest.param(
            top_composite,
            "job-abc-top-xyz",
            [JOB_OWNER],
            expected_composite("job-abc-top-xyz", "top", TOP_SPEC, [JOB_OWNER]),
            id="materializes a top-level composite template",
        ),
        pytest.param(
            nested_composite,
            "job-abc-nested-xyz",
            [],
            expected_composite("job-abc-nested-xyz", "nested", {"schedulingPolicy": {"basic": {}}}, []),
            id="materializes a nested composite template",
        ),
        pytest.param(
            top_composite,
            "cpg",
            [],
            expected_composite("cpg", "top", TOP_SPEC, []),
            id="omits ownerReferences when none are configured",
        ),
    ],
)
def test_new_composite_pod_group(
    pick: Callable[[V1beta1Workload], V1beta1CompositePodGroupTemplate],
    name: str,
    owner_refs: list[dict[str, Any]],
    expected: dict[str, Any],
) -> None:
    workload = composite_workload()

    group = new_composite_pod_group(workload, pick(workload), name, owners(*owner_refs))

    assert to_dict(group) == expected


def test_new_composite_pod_group_does_not_alias_the_template() -> None:
    """TestNewCompositePodGroup/does not alias the workload template."""
    workload = composite_workload()
    template_before = to_dict(top_composite(workload))

    group = new_composite_pod_group(workload, top_composite(workload), "cpg", [])
    group.spec.scheduling_policy.gang.min_group_count = 99
    group.spec.priority = 1

    assert to_dict(top_composite(workload)) == template_before


def test_new_composite_pod_group_copies_constraints_and_mode_without_aliasing() -> None:
    workload = V1beta1Workload.model_validate(
        {
            "metadata": {"name": "job-abc", "namespace": "training"},
            "spec": {
                "compositePodGroupTemplates": [
                    {
                        "name": "top",
                        "schedulingPolicy": {"basic": {}},
                        "schedulingConstraints": {"topology": [{"key": ZONE}]},
                        "disruptionMode": {"single": {}},
                    }
                ]
            },
        }
    )
    template_before = to_dict(top_composite(workload))

    group = new_composite_pod_group(workload, top_composite(workload), "cpg", [])
    assert to_dict(group) == expected_composite(
        "cpg",
        "top",
        {
            "schedulingPolicy": {"basic": {}},
            "schedulingConstraints": {"topology": [{"key": ZONE}]},
            "disruptionMode": {"single": {}},
        },
        [],
    )
    group.spec.scheduling_constraints.topology[0].key = "changed"
    group.spec.disruption_mode.single["x"] = "changed"
    group.spec.scheduling_policy.basic["x"] = "changed"

    assert to_dict(top_composite(workload)) == template_before


# --- deliberate difference 3: preemptionPolicy is copied (Go drops it) ---


def test_new_pod_group_copies_preemption_policy() -> None:
    workload = gang_workload()
    first_leaf(workload).preemption_policy = "Never"

    pod_group = new_pod_group(workload, first_leaf(workload), "pg", [])

    assert to_dict(pod_group)["spec"]["preemptionPolicy"] == "Never"
    assert to_dict(pod_group)["spec"]["priority"] == 1000


def test_new_composite_pod_group_copies_preemption_policy() -> None:
    workload = composite_workload()
    top_composite(workload).preemption_policy = "PreemptLowerPriority"

    group = new_composite_pod_group(workload, top_composite(workload), "cpg", [])

    assert to_dict(group) == expected_composite(
        "cpg", "top", {**TOP_SPEC, "preemptionPolicy": "PreemptLowerPriority"}, []
    )
