"""check_update (the apiserver's answer to an update) and gang_resize_patch (the one change always allowed)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from kubernetes.client import V1beta1PodGroup
from objects_factories import (
    changed,
    composite,
    composite_pod_group,
    composite_workload,
    leaf,
    pod_group,
    strings,
    workload,
)

from workloadbuilder import check_update
from workloadbuilder.runtime.resizing import gang_resize_patch
from workloadbuilder.validation.gates import FeatureGates

T0 = "spec.podGroupTemplates[0]"
IMMUTABLE = "Invalid value: null: field is immutable"
GANG_ONLY = FeatureGates(enabled={"GenericWorkload"})
ONE_PRIORITY = "spec: Invalid value: null: detected multiple priority configurations"
ONE_COMPOSITE_PRIORITY = (
    "spec: Invalid value: null: all priority and priorityClassName values must be identical, detected multiple values"
)

OLD_WORKLOAD = workload(
    leaf(
        "worker",
        gang=4,
        schedulingConstraints={"topology": [{"key": "zone"}]},
        resourceClaims=[{"name": "gpus", "resourceClaimName": "g"}],
        disruptionMode={"all": {}},
        priorityClassName="high",
        priority=100,
        preemptionPolicy="Never",
    ),
    leaf("launcher", priorityClassName="high", priority=100),  # every template has the one priority
    controllerRef={"apiGroup": "batch", "kind": "Job", "name": "train"},
)

WORKLOAD_CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("unchanged", OLD_WORKLOAD, []),
    ("min-count-changed", changed(OLD_WORKLOAD, "spec.podGroupTemplates.0.schedulingPolicy.gang.minCount", 8), []),
    (
        "min-count-zero",
        changed(OLD_WORKLOAD, "spec.podGroupTemplates.0.schedulingPolicy.gang.minCount", 0),
        [f"{T0}.schedulingPolicy.gang.minCount: Required value"],
    ),
    ("labels-changed", changed(OLD_WORKLOAD, "metadata.labels", {"a": "b"}), []),
    (
        "template-added",
        changed(
            OLD_WORKLOAD,
            "spec.podGroupTemplates",
            OLD_WORKLOAD["spec"]["podGroupTemplates"] + [leaf("extra", priorityClassName="high", priority=100)],
        ),
        ["spec.podGroupTemplates[2]: Forbidden: item may not be added"],
    ),
    (
        "template-removed",
        changed(OLD_WORKLOAD, "spec.podGroupTemplates", OLD_WORKLOAD["spec"]["podGroupTemplates"][:1]),
        ["spec.podGroupTemplates: Forbidden: item may not be removed"],
    ),
    (
        "template-renamed",
        changed(OLD_WORKLOAD, "spec.podGroupTemplates.1.name", "driver"),
        [
            "spec.podGroupTemplates[1]: Forbidden: item may not be added",
            "spec.podGroupTemplates: Forbidden: item may not be removed",
        ],
    ),
    (
        "templates-reordered",
        changed(OLD_WORKLOAD, "spec.podGroupTemplates", OLD_WORKLOAD["spec"]["podGroupTemplates"][::-1]),
        [],
    ),
    (
        "gang-to-basic",
        changed(OLD_WORKLOAD, "spec.podGroupTemplates.0.schedulingPolicy", {"basic": {}}),
        [
            f"{T0}.schedulingPolicy.basic: {IMMUTABLE}",
            f"{T0}.schedulingPolicy.gang: Invalid value: null: field cannot be cleared once set",
        ],
    ),
    (
        "basic-to-gang",
        changed(OLD_WORKLOAD, "spec.podGroupTemplates.1.schedulingPolicy", {"gang": {"minCount": 2}}),
        [
            "spec.podGroupTemplates[1].schedulingPolicy.basic: Invalid value: null: field is immutable",
            "spec.podGroupTemplates[1].schedulingPolicy.gang: Invalid value: null: field cannot be set once created",
        ],
    ),
    (
        "constraints-changed",
        changed(OLD_WORKLOAD, "spec.podGroupTemplates.0.schedulingConstraints.topology.0.key", "rack"),
        [f"{T0}.schedulingConstraints: {IMMUTABLE}"],
    ),
    (
        "constraints-cleared",
        changed(OLD_WORKLOAD, "spec.podGroupTemplates.0.schedulingConstraints", ...),
        [f"{T0}.schedulingConstraints: {IMMUTABLE}"],
    ),
    (
        "claims-changed",
        changed(OLD_WORKLOAD, "spec.podGroupTemplates.0.resourceClaims.0.resourceClaimName", "h"),
        [f"{T0}.resourceClaims: {IMMUTABLE}"],
    ),
    (
        "mode-changed",
        changed(OLD_WORKLOAD, "spec.podGroupTemplates.0.disruptionMode", {"single": {}}),
        [f"{T0}.disruptionMode: {IMMUTABLE}"],
    ),
    (
        "mode-set",
        changed(OLD_WORKLOAD, "spec.podGroupTemplates.1.disruptionMode", {"single": {}}),
        [f"spec.podGroupTemplates[1].disruptionMode: {IMMUTABLE}"],
    ),
    (
        "priority-class-changed",
        changed(OLD_WORKLOAD, "spec.podGroupTemplates.0.priorityClassName", "low"),
        [ONE_PRIORITY, f"{T0}.priorityClassName: {IMMUTABLE}"],
    ),
    (
        "priority-changed",
        changed(OLD_WORKLOAD, "spec.podGroupTemplates.0.priority", 5),
        [ONE_PRIORITY, f"{T0}.priority: {IMMUTABLE}"],
    ),
    (
        "preemption-policy-cleared",
        changed(OLD_WORKLOAD, "spec.podGroupTemplates.0.preemptionPolicy", ...),
        [f"{T0}.preemptionPolicy: {IMMUTABLE}"],
    ),
    (
        "controller-ref-changed",
        changed(OLD_WORKLOAD, "spec.controllerRef.name", "other"),
        [f"spec.controllerRef: {IMMUTABLE}"],
    ),
    ("controller-ref-cleared", changed(OLD_WORKLOAD, "spec.controllerRef", ...), [f"spec.controllerRef: {IMMUTABLE}"]),
    (
        "renamed",
        changed(OLD_WORKLOAD, "metadata.name", "other"),
        ['metadata.name: Invalid value: "other": field is immutable'],
    ),
    (
        "moved",
        changed(OLD_WORKLOAD, "metadata.namespace", "prod"),
        ['metadata.namespace: Invalid value: "prod": field is immutable'],
    ),
]


@pytest.mark.parametrize(
    ("new", "expected"), [(n, e) for _, n, e in WORKLOAD_CASES], ids=[i for i, *_ in WORKLOAD_CASES]
)
def test_workload_updates(new: dict[str, Any], expected: list[str]):
    assert strings(check_update(OLD_WORKLOAD, new)) == expected


OLD_TREE = composite_workload(
    composite(
        "replica",
        leaf("leader", gang=1, priority=5),
        leaf("workers", gang=4, priority=5),
        gang=2,
        schedulingConstraints={"topology": [{"key": "zone"}]},
        disruptionMode={"single": {}},
        priority=5,
    )
)
C0 = "spec.compositePodGroupTemplates[0]"

TREE_CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    (
        "nested-min-count",
        changed(OLD_TREE, "spec.compositePodGroupTemplates.0.podGroupTemplates.1.schedulingPolicy.gang.minCount", 8),
        [],
    ),
    (
        "min-group-count",
        changed(OLD_TREE, "spec.compositePodGroupTemplates.0.schedulingPolicy.gang.minGroupCount", 1),
        [],
    ),
    (
        "nested-template-added",
        changed(
            OLD_TREE,
            "spec.compositePodGroupTemplates.0.podGroupTemplates",
            OLD_TREE["spec"]["compositePodGroupTemplates"][0]["podGroupTemplates"] + [leaf("spare", priority=5)],
        ),
        [f"{C0}.podGroupTemplates[2]: Forbidden: item may not be added"],
    ),
    (
        "nested-composite-added",
        changed(
            OLD_TREE,
            "spec.compositePodGroupTemplates.0.compositePodGroupTemplates",
            [composite("sub", leaf("x", priority=5), priority=5)],
        ),
        [f"{C0}.compositePodGroupTemplates[0]: Forbidden: item may not be added"],
    ),
    (
        "nested-template-removed",
        changed(OLD_TREE, "spec.compositePodGroupTemplates.0.podGroupTemplates", [leaf("leader", gang=1, priority=5)]),
        [f"{C0}.podGroupTemplates: Forbidden: item may not be removed"],
    ),
    (
        "top-level-composite-added",
        changed(
            OLD_TREE,
            "spec.compositePodGroupTemplates",
            OLD_TREE["spec"]["compositePodGroupTemplates"] + [composite("spare", leaf("x", priority=5), priority=5)],
        ),
        ["spec.compositePodGroupTemplates[1]: Forbidden: item may not be added"],
    ),
    (
        "top-level-composite-replaced",
        changed(OLD_TREE, "spec.compositePodGroupTemplates", [composite("other", leaf("y", priority=5), priority=5)]),
        [
            "spec.compositePodGroupTemplates[0]: Forbidden: item may not be added",
            "spec.compositePodGroupTemplates: Forbidden: item may not be removed",
        ],
    ),
    (
        "composite-constraints",
        changed(OLD_TREE, "spec.compositePodGroupTemplates.0.schedulingConstraints", ...),
        [f"{C0}.schedulingConstraints: {IMMUTABLE}"],
    ),
    (
        "composite-mode",
        changed(OLD_TREE, "spec.compositePodGroupTemplates.0.disruptionMode", {"all": {}}),
        [f"{C0}.disruptionMode: {IMMUTABLE}"],
    ),
    (
        "composite-priority",
        changed(OLD_TREE, "spec.compositePodGroupTemplates.0.priority", 6),
        [ONE_COMPOSITE_PRIORITY, f"{C0}.priority: {IMMUTABLE}"],
    ),
    (
        "composite-basic",
        changed(OLD_TREE, "spec.compositePodGroupTemplates.0.schedulingPolicy", {"basic": {}}),
        [
            f"{C0}.schedulingPolicy.basic: {IMMUTABLE}",
            f"{C0}.schedulingPolicy.gang: Invalid value: null: field cannot be cleared once set",
        ],
    ),
]


@pytest.mark.parametrize(("new", "expected"), [(n, e) for _, n, e in TREE_CASES], ids=[i for i, *_ in TREE_CASES])
def test_composite_template_updates(new: dict[str, Any], expected: list[str]):
    assert strings(check_update(OLD_TREE, new)) == expected


RATCHETING_CASES: list[tuple[str, dict[str, Any], dict[str, Any], FeatureGates | None]] = [
    # Invalid values already stored are not reported again while they do not change.
    (
        "bad-class-kept",
        changed(workload(leaf("a", gang=2)), "spec.podGroupTemplates.0.priorityClassName", "High"),
        changed(workload(leaf("a", gang=3)), "spec.podGroupTemplates.0.priorityClassName", "High"),
        None,
    ),
    (
        "gated-field-kept",
        workload(leaf("a", gang=2, schedulingConstraints={"topology": [{"key": "zone"}]})),
        workload(leaf("a", gang=3, schedulingConstraints={"topology": [{"key": "zone"}]})),
        GANG_ONLY,
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "gates"), [(o, n, g) for _, o, n, g in RATCHETING_CASES], ids=[i for i, *_ in RATCHETING_CASES]
)
def test_unchanged_values_are_not_rechecked(old: dict[str, Any], new: dict[str, Any], gates: FeatureGates | None):
    assert check_update(old, new, gates) == []


def test_tree_rules_run_on_update_too():
    # ValidateWorkloadUpdate calls ValidateWorkloadSpec: a stored duplicate is reported on every update.
    old = composite_workload(composite("c", leaf("c", gang=2)))
    new = composite_workload(composite("c", leaf("c", gang=5)))
    assert strings(check_update(old, new)) == [f'{C0}.podGroupTemplates[0].name: Duplicate value: "c"']


OLD_POD_GROUP = pod_group(
    gang=4,
    parentCompositePodGroupName="train-replica-0",
    schedulingConstraints={"topology": [{"key": "zone"}]},
    resourceClaims=[{"name": "gpus", "resourceClaimName": "g"}],
    priorityClassName="high",
)

POD_GROUP_CASES: list[tuple[str, dict[str, Any], FeatureGates | None, list[str]]] = [
    ("min-count", changed(OLD_POD_GROUP, "spec.schedulingPolicy.gang.minCount", 2), None, []),
    ("default-mode-spelled-out", changed(OLD_POD_GROUP, "spec.disruptionMode", {"single": {}}), None, []),
    (
        "gang-to-basic",
        changed(OLD_POD_GROUP, "spec.schedulingPolicy", {"basic": {}}),
        None,
        [
            f"spec.schedulingPolicy.basic: {IMMUTABLE}",
            "spec.schedulingPolicy.gang: Invalid value: null: field cannot be cleared once set",
        ],
    ),
    (
        "workload-ref",
        changed(OLD_POD_GROUP, "spec.workloadRef.templateName", "other"),
        None,
        [f"spec.workloadRef: {IMMUTABLE}"],
    ),
    (
        "workload-ref-cleared",
        changed(OLD_POD_GROUP, "spec.workloadRef", ...),
        None,
        [f"spec.workloadRef: {IMMUTABLE}"],
    ),
    (
        "parent",
        changed(OLD_POD_GROUP, "spec.parentCompositePodGroupName", "other"),
        None,
        [f"spec.parentCompositePodGroupName: {IMMUTABLE}"],
    ),
    (
        "constraints",
        changed(OLD_POD_GROUP, "spec.schedulingConstraints", ...),
        None,
        [f"spec.schedulingConstraints: {IMMUTABLE}"],
    ),
    # With its gate off the constraints are not immutable: only setting them is refused.
    ("constraints-cleared-gate-off", changed(OLD_POD_GROUP, "spec.schedulingConstraints", ...), GANG_ONLY, []),
    (
        "constraints-changed-gate-off",
        changed(OLD_POD_GROUP, "spec.schedulingConstraints.topology.0.key", "rack"),
        GANG_ONLY,
        ["spec.schedulingConstraints: Forbidden: the TopologyAwareWorkloadScheduling feature gate is disabled"],
    ),
    ("claims", changed(OLD_POD_GROUP, "spec.resourceClaims", ...), None, [f"spec.resourceClaims: {IMMUTABLE}"]),
    ("mode", changed(OLD_POD_GROUP, "spec.disruptionMode", {"all": {}}), None, [f"spec.disruptionMode: {IMMUTABLE}"]),
    (
        "priority-class",
        changed(OLD_POD_GROUP, "spec.priorityClassName", ...),
        None,
        [f"spec.priorityClassName: {IMMUTABLE}"],
    ),
    (
        "preemption-policy",
        changed(OLD_POD_GROUP, "spec.preemptionPolicy", "Never"),
        None,
        [f"spec.preemptionPolicy: {IMMUTABLE}"],
    ),
    ("priority", changed(OLD_POD_GROUP, "spec.priority", 3), None, [f"spec.priority: {IMMUTABLE}"]),
]


@pytest.mark.parametrize(
    ("new", "gates", "expected"), [(n, g, e) for _, n, g, e in POD_GROUP_CASES], ids=[i for i, *_ in POD_GROUP_CASES]
)
def test_pod_group_updates(new: dict[str, Any], gates: FeatureGates | None, expected: list[str]):
    assert strings(check_update(OLD_POD_GROUP, new, gates)) == expected


OLD_COMPOSITE = composite_pod_group(
    gang=2,
    parentCompositePodGroupName="root",
    schedulingConstraints={"topology": [{"key": "zone"}]},
    priorityClassName="high",
)

COMPOSITE_CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("labels", changed(OLD_COMPOSITE, "metadata.labels", {"a": "b"}), []),
    # Even minGroupCount is frozen: the whole policy is immutable on a CompositePodGroup.
    (
        "min-group-count",
        changed(OLD_COMPOSITE, "spec.schedulingPolicy.gang.minGroupCount", 3),
        [f"spec.schedulingPolicy: {IMMUTABLE}"],
    ),
    (
        "parent",
        changed(OLD_COMPOSITE, "spec.parentCompositePodGroupName", ...),
        [f"spec.parentCompositePodGroupName: {IMMUTABLE}"],
    ),
    (
        "workload-ref",
        changed(OLD_COMPOSITE, "spec.workloadRef.workloadName", "other"),
        [f"spec.workloadRef: {IMMUTABLE}"],
    ),
    (
        "constraints",
        changed(OLD_COMPOSITE, "spec.schedulingConstraints", ...),
        [f"spec.schedulingConstraints: {IMMUTABLE}"],
    ),
    ("mode", changed(OLD_COMPOSITE, "spec.disruptionMode", {"all": {}}), [f"spec.disruptionMode: {IMMUTABLE}"]),
    (
        "priority-class",
        changed(OLD_COMPOSITE, "spec.priorityClassName", "low"),
        [f"spec.priorityClassName: {IMMUTABLE}"],
    ),
    ("priority", changed(OLD_COMPOSITE, "spec.priority", 1), [f"spec.priority: {IMMUTABLE}"]),
]


@pytest.mark.parametrize(
    ("new", "expected"), [(n, e) for _, n, e in COMPOSITE_CASES], ids=[i for i, *_ in COMPOSITE_CASES]
)
def test_composite_pod_group_updates(new: dict[str, Any], expected: list[str]):
    assert strings(check_update(OLD_COMPOSITE, new)) == expected


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ({"spec": {}}, pod_group(), "old must be a Workload, PodGroup or CompositePodGroup"),
        (pod_group(), workload(leaf()), "an update keeps the kind: old is a PodGroup, new a Workload"),
    ],
    ids=["no-kind", "kind-changed"],
)
def test_check_update_needs_one_known_kind(old: dict[str, Any], new: dict[str, Any], message: str):
    with pytest.raises(ValueError, match=message):
        check_update(old, new)


def apply_strategic_merge_patch(obj: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """Apply a patch whose lists have no merge strategy: objects merge, lists and values replace."""
    out = copy.deepcopy(obj)
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = apply_strategic_merge_patch(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


RESIZES: list[tuple[str, Any, int, str | None, dict[str, Any]]] = [
    ("pod-group", pod_group(gang=4), 6, None, {"spec": {"schedulingPolicy": {"gang": {"minCount": 6}}}}),
    ("pod-group-unchanged", pod_group(gang=4), 4, None, {}),
    (
        "pod-group-model",
        V1beta1PodGroup.model_validate(pod_group(gang=4)),
        1,
        None,
        {"spec": {"schedulingPolicy": {"gang": {"minCount": 1}}}},
    ),
    (
        "workload-single-gang",
        workload(leaf("w", gang=4), leaf("l")),
        8,
        None,
        {"spec": {"podGroupTemplates": [leaf("w", gang=8), leaf("l")]}},
    ),
    ("workload-unchanged", workload(leaf("w", gang=4)), 4, None, {}),
    (
        "workload-named-template",
        workload(leaf("a", gang=2), leaf("b", gang=3)),
        5,
        "b",
        {"spec": {"podGroupTemplates": [leaf("a", gang=2), leaf("b", gang=5)]}},
    ),
    (
        "workload-nested-template",
        OLD_TREE,
        3,
        "workers",
        {
            "spec": {
                "compositePodGroupTemplates": changed(
                    OLD_TREE, "spec.compositePodGroupTemplates.0.podGroupTemplates.1.schedulingPolicy.gang.minCount", 3
                )["spec"]["compositePodGroupTemplates"]
            }
        },
    ),
]


@pytest.mark.parametrize(
    ("obj", "count", "template", "expected"), [(o, c, t, e) for _, o, c, t, e in RESIZES], ids=[i for i, *_ in RESIZES]
)
def test_gang_resize_patch_changes_only_min_count(obj: Any, count: int, template: str | None, expected: dict[str, Any]):
    patch = gang_resize_patch(obj, count, template)
    assert patch == expected
    old = obj if isinstance(obj, dict) else obj.model_dump(by_alias=True, exclude_none=True)
    assert check_update(old, apply_strategic_merge_patch(old, patch)) == []


RESIZE_ERRORS: list[tuple[str, Any, Any, str | None, str]] = [
    ("zero", pod_group(gang=4), 0, None, "minCount must be an integer of at least 1, not 0"),
    ("bool", pod_group(gang=4), True, None, "minCount must be an integer of at least 1, not True"),
    ("string", pod_group(gang=4), "3", None, "minCount must be an integer of at least 1, not '3'"),
    ("basic-pod-group", pod_group(), 3, None, "the PodGroup is not a gang: only a gang's minCount can change"),
    (
        "two-gangs",
        workload(leaf("a", gang=2), leaf("b", gang=3)),
        4,
        None,
        r"name the template to resize: the Workload has 2 gang templates \(a b\)",
    ),
    ("no-gang", workload(leaf("a")), 4, None, r"name the template to resize: the Workload has 0 gang templates \(\)"),
    ("missing-template", workload(leaf("a", gang=2)), 4, "b", 'podGroupTemplate "b" not found in the Workload'),
    ("basic-template", workload(leaf("a", gang=2), leaf("b")), 4, "b", 'podGroupTemplate "b" is not a gang'),
    ("composite-pod-group", composite_pod_group(gang=2), 3, None, "resizes a PodGroup or a Workload's template"),
]


@pytest.mark.parametrize(
    ("obj", "count", "template", "message"),
    [(o, c, t, m) for _, o, c, t, m in RESIZE_ERRORS],
    ids=[i for i, *_ in RESIZE_ERRORS],
)
def test_gang_resize_patch_refuses_what_cannot_change(obj: Any, count: Any, template: str | None, message: str):
    with pytest.raises(ValueError, match=message):
        gang_resize_patch(obj, count, template)
