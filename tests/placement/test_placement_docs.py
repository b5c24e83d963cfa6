"""docs/placement.md runs as written: its python blocks in order, each printing its output block."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "placement.md"


def _docs_helpers() -> ModuleType:
    """The fence parser of tests/test_docs.py, reused rather than copied."""
    name = "placement_docs_runner"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "test_docs.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_placement_page_runs() -> None:
    helpers = _docs_helpers()
    runs = helpers.python_runs(helpers.fenced_blocks(PAGE.read_text()))
    assert runs
    namespace: dict[str, object] = {"__name__": "docs.placement"}
    for block, expected in runs:
        code = compile("\n" * (block.line - 1) + block.text, str(PAGE), "exec")
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            exec(code, namespace)  # noqa: S102 - running the docs is the point
        if expected is not None:
            assert stdout.getvalue() == expected.text, f"output of the block at line {block.line}"


def test_every_output_block_follows_python() -> None:
    helpers = _docs_helpers()
    blocks = helpers.fenced_blocks(PAGE.read_text())
    for i, block in enumerate(blocks):
        if block.lang == "output":
            assert i > 0 and blocks[i - 1].lang == "python", f"{PAGE}:{block.line}: output without code"
