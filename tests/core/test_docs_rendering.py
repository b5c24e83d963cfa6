"""The API reference renders as written: docstrings of the documented modules carry no markup mkdocs shows raw.

``mkdocs build --strict`` (CI's last step) fails on a broken link; what it
cannot see is markup that renders wrongly: reST's ``::`` before a block
(shown literally), and a doctest outside an ``Examples:`` section (rendered
as a quotation, where a regex such as ``[a-z]([-a-z0-9]*)`` becomes a link).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DIRECTIVE = re.compile(r"^:::\s+(\S+)", re.MULTILINE)


def _documented_modules() -> list[str]:
    """Every module a ``::: module`` line of the reference pages renders."""
    pages = sorted((ROOT / "docs" / "reference").glob("*.md"))
    return sorted({name for page in pages for name in DIRECTIVE.findall(page.read_text())})


def _source(module: str) -> Path:
    parts = module.split(".")
    base = ROOT.joinpath(*parts)
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def _docstrings(path: Path) -> Iterator[tuple[str, str]]:
    """``(name, docstring)`` of the module and of every class and function in it."""
    tree = ast.parse(path.read_text())
    for node in [tree, *ast.walk(tree)]:
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node)
            if doc:
                yield getattr(node, "name", path.name), doc


def _problems(doc: str) -> list[str]:
    problems, in_examples = [], False
    for line in doc.splitlines():
        stripped = line.strip()
        if line and not line.startswith(" "):
            in_examples = stripped == "Examples:"
        if stripped.endswith("::"):
            problems.append(f"reST block marker: {stripped!r}")
        if stripped.startswith(">>>") and not in_examples:
            problems.append(f"doctest outside an Examples: section: {stripped!r}")
    return problems


MODULES = _documented_modules()


@pytest.mark.parametrize("module", MODULES, ids=MODULES)
def test_documented_docstrings_render_as_written(module: str) -> None:
    found = [f"{name}: {problem}" for name, doc in _docstrings(_source(module)) for problem in _problems(doc)]
    assert found == []


def test_every_example_is_on_the_examples_page() -> None:
    page = (ROOT / "docs" / "examples.md").read_text()
    examples = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "examples").rglob("*")
        if path.suffix in (".py", ".yaml") and "golden" not in path.parts and "__pycache__" not in path.parts
    )
    assert [name for name in examples if f'--8<-- "{name}"' not in page] == []
