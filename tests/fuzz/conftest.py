"""The fuzz suite's report: how many cases each entry point ran."""

from __future__ import annotations

from typing import Any

from fuzz_helpers import CASES


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print the case count per entry point after the run (the issue's closing note quotes it)."""
    if CASES:
        terminalreporter.section("fuzz cases per entry point")
        for entry, count in sorted(CASES.items()):
            terminalreporter.write_line(f"{entry}: {count}")
