"""``workloadbuilder/_internal/arguments.py``: one check of an argument's type, one message form."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from workloadbuilder._internal.arguments import (
    MAPPING,
    NUMBER,
    check_items,
    check_sequence,
    check_type,
    describe,
    type_error,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("x", str, id="str"),
        pytest.param(3, int, id="int"),
        pytest.param(3, NUMBER, id="int-as-number"),
        pytest.param(2.5, NUMBER, id="float-as-number"),
        pytest.param(True, bool, id="bool"),
        pytest.param(True, (bool, type(None)), id="bool-in-tuple"),
        pytest.param(None, (str, type(None)), id="none"),
        pytest.param({"a": 1}, MAPPING, id="dict-as-mapping"),
        pytest.param(Path("x"), (str, Path), id="path"),
    ],
)
def test_a_value_of_an_expected_type_passes(value: object, expected: type | tuple[type, ...]) -> None:
    check_type("f", "p", value, expected)


@pytest.mark.parametrize(
    ("value", "expected", "what", "message"),
    [
        pytest.param(1.5, str, None, "f(): p must be a str, not float", id="float-for-str"),
        pytest.param("1", int, None, "f(): p must be an int, not str", id="str-for-int"),
        pytest.param(True, int, None, "f(): p must be an int, not bool", id="bool-is-no-int"),
        pytest.param(False, NUMBER, None, "f(): p must be a number, not bool", id="bool-is-no-number"),
        pytest.param(1, bool, None, "f(): p must be a bool, not int", id="int-is-no-bool"),
        pytest.param("x", MAPPING, None, "f(): p must be a mapping, not str", id="str-for-mapping"),
        pytest.param(object(), (str, type(None)), None, "f(): p must be a str or None, not object", id="or-none"),
        pytest.param("5", NUMBER, "a number of seconds", "f(): p must be a number of seconds, not str", id="own-words"),
    ],
)
def test_a_wrong_type_is_a_type_error_naming_function_and_parameter(
    value: object, expected: type | tuple[type, ...], what: str | None, message: str
) -> None:
    with pytest.raises(TypeError) as raised:
        check_type("f", "p", value, expected, what)
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("expected", "words"),
    [
        pytest.param(str, "a str", id="str"),
        pytest.param(int, "an int", id="int"),
        pytest.param(NUMBER, "a number", id="number"),
        pytest.param((str, type(None)), "a str or None", id="or-none"),
        pytest.param((str, Path, Mapping), "a str, a Path or a mapping", id="three"),
        pytest.param(Sequence, "a sequence", id="sequence"),
        pytest.param(OSError, "an OSError", id="vowel"),
    ],
)
def test_describe_words_the_expected_classes(expected: type | tuple[type, ...], words: str) -> None:
    assert describe(expected) == words


def test_items_are_checked_at_their_index() -> None:
    check_items("f", "names", ["a", "b"], str)
    with pytest.raises(TypeError) as raised:
        check_items("f", "names", ["a", 2], str, "a name")
    assert str(raised.value) == "f(): names[1] must be a name, not int"


@pytest.mark.parametrize("value", ["abc", b"abc", {"a"}, 1.5], ids=["str", "bytes", "set", "float"])
def test_a_sequence_is_no_str_and_no_set(value: object) -> None:
    with pytest.raises(TypeError) as raised:
        check_sequence("f", "names", value, "a sequence of names")
    assert str(raised.value) == f"f(): names must be a sequence of names, not {type(value).__name__}"


def test_type_error_builds_the_message_for_custom_checks() -> None:
    error = type_error("register", "adapter", 1.5, "an Adapter")
    assert isinstance(error, TypeError)
    assert str(error) == "register(): adapter must be an Adapter, not float"
