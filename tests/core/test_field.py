"""workloadbuilder.field against apimachinery's field package, string for string.

Ported from ``pkg/util/validation/field/{path,errors}_test.go`` and the
aggregate cases of ``pkg/util/errors/errors_test.go``; every expected string
is what the Go code renders for the same input.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
from kubernetes.client import V1alpha3TopologyConstraint
from pydantic import BaseModel, Field

from workloadbuilder import AggregateError, ErrorList, ErrorType, FieldError, FieldPath
from workloadbuilder.field import (
    OMIT_VALUE,
    duplicate,
    forbidden,
    internal_error,
    invalid,
    not_found,
    not_supported,
    required,
    too_long,
    too_many,
    type_invalid,
)
from workloadbuilder.types import SchedulingPolicyOption

FIELD = FieldPath("path.to.field")


# --- FieldPath: Go's TestPath and TestPathMultiArg, step by step ---


def test_path_steps_render_as_go_and_keep_their_root():
    root = FieldPath("root")
    steps: list[tuple[Callable[[FieldPath], FieldPath | None], str]] = [
        (lambda p: p, "root"),
        (lambda p: p.child("first"), "root.first"),
        (lambda p: p.child("second"), "root.first.second"),
        (lambda p: p.index(0), "root.first.second[0]"),
        (lambda p: p.child("third"), "root.first.second[0].third"),
        (lambda p: p.index(93), "root.first.second[0].third[93]"),
        (lambda p: p.parent, "root.first.second[0].third"),
        (lambda p: p.parent, "root.first.second[0]"),
        (lambda p: p.key("key"), "root.first.second[0][key]"),
    ]
    path = root
    rendered = []
    for op, _ in steps:
        step = op(path)
        assert step is not None
        path = step
        rendered.append(str(path))
        assert path.root() is root
    assert rendered == [expected for _, expected in steps]


def test_path_multi_arg_steps_render_as_go_and_keep_their_root():
    root = FieldPath("root", "first")
    steps: list[tuple[Callable[[FieldPath], FieldPath | None], str]] = [
        (lambda p: p, "root.first"),
        (lambda p: p.child("second", "third"), "root.first.second.third"),
        (lambda p: p.index(0), "root.first.second.third[0]"),
        (lambda p: p.parent, "root.first.second.third"),
        (lambda p: p.parent, "root.first.second"),
        (lambda p: p.parent, "root.first"),
        (lambda p: p.parent, "root"),
    ]
    path = root
    rendered = []
    for op, _ in steps:
        step = op(path)
        assert step is not None
        path = step
        rendered.append(str(path))
        assert path.root() is root.root()
    assert rendered == [expected for _, expected in steps]


PATHS = [
    ("root", FieldPath("root"), "root"),
    ("child", FieldPath("spec").child("scheduling"), "spec.scheduling"),
    ("multi-name-root", FieldPath("spec", "scheduling", "schedulingPolicy"), "spec.scheduling.schedulingPolicy"),
    ("multi-name-child", FieldPath("spec").child("a", "b"), "spec.a.b"),
    ("index", FieldPath("spec", "replicatedJobs").index(0), "spec.replicatedJobs[0]"),
    (
        "nested",
        FieldPath("spec", "replicatedJobs").index(12).child("template", "spec").child("scheduling"),
        "spec.replicatedJobs[12].template.spec.scheduling",
    ),
    ("key", FieldPath("metadata", "annotations").key("a/b"), "metadata.annotations[a/b]"),
    ("key-with-dots", FieldPath("metadata", "labels").key("example.com/x"), "metadata.labels[example.com/x]"),
    ("index-then-index", FieldPath("matrix").index(1).index(2), "matrix[1][2]"),
    ("key-then-child", FieldPath("m").key("k").child("v"), "m[k].v"),
    ("empty-key", FieldPath("m").key(""), "m[]"),
    ("empty-root", FieldPath(""), "[]"),
    ("empty-root-index", FieldPath("").index(0), "[][0]"),
    ("empty-child", FieldPath("a").child(""), "a[]"),
    ("dotted-name-verbatim", FieldPath("path.to.field"), "path.to.field"),
]


@pytest.mark.parametrize(("path", "expected"), [(p, e) for _, p, e in PATHS], ids=[i for i, _, _ in PATHS])
def test_path_renders_as_go(path: FieldPath, expected: str):
    assert str(path) == expected


def test_path_root_of_nested_path_is_its_first_element():
    root = FieldPath("spec")
    path = root.child("scheduling").index(3).key("k")
    assert path.root() is root
    assert str(path.root()) == "spec"
    assert root.parent is None


def test_paths_share_parents_and_extending_does_not_change_them():
    base = FieldPath("spec", "scheduling")
    left = base.child("a")
    right = base.index(1)
    assert (str(base), str(left), str(right)) == ("spec.scheduling", "spec.scheduling.a", "spec.scheduling[1]")
    assert left.parent is base
    assert right.parent is base


def test_paths_compare_and_hash_by_rendering():
    assert FieldPath("a", "b").index(0) == FieldPath("a").child("b").index(0)
    assert FieldPath("a").key("0") == FieldPath("a").index(0)
    assert FieldPath("a") != FieldPath("b")
    assert FieldPath("a") != "a"
    assert len({FieldPath("a", "b"), FieldPath("a").child("b")}) == 1
    assert repr(FieldPath("a").index(2)) == "FieldPath('a[2]')"


ELEMENTS = [
    ("root", FieldPath("spec"), ("spec",)),
    ("names", FieldPath("spec", "scheduling", "schedulingPolicy"), ("spec", "scheduling", "schedulingPolicy")),
    (
        "index-is-int",
        FieldPath("spec", "scheduling", "resourceClaims").index(0).child("name"),
        ("spec", "scheduling", "resourceClaims", 0, "name"),
    ),
    ("key-is-str", FieldPath("metadata", "annotations").key("a/b"), ("metadata", "annotations", "a/b")),
    ("digit-key-stays-str", FieldPath("m").key("7"), ("m", "7")),
    ("index-93", FieldPath("x").index(93).index(0), ("x", 93, 0)),
]


@pytest.mark.parametrize(("path", "expected"), [(p, e) for _, p, e in ELEMENTS], ids=[i for i, _, _ in ELEMENTS])
def test_path_elements_are_a_pydantic_loc(path: FieldPath, expected: tuple[str | int, ...]):
    assert path.elements() == expected


ROUND_TRIPS = [
    ("root", "spec"),
    ("names", "spec.scheduling.schedulingPolicy"),
    ("index", "spec.replicatedJobs[0].template"),
    ("two-indexes", "matrix[1][22]"),
    ("key-slash", "metadata.annotations[a/b]"),
    ("key-dots", "metadata.labels[example.com/zone]"),
    ("key-then-child", "m[some-key].value"),
    ("leading-zero-key", "m[007]"),
    ("unicode-digit-key", "m[\u00b2]"),
]


@pytest.mark.parametrize("text", [t for _, t in ROUND_TRIPS], ids=[i for i, _ in ROUND_TRIPS])
def test_parse_is_the_inverse_of_str(text: str):
    assert str(FieldPath.parse(text)) == text


PARSED_ELEMENTS = [
    ("index", "spec.replicatedJobs[0].template", ("spec", "replicatedJobs", 0, "template")),
    ("key", "metadata.annotations[a/b]", ("metadata", "annotations", "a/b")),
    ("mixed", "a[b][3].c", ("a", "b", 3, "c")),
]


@pytest.mark.parametrize(
    ("text", "expected"), [(t, e) for _, t, e in PARSED_ELEMENTS], ids=[i for i, _, _ in PARSED_ELEMENTS]
)
def test_parse_gives_indexes_for_digits_and_keys_otherwise(text: str, expected: tuple[str | int, ...]):
    assert FieldPath.parse(text).elements() == expected


def test_parse_round_trips_a_built_path_with_equal_elements():
    built = FieldPath("spec", "jobs").index(4).child("scheduling").key("x.y/z")
    parsed = FieldPath.parse(str(built))
    assert parsed == built
    assert parsed.elements() == built.elements() == ("spec", "jobs", 4, "scheduling", "x.y/z")


@pytest.mark.parametrize("text", ["", "[0]", "[0].spec"], ids=["empty", "index-only", "index-first"])
def test_parse_rejects_a_path_without_a_leading_name(text: str):
    with pytest.raises(ValueError, match="must start with a field name"):
        FieldPath.parse(text)


# --- ErrorType ---

ERROR_TYPES = [
    (ErrorType.NOT_FOUND, "FieldValueNotFound", "Not found"),
    (ErrorType.REQUIRED, "FieldValueRequired", "Required value"),
    (ErrorType.DUPLICATE, "FieldValueDuplicate", "Duplicate value"),
    (ErrorType.INVALID, "FieldValueInvalid", "Invalid value"),
    (ErrorType.NOT_SUPPORTED, "FieldValueNotSupported", "Unsupported value"),
    (ErrorType.FORBIDDEN, "FieldValueForbidden", "Forbidden"),
    (ErrorType.TOO_LONG, "FieldValueTooLong", "Too long"),
    (ErrorType.TOO_MANY, "FieldValueTooMany", "Too many"),
    (ErrorType.TOO_FEW, "FieldValueTooFew", "Too few"),
    (ErrorType.INTERNAL, "InternalError", "Internal error"),
    (ErrorType.TYPE_INVALID, "FieldValueTypeInvalid", "Invalid value"),
    (ErrorType.TOO_SHORT, "FieldValueTooShort", "Too short"),
]


@pytest.mark.parametrize(("error_type", "value", "display"), ERROR_TYPES, ids=[t.name for t, _, _ in ERROR_TYPES])
def test_error_type_values_and_display_are_go_strings(error_type: ErrorType, value: str, display: str):
    assert (error_type.value, error_type.display, str(error_type)) == (value, display, display)


# --- FieldError.Error(): Go's TestErrorFormatting, and every type with the same bad value ---


class TinyStruct(BaseModel):
    """Go's test TinyStruct: JSON names in declaration order."""

    string_field: str = Field(serialization_alias="stringField")
    int_field: int = Field(serialization_alias="intField")
    bool_field: bool = Field(serialization_alias="boolField")


