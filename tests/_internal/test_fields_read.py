"""``read_field``, the one typed-field reader, and ``read_count`` on it: a wrong shape is a field error at its path."""

from __future__ import annotations

from typing import Any

import pytest

from workloadbuilder import ErrorList
from workloadbuilder._internal.fields_read import read_count, read_field


@pytest.mark.parametrize(
    ("obj", "elements", "expected", "value", "errors"),
    [
        ({"a": {"b": "x"}}, ("a", "b"), "string", "x", []),
        ({"a": {"b": 1}}, ("a", "b"), "string", None, ["a.b: Invalid value: 1: must be of type string"]),
        ({"a": "x"}, ("a", "b"), "string", None, ['a: Invalid value: "x": must be of type object']),
        ({"a": [1]}, ("a", 0), "integer", 1, []),
        ({"a": [1]}, ("a", 3), "integer", None, []),
        ({"a": {"0": 1}}, ("a", 0), "integer", None, ['a: Invalid value: {"0":1}: must be of type array']),
        ({"a": True}, ("a",), "integer", None, ["a: Invalid value: true: must be of type integer"]),
        ({"a": None}, ("a", "b"), "string", None, []),
        ({}, ("a",), "object", None, []),
    ],
    ids=[
        "string",
        "int-for-string",
        "string-on-the-way",
        "index",
        "past-the-end",
        "map-for-list",
        "bool-for-int",
        "null-on-the-way",
        "absent",
    ],
)
def test_read_field(obj: Any, elements: tuple[Any, ...], expected: Any, value: Any, errors: list[str]) -> None:
    found = ErrorList()
    assert (read_field(obj, elements, expected, found), [str(e) for e in found]) == (value, errors)


@pytest.mark.parametrize(
    ("value", "bounds", "result", "errors"),
    [
        (3, {}, 3, []),
        (-1, {"minimum": 0}, None, ["n: Invalid value: -1: must be greater than or equal to 0"]),
        (2**31, {}, None, ["n: Invalid value: 2147483648: must be less than or equal to 2147483647"]),
        (
            11,
            {"maximum": 10, "why": " (a bound)"},
            None,
            ["n: Invalid value: 11: must be less than or equal to 10 (a bound)"],
        ),
        ("3", {}, None, ['n: Invalid value: "3": must be of type integer']),
    ],
    ids=["in-range", "below-minimum", "past-int32", "past-a-bound", "a-string"],
)
def test_read_count(value: Any, bounds: dict[str, Any], result: int | None, errors: list[str]) -> None:
    found = ErrorList()
    assert (read_count({"n": value}, ("n",), found, **bounds), [str(e) for e in found]) == (result, errors)
