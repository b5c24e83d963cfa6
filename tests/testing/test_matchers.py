"""assert_field_errors: the exact errors in order, by Go's constructor name, Go's type string or ErrorType."""

from __future__ import annotations

from pathlib import Path

import pytest

from workloadbuilder import ErrorType, FieldPath
from workloadbuilder.field import forbidden, invalid, required, type_invalid
from workloadbuilder.testing import assert_field_errors


@pytest.mark.parametrize(
    "expected",
    [
        [("Invalid", "spec.x"), ("Forbidden", "spec.y")],
        [(ErrorType.INVALID, "spec.x"), ("FieldValueForbidden", "spec.y")],
        [("Invalid", "spec.x", "must be positive"), ("Forbidden", "spec.y", "")],
    ],
    ids=["short-names", "enum-and-go-strings", "with-detail"],
)
def test_assert_field_errors_accepts_every_spelling(expected):
    errors = [invalid(FieldPath("spec", "x"), 0, "must be positive"), forbidden(FieldPath("spec", "y"))]
    assert_field_errors(errors, expected)


@pytest.mark.parametrize(
    "expected",
    [
        [("Invalid", "spec.x")],
        [("Invalid", "spec.x"), ("Invalid", "spec.y")],
        [("Required", "spec.x"), ("Forbidden", "spec.y")],
    ],
    ids=["too-few-expected", "wrong-type", "wrong-first-type"],
)
def test_assert_field_errors_fails_on_any_difference(expected):
    errors = [invalid(FieldPath("spec", "x"), 0, "must be positive"), forbidden(FieldPath("spec", "y"))]
    with pytest.raises(AssertionError, match="expected"):
        assert_field_errors(errors, expected)


def test_a_mismatch_shows_expected_and_received_pairs_with_the_received_type():
    errors = [type_invalid(FieldPath("spec", "roles").index(1).child("replicas"), "4", "must be of type integer")]
    with pytest.raises(AssertionError) as raised:
        assert_field_errors(errors, [("Invalid", "spec.roles[1].replicas"), ("Required", "spec.x")])
    assert str(raised.value).splitlines() == [
        "expected 2 error(s), got 1:",
        "! [0] expected (Invalid, spec.roles[1].replicas)",
        '! [0] received (TypeInvalid, spec.roles[1].replicas): spec.roles[1].replicas: Invalid value: "4": '
        "must be of type integer",
        "! [1] expected (Required, spec.x)",
        "! [1] received (none)",
    ]


def test_a_detail_mismatch_shows_the_received_detail_and_marks_only_that_error():
    errors = [invalid(FieldPath("spec", "x"), 0, "must be positive"), required(FieldPath("spec", "y"), "")]
    with pytest.raises(AssertionError) as raised:
        assert_field_errors(errors, [("Invalid", "spec.x", "must be even"), ("Required", "spec.y")])
    assert str(raised.value).splitlines() == [
        "expected 2 error(s), got 2:",
        "! [0] expected (Invalid, spec.x, 'must be even')",
        "! [0] received (Invalid, spec.x, 'must be positive'): spec.x: Invalid value: 0: must be positive",
        "  [1] expected (Required, spec.y)",
        "  [1] received (Required, spec.y): spec.y: Required value",
    ]


def test_an_extra_received_error_is_listed_against_none():
    errors = [forbidden(FieldPath("spec", "y"))]
    with pytest.raises(AssertionError) as raised:
        assert_field_errors(errors, [])
    assert str(raised.value).splitlines() == [
        "expected 0 error(s), got 1:",
        "! [0] expected (none)",
        "! [0] received (Forbidden, spec.y): spec.y: Forbidden",
    ]


def test_an_unknown_type_name_is_a_value_error():
    with pytest.raises(ValueError, match="'Bogus' is not a valid ErrorType"):
        assert_field_errors([], [("Bogus", "spec.x")])


def test_the_docs_list_every_error_type():
    page = (Path(__file__).resolve().parents[2] / "docs" / "testing.md").read_text()
    rows = [line.split("|")[1:5] for line in page.splitlines() if line.startswith('| `"')]
    listed = {
        cells[1].strip(" `"): (cells[0].strip(' `"'), cells[2].strip(" `"), cells[3].strip(" `")) for cells in rows
    }
    assert sorted(listed) == sorted(e.name for e in ErrorType)
    for name, (short, go_type, display) in listed.items():
        assert (ErrorType(go_type), ErrorType[name].display) == (ErrorType[name], display)
        with pytest.raises(AssertionError, match=r"^expected 1 error\(s\), got 0:"):
            assert_field_errors([], [(short, "x")])


def test_a_failing_kit_assertion_hides_the_kits_source(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        from workloadbuilder.testing import assert_field_errors

        def test_errors():
            assert_field_errors([], [("Invalid", "spec.x")])
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    assert "__tracebackhide__" not in result.stdout.str()
    assert "def assert_field_errors" not in result.stdout.str()
    result.stdout.fnmatch_lines([">*assert_field_errors(*", "E*AssertionError: expected 1 error(s), got 0:"])