class Stringer:
    """A value JSON cannot encode but that renders itself, like Go's SelfMarshalerStringer."""

    def __str__(self) -> str:
        return "magic"


def _raw(error_type: ErrorType, bad_value: Any) -> FieldError:
    return FieldError(error_type, "path.to.field", bad_value, "the details")


FORMATTING = [
    ("required", _raw(ErrorType.REQUIRED, "the value"), "path.to.field: Required value: the details"),
    ("required-func", required(FIELD, "the details"), "path.to.field: Required value: the details"),
    ("required-func-no-detail", required(FIELD), "path.to.field: Required value"),
    ("forbidden", _raw(ErrorType.FORBIDDEN, "the value"), "path.to.field: Forbidden: the details"),
    ("forbidden-func", forbidden(FIELD, "the details"), "path.to.field: Forbidden: the details"),
    ("forbidden-func-no-detail", forbidden(FIELD), "path.to.field: Forbidden"),
    ("too-long", _raw(ErrorType.TOO_LONG, "the value"), "path.to.field: Too long: the details"),
    ("too-long-func-1", too_long(FIELD, 1), "path.to.field: Too long: may not be more than 1 byte"),
    ("too-long-func-2", too_long(FIELD, 2), "path.to.field: Too long: may not be more than 2 bytes"),
    ("too-long-func-neg", too_long(FIELD, -1), "path.to.field: Too long: value is too long"),
    ("too-short", _raw(ErrorType.TOO_SHORT, "the value"), "path.to.field: Too short: the details"),
    ("too-many", _raw(ErrorType.TOO_MANY, "the value"), 'path.to.field: Too many: "the value": the details'),
    ("too-many-func-2-1", too_many(FIELD, 2, 1), "path.to.field: Too many: 2: must have at most 1 item"),
    ("too-many-func-3-2", too_many(FIELD, 3, 2), "path.to.field: Too many: 3: must have at most 2 items"),
    ("too-many-func-2-0", too_many(FIELD, 2, 0), "path.to.field: Too many: 2: must have at most 0 items"),
    ("too-many-func-2-neg", too_many(FIELD, 2, -1), "path.to.field: Too many: 2: has too many items"),
    ("too-many-func-neg-1", too_many(FIELD, -1, 1), "path.to.field: Too many: must have at most 1 item"),
    ("too-few", _raw(ErrorType.TOO_FEW, 0), "path.to.field: Too few: 0: the details"),
    ("internal", _raw(ErrorType.INTERNAL, "the value"), "path.to.field: Internal error: the details"),
    (
        "internal-func-exception",
        internal_error(FIELD, ValueError("the error")),
        "path.to.field: Internal error: the error",
    ),
    ("internal-func-str", internal_error(FIELD, "the error"), "path.to.field: Internal error: the error"),
    ("invalid-string", _raw(ErrorType.INVALID, "the value"), 'path.to.field: Invalid value: "the value": the details'),
    (
        "invalid-string-type",
        _raw(ErrorType.INVALID, SchedulingPolicyOption.BASIC),
        'path.to.field: Invalid value: "Basic": the details',
    ),
    ("invalid-int", _raw(ErrorType.INVALID, -42), "path.to.field: Invalid value: -42: the details"),
    ("invalid-bool", _raw(ErrorType.INVALID, True), "path.to.field: Invalid value: true: the details"),
    (
        "invalid-struct",
        _raw(ErrorType.INVALID, TinyStruct(string_field="stringval", int_field=9376, bool_field=True)),
        'path.to.field: Invalid value: {"stringField":"stringval","intField":9376,"boolField":true}: the details',
    ),
    (
        "invalid-list",
        _raw(ErrorType.INVALID, ["one", "two", "three"]),
        'path.to.field: Invalid value: ["one","two","three"]: the details',
    ),
    (
        "invalid-map",
        _raw(ErrorType.INVALID, {"one": 1, "two": 2, "three": 3}),
        'path.to.field: Invalid value: {"one":1,"three":3,"two":2}: the details',
    ),
    (
        "invalid-time",
        _raw(ErrorType.INVALID, datetime.datetime(1, 1, 1, tzinfo=datetime.UTC)),
        'path.to.field: Invalid value: "0001-01-01T00:00:00Z": the details',
    ),
    ("invalid-omit-value", _raw(ErrorType.INVALID, OMIT_VALUE), "path.to.field: Invalid value: the details"),
    ("invalid-untyped-nil", _raw(ErrorType.INVALID, None), "path.to.field: Invalid value: null: the details"),
    (
        "invalid-func",
        invalid(FIELD, "the value", "the details"),
        'path.to.field: Invalid value: "the value": the details',
    ),
    ("invalid-func-no-detail", invalid(FIELD, "v", ""), 'path.to.field: Invalid value: "v"'),
    ("not-found", _raw(ErrorType.NOT_FOUND, "the value"), 'path.to.field: Not found: "the value": the details'),
    ("not-found-func", not_found(FIELD, "the value"), 'path.to.field: Not found: "the value"'),
    (
        "not-supported",
        _raw(ErrorType.NOT_SUPPORTED, "the value"),
        'path.to.field: Unsupported value: "the value": the details',
    ),
    (
        "not-supported-func",
        not_supported(FIELD, "the value", ["val1", "val2"]),
        'path.to.field: Unsupported value: "the value": supported values: "val1", "val2"',
    ),
    (
        "not-supported-func-quotes-values",
        not_supported(FIELD, "x", ['a"b', "c\\d", "e\nf"]),
        'path.to.field: Unsupported value: "x": supported values: "a\\"b", "c\\\\d", "e\\nf"',
    ),
    (
        "not-supported-func-enum-values",
        not_supported(FIELD, "Other", [SchedulingPolicyOption.BASIC, SchedulingPolicyOption.GANG]),
        'path.to.field: Unsupported value: "Other": supported values: "Basic", "Gang"',
    ),
    ("not-supported-func-no-values", not_supported(FIELD, "v", []), 'path.to.field: Unsupported value: "v"'),
    ("duplicate", _raw(ErrorType.DUPLICATE, "the value"), 'path.to.field: Duplicate value: "the value": the details'),
    ("duplicate-func", duplicate(FIELD, "the value"), 'path.to.field: Duplicate value: "the value"'),
    (
        "duplicate-func-item",
        duplicate(FieldPath("claims").index(1), {"name": "a", "resourceClaimName": "x"}),
        'claims[1]: Duplicate value: {"name":"a","resourceClaimName":"x"}',
    ),
    (
        "type-invalid",
        _raw(ErrorType.TYPE_INVALID, "the value"),
        'path.to.field: Invalid value: "the value": the details',
    ),
    (
        "type-invalid-func",
        type_invalid(FIELD, "the value", "the details"),
        'path.to.field: Invalid value: "the value": the details',
    ),
    (
        "failed-marshal-stringer",
        _raw(ErrorType.TYPE_INVALID, Stringer()),
        "path.to.field: Invalid value: magic: the details",
    ),
]


