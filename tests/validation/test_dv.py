"""The declarative-validation machinery: ratcheting, the field-attached checks and their messages, keyed lists."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workloadbuilder.field import ErrorList, FieldPath
from workloadbuilder.validation import dv
from workloadbuilder.validation.gates import FeatureGates

CREATE = dv.Op(update=False, gates=FeatureGates())
UPDATE = dv.Op(update=True, gates=FeatureGates())
GATED = dv.Op(update=True, gates=FeatureGates(enabled={"CompositePodGroup"}))
P = FieldPath("spec", "x")


def strings(errors: Any) -> list[str]:
    return [str(e) for e in errors]


def _then(*messages: str):
    calls: list[int] = []

    def then() -> ErrorList:
        calls.append(1)
        return ErrorList(dv.minimum(P, -1, 0)) if messages else ErrorList()

    return then, calls


@pytest.mark.parametrize(
    ("op", "value", "old", "correlated", "checks", "expected", "ran"),
    [
        (UPDATE, 1, 1, True, [dv.IMMUTABLE], [], False),
        (UPDATE, 1, 1, False, [], ["spec.x: Invalid value: -1: must be greater than or equal to 0"], True),
        (UPDATE, 2, 1, True, [dv.IMMUTABLE], ["spec.x: Invalid value: null: field is immutable"], False),
        (
            CREATE,
            2,
            None,
            False,
            [dv.IMMUTABLE],
            ["spec.x: Invalid value: -1: must be greater than or equal to 0"],
            True,
        ),
        (CREATE, None, None, False, [dv.OPTIONAL_POINTER], [], False),
        (CREATE, "", None, False, [dv.REQUIRED_VALUE], ["spec.x: Required value"], False),
        (CREATE, [], None, False, [dv.OPTIONAL_SLICE, dv.max_items(0)], [], False),
    ],
    ids=[
        "unchanged-is-skipped",
        "uncorrelated-is-checked",
        "changed-immutable-stops",
        "immutable-on-create-checks-the-value",
        "unset-optional-stops-silently",
        "zero-required",
        "empty-optional-list",
    ],
)
def test_check_field_ratchets_runs_the_checks_and_then_the_value(
    op: dv.Op, value: Any, old: Any, correlated: bool, checks: list[Any], expected: list[str], ran: bool
):
    then, calls = _then("x")
    assert strings(dv.check_field(op, P, value, old, correlated, checks, then)) == expected
    assert bool(calls) is ran


@pytest.mark.parametrize(
    ("check", "value", "old", "errors", "stop"),
    [
        (dv.REQUIRED_VALUE, 0, None, ["spec.x: Required value"], True),
        (dv.REQUIRED_VALUE, False, None, [], False),
        (dv.REQUIRED_POINTER, None, None, ["spec.x: Required value"], True),
        (dv.OPTIONAL_VALUE, "", None, [], True),
        (dv.OPTIONAL_VALUE, "a", None, [], False),
        (dv.OPTIONAL_SLICE, None, None, [], True),
        (dv.NO_SET_UNSET, 1, None, ["spec.x: Invalid value: null: field cannot be set once created"], True),
        (dv.NO_SET_UNSET, None, 1, ["spec.x: Invalid value: null: field cannot be cleared once set"], True),
        (dv.NO_SET_UNSET, 2, 1, [], False),
        (dv.max_items(2), [1, 2, 3], None, ["spec.x: Too many: 3: must have at most 2 items"], True),
        (dv.max_items(3), [1, 2, 3], None, [], False),
        (dv.forbidden_unless("TopologyAwareWorkloadScheduling"), None, None, [], False),
        (
            dv.forbidden_unless("TopologyAwareWorkloadScheduling"),
            [1],
            None,
            ["spec.x: Forbidden: the TopologyAwareWorkloadScheduling feature gate is disabled"],
            True,
        ),
        (dv.forbidden_unless("CompositePodGroup"), [1], None, [], False),
        (dv.immutable_if("CompositePodGroup"), 2, 1, ["spec.x: Invalid value: null: field is immutable"], True),
        (dv.immutable_if("GenericWorkload"), 2, 1, [], False),
        (dv.optional_unless("CompositePodGroup", True), None, None, [], True),
        (dv.optional_unless("CompositePodGroup", False), None, None, [], False),
    ],
    ids=[
        "required-zero",
        "required-false-is-set",
        "required-nil",
        "optional-empty-string",
        "optional-string",
        "optional-nil-list",
        "no-set",
        "no-unset",
        "no-set-unset-changed",
        "max-items-over",
        "max-items-at",
        "forbidden-unless-unset",
        "forbidden-unless-gate-off",
        "forbidden-unless-gate-on",
        "immutable-if-gate-on",
        "immutable-if-gate-off",
        "optional-unless-enabled",
        "optional-unless-other-state",
    ],
)
def test_each_check_on_update(check: Any, value: Any, old: Any, errors: list[str], stop: bool):
    found, fired = check(GATED, P, value, old)
    assert (strings(found), fired) == (errors, stop)


def test_the_set_once_checks_pass_on_create():
    assert dv.NO_SET_UNSET(CREATE, P, 1, None) == ([], False)
    assert dv.IMMUTABLE(CREATE, P, 1, None) == ([], False)
    assert dv.no_add_or_remove(CREATE, P, [{"name": "a"}], None) == ([], False)


def test_no_add_or_remove_reports_an_added_item_at_its_index_and_each_removed_one_at_the_list():
    found, stop = dv.no_add_or_remove(
        UPDATE, P, [{"name": "a"}, {"name": "c"}], [{"name": "a"}, {"name": "b"}, {"name": "d"}]
    )
    assert (strings(found), stop) == (
        [
            "spec.x[1]: Forbidden: item may not be added",
            "spec.x: Forbidden: item may not be removed",
            "spec.x: Forbidden: item may not be removed",
        ],
        True,
    )


@pytest.mark.parametrize(
    ("now", "old", "expected"),
    [
        ((True, False), None, []),
        ((False, False), None, ['spec: Invalid value: "": must specify one of: `a`, `b`']),
        ((True, True), None, ['spec: Invalid value: "{a, b}": must specify exactly one of: `a`, `b`']),
        ((True, True), (True, True), []),
        ((True, True), (True, False), ['spec: Invalid value: "{a, b}": must specify exactly one of: `a`, `b`']),
    ],
    ids=["one", "none", "both", "both-unchanged-ratchets", "both-newly"],
)
def test_validate_union(now: tuple[bool, ...], old: tuple[bool, ...] | None, expected: list[str]):
    assert strings(dv.validate_union(FieldPath("spec"), ("a", "b"), now, old)) == expected


def test_a_union_without_a_path_reports_at_a_nil_path_as_go_prints_it():
    assert strings(dv.validate_union(None, ("a", "b"), (False, False), None)) == [
        '<nil>: Invalid value: "": must specify one of: `a`, `b`'
    ]


def test_nested_and_scalar_take_the_field_from_the_structs_and_skip_it_unchanged():
    seen: list[tuple[str, Any, Any]] = []

    def inner(op: dv.Op, path: FieldPath, value: Any, old: Any) -> ErrorList:
        seen.append((str(path), value, old))
        return ErrorList()

    assert dv.nested(UPDATE, None, {"a": 1}, {"a": 1}, "a", [], inner) == []
    assert dv.nested(UPDATE, None, {"a": 2}, {"a": 1}, "a", [], inner) == []
    assert dv.nested(CREATE, P, {"a": None}, None, "a", [dv.OPTIONAL_POINTER], inner) == []
    assert seen == [("a", 2, 1)]
    assert strings(dv.scalar(CREATE, P, {"n": 5}, None, "n", [], lambda p, v: dv.maximum(p, v, 4))) == [
        "spec.x.n: Invalid value: 5: must be less than or equal to 4"
    ]
    assert dv.scalar(UPDATE, P, {"n": 5}, {"n": 5}, "n", [], lambda p, v: dv.maximum(p, v, 4)) == []


@given(st.integers(-1000, 1000), st.integers(-1000, 1000))
def test_minimum_and_maximum_fire_exactly_outside_the_bound(value: int, bound: int):
    assert (dv.minimum(P, value, bound) != []) is (value < bound)
    assert (dv.maximum(P, value, bound) != []) is (value > bound)


def test_enum_lists_the_allowed_values_sorted():
    assert dv.enum(P, "c", {"b", "a"}) == dv.enum(P, "c", ["a", "b"])
    assert strings(dv.enum(P, "c", {"b", "a"})) == ['spec.x: Unsupported value: "c": supported values: "a", "b"']
    assert dv.enum(P, "a", {"b", "a"}) == []


def test_keyed_items_reports_repeats_then_validates_each_changed_item_against_its_old_one():
    seen: list[tuple[str, Any]] = []

    def item(op: dv.Op, path: FieldPath, value: dv.Struct, old: dv.Struct | None) -> ErrorList:
        seen.append((str(path), old))
        return ErrorList()

    claims = [
        {"name": "a", "resourceClaimName": "x", "resourceClaimTemplateName": None},
        {"name": "b", "resourceClaimName": "y", "resourceClaimTemplateName": None},
        {"name": "a", "resourceClaimName": "z", "resourceClaimTemplateName": None},
    ]
    old = [{"name": "b", "resourceClaimName": "y", "resourceClaimTemplateName": None}]
    assert strings(dv.keyed_items("PodGroupResourceClaim", item, UPDATE, P, claims, old)) == [
        # the whole Go struct as json.Marshal writes it: the unset template name is omitempty
        'spec.x[2]: Duplicate value: {"name":"a","resourceClaimName":"z"}'
    ]
    assert seen == [("spec.x[0]", None), ("spec.x[2]", None)]
