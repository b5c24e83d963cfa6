"""docs/validation.md: its Python runs as written and prints its output blocks; its coverage table adds up."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

from test_docs import fenced_blocks, python_runs

PAGE = Path(__file__).resolve().parent.parent / "docs" / "validation.md"


def test_validation_page_code_runs_and_prints_its_output():
    runs = python_runs(fenced_blocks(PAGE.read_text()))
    assert runs
    namespace: dict[str, object] = {"__name__": "docs.validation"}
    for block, expected in runs:
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            exec(compile("\n" * (block.line - 1) + block.text, str(PAGE), "exec"), namespace)  # noqa: S102
        if expected is not None:
            assert stdout.getvalue() == expected.text, f"output of the block at line {block.line}"


def test_coverage_table_adds_up_to_the_stated_counts():
    text = PAGE.read_text()
    table = text[text.index("| field | tags | count |") :]
    counts = [int(n) for n in re.findall(r"\| (\d+) \|\n", table)]
    uncovered = [int(n) for n in re.findall(r"\(\*\*not covered\*\*\) \| (\d+) \|", table)]
    assert sum(counts) == 175
    assert sum(counts) - sum(uncovered) == 169
    assert "**175** declarative-validation tags" in text and "**169 are covered**" in text