@pytest.mark.parametrize(("error", "expected"), [(e, s) for _, e, s in FORMATTING], ids=[i for i, _, _ in FORMATTING])
def test_error_string_is_gos(error: FieldError, expected: str):
    assert str(error) == expected


def test_error_body_is_the_string_without_the_field():
    error = invalid(FieldPath("spec", "x"), 3, "must be even")
    assert error.error_body() == "Invalid value: 3: must be even"
    assert str(error) == "spec.x: " + error.error_body()


VALUE_FREE = [ErrorType.REQUIRED, ErrorType.FORBIDDEN, ErrorType.TOO_LONG, ErrorType.TOO_SHORT, ErrorType.INTERNAL]
VALUE_BEARING = [
    ErrorType.INVALID,
    ErrorType.TYPE_INVALID,
    ErrorType.NOT_SUPPORTED,
    ErrorType.NOT_FOUND,
    ErrorType.DUPLICATE,
    ErrorType.TOO_MANY,
    ErrorType.TOO_FEW,
]


@pytest.mark.parametrize("error_type", VALUE_FREE, ids=[t.name for t in VALUE_FREE])
def test_value_free_types_never_print_the_value(error_type: ErrorType):
    error = FieldError(error_type, FieldPath("f"), "secret", "d")
    assert str(error) == f"f: {error_type.display}: d"


