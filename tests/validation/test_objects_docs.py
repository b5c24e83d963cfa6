"""docs/validation.md: its coverage table adds up (tests/core/test_docs.py runs its Python)."""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "validation.md"


def test_coverage_table_adds_up_to_the_stated_counts():
    text = PAGE.read_text()
    table = text[text.index("| field | tags | count |") :]
    counts = [int(n) for n in re.findall(r"\| (\d+) \|\n", table)]
    uncovered = [int(n) for n in re.findall(r"\(\*\*not covered\*\*\) \| (\d+) \|", table)]
    assert sum(counts) == 175
    assert sum(counts) - sum(uncovered) == 169
    assert "**175** declarative-validation tags" in text
    assert "**169 are covered**" in text
