"""canonical and go_value: Kubernetes JSON in the shape of the Go structs, and printed as json.Marshal writes it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from kubernetes.client import V1beta1PodGroupTemplate

from workloadbuilder.field import FieldPath, duplicate
from workloadbuilder.validation.gotypes import canonical, go_value

EMPTY_TEMPLATE = {
    "name": "",
    "schedulingPolicy": {"basic": None, "gang": None},
    "schedulingConstraints": None,
    "resourceClaims": None,
    "disruptionMode": None,
    "priorityClassName": "",
    "priority": None,
    "preemptionPolicy": None,
}


@pytest.mark.parametrize(
    ("type_name", "value", "expected"),
    [
        ("PodGroupTemplate", None, EMPTY_TEMPLATE),
        ("PodGroupTemplate", "not a struct", EMPTY_TEMPLATE),
        (
            "PodGroupTemplate",
            {"name": "a", "schedulingPolicy": {"basic": {}}, "resourceClaims": [], "bogus": 1},
            {**EMPTY_TEMPLATE, "name": "a", "schedulingPolicy": {"basic": {}, "gang": None}},
        ),
        ("TypedLocalObjectReference", {"kind": "Job"}, {"apiGroup": "", "kind": "Job", "name": ""}),
        ("DisruptionMode", {"all": {}}, {"single": None, "all": {}}),
    ],
    ids=["nil-struct", "not-a-dict", "zero-values-empty-list-unknown-field", "strings-default-empty", "empty-structs"],
)
def test_canonical(type_name: str, value: Any, expected: dict[str, Any]):
    assert canonical(type_name, value) == expected


def test_a_client_model_reads_as_its_json():
    model = V1beta1PodGroupTemplate(name="a", scheduling_policy={"gang": {"minCount": 2}})
    assert canonical("PodGroupTemplate", model) == canonical(
        "PodGroupTemplate", {"name": "a", "schedulingPolicy": {"gang": {"minCount": 2}}}
    )


@pytest.mark.parametrize(
    ("type_name", "value", "shown"),
    [
        (
            "PodGroupTemplate",
            {"name": "a", "schedulingPolicy": {"gang": {"minCount": 2}}},
            '{"name":"a","schedulingPolicy":{"gang":{"minCount":2}},"schedulingConstraints":null}',
        ),
        ("TypedLocalObjectReference", {"kind": "Job"}, '{"kind":"Job","name":""}'),
        (
            "PodGroupTemplate",
            {"name": "b", "schedulingPolicy": {"basic": {}}, "disruptionMode": {"single": {}}, "priority": 0},
            '{"name":"b","schedulingPolicy":{"basic":{}},"schedulingConstraints":null,'
            '"disruptionMode":{"single":{}},"priority":0}',
        ),
    ],
    ids=["omitempty-fields-left-out", "zero-strings-without-omitempty-shown", "set-pointers-shown"],
)
def test_go_value_prints_the_struct_as_json_marshal(type_name: str, value: dict[str, Any], shown: str):
    error = duplicate(FieldPath("x"), go_value(type_name, canonical(type_name, value)))
    assert str(error) == f"x: Duplicate value: {shown}"


NAMES = st.sampled_from(["", "a", "b"])
TEMPLATES = st.fixed_dictionaries(
    {},
    optional={
        "name": NAMES,
        "schedulingPolicy": st.sampled_from([{}, {"basic": {}}, {"gang": {"minCount": 3}}, None]),
        "resourceClaims": st.sampled_from([[], None, [{"name": "c", "resourceClaimName": "d"}]]),
        "priority": st.one_of(st.none(), st.integers(0, 10)),
        "priorityClassName": st.one_of(st.none(), NAMES),
        "unknown": st.just(1),
    },
)


@given(TEMPLATES)
def test_canonical_is_idempotent(template: dict[str, Any]):
    once = canonical("PodGroupTemplate", template)
    assert canonical("PodGroupTemplate", once) == once


@given(TEMPLATES)
def test_a_missing_field_an_empty_list_and_null_are_one_go_value(template: dict[str, Any]):
    # Go's equality.Semantic.DeepEqual does not tell nil from empty lists, nor a missing string from "".
    without_claims = canonical("PodGroupTemplate", {k: v for k, v in template.items() if k != "resourceClaims"})
    for claims in ([], None):
        assert canonical("PodGroupTemplate", {**template, "resourceClaims": claims}) == without_claims
    stripped = {key: value for key, value in template.items() if value not in ("", None)}
    assert canonical("PodGroupTemplate", stripped) == canonical("PodGroupTemplate", template)