@pytest.mark.parametrize("error_type", VALUE_BEARING, ids=[t.name for t in VALUE_BEARING])
def test_value_bearing_types_print_the_value(error_type: ErrorType):
    error = FieldError(error_type, FieldPath("f"), "secret", "d")
    assert str(error) == f'f: {error_type.display}: "secret": d'


@pytest.mark.parametrize("error_type", VALUE_BEARING, ids=[t.name for t in VALUE_BEARING])
def test_value_bearing_types_honour_omit_value(error_type: ErrorType):
    error = FieldError(error_type, FieldPath("f"), OMIT_VALUE, "d")
    assert str(error) == f"f: {error_type.display}: d"


# --- bad-value rendering: %q for strings, %v for int/float/bool, json.Marshal for the rest ---

BAD_VALUES: list[tuple[str, Any, str]] = [
    ("string", "the value", '"the value"'),
    ("empty-string", "", '""'),
    ("double-quotes", 'say "hi"', '"say \\"hi\\""'),
    ("single-quotes-raw", "'single'", "\"'single'\""),
    ("backslash", "C:\\dir", '"C:\\\\dir"'),
    ("newline", "a\nb", '"a\\nb"'),
    ("named-escapes", "\t\r\a\b\f\v", '"\\t\\r\\a\\b\\f\\v"'),
    ("ascii-controls-hex", "\x00\x01\x1f\x7f", '"\\x00\\x01\\x1f\\x7f"'),
    ("c1-controls", "\u0080\u009f", '"\\u0080\\u009f"'),
    ("latin-raw", "h\u00e9llo w\u00f6rld", '"h\u00e9llo w\u00f6rld"'),
    ("cjk-raw", "\u65e5\u672c\u8a9e", '"\u65e5\u672c\u8a9e"'),
    ("emoji-raw", "\U0001f600", '"\U0001f600"'),
    ("zero-width-space", "a\u200bb", '"a\\u200bb"'),
    ("zero-width-joiner-and-bom", "\u200d\ufeff", '"\\u200d\\ufeff"'),
    ("no-break-space", "a\u00a0b", '"a\\u00a0b"'),
    ("line-separator", "\u2028", '"\\u2028"'),
    ("astral-format-char", "\U000e0001", '"\\U000e0001"'),
    ("html-not-escaped-in-strings", "<b>&</b>", '"<b>&</b>"'),
    ("zero", 0, "0"),
    ("negative-int", -42, "-42"),
    ("int-past-int32", 2**31, "2147483648"),
    ("true", True, "true"),
    ("false", False, "false"),
    ("float-integral", 100.0, "100"),
    ("float-fraction", 1.5, "1.5"),
    ("float-tenth", 0.1, "0.1"),
    ("float-1e5", 100000.0, "100000"),
    ("float-1e6", 1e6, "1e+06"),
    ("float-many-digits", 123456789.0, "1.23456789e+08"),
    ("float-1e20", 1e20, "1e+20"),
    ("float-1e21", 1e21, "1e+21"),
    ("float-1e100", 1e100, "1e+100"),
    ("float-1e-4", 0.0001, "0.0001"),
    ("float-1e-5", 1e-05, "1e-05"),
    ("float-2.5e-7", 2.5e-07, "2.5e-07"),
    ("float-denormal", 5e-324, "5e-324"),
    ("float-negative-zero", -0.0, "-0"),
    ("float-nan", float("nan"), "NaN"),
    ("float-inf", float("inf"), "+Inf"),
    ("float-negative-inf", float("-inf"), "-Inf"),
    ("none", None, "null"),
    ("empty-dict", {}, "{}"),
    ("empty-list", [], "[]"),
    ("dict-sorted-keys", {"two": 2, "one": 1, "three": 3}, '{"one":1,"three":3,"two":2}'),
    ("list", ["one", "two", "three"], '["one","two","three"]'),
    ("tuple-as-list", (1, 2), "[1,2]"),
    ("nested", {"b": [1, {"a": None}], "a": True}, '{"a":true,"b":[1,{"a":null}]}'),
    ("json-html-escaped", {"k": "<a&b>"}, '{"k":"\\u003ca\\u0026b\\u003e"}'),
    ("json-line-separators", ["\u2028\u2029"], '["\\u2028\\u2029"]'),
    ("json-string-escapes", {"k": 'a\nb"c\\'}, '{"k":"a\\nb\\"c\\\\"}'),
    ("json-controls", {"k": "\x01\x08\x0c\t"}, '{"k":"\\u0001\\b\\f\\t"}'),
    ("json-non-ascii-raw", {"k": "\u00e9\u65e5"}, '{"k":"\u00e9\u65e5"}'),
    ("json-float-integral", {"a": 100.0}, '{"a":100}'),
    ("json-float-fraction", {"a": 1.5}, '{"a":1.5}'),
    ("json-float-1e16", {"a": 1e16}, '{"a":10000000000000000}'),
    ("json-float-1e21", {"a": 1e21}, '{"a":1e+21}'),
    ("json-float-1e-7", {"a": 1e-07}, '{"a":1e-7}'),
    ("client-model", V1alpha3TopologyConstraint(key="a<b"), '{"key":"a\\u003cb"}'),
]


