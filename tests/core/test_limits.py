"""The bounds of ``workloadbuilder.limits``: their values, their order, and each one enforced exactly at its edge."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

import workloadbuilder.limits as limits
from workloadbuilder._internal.fields_read import read_count
from workloadbuilder._internal.textread import TextError, check_nesting, json_document, read_stream
from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.field import ErrorList

VALUES = {
    "INT32_MAX": 2_147_483_647,
    "MAX_ALIAS_NODES": 100_000,
    "MAX_COPIES": 100_000,
    "MAX_INPUT_BYTES": 268_435_456,
    "MAX_INDEXED_COMPLETIONS": 100_000,
    "MAX_LWS_REPLICAS": 1_000_000,
    "MAX_MESSAGE_VALUE": 1000,
    "MAX_WHOLE_MESSAGE_VALUE": 1_048_576,
    "MAX_NESTING": 100,
    "MAX_NODES": 200_000,
    "MAX_PODS": 100_000,
    "MAX_RUNTIME_GROUPS": 10_000,
    "MAX_SECONDS": 1_000_000_000,
    "MAX_TIMEOUT": 86_400.0,
}


def test_every_bound_is_exported_with_its_value() -> None:
    assert sorted(limits.__all__) == sorted(VALUES)
    assert {name: getattr(limits, name) for name in limits.__all__} == VALUES
    assert [type(getattr(limits, name)).__name__ for name in sorted(VALUES) if name != "MAX_TIMEOUT"] == ["int"] * 13
    assert type(limits.MAX_TIMEOUT) is float


def test_every_bound_is_documented() -> None:
    source = Path(limits.__file__).read_text(encoding="utf-8")
    assert [name for name in limits.__all__ if f"\n{name} = " not in source] == []
    for name in limits.__all__:
        after = source.split(f"\n{name} = ", 1)[1].split("\n", 2)
        assert after[1].startswith('"""'), f"{name} has no docstring"
        assert after[1].startswith(('"""Kubernetes: ', '"""The engine: ')), f"{name} does not say where it comes from"


def test_the_engine_bounds_fit_the_kubernetes_ones() -> None:
    assert limits.MAX_INDEXED_COMPLETIONS <= limits.MAX_PODS < limits.INT32_MAX
    assert limits.MAX_RUNTIME_GROUPS <= limits.MAX_PODS
    assert limits.MAX_LWS_REPLICAS < limits.INT32_MAX
    assert limits.MAX_MESSAGE_VALUE < limits.MAX_WHOLE_MESSAGE_VALUE
    assert limits.MAX_NESTING < 1000  # Python's default recursion limit, with room for the steps that recurse


def nested(depth: int) -> Any:
    """A value with ``depth`` levels of containers: ``[[...[]...]]``."""
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


def test_check_nesting_takes_max_nesting_levels_and_refuses_one_more() -> None:
    check_nesting(nested(limits.MAX_NESTING))
    with pytest.raises(InvalidArgumentError, match=r"^the object nests deeper than 100 levels$"):
        check_nesting(nested(limits.MAX_NESTING + 1))


def test_json_text_nesting_is_bounded_by_max_nesting() -> None:
    assert json_document(json.dumps(nested(limits.MAX_NESTING))) == nested(limits.MAX_NESTING)
    with pytest.raises(TextError) as caught:
        json_document(json.dumps(nested(limits.MAX_NESTING + 1)))
    assert "JSON nests deeper than 100 levels" in str(caught.value)


def test_read_stream_reads_its_limit_and_refuses_one_byte_more() -> None:
    assert read_stream(io.BytesIO(b"x" * 10), limit=10) == b"x" * 10
    with pytest.raises(TextError) as caught:
        read_stream(io.BytesIO(b"x" * 11), limit=10)
    assert "the input is larger than 10 bytes, the most workloadbuilder reads" in str(caught.value)


def test_read_stream_defaults_to_max_input_bytes() -> None:
    class Endless(io.RawIOBase):
        """A stream that never ends (as ``/dev/zero``), counting what is asked of it."""

        asked = 0

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            Endless.asked += len(buffer)
            buffer[:] = b"\0" * len(buffer)
            return len(buffer)

    with pytest.raises(TextError) as caught:
        read_stream(io.BufferedReader(Endless(), buffer_size=1 << 20))
    assert f"the input is larger than {limits.MAX_INPUT_BYTES} bytes" in str(caught.value)
    assert Endless.asked <= limits.MAX_INPUT_BYTES + (2 << 20)


@pytest.mark.parametrize(
    ("value", "expected", "message"),
    [
        (limits.INT32_MAX, limits.INT32_MAX, None),
        (limits.INT32_MAX + 1, None, "Invalid value: 2147483648: must be less than or equal to 2147483647"),
    ],
    ids=["int32-max", "one-more"],
)
def test_counts_are_int32_by_default(value: int, expected: int | None, message: str | None) -> None:
    errors = ErrorList()
    assert read_count({"spec": {"replicas": value}}, ["spec", "replicas"], errors) == expected
    assert [str(e) for e in errors] == ([] if message is None else [f"spec.replicas: {message}"])
