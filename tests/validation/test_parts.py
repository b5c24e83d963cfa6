"""The shared parts' declarative rules (``validation.parts``), each function called directly on canonical JSON.

The messages are the apiserver's (``Validate_<Type>`` of scheduling.k8s.io/v1beta1): the same texts
``test_objects.py`` expects from whole Workloads and PodGroups.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workloadbuilder.field import FieldPath
from workloadbuilder.validation import parts
from workloadbuilder.validation.dv import Op
from workloadbuilder.validation.gates import FeatureGates
from workloadbuilder.validation.gotypes import canonical

CREATE = Op(update=False, gates=FeatureGates.all())
UPDATE = Op(update=True, gates=FeatureGates.all())
CREATE_NO_GATES = Op(update=False, gates=FeatureGates())
SPEC = FieldPath("spec")
POLICY = SPEC.child("schedulingPolicy")
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start"
    " and end with an alphanumeric character (e.g. 'example.com', regex used for validation is"
    " '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end"
    " with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is"
    " '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)


def strings(errors: Any) -> list[str]:
    return [str(e) for e in errors]


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ({"basic": {}}, []),
        ({"gang": {"minCount": 1}}, []),
        ({}, ['spec.schedulingPolicy: Invalid value: "": must specify one of: `basic`, `gang`']),
        (
            {"basic": {}, "gang": {"minCount": 1}},
            ['spec.schedulingPolicy: Invalid value: "{basic, gang}": must specify exactly one of: `basic`, `gang`'],
        ),
        ({"gang": {"minCount": 0}}, ["spec.schedulingPolicy.gang.minCount: Required value"]),
        (
            {"gang": {"minCount": -1}},
            ["spec.schedulingPolicy.gang.minCount: Invalid value: -1: must be greater than or equal to 1"],
        ),
    ],
    ids=["basic", "gang", "none", "both", "zero-count-is-required", "negative-count"],
)
def test_scheduling_policy_on_create(policy: dict[str, Any], expected: list[str]) -> None:
    value = canonical("PodGroupSchedulingPolicy", policy)
    assert strings(parts.scheduling_policy(CREATE, POLICY, value, None)) == expected


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ({"gang": {"minCount": 2}}, {"gang": {"minCount": 3}}, []),
        (
            {"basic": {}},
            {"gang": {"minCount": 2}},
            [
                "spec.schedulingPolicy.basic: Invalid value: null: field is immutable",
                "spec.schedulingPolicy.gang: Invalid value: null: field cannot be set once created",
            ],
        ),
        (
            {"gang": {"minCount": 2}},
            {"basic": {}},
            [
                "spec.schedulingPolicy.basic: Invalid value: null: field is immutable",
                "spec.schedulingPolicy.gang: Invalid value: null: field cannot be cleared once set",
            ],
        ),
    ],
    ids=["count-may-change", "basic-to-gang", "gang-to-basic"],
)
def test_scheduling_policy_on_update_freezes_the_variant(
    old: dict[str, Any], new: dict[str, Any], expected: list[str]
) -> None:
    value, before = canonical("PodGroupSchedulingPolicy", new), canonical("PodGroupSchedulingPolicy", old)
    assert strings(parts.scheduling_policy(UPDATE, POLICY, value, before)) == expected


def test_composite_policies_check_min_group_count() -> None:
    value = canonical("CompositePodGroupSchedulingPolicy", {"gang": {"minGroupCount": 0}})
    assert strings(parts.composite_scheduling_policy(CREATE, POLICY, value, None)) == [
        "spec.schedulingPolicy.gang.minGroupCount: Required value"
    ]


@pytest.mark.parametrize(
    ("function", "type_name", "gang", "expected"),
    [
        (parts.block_scheduling_policy, "WorkloadPodGroupSchedulingPolicy", {}, []),
        (
            parts.block_scheduling_policy,
            "WorkloadPodGroupSchedulingPolicy",
            {"minCount": 0},
            ["spec.schedulingPolicy.gang.minCount: Invalid value: 0: must be greater than or equal to 1"],
        ),
        (parts.block_composite_scheduling_policy, "WorkloadCompositePodGroupSchedulingPolicy", {}, []),
        (
            parts.block_composite_scheduling_policy,
            "WorkloadCompositePodGroupSchedulingPolicy",
            {"minGroupCount": 0},
            ["spec.schedulingPolicy.gang.minGroupCount: Invalid value: 0: must be greater than or equal to 1"],
        ),
    ],
    ids=["leaf-unset-count", "leaf-zero-count", "composite-unset-count", "composite-zero-count"],
)
def test_a_building_blocks_count_is_optional_and_zero_is_below_one(
    function: Any, type_name: str, gang: dict[str, Any], expected: list[str]
) -> None:
    assert strings(function(CREATE, POLICY, canonical(type_name, {"gang": gang}), None)) == expected


@pytest.mark.parametrize(
    ("topology", "expected"),
    [
        ([{"key": "topology.kubernetes.io/zone"}], []),
        ([], []),
        (
            [{"key": "a"}, {"key": "b"}],
            ["spec.schedulingConstraints.topology: Too many: 2: must have at most 1 item"],
        ),
        ([{"key": ""}], ["spec.schedulingConstraints.topology[0].key: Required value"]),
    ],
    ids=["one-key", "empty", "two-keys-not-looked-into", "empty-key"],
)
def test_constraints(topology: list[dict[str, Any]], expected: list[str]) -> None:
    value = canonical("PodGroupSchedulingConstraints", {"topology": topology})
    assert strings(parts.constraints(CREATE, SPEC.child("schedulingConstraints"), value, None)) == expected


def test_a_topology_key_is_a_label_key() -> None:
    value = canonical("PodGroupSchedulingConstraints", {"topology": [{"key": "a/b/c"}]})
    (message,) = strings(parts.constraints(CREATE, SPEC.child("schedulingConstraints"), value, None))
    assert message.startswith(
        'spec.schedulingConstraints.topology[0].key: Invalid value: "a/b/c": a valid label key must consist of'
    )
    assert message.endswith("with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ({"single": {}}, []),
        ({"all": {}}, []),
        ({}, ['spec.disruptionMode: Invalid value: "": must specify one of: `single`, `all`']),
        (
            {"single": {}, "all": {}},
            ['spec.disruptionMode: Invalid value: "{single, all}": must specify exactly one of: `single`, `all`'],
        ),
    ],
    ids=["single", "all", "none", "both"],
)
def test_disruption_mode(mode: dict[str, Any], expected: list[str]) -> None:
    value = canonical("DisruptionMode", mode)
    assert strings(parts.disruption_mode(CREATE, SPEC.child("disruptionMode"), value, None)) == expected


CLAIM = SPEC.child("resourceClaims").index(0)


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ({"name": "gpu", "resourceClaimTemplateName": "gpu-template"}, []),
        (
            {"name": "gpu"},
            [
                'spec.resourceClaims[0]: Invalid value: "": must specify one of: '
                "`resourceClaimName`, `resourceClaimTemplateName`"
            ],
        ),
        (
            {"name": "A_", "resourceClaimName": "x", "resourceClaimTemplateName": "y"},
            [
                'spec.resourceClaims[0]: Invalid value: "{resourceClaimName, resourceClaimTemplateName}": '
                "must specify exactly one of: `resourceClaimName`, `resourceClaimTemplateName`",
                f'spec.resourceClaims[0].name: Invalid value: "A_": {LABEL}',
            ],
        ),
        (
            {"name": "gpu", "resourceClaimName": ""},
            [f'spec.resourceClaims[0].resourceClaimName: Invalid value: "": {SUBDOMAIN}'],
        ),
        ({"resourceClaimName": "x"}, ["spec.resourceClaims[0].name: Required value"]),
    ],
    ids=["template", "no-source", "two-sources-and-bad-name", "empty-source-counts-as-set", "no-name"],
)
def test_resource_claim(claim: dict[str, Any], expected: list[str]) -> None:
    assert strings(parts.resource_claim(CREATE, CLAIM, canonical("PodGroupResourceClaim", claim), None)) == expected


def test_resource_claims_are_keyed_by_name() -> None:
    claims = [
        canonical("PodGroupResourceClaim", {"name": "a", "resourceClaimName": "x"}),
        canonical("PodGroupResourceClaim", {"name": "a", "resourceClaimName": "y"}),
    ]
    assert strings(parts.resource_claims(CREATE, SPEC.child("resourceClaims"), claims, None)) == [
        'spec.resourceClaims[1]: Duplicate value: {"name":"a","resourceClaimName":"y"}'
    ]


def test_workload_reference() -> None:
    path = SPEC.child("workloadRef")
    assert strings(parts.workload_reference(CREATE, path, canonical("WorkloadReference", {}), None)) == [
        "spec.workloadRef.workloadName: Required value",
        "spec.workloadRef.templateName: Required value",
    ]
    bad = canonical("WorkloadReference", {"workloadName": "Bad_", "templateName": "x.y"})
    assert strings(parts.workload_reference(CREATE, path, bad, None)) == [
        f'spec.workloadRef.workloadName: Invalid value: "Bad_": {SUBDOMAIN}',
        'spec.workloadRef.templateName: Invalid value: "x.y": must not contain dots',
    ]


def test_controller_ref() -> None:
    path = SPEC.child("controllerRef")
    assert strings(parts.controller_ref(CREATE, path, canonical("TypedLocalObjectReference", {}), None)) == [
        "spec.controllerRef.kind: Required value",
        "spec.controllerRef.name: Required value",
    ]
    bad = canonical("TypedLocalObjectReference", {"apiGroup": "Bad_", "kind": "a/b", "name": ".."})
    assert strings(parts.controller_ref(CREATE, path, bad, None)) == [
        f'spec.controllerRef.apiGroup: Invalid value: "Bad_": {SUBDOMAIN}',
        "spec.controllerRef.kind: Invalid value: \"a/b\": may not contain '/'",
        "spec.controllerRef.name: Invalid value: \"..\": may not be '..'",
    ]


@pytest.mark.parametrize(
    ("op", "fields", "old", "expected"),
    [
        (CREATE, {"priority": 1000000000, "preemptionPolicy": "Never"}, None, []),
        (
            CREATE,
            {"priorityClassName": "Bad_", "priority": 1000000001, "preemptionPolicy": "Sometimes"},
            None,
            [
                f'spec.priorityClassName: Invalid value: "Bad_": {SUBDOMAIN}',
                "spec.priority: Invalid value: 1000000001: must be less than or equal to 1000000000",
                'spec.preemptionPolicy: Unsupported value: "Sometimes": '
                'supported values: "Never", "PreemptLowerPriority"',
            ],
        ),
        (
            CREATE_NO_GATES,
            {"preemptionPolicy": "Never"},
            None,
            ["spec.preemptionPolicy: Forbidden: the PodGroupPreemptionPolicy feature gate is disabled"],
        ),
        (
            UPDATE,
            {"priorityClassName": "b", "priority": 2, "preemptionPolicy": "Never"},
            {"priorityClassName": "a", "priority": 1, "preemptionPolicy": "PreemptLowerPriority"},
            [
                "spec.priorityClassName: Invalid value: null: field is immutable",
                "spec.priority: Invalid value: null: field is immutable",
                "spec.preemptionPolicy: Invalid value: null: field is immutable",
            ],
        ),
        (UPDATE, {"priority": 2}, {"priority": 2}, []),
    ],
    ids=["valid", "each-bad", "preemption-gate-off", "all-immutable", "unchanged"],
)
def test_priority_fields(op: Op, fields: dict[str, Any], old: dict[str, Any] | None, expected: list[str]) -> None:
    before = None if old is None else canonical("PodGroupTemplate", old)
    assert strings(parts.priority_fields(op, SPEC, canonical("PodGroupTemplate", fields), before)) == expected


def test_preemption_policies_are_the_api_enum() -> None:
    assert parts.PREEMPTION_POLICIES == ("Never", "PreemptLowerPriority")


@given(st.lists(st.booleans(), min_size=1, max_size=4))
def test_a_union_on_create_holds_exactly_when_one_member_is_set(members: list[bool]) -> None:
    names = tuple(f"m{i}" for i in range(len(members)))
    value = {name: ({} if set_ else None) for name, set_ in zip(names, members, strict=True)}
    errors = parts.union(CREATE, SPEC, value, None, names)
    assert (list(errors) == []) == (sum(members) == 1)
    # On update with the same old value, nothing was set or cleared: the union is not checked again.
    assert list(parts.union(UPDATE, SPEC, value, dict(value), names)) == []