@pytest.mark.parametrize(("value", "rendered"), [(v, r) for _, v, r in BAD_VALUES], ids=[i for i, _, _ in BAD_VALUES])
def test_bad_value_renders_as_go(value: Any, rendered: str):
    assert str(invalid(FieldPath("f"), value, "d")) == f"f: Invalid value: {rendered}: d"


# --- the field: nil paths, strings, locations ---


NIL_PATHS = [
    ("required", required(None, "d"), "<nil>: Required value: d"),
    (
        "invalid",
        invalid(None, None, "invalid builder: missing root WorkloadItem"),
        "<nil>: Invalid value: null: invalid builder: missing root WorkloadItem",
    ),
    (
        "internal",
        internal_error(None, "cannot validate a builder constructed from an existing workload"),
        "<nil>: Internal error: cannot validate a builder constructed from an existing workload",
    ),
    ("too-many", too_many(None, 2, 1), "<nil>: Too many: 2: must have at most 1 item"),
]


@pytest.mark.parametrize(("error", "expected"), [(e, s) for _, e, s in NIL_PATHS], ids=[i for i, _, _ in NIL_PATHS])
def test_nil_path_renders_as_go_nil(error: FieldError, expected: str):
    assert error.field == "<nil>"
    assert error.path is None
    assert str(error) == expected


