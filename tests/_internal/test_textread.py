"""The bounded JSON reader: nesting counted level by level, a key given twice refused, shared parts walked once."""

from __future__ import annotations

from typing import Any, TypedDict

import msgspec
import pytest

from workloadbuilder._internal.textread import TextError, _deeper_than, check_nesting, json_document, typed_json
from workloadbuilder.errors import InvalidArgumentError


def _nested(depth: int) -> Any:
    value: Any = 1
    for k in range(depth):
        value = [value] if k % 2 else {"k": value}
    return value


@pytest.mark.parametrize(
    ("depth", "limit", "deeper"),
    [(0, 0, False), (1, 0, True), (1, 1, False), (5, 5, False), (5, 4, True), (100, 100, False), (101, 100, True)],
    ids=["scalar", "one-level-limit-0", "one-level", "five-at-five", "five-over-four", "at-the-bound", "over-it"],
)
def test_depth_is_counted_in_lists_and_objects(depth: int, limit: int, deeper: bool) -> None:
    assert _deeper_than(_nested(depth), limit) is deeper
    assert _deeper_than(_nested(depth), limit, shared=False) is deeper


def test_a_part_shared_2_to_the_60_times_is_walked_once_per_level() -> None:
    shared: Any = [1]
    for _ in range(60):
        shared = [shared, shared]
    assert (_deeper_than(shared, 61), _deeper_than(shared, 60)) == (False, True)
    with pytest.raises(InvalidArgumentError, match=r"^the object nests deeper than 50 levels$"):
        check_nesting(shared, limit=50)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1, "b": [1, {"c": 2}]}', {"a": 1, "b": [1, {"c": 2}]}),
        ('{"a": 1, "a": 2}', None),
        ('{"x": {"a": 1, "a": 2}}', None),
        ("[1, 2", None),
    ],
    ids=["plain", "key-twice", "key-twice-nested", "not-json"],
)
def test_json_is_read_once_and_a_repeated_key_leaves_it_to_the_yaml_reader(text: str, expected: Any) -> None:
    assert json_document(text) == expected


def test_json_deeper_than_the_bound_is_refused() -> None:
    with pytest.raises(TextError, match=r"^JSON nests deeper than 100 levels$"):
        json_document("[" * 101 + "]" * 101)
    assert json_document("[" * 100 + "]" * 100) is not None


class _Shape(TypedDict, total=False):
    name: str
    count: int


_SHAPE = msgspec.json.Decoder(_Shape)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('{"name": "a", "count": 2, "other": [1, {"x": null}]}', {"name": "a", "count": 2}),
        (b'{"name": "a"}', {"name": "a"}),
        ('{"name": "caf\u00e9 é"}', {"name": "café é"}),
        ('{"name": "a", "name": "b"}', {"name": "b"}),
        ('{"other": ' + "[" * 150 + "]" * 150 + "}", {}),
    ],
    ids=["skips-the-rest", "bytes", "non-ascii", "key-twice-keeps-the-last", "skipped-nesting-is-never-built"],
)
def test_typed_json_builds_only_the_declared_fields(source: str | bytes, expected: Any) -> None:
    assert typed_json(source, _SHAPE) == expected


@pytest.mark.parametrize(
    "source",
    [
        '{"count": "2"}',
        '{"count": 2.0}',
        '{"count": true}',
        '{"count": NaN}',
        "name: a",
        '{"name": "a"} x',
        '{"name": "\\ud800"}',
        '{"name": "\udc80"}',
        b'{"other": "\xff"}',
        b'\xef\xbb\xbf{"name": "a"}',
        '{"other": ' + "[" * 100_000 + "]" * 100_000 + "}",
    ],
    ids=[
        "string-for-int",
        "float-for-int",
        "bool-for-int",
        "nan",
        "yaml",
        "trailing-text",
        "escaped-lone-surrogate",
        "lone-surrogate-in-the-str",
        "skipped-bytes-not-utf8",
        "byte-order-mark",
        "past-the-recursion-limit",
    ],
)
def test_typed_json_leaves_what_it_refuses_to_the_careful_reader(source: str | bytes) -> None:
    assert typed_json(source, _SHAPE) is None


def test_typed_json_refuses_bytes_past_the_input_bound_before_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("workloadbuilder._internal.textread.MAX_INPUT_BYTES", 15)
    assert typed_json(b'{"name": "abcdefgh"}', _SHAPE) is None
    assert typed_json(b'{"name": "a"}', _SHAPE) == {"name": "a"}
