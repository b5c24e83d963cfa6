"""The runtime groups' rules (validate_pod_group, validate_composite_pod_group), defaulting, the status subresource."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes.client import V1alpha3CompositePodGroup, V1beta1PodGroup, V1beta1PodGroupSpec, V1ObjectMeta
from objects_factories import LONG_NAME, SHORT_NAME, changed, composite_pod_group, pod_group, strings

from workloadbuilder.validation.objects import validate_composite_pod_group, validate_pod_group


def test_a_valid_pod_group_has_no_errors():
    obj = pod_group(
        gang=4,
        parentCompositePodGroupName="train-replica-0",
        schedulingConstraints={"topology": [{"key": "kubernetes.io/hostname"}]},
        resourceClaims=[{"name": "gpus", "resourceClaimName": "shared-gpus"}],
        disruptionMode={"all": {}},
        priorityClassName="high",
        priority=10,
        preemptionPolicy="PreemptLowerPriority",
    )
    assert validate_pod_group(obj) == []


def test_a_valid_composite_pod_group_has_no_errors():
    obj = composite_pod_group(
        gang=2, parentCompositePodGroupName="root", schedulingConstraints={"topology": [{"key": "zone"}]}
    )
    assert validate_composite_pod_group(obj) == []


def test_client_models_are_accepted():
    model = V1beta1PodGroup(
        metadata=V1ObjectMeta(name="pg"), spec=V1beta1PodGroupSpec(scheduling_policy={"gang": {"min_count": 2}})
    )
    assert validate_pod_group(model) == []
    cpg = V1alpha3CompositePodGroup.model_validate(composite_pod_group(gang=0))
    assert strings(validate_composite_pod_group(cpg)) == ["spec.schedulingPolicy.gang.minGroupCount: Required value"]


POD_GROUP_CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("no-workload-ref", changed(pod_group(), "spec.workloadRef", ...), []),
    (
        # The tags' dependent-required rule is alpha: the apiserver does not enforce it.
        "parent-without-workload-ref-accepted",
        changed(pod_group(parentCompositePodGroupName="p"), "spec.workloadRef", ...),
        [],
    ),
    (
        "parent-format",
        pod_group(parentCompositePodGroupName="P"),
        [f'spec.parentCompositePodGroupName: Invalid value: "P": {LONG_NAME}'],
    ),
    (
        "parent-empty-string",
        pod_group(parentCompositePodGroupName=""),
        [f'spec.parentCompositePodGroupName: Invalid value: "": {LONG_NAME}'],
    ),
    (
        "workload-ref-empty",
        pod_group(workloadRef={}),
        ["spec.workloadRef.workloadName: Required value", "spec.workloadRef.templateName: Required value"],
    ),
    (
        "workload-ref-formats",
        pod_group(workloadRef={"workloadName": "Train", "templateName": "a.b"}),
        [
            f'spec.workloadRef.workloadName: Invalid value: "Train": {LONG_NAME}',
            'spec.workloadRef.templateName: Invalid value: "a.b": must not contain dots',
        ],
    ),
    (
        "policy-none",
        pod_group(schedulingPolicy={}),
        ['spec.schedulingPolicy: Invalid value: "": must specify one of: `basic`, `gang`'],
    ),
    ("min-count-zero", pod_group(gang=0), ["spec.schedulingPolicy.gang.minCount: Required value"]),
    (
        "topology-two",
        pod_group(schedulingConstraints={"topology": [{"key": "a"}, {"key": "b"}]}),
        ["spec.schedulingConstraints.topology: Too many: 2: must have at most 1 item"],
    ),
    (
        "claims",
        pod_group(resourceClaims=[{"name": "a", "resourceClaimName": "x"}, {"name": "a"}]),
        [
            'spec.resourceClaims[1]: Duplicate value: {"name":"a"}',
            'spec.resourceClaims[1]: Invalid value: "": must specify one of: `resourceClaimName`, '
            "`resourceClaimTemplateName`",
        ],
    ),
    (
        "claims-five",
        pod_group(resourceClaims=[{"name": f"c{i}"} for i in range(5)]),
        ["spec.resourceClaims: Too many: 5: must have at most 4 items"],
    ),
    (
        "claim-name",
        pod_group(resourceClaims=[{"name": "A", "resourceClaimName": "x"}]),
        [f'spec.resourceClaims[0].name: Invalid value: "A": {SHORT_NAME}'],
    ),
    ("mode-defaulted-to-single", pod_group(), []),
    ("mode-null-defaulted", pod_group(disruptionMode=None), []),
    (
        "mode-empty",
        pod_group(disruptionMode={}),
        ['spec.disruptionMode: Invalid value: "": must specify one of: `single`, `all`'],
    ),
    (
        "priority",
        pod_group(priority=1_000_000_001),
        ["spec.priority: Invalid value: 1000000001: must be less than or equal to 1000000000"],
    ),
    (
        "priority-class",
        pod_group(priorityClassName="-x"),
        [f'spec.priorityClassName: Invalid value: "-x": {LONG_NAME}'],
    ),
    (
        "preemption-policy",
        pod_group(preemptionPolicy="never"),
        ['spec.preemptionPolicy: Unsupported value: "never": supported values: "Never", "PreemptLowerPriority"'],
    ),
    (
        "status-ignored-on-create",
        changed(pod_group(), "status", {"resourceClaimStatuses": [{"name": "a", "resourceClaimName": "X"}]}),
        [],
    ),
    ("unknown-field", pod_group(podGroupTemplateRef={}), ["spec.podGroupTemplateRef: unknown field"]),
]


@pytest.mark.parametrize(
    ("obj", "expected"), [(o, e) for _, o, e in POD_GROUP_CASES], ids=[i for i, *_ in POD_GROUP_CASES]
)
def test_pod_group_create_rules(obj: dict[str, Any], expected: list[str]):
    assert strings(validate_pod_group(obj)) == expected


COMPOSITE_CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("no-workload-ref", changed(composite_pod_group(), "spec.workloadRef", ...), ["spec.workloadRef: Required value"]),
    (
        "workload-ref-template",
        composite_pod_group(template="Replica"),
        [f'spec.workloadRef.templateName: Invalid value: "Replica": {SHORT_NAME}'],
    ),
    (
        "parent-format",
        composite_pod_group(parentCompositePodGroupName="a_b"),
        [f'spec.parentCompositePodGroupName: Invalid value: "a_b": {LONG_NAME}'],
    ),
    (
        "min-group-count",
        composite_pod_group(gang=-2),
        ["spec.schedulingPolicy.gang.minGroupCount: Invalid value: -2: must be greater than or equal to 1"],
    ),
    (
        "policy-both",
        composite_pod_group(schedulingPolicy={"basic": {}, "gang": {"minGroupCount": 1}}),
        ['spec.schedulingPolicy: Invalid value: "{basic, gang}": must specify exactly one of: `basic`, `gang`'],
    ),
    (
        "topology-key",
        composite_pod_group(schedulingConstraints={"topology": [{"key": ""}]}),
        ["spec.schedulingConstraints.topology[0].key: Required value"],
    ),
    (
        "mode-both",
        composite_pod_group(disruptionMode={"single": {}, "all": {}}),
        ['spec.disruptionMode: Invalid value: "{single, all}": must specify exactly one of: `single`, `all`'],
    ),
    (
        "priority",
        composite_pod_group(priority=2**30),
        ["spec.priority: Invalid value: 1073741824: must be less than or equal to 1000000000"],
    ),
    ("claims-are-unknown", composite_pod_group(resourceClaims=[]), ["spec.resourceClaims: unknown field"]),
]


@pytest.mark.parametrize(
    ("obj", "expected"), [(o, e) for _, o, e in COMPOSITE_CASES], ids=[i for i, *_ in COMPOSITE_CASES]
)
def test_composite_pod_group_create_rules(obj: dict[str, Any], expected: list[str]):
    assert strings(validate_composite_pod_group(obj)) == expected


CLAIM_MATCH = "must match the name of an entry in `spec.resourceClaims`"
# (id, names of the stored spec's claims, status.resourceClaimStatuses, errors)
STATUS_CASES: list[tuple[str, list[str], list[dict[str, Any]], list[str]]] = [
    ("fine", ["gpus", "nics"], [{"name": "gpus", "resourceClaimName": "train-gpus-x7k"}, {"name": "nics"}], []),
    (
        "too-many-hand-written-first",
        ["c0", "c1", "c2", "c3"],
        [{"name": f"c{i}"} for i in range(5)],
        [
            f'status.resourceClaimStatuses[4].name: Invalid value: "c4": {CLAIM_MATCH}',
            "status.resourceClaimStatuses: Too many: 5: must have at most 4 items",
        ],
    ),
    (
        "name-not-a-spec-claim",
        ["gpus"],
        [{"name": "gpus"}, {"name": "disks"}],
        [f'status.resourceClaimStatuses[1].name: Invalid value: "disks": {CLAIM_MATCH}'],
    ),
    (
        "no-spec-claims",
        [],
        [{"name": "gpus"}],
        [f'status.resourceClaimStatuses[0].name: Invalid value: "gpus": {CLAIM_MATCH}'],
    ),
    (
        "duplicate",
        ["a"],
        [{"name": "a"}, {"name": "a", "resourceClaimName": "b"}],
        ['status.resourceClaimStatuses[1]: Duplicate value: {"name":"a","resourceClaimName":"b"}'],
    ),
    (
        "claim-name",
        ["a"],
        [{"name": "a", "resourceClaimName": "B"}],
        [f'status.resourceClaimStatuses[0].resourceClaimName: Invalid value: "B": {LONG_NAME}'],
    ),
]


def _with_claims(names: list[str]) -> dict[str, Any]:
    claims = [{"name": name, "resourceClaimTemplateName": "t"} for name in names]
    return pod_group(gang=2, resourceClaims=claims) if claims else pod_group(gang=2)


@pytest.mark.parametrize(
    ("claims", "statuses", "expected"), [(c, s, e) for _, c, s, e in STATUS_CASES], ids=[i for i, *_ in STATUS_CASES]
)
def test_status_subresource_rules(claims: list[str], statuses: list[dict[str, Any]], expected: list[str]):
    old = _with_claims(claims)
    new = changed(_with_claims(claims), "status", {"resourceClaimStatuses": statuses})
    assert strings(validate_pod_group(new, old, subresource="status")) == expected


def test_claim_statuses_are_matched_against_the_stored_spec():
    old = _with_claims(["gpus"])
    new = changed(_with_claims(["disks"]), "status", {"resourceClaimStatuses": [{"name": "gpus"}]})
    assert validate_pod_group(new, old, subresource="status") == []


def test_status_update_ignores_the_spec_and_a_spec_update_ignores_the_status():
    old = _with_claims(["a"])
    new = changed(
        changed(_with_claims(["a"]), "spec.priority", 5),
        "status",
        {"resourceClaimStatuses": [{"name": "a", "resourceClaimName": "B"}]},
    )
    assert strings(validate_pod_group(new, old)) == ["spec.priority: Invalid value: null: field is immutable"]
    assert strings(validate_pod_group(new, old, subresource="status")) == [
        f'status.resourceClaimStatuses[0].resourceClaimName: Invalid value: "B": {LONG_NAME}'
    ]
    assert validate_composite_pod_group(composite_pod_group(), composite_pod_group(), subresource="status") == []


def test_a_status_update_needs_the_old_object():
    with pytest.raises(ValueError, match="a status update needs the old object"):
        validate_pod_group(pod_group(), subresource="status")