def test_field_keeps_the_path_and_its_rendering():
    path = FieldPath("spec", "scheduling").child("resourceClaims").index(0).child("name")
    error = required(path)
    assert error.path is path
    assert error.field == "spec.scheduling.resourceClaims[0].name"


def test_field_given_as_string_is_kept_verbatim():
    error = FieldError(ErrorType.INVALID, "spec.x[2]", 1, "d")
    assert (error.field, error.path, str(error)) == ("spec.x[2]", None, "spec.x[2]: Invalid value: 1: d")


LOCS = [
    ("path", required(FieldPath("spec", "claims").index(0).child("name")), ("spec", "claims", 0, "name")),
    ("path-key", required(FieldPath("metadata", "annotations").key("a/b")), ("metadata", "annotations", "a/b")),
    ("string-field", FieldError(ErrorType.INVALID, "spec.x[3].y", 1, "d"), ("spec", "x", 3, "y")),
    ("string-key", FieldError(ErrorType.INVALID, "m[a/b]", 1, "d"), ("m", "a/b")),
    ("nil", required(None), ()),
]


@pytest.mark.parametrize(("error", "loc"), [(e, loc) for _, e, loc in LOCS], ids=[i for i, _, _ in LOCS])
def test_error_loc(error: FieldError, loc: tuple[str | int, ...]):
    assert error.loc() == loc


