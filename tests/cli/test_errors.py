"""The words every CLI module shares (cli/errors.py): ``UsageError`` is the library's error, ``one_line`` one line."""

from __future__ import annotations

import pytest

from workloadbuilder.cli.errors import UsageError, one_line
from workloadbuilder.errors import WorkloadBuilderError


def test_a_usage_error_is_a_library_error_so_main_exits_2_on_it() -> None:
    assert issubclass(UsageError, WorkloadBuilderError)


@pytest.mark.parametrize(
    ("problem", "line"),
    [
        (ValueError("bad value"), "bad value"),
        (ValueError("first\nsecond\nthird"), "first; second; third"),
        (ValueError("  padded\n"), "padded"),
        (KeyError(), "KeyError"),
        (UsageError("   "), "UsageError"),
    ],
    ids=["one-line", "lines-joined", "stripped", "no-message", "blank-message"],
)
def test_one_line_is_the_message_on_one_line_or_the_type_name(problem: BaseException, line: str) -> None:
    assert one_line(problem) == line
