"""Strict decoding of Kubernetes JSON into client models and our building blocks, and the input wrappers."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from kubernetes.client import (
    V1alpha3CompositeGangSchedulingPolicy,
    V1alpha3CompositePodGroupSchedulingPolicy,
    V1alpha3TopologyConstraint,
    V1alpha3WorkloadPodGroupDisruptionMode,
    V1alpha3WorkloadPodGroupGangSchedulingPolicy,
    V1alpha3WorkloadPodGroupResourceClaim,
    V1alpha3WorkloadPodGroupSchedulingConstraints,
    V1alpha3WorkloadPodGroupSchedulingPolicy,
    V1beta1GangSchedulingPolicy,
    V1beta1PodGroupSchedulingPolicy,
    V1beta1PodGroupTemplate,
    V1beta1Workload,
    V1ObjectMeta,
    V1OwnerReference,
)
from pydantic import BaseModel, ValidationError

from workloadbuilder import (
    ConstraintsInput,
    DisruptionModeInput,
    FieldPath,
    PolicyInput,
    ResourceClaimsInput,
    WorkloadItem,
)
from workloadbuilder._internal.decode import decode, errors_at
from workloadbuilder.types import (
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupGangSchedulingPolicy,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
)

BASE = FieldPath("spec", "scheduling")
LEAF_POLICY = V1alpha3WorkloadPodGroupSchedulingPolicy
LEAF_CONSTRAINTS = V1alpha3WorkloadPodGroupSchedulingConstraints
LEAF_MODE = V1alpha3WorkloadPodGroupDisruptionMode
CLAIM = V1alpha3WorkloadPodGroupResourceClaim
COMPOSITE_POLICY = WorkloadCompositePodGroupSchedulingPolicy
COMPOSITE_CONSTRAINTS = WorkloadCompositePodGroupSchedulingConstraints
COMPOSITE_MODE = WorkloadCompositePodGroupDisruptionMode


def decode_errors(cls: type[BaseModel], data: Any, base: FieldPath | None = BASE) -> list[str]:
    """Decode and return the rendered field errors; a failed decode must yield no model."""
    model, problems = decode(cls, data)
    if problems:
        assert model is None
    return [str(e) for e in errors_at(base, problems)]


def decoded(cls: type[BaseModel], data: Any) -> Any:
    model, problems = decode(cls, data)
    assert problems == []
    assert isinstance(model, cls)
    return model


# --- unknown fields, at their nested paths ---

UNKNOWN_FIELDS = [
    (
        "leaf-gang",
        LEAF_POLICY,
        {"gang": {"minCount": 2, "bogus": 1}},
        ["spec.scheduling.gang.bogus: unknown field"],
    ),
    (
        "composite-gang",
        COMPOSITE_POLICY,
        {"gang": {"minGroupCount": 2, "bogus": True}},
        ["spec.scheduling.gang.bogus: unknown field"],
    ),
    ("top-level", LEAF_POLICY, {"bogus": {}}, ["spec.scheduling.bogus: unknown field"]),
    (
        "inside-list-item",
        LEAF_CONSTRAINTS,
        {"topology": [{"key": "zone"}, {"key": "rack", "extra": "x"}]},
        ["spec.scheduling.topology[1].extra: unknown field"],
    ),
    (
        "composite-topology-item",
        COMPOSITE_CONSTRAINTS,
        {"topology": [{"key": "zone", "weight": 1}]},
        ["spec.scheduling.topology[0].weight: unknown field"],
    ),
    (
        "every-unknown-in-order",
        LEAF_POLICY,
        {"zeta": 1, "gang": {"alpha": 1, "minCount": 1, "beta": 2}, "alpha": 3},
        [
            "spec.scheduling.zeta: unknown field",
            "spec.scheduling.gang.alpha: unknown field",
            "spec.scheduling.gang.beta: unknown field",
            "spec.scheduling.alpha: unknown field",
        ],
    ),
    ("non-string-key", LEAF_POLICY, {1: 2}, ["spec.scheduling.1: unknown field"]),
    (
        "empty-struct-leaf-basic",
        LEAF_POLICY,
        {"basic": {"x": 1}},
        ["spec.scheduling.basic.x: unknown field"],
    ),
    (
        "empty-struct-composite-basic",
        COMPOSITE_POLICY,
        {"basic": {"x": {"y": 1}}},
        ["spec.scheduling.basic.x: unknown field"],
    ),
    (
        "empty-struct-leaf-all",
        LEAF_MODE,
        {"all": {"a": 1, "b": 2}},
        [
            "spec.scheduling.all.a: unknown field",
            "spec.scheduling.all.b: unknown field",
        ],
    ),
    (
        "empty-struct-composite-single",
        COMPOSITE_MODE,
        {"single": {"now": True}},
        ["spec.scheduling.single.now: unknown field"],
    ),
    (
        "workload-template",
        V1beta1Workload,
        {"spec": {"podGroupTemplates": [{"name": "a", "schedulingPolicy": {"gang": {"minCount": 1, "x": 1}}}]}},
        ["spec.podGroupTemplates[0].schedulingPolicy.gang.x: unknown field"],
    ),
    (
        "workload-nested-composite",
        V1beta1Workload,
        {
            "spec": {
                "compositePodGroupTemplates": [
                    {
                        "name": "root",
                        "schedulingPolicy": {"basic": {}},
                        "compositePodGroupTemplates": [
                            {
                                "name": "mid",
                                "schedulingPolicy": {"basic": {}},
                                "podGroupTemplates": [{"name": "leaf", "bogus": 1}],
                            }
                        ],
                    }
                ]
            }
        },
        [
            (
                "spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].podGroupTemplates[0].bogus: "
                "unknown field"
            )
        ],
    ),
]


@pytest.mark.parametrize(
    ("cls", "data", "expected"), [(c, d, e) for _, c, d, e in UNKNOWN_FIELDS], ids=[i for i, *_ in UNKNOWN_FIELDS]
)
def test_unknown_fields_are_forbidden_at_their_path(cls: type[BaseModel], data: Any, expected: list[str]):
    assert decode_errors(cls, data, None if cls is V1beta1Workload else BASE) == expected


def test_unknown_field_without_a_base_path_reports_at_its_own_path():
    assert decode_errors(LEAF_POLICY, {"gang": {"bogus": 1}}, None) == ["gang.bogus: unknown field"]


def test_unknown_field_below_an_indexed_base_path():
    base = FieldPath("spec", "replicatedJobs").index(2).child("scheduling")
    assert decode_errors(LEAF_POLICY, {"gang": {"bogus": 1}}, base) == [
        "spec.replicatedJobs[2].scheduling.gang.bogus: unknown field"
    ]


# --- snake_case keys are not the JSON names ---

SNAKE_CASE = [
    ("leaf-min-count", LEAF_POLICY, {"gang": {"min_count": 3}}, "gang.min_count"),
    ("composite-min-group-count", COMPOSITE_POLICY, {"gang": {"min_group_count": 3}}, "gang.min_group_count"),
    ("claim-source", CLAIM, {"name": "a", "resource_claim_name": "c"}, "resource_claim_name"),
    (
        "claim-template-source",
        CLAIM,
        {"name": "a", "resource_claim_template_name": "t"},
        "resource_claim_template_name",
    ),
    (
        "owner",
        V1OwnerReference,
        {"api_version": "v1", "kind": "Job", "name": "j", "uid": "u"},
        "api_version",
    ),
    ("workload-spec", V1beta1Workload, {"spec": {"pod_group_templates": []}}, "spec.pod_group_templates"),
]


@pytest.mark.parametrize(
    ("cls", "data", "loc"), [(c, d, loc) for _, c, d, loc in SNAKE_CASE], ids=[i for i, *_ in SNAKE_CASE]
)
def test_snake_case_keys_are_unknown_fields(cls: type[BaseModel], data: Any, loc: str):
    assert decode_errors(cls, data, None) == [f"{loc}: unknown field"]


# --- wrong types ---

WRONG_TYPES = [
    (
        "string-for-int",
        LEAF_POLICY,
        {"gang": {"minCount": "3"}},
        'spec.scheduling.gang.minCount: Invalid value: "3": must be of type integer',
    ),
    (
        "bool-for-int",
        LEAF_POLICY,
        {"gang": {"minCount": True}},
        "spec.scheduling.gang.minCount: Invalid value: true: must be of type integer",
    ),
    (
        "float-for-int",
        LEAF_POLICY,
        {"gang": {"minCount": 1.5}},
        "spec.scheduling.gang.minCount: Invalid value: 1.5: must be of type integer",
    ),
    (
        "composite-string-for-int",
        COMPOSITE_POLICY,
        {"gang": {"minGroupCount": "two"}},
        'spec.scheduling.gang.minGroupCount: Invalid value: "two": must be of type integer',
    ),
    ("list-for-object", LEAF_POLICY, {"gang": [1]}, "spec.scheduling.gang: Invalid value: [1]: must be of type object"),
    (
        "string-for-empty-struct",
        LEAF_POLICY,
        {"basic": "yes"},
        'spec.scheduling.basic: Invalid value: "yes": must be of type object',
    ),
    (
        "list-for-empty-struct",
        LEAF_MODE,
        {"single": []},
        "spec.scheduling.single: Invalid value: []: must be of type object",
    ),
    (
        "object-for-list",
        LEAF_CONSTRAINTS,
        {"topology": {"key": "zone"}},
        'spec.scheduling.topology: Invalid value: {"key":"zone"}: must be of type array',
    ),
    (
        "string-for-list",
        COMPOSITE_CONSTRAINTS,
        {"topology": "zone"},
        'spec.scheduling.topology: Invalid value: "zone": must be of type array',
    ),
    (
        "int-for-string",
        LEAF_CONSTRAINTS,
        {"topology": [{"key": 5}]},
        "spec.scheduling.topology[0].key: Invalid value: 5: must be of type string",
    ),
    (
        "string-for-list-item-object",
        LEAF_CONSTRAINTS,
        {"topology": [{"key": "a"}, "b"]},
        'spec.scheduling.topology[1]: Invalid value: "b": must be of type object',
    ),
    ("list-for-string", CLAIM, {"name": ["a"]}, 'spec.scheduling.name: Invalid value: ["a"]: must be of type string'),
    (
        "string-for-bool",
        V1OwnerReference,
        {"apiVersion": "v1", "kind": "Job", "name": "j", "uid": "u", "controller": "true"},
        'spec.scheduling.controller: Invalid value: "true": must be of type boolean',
    ),
    (
        "int-for-bool",
        V1OwnerReference,
        {"apiVersion": "v1", "kind": "Job", "name": "j", "uid": "u", "blockOwnerDeletion": 1},
        "spec.scheduling.blockOwnerDeletion: Invalid value: 1: must be of type boolean",
    ),
    (
        "list-for-top-level-object",
        LEAF_POLICY,
        ["gang"],
        'spec.scheduling: Invalid value: ["gang"]: must be of type object',
    ),
    (
        "string-for-top-level-object",
        LEAF_POLICY,
        "gang",
        'spec.scheduling: Invalid value: "gang": must be of type object',
    ),
    (
        "html-in-bad-value",
        LEAF_CONSTRAINTS,
        {"topology": {"<k>": "a&b"}},
        'spec.scheduling.topology: Invalid value: {"\\u003ck\\u003e":"a\\u0026b"}: must be of type array',
    ),
]


@pytest.mark.parametrize(
    ("cls", "data", "expected"), [(c, d, e) for _, c, d, e in WRONG_TYPES], ids=[i for i, *_ in WRONG_TYPES]
)
def test_wrong_types_are_invalid_with_the_expected_type(cls: type[BaseModel], data: Any, expected: str):
    assert decode_errors(cls, data) == [expected]


def test_wrong_type_is_a_type_invalid_error_carrying_the_value():
    _, problems = decode(LEAF_POLICY, {"gang": {"minCount": "3"}})
    (error,) = errors_at(BASE, problems)
    assert (error.type.value, error.field, error.bad_value, error.detail) == (
        "FieldValueTypeInvalid",
        "spec.scheduling.gang.minCount",
        "3",
        "must be of type integer",
    )


def test_wrong_map_value_type_is_reported_at_the_map_key():
    # Go's field.Path renders a map entry with Key(): metadata.labels[a/b].
    data = {"spec": {}, "metadata": {"labels": {"a/b": 1}}}
    assert decode_errors(V1beta1Workload, data, None) == [
        "metadata.labels[a/b]: Invalid value: 1: must be of type string"
    ]


def test_unknown_field_and_wrong_type_are_reported_together_in_input_order():
    data = {"gang": {"minCount": "x", "extra": 1}, "other": None}
    assert decode_errors(LEAF_POLICY, data) == [
        'spec.scheduling.gang.minCount: Invalid value: "x": must be of type integer',
        "spec.scheduling.gang.extra: unknown field",
        "spec.scheduling.other: unknown field",
    ]


# --- int32 range ---

INT32 = [
    ("max", 2**31 - 1, []),
    ("min", -(2**31), []),
    ("over-max", 2**31, ["spec.scheduling.gang.minCount: Invalid value: 2147483648: must be of type int32"]),
    ("under-min", -(2**31) - 1, ["spec.scheduling.gang.minCount: Invalid value: -2147483649: must be of type int32"]),
]


@pytest.mark.parametrize(("value", "expected"), [(v, e) for _, v, e in INT32], ids=[i for i, *_ in INT32])
def test_int32_fields_reject_values_out_of_range(value: int, expected: list[str]):
    assert decode_errors(LEAF_POLICY, {"gang": {"minCount": value}}) == expected


def test_int32_range_applies_to_composite_counts_too():
    assert decode_errors(COMPOSITE_POLICY, {"gang": {"minGroupCount": 2**40}}) == [
        "spec.scheduling.gang.minGroupCount: Invalid value: 1099511627776: must be of type int32"
    ]


def test_int64_metadata_fields_accept_values_past_int32():
    workload = decoded(V1beta1Workload, {"metadata": {"generation": 2**40}, "spec": {}})
    assert workload.metadata.generation == 2**40


# --- zero values and nulls ---


def test_missing_required_string_decodes_to_empty_string():
    assert decoded(V1alpha3TopologyConstraint, {}).key == ""
    claim = decoded(CLAIM, {"resourceClaimName": "c"})
    assert (claim.name, claim.resource_claim_name, claim.resource_claim_template_name) == ("", "c", None)


def test_missing_required_fields_of_an_owner_reference_decode_to_empty_strings():
    owner = decoded(V1OwnerReference, {})
    assert (owner.api_version, owner.kind, owner.name, owner.uid, owner.controller) == ("", "", "", "", None)


def test_missing_required_struct_decodes_to_its_zero_value():
    template = decoded(V1beta1PodGroupTemplate, {})
    assert template.name == ""
    assert isinstance(template.scheduling_policy, V1beta1PodGroupSchedulingPolicy)
    assert (template.scheduling_policy.basic, template.scheduling_policy.gang) == (None, None)


NULLS = [
    ("null-member", LEAF_POLICY, {"basic": {}, "gang": None}, LEAF_POLICY(basic={})),
    (
        "null-int",
        LEAF_POLICY,
        {"gang": {"minCount": None}},
        LEAF_POLICY(gang=V1alpha3WorkloadPodGroupGangSchedulingPolicy()),
    ),
    ("null-list", LEAF_CONSTRAINTS, {"topology": None}, LEAF_CONSTRAINTS()),
    (
        "null-required-string-is-zero",
        LEAF_CONSTRAINTS,
        {"topology": [{"key": None}]},
        LEAF_CONSTRAINTS(topology=[V1alpha3TopologyConstraint(key="")]),
    ),
    ("null-optional-string", CLAIM, {"name": "a", "resourceClaimName": None}, CLAIM(name="a")),
    ("null-composite-member", COMPOSITE_MODE, {"single": None, "all": {}}, COMPOSITE_MODE(all={})),
    ("all-null", LEAF_MODE, {"single": None, "all": None}, LEAF_MODE()),
]


@pytest.mark.parametrize(("cls", "data", "expected"), [(c, d, e) for _, c, d, e in NULLS], ids=[i for i, *_ in NULLS])
def test_null_is_treated_as_unset(cls: type[BaseModel], data: Any, expected: BaseModel):
    assert decoded(cls, data) == expected


# --- valid input ---

VALID = [
    (
        "leaf-gang",
        LEAF_POLICY,
        {"gang": {"minCount": 3}},
        LEAF_POLICY(gang=V1alpha3WorkloadPodGroupGangSchedulingPolicy(min_count=3)),
    ),
    ("leaf-basic", LEAF_POLICY, {"basic": {}}, LEAF_POLICY(basic={})),
    (
        "leaf-topology",
        LEAF_CONSTRAINTS,
        {"topology": [{"key": "topology.kubernetes.io/zone"}]},
        LEAF_CONSTRAINTS(topology=[V1alpha3TopologyConstraint(key="topology.kubernetes.io/zone")]),
    ),
    ("leaf-all", LEAF_MODE, {"all": {}}, LEAF_MODE(all={})),
    (
        "claim",
        CLAIM,
        {"name": "gpu", "resourceClaimTemplateName": "gpu-template"},
        CLAIM(name="gpu", resource_claim_template_name="gpu-template"),
    ),
    (
        "composite-gang",
        COMPOSITE_POLICY,
        {"gang": {"minGroupCount": 2}},
        COMPOSITE_POLICY(gang=WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=2)),
    ),
    ("composite-basic", COMPOSITE_POLICY, {"basic": {}}, COMPOSITE_POLICY(basic={})),
    (
        "composite-topology",
        COMPOSITE_CONSTRAINTS,
        {"topology": [{"key": "rack"}]},
        COMPOSITE_CONSTRAINTS(topology=[V1alpha3TopologyConstraint(key="rack")]),
    ),
    ("composite-single", COMPOSITE_MODE, {"single": {}}, COMPOSITE_MODE(single={})),
    ("empty", LEAF_POLICY, {}, LEAF_POLICY()),
]


@pytest.mark.parametrize(("cls", "data", "expected"), [(c, d, e) for _, c, d, e in VALID], ids=[i for i, *_ in VALID])
def test_valid_json_decodes_to_the_model(cls: type[BaseModel], data: Any, expected: BaseModel):
    assert decoded(cls, data) == expected


def test_decoding_does_not_mutate_the_input():
    data = {"gang": {"minCount": 3}, "basic": None}
    decoded(LEAF_POLICY, data)
    assert data == {"gang": {"minCount": 3}, "basic": None}


# --- model instances ---


def test_an_instance_of_the_target_model_passes_through_unchanged():
    policy = LEAF_POLICY(gang=V1alpha3WorkloadPodGroupGangSchedulingPolicy(min_count=4))
    model, problems = decode(LEAF_POLICY, policy)
    assert model is policy
    assert problems == []


def test_a_composite_block_instance_passes_through_unchanged():
    policy = COMPOSITE_POLICY(gang=WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=2))
    model, problems = decode(COMPOSITE_POLICY, policy)
    assert model is policy
    assert problems == []


def test_a_nested_instance_inside_a_dict_is_kept():
    gang = V1alpha3WorkloadPodGroupGangSchedulingPolicy(min_count=2)
    policy = decoded(LEAF_POLICY, {"gang": gang})
    assert policy.gang is gang


FOREIGN = [
    (
        "v1beta1-to-v1alpha3-leaf",
        LEAF_POLICY,
        V1beta1PodGroupSchedulingPolicy(gang=V1beta1GangSchedulingPolicy(min_count=3)),
        LEAF_POLICY(gang=V1alpha3WorkloadPodGroupGangSchedulingPolicy(min_count=3)),
    ),
    (
        "runtime-composite-to-building-block",
        COMPOSITE_POLICY,
        V1alpha3CompositePodGroupSchedulingPolicy(gang=V1alpha3CompositeGangSchedulingPolicy(min_group_count=2)),
        COMPOSITE_POLICY(gang=WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=2)),
    ),
    (
        "building-block-to-client-model",
        LEAF_MODE,
        COMPOSITE_MODE(single={}),
        LEAF_MODE(single={}),
    ),
]


@pytest.mark.parametrize(
    ("cls", "value", "expected"), [(c, v, e) for _, c, v, e in FOREIGN], ids=[i for i, *_ in FOREIGN]
)
def test_a_foreign_model_is_re_read_from_its_json_form(cls: type[BaseModel], value: BaseModel, expected: BaseModel):
    assert decoded(cls, value) == expected


def test_a_foreign_model_with_fields_the_target_lacks_is_rejected():
    composite = COMPOSITE_POLICY(gang=WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=2))
    assert decode_errors(LEAF_POLICY, composite) == ["spec.scheduling.gang.minGroupCount: unknown field"]


# --- a whole Workload ---

WORKLOAD = {
    "apiVersion": "scheduling.k8s.io/v1beta1",
    "kind": "Workload",
    "metadata": {
        "name": "job-workload",
        "namespace": "team-a",
        "uid": "0b6f7f36-1c1e-4a59-9b4e-2d1cbd0bd6f1",
        "resourceVersion": "12345",
        "generation": 3,
        "creationTimestamp": "2025-01-02T03:04:05Z",
        "labels": {"app": "trainer"},
        "annotations": {"example.com/note": "x"},
        "ownerReferences": [
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "name": "job",
                "uid": "job-uid",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
    },
    "spec": {
        "controllerRef": {"apiGroup": "batch", "kind": "Job", "name": "job"},
        "compositePodGroupTemplates": [
            {
                "name": "root",
                "schedulingPolicy": {"gang": {"minGroupCount": 2}},
                "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
                "disruptionMode": {"all": {}},
                "priorityClassName": "high",
                "priority": 1000,
                "preemptionPolicy": "Never",
                "podGroupTemplates": [
                    {
                        "name": "workers",
                        "schedulingPolicy": {"gang": {"minCount": 4}},
                        "disruptionMode": {"single": {}},
                        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}],
                    },
                    {"name": "driver", "schedulingPolicy": {"basic": {}}},
                ],
            }
        ],
    },
}


def test_a_whole_workload_decodes():
    workload = decoded(V1beta1Workload, WORKLOAD)
    meta = workload.metadata
    assert (meta.name, meta.namespace, meta.generation, meta.labels, meta.annotations) == (
        "job-workload",
        "team-a",
        3,
        {"app": "trainer"},
        {"example.com/note": "x"},
    )
    assert meta.creation_timestamp == datetime.datetime(2025, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
    owner = meta.owner_references[0]
    assert (owner.api_version, owner.kind, owner.name, owner.controller, owner.block_owner_deletion) == (
        "batch/v1",
        "Job",
        "job",
        True,
        True,
    )
    spec = workload.spec
    assert (spec.controller_ref.api_group, spec.controller_ref.kind, spec.controller_ref.name) == (
        "batch",
        "Job",
        "job",
    )
    assert spec.pod_group_templates is None
    (root,) = spec.composite_pod_group_templates
    assert (root.name, root.scheduling_policy.gang.min_group_count, root.scheduling_policy.basic) == ("root", 2, None)
    assert [t.key for t in root.scheduling_constraints.topology] == ["topology.kubernetes.io/zone"]
    assert (root.disruption_mode.all, root.disruption_mode.single) == ({}, None)
    assert (root.priority_class_name, root.priority, root.preemption_policy) == ("high", 1000, "Never")
    assert root.composite_pod_group_templates is None
    workers, driver = root.pod_group_templates
    assert (workers.name, workers.scheduling_policy.gang.min_count, workers.disruption_mode.single) == (
        "workers",
        4,
        {},
    )
    assert [(c.name, c.resource_claim_name, c.resource_claim_template_name) for c in workers.resource_claims] == [
        ("gpu", None, "gpu-template")
    ]
    assert (driver.name, driver.scheduling_policy.basic, driver.scheduling_policy.gang) == ("driver", {}, None)


def test_a_workload_with_managed_fields_decodes():
    # metav1.FieldsV1 is raw JSON: whatever the apiserver put in fieldsV1 is accepted.
    data = {
        "metadata": {
            "name": "w",
            "managedFields": [
                {
                    "manager": "kube-controller-manager",
                    "operation": "Update",
                    "apiVersion": "scheduling.k8s.io/v1beta1",
                    "time": "2025-01-02T03:04:05Z",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:spec": {"f:podGroupTemplates": {}}},
                }
            ],
        },
        "spec": {},
    }
    workload = decoded(V1beta1Workload, data)
    assert workload.metadata.managed_fields[0].manager == "kube-controller-manager"


def test_a_workload_with_a_bad_timestamp_is_rejected():
    data = {"metadata": {"creationTimestamp": "yesterday"}, "spec": {}}
    assert decode_errors(V1beta1Workload, data, None) == [
        'metadata.creationTimestamp: Invalid value: "yesterday": must be of type RFC 3339 date-time'
    ]


def test_a_workload_with_several_problems_reports_each():
    data = {
        "kind": 1,
        "metadata": {"name": "w", "owner_references": []},
        "spec": {"podGroupTemplates": [{"name": "a", "schedulingPolicy": {"gang": {"minCount": "1"}}}, 7]},
    }
    assert decode_errors(V1beta1Workload, data, None) == [
        "kind: Invalid value: 1: must be of type string",
        "metadata.owner_references: unknown field",
        'spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: Invalid value: "1": must be of type integer',
        "spec.podGroupTemplates[1]: Invalid value: 7: must be of type object",
    ]


def test_an_object_meta_decodes_on_its_own():
    meta = decoded(V1ObjectMeta, {"name": "n", "finalizers": ["a", "b"]})
    assert (meta.name, meta.finalizers) == ("n", ["a", "b"])


# --- the input wrappers ---

WRAPPED_DICTS = [
    (
        "policy-leaf",
        lambda d: PolicyInput(pod_group_data=d).pod_group_data,
        {"gang": {"minCount": 3}},
        LEAF_POLICY(gang=V1alpha3WorkloadPodGroupGangSchedulingPolicy(min_count=3)),
    ),
    (
        "policy-composite",
        lambda d: PolicyInput(composite_pod_group_data=d).composite_pod_group_data,
        {"gang": {"minGroupCount": 2}},
        COMPOSITE_POLICY(gang=WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=2)),
    ),
    (
        "constraints-leaf",
        lambda d: ConstraintsInput(pod_group_data=d).pod_group_data,
        {"topology": [{"key": "zone"}]},
        LEAF_CONSTRAINTS(topology=[V1alpha3TopologyConstraint(key="zone")]),
    ),
    (
        "constraints-composite",
        lambda d: ConstraintsInput(composite_pod_group_data=d).composite_pod_group_data,
        {"topology": [{"key": "rack"}]},
        COMPOSITE_CONSTRAINTS(topology=[V1alpha3TopologyConstraint(key="rack")]),
    ),
    (
        "disruption-mode-leaf",
        lambda d: DisruptionModeInput(pod_group_data=d).pod_group_data,
        {"all": {}},
        LEAF_MODE(all={}),
    ),
    (
        "disruption-mode-composite",
        lambda d: DisruptionModeInput(composite_pod_group_data=d).composite_pod_group_data,
        {"single": {}},
        COMPOSITE_MODE(single={}),
    ),
]


@pytest.mark.parametrize(
    ("wrap", "data", "expected"), [(w, d, e) for _, w, d, e in WRAPPED_DICTS], ids=[i for i, *_ in WRAPPED_DICTS]
)
def test_input_wrappers_convert_dicts_to_models(wrap: Any, data: dict[str, Any], expected: BaseModel):
    value = wrap(data)
    assert type(value) is type(expected)
    assert value == expected


UNDECODABLE = [
    ("policy-unknown-field", lambda d: PolicyInput(pod_group_data=d).pod_group_data, {"gang": {"bogus": 1}}),
    ("policy-snake-case", lambda d: PolicyInput(pod_group_data=d).pod_group_data, {"gang": {"min_count": 1}}),
    (
        "policy-composite-wrong-type",
        lambda d: PolicyInput(composite_pod_group_data=d).composite_pod_group_data,
        {"gang": {"minGroupCount": "2"}},
    ),
    ("constraints-object-for-list", lambda d: ConstraintsInput(pod_group_data=d).pod_group_data, {"topology": {}}),
    ("mode-non-empty-marker", lambda d: DisruptionModeInput(pod_group_data=d).pod_group_data, {"all": {"x": 1}}),
    ("policy-not-a-dict", lambda d: PolicyInput(pod_group_data=d).pod_group_data, ["gang"]),
    ("policy-a-string", lambda d: PolicyInput(pod_group_data=d).pod_group_data, "gang"),
]


@pytest.mark.parametrize(("wrap", "data"), [(w, d) for _, w, d in UNDECODABLE], ids=[i for i, *_ in UNDECODABLE])
def test_input_wrappers_keep_undecodable_input_as_given(wrap: Any, data: Any):
    assert wrap(data) is data


def test_input_wrapper_keeps_a_model_instance_and_none():
    policy = LEAF_POLICY(basic={})
    assert PolicyInput(pod_group_data=policy).pod_group_data is policy
    assert PolicyInput().pod_group_data is None
    assert PolicyInput(pod_group_data=None, composite_pod_group_data=None).composite_pod_group_data is None


def test_input_wrapper_converts_a_foreign_model():
    value = PolicyInput(pod_group_data=V1beta1PodGroupSchedulingPolicy(basic={})).pod_group_data
    assert type(value) is LEAF_POLICY
    assert value == LEAF_POLICY(basic={})


def test_input_wrapper_converts_on_assignment():
    policy = PolicyInput(path_elements=["schedulingPolicy"])
    policy.pod_group_data = {"gang": {"minCount": 5}}
    assert policy.pod_group_data == LEAF_POLICY(gang=V1alpha3WorkloadPodGroupGangSchedulingPolicy(min_count=5))
    assert policy.path_elements == ["schedulingPolicy"]


def test_input_wrapper_rejects_unknown_keyword_arguments():
    with pytest.raises(ValidationError):
        PolicyInput(bogus=1)


def test_resource_claims_input_converts_each_claim_and_keeps_undecodable_ones():
    claim = CLAIM(name="kept", resource_claim_name="c")
    bad = {"name": 1}
    snake = {"name": "s", "resource_claim_name": "c"}
    given = ResourceClaimsInput(
        pod_group_data=[{"name": "gpu", "resourceClaimName": "gpu-claim"}, bad, claim, snake],
        path_elements=["resourceClaims"],
    )
    first, second, third, fourth = given.pod_group_data
    assert type(first) is CLAIM
    assert first == CLAIM(name="gpu", resource_claim_name="gpu-claim")
    assert second is bad
    assert third is claim
    assert fourth is snake
    assert given.path_elements == ["resourceClaims"]


RESOURCE_CLAIMS_EDGES = [
    ("default", {}, []),
    ("none", {"pod_group_data": None}, []),
    ("empty", {"pod_group_data": []}, []),
    ("not-a-list", {"pod_group_data": "gpu"}, "gpu"),
    ("a-dict", {"pod_group_data": {"name": "gpu"}}, {"name": "gpu"}),
]


@pytest.mark.parametrize(
    ("kwargs", "expected"), [(k, e) for _, k, e in RESOURCE_CLAIMS_EDGES], ids=[i for i, *_ in RESOURCE_CLAIMS_EDGES]
)
def test_resource_claims_input_edges(kwargs: dict[str, Any], expected: Any):
    assert ResourceClaimsInput(**kwargs).pod_group_data == expected


WORKLOAD_ITEM_PATHS = [
    ("names", "spec.scheduling", ("spec", "scheduling")),
    ("index", "spec.replicatedJobs[0].template.spec", ("spec", "replicatedJobs", 0, "template", "spec")),
    ("key", "metadata.annotations[example.com/scheduling]", ("metadata", "annotations", "example.com/scheduling")),
    ("root", "scheduling", ("scheduling",)),
]


@pytest.mark.parametrize(
    ("text", "elements"), [(t, e) for _, t, e in WORKLOAD_ITEM_PATHS], ids=[i for i, *_ in WORKLOAD_ITEM_PATHS]
)
def test_workload_item_parses_a_string_path(text: str, elements: tuple[str | int, ...]):
    item = WorkloadItem(name="job", path=text)
    assert isinstance(item.path, FieldPath)
    assert str(item.path) == text
    assert item.path.elements() == elements


def test_workload_item_keeps_a_field_path_and_none():
    path = FieldPath("spec", "scheduling")
    assert WorkloadItem(name="job", path=path).path is path
    assert WorkloadItem(name="job").path is None


def test_workload_item_input_given_as_nested_dicts_converts_the_blocks():
    item = WorkloadItem(
        name="job",
        path="spec",
        input={"policy": {"pod_group_data": {"gang": {"minCount": 2}}, "path_elements": ["schedulingPolicy"]}},
    )
    assert item.input.policy.pod_group_data == LEAF_POLICY(
        gang=V1alpha3WorkloadPodGroupGangSchedulingPolicy(min_count=2)
    )
    assert item.input.policy.path_elements == ["schedulingPolicy"]