def test_errors_compare_by_type_field_detail_and_value():
    path = FieldPath("f")
    assert invalid(path, 1, "d") == invalid(FieldPath("f"), 1, "d")
    assert invalid(path, 1, "d") != invalid(path, 2, "d")
    assert invalid(path, 1, "d") != invalid(path, True, "d")
    assert invalid(path, 1, "d") != invalid(path, 1, "e")
    assert invalid(path, 1, "d") != type_invalid(path, 1, "d")
    assert required(path, "d") == FieldError(ErrorType.REQUIRED, "f", "ignored", "d")


# --- helper constructors: type, field, bad value and detail, as Go builds them (TestMakeFuncs) ---

CONSTRUCTORS = [
    ("invalid", invalid(FieldPath("f"), "v", "d"), ErrorType.INVALID, "v", "d"),
    ("type-invalid", type_invalid(FieldPath("f"), "v", "d"), ErrorType.TYPE_INVALID, "v", "d"),
    ("not-supported-no-values", not_supported(FieldPath("f"), "v", []), ErrorType.NOT_SUPPORTED, "v", ""),
    (
        "not-supported",
        not_supported(FieldPath("f"), "v", ["a", "b"]),
        ErrorType.NOT_SUPPORTED,
        "v",
        'supported values: "a", "b"',
    ),
    ("duplicate", duplicate(FieldPath("f"), "v"), ErrorType.DUPLICATE, "v", ""),
    ("not-found", not_found(FieldPath("f"), "v"), ErrorType.NOT_FOUND, "v", ""),
    ("required", required(FieldPath("f"), "d"), ErrorType.REQUIRED, "", "d"),
    ("forbidden", forbidden(FieldPath("f"), "d"), ErrorType.FORBIDDEN, "", "d"),
    ("internal", internal_error(FieldPath("f"), "e"), ErrorType.INTERNAL, "e", "e"),
    ("too-long", too_long(FieldPath("f"), 63), ErrorType.TOO_LONG, "<value omitted>", "may not be more than 63 bytes"),
    ("too-many", too_many(FieldPath("f"), 2, 1), ErrorType.TOO_MANY, 2, "must have at most 1 item"),
    ("too-many-omitted", too_many(FieldPath("f"), -1, 5), ErrorType.TOO_MANY, OMIT_VALUE, "must have at most 5 items"),
]


@pytest.mark.parametrize(
    ("error", "error_type", "bad_value", "detail"),
    [(e, t, v, d) for _, e, t, v, d in CONSTRUCTORS],
    ids=[i for i, *_ in CONSTRUCTORS],
)
def test_constructor_builds_gos_error(error: FieldError, error_type: ErrorType, bad_value: Any, detail: str):
    assert (error.type, error.field, error.detail) == (error_type, "f", detail)
    assert error.bad_value is bad_value or error.bad_value == bad_value


def test_internal_error_keeps_the_exception_as_bad_value():
    cause = RuntimeError("boom")
    error = internal_error(FieldPath("f"), cause)
    assert error.bad_value is cause
    assert str(error) == "f: Internal error: boom"


# --- ErrorList.to_aggregate and AggregateError: Go's TestToAggregate and the aggregate tests ---

A = invalid(FieldPath("f"), "v", "d")
B = internal_error(FieldPath(""), "e")

TO_AGGREGATE = [
    ("empty", [], 0),
    ("one", [A], 1),
    ("same-twice", [A, invalid(FieldPath("f"), "v", "d")], 1),
    ("two", [A, B], 2),
]


@pytest.mark.parametrize(("errors", "count"), [(e, c) for _, e, c in TO_AGGREGATE], ids=[i for i, _, _ in TO_AGGREGATE])
def test_to_aggregate_keeps_one_error_per_distinct_string(errors: list[FieldError], count: int):
    aggregate = ErrorList(errors).to_aggregate()
    if count == 0:
        assert aggregate is None
    else:
        assert aggregate is not None
        assert len(aggregate.field_errors) == count


