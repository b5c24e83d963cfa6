"""docs/parity.md names, for each upstream Go test case, the pytest test that ports it: those tests must exist."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NODE_ID = re.compile(r"`(tests/[\w/]+\.py)::(\w+)(?:\[[^`]*\])?`")


def _test_names(module: Path) -> set[str]:
    tree = ast.parse(module.read_text())
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


def test_every_test_named_in_the_parity_table_exists():
    text = (ROOT / "docs" / "parity.md").read_text()
    references = NODE_ID.findall(text)
    assert len(references) >= 107  # one or more per upstream case
    missing = [f"{path}::{name}" for path, name in references if name not in _test_names(ROOT / path)]
    assert missing == []