AGGREGATE_STRINGS = [
    ("one", [A], 'f: Invalid value: "v": d'),
    ("same-twice", [A, A], 'f: Invalid value: "v": d'),
    ("two", [A, B], '[f: Invalid value: "v": d, []: Internal error: e]'),
    (
        "duplicate-dropped-in-order",
        [required(FieldPath("a")), required(FieldPath("b")), required(FieldPath("a"))],
        "[a: Required value, b: Required value]",
    ),
    (
        "int-and-string-values-differ",
        [invalid(FieldPath("f"), 1, "d"), invalid(FieldPath("f"), "1", "d")],
        '[f: Invalid value: 1: d, f: Invalid value: "1": d]',
    ),
    (
        "same-string-different-types",
        [invalid(FieldPath("f"), "v", "d"), type_invalid(FieldPath("f"), "v", "d")],
        'f: Invalid value: "v": d',
    ),
]


@pytest.mark.parametrize(
    ("errors", "expected"), [(e, s) for _, e, s in AGGREGATE_STRINGS], ids=[i for i, _, _ in AGGREGATE_STRINGS]
)
def test_aggregate_string_is_gos(errors: list[FieldError], expected: str):
    aggregate = ErrorList(errors).to_aggregate()
    assert aggregate is not None
    assert str(aggregate) == expected


def test_to_aggregate_drops_later_duplicates_and_keeps_order():
    a, b = required(FieldPath("a")), required(FieldPath("b"))
    aggregate = ErrorList([a, b, required(FieldPath("a")), b]).to_aggregate()
    assert aggregate is not None
    assert list(aggregate.field_errors) == [a, b]
    assert aggregate.field_errors[0] is a


def test_aggregate_of_nothing_renders_empty():
    # TestEmptyAggregate: an aggregate built directly from no errors is "".
    aggregate = AggregateError([])
    assert str(aggregate) == ""
    assert list(aggregate.field_errors) == []


def test_aggregate_built_directly_dedupes_its_string_but_keeps_every_error():
    # TestDedupeAggregate and TestDedupePluralAggregate.
    abc, one23 = required(FieldPath("abc")), required(FieldPath("n123"))
    twice = AggregateError([abc, abc])
    plural = AggregateError([abc, abc, one23])
    assert (str(twice), len(twice.field_errors)) == ("abc: Required value", 2)
    assert (str(plural), len(plural.field_errors)) == ("[abc: Required value, n123: Required value]", 3)


def test_aggregate_is_a_value_error_with_its_string_as_message():
    aggregate = ErrorList([A, B]).to_aggregate()
    assert isinstance(aggregate, ValueError)
    assert aggregate.args == ('[f: Invalid value: "v": d, []: Internal error: e]',)


def test_aggregate_errors_are_pydantic_style_dicts():
    errors = ErrorList(
        [
            required(FieldPath("spec", "scheduling", "resourceClaims").index(0).child("name")),
            invalid(FieldPath("metadata", "annotations").key("a/b"), "x y", "bad key"),
            too_many(FieldPath("spec", "topology"), 2, 1),
            FieldError(ErrorType.TYPE_INVALID, "spec.items[3].count", "3", "must be of type integer"),
            internal_error(None, "no root"),
        ]
    )
    aggregate = errors.to_aggregate()
    assert aggregate is not None
    assert aggregate.errors() == [
        {
            "type": "FieldValueRequired",
            "loc": ("spec", "scheduling", "resourceClaims", 0, "name"),
            "msg": "Required value",
            "input": "",
        },
        {
            "type": "FieldValueInvalid",
            "loc": ("metadata", "annotations", "a/b"),
            "msg": "Invalid value: bad key",
            "input": "x y",
        },
        {
            "type": "FieldValueTooMany",
            "loc": ("spec", "topology"),
            "msg": "Too many: must have at most 1 item",
            "input": 2,
        },
        {
            "type": "FieldValueTypeInvalid",
            "loc": ("spec", "items", 3, "count"),
            "msg": "Invalid value: must be of type integer",
            "input": "3",
        },
        {"type": "InternalError", "loc": (), "msg": "Internal error: no root", "input": "no root"},
    ]


def test_raise_if_any_raises_the_aggregate():
    errors = ErrorList([required(FieldPath("a")), forbidden(FieldPath("b"), "no")])
    with pytest.raises(AggregateError) as caught:
        errors.raise_if_any()
    assert str(caught.value) == "[a: Required value, b: Forbidden: no]"
    assert [e.field for e in caught.value.field_errors] == ["a", "b"]


def test_raise_if_any_on_one_error_raises_that_errors_string():
    with pytest.raises(AggregateError, match=r"^a: Required value$"):
        ErrorList([required(FieldPath("a"))]).raise_if_any()


def test_raise_if_any_on_no_errors_returns_none():
    assert ErrorList().raise_if_any() is None
