"""The Python in the docs (and the README's sample) runs as written: the one runner of the docs' code blocks.

Every page with a ```python block is found and run; every ```python block of
a page runs in one namespace, in page order, as a reader following along in
one interpreter would. A block directly followed by an ```output block must
print exactly that text.
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _pages() -> list[str]:
    """README.md and every docs page with a python block, as paths from the repository root."""
    candidates = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [str(path.relative_to(ROOT)) for path in candidates if "```python\n" in path.read_text()]


PAGES = _pages()

_FENCE = re.compile(r"^```(\S*)\s*$")


@dataclass
class Block:
    lang: str
    line: int  # 1-based line of the first code line
    text: str


def fenced_blocks(markdown: str) -> list[Block]:
    """The fenced blocks of a page, in order, with their info string."""
    blocks: list[Block] = []
    lines = markdown.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        start = i + 1
        end = start
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        assert end < len(lines), f"unclosed fence at line {i + 1}"
        blocks.append(Block(match.group(1), start + 1, "".join(lines[start:end])))
        i = end + 1
    return blocks


def python_runs(blocks: list[Block]) -> list[tuple[Block, Block | None]]:
    """Each python block and the output block right after it, if any."""
    runs = []
    for i, block in enumerate(blocks):
        if block.lang != "python":
            continue
        following = blocks[i + 1] if i + 1 < len(blocks) else None
        runs.append((block, following if following is not None and following.lang == "output" else None))
    return runs


@pytest.mark.parametrize("page", PAGES, ids=PAGES)
def test_page_code_runs(page: str) -> None:
    path = ROOT / page
    runs = python_runs(fenced_blocks(path.read_text()))
    assert runs, f"{page} has no python block"
    namespace: dict[str, object] = {"__name__": f"docs.{page}"}
    for block, expected in runs:
        # Pad with blank lines so tracebacks point at the line in the page.
        code = compile("\n" * (block.line - 1) + block.text, str(path), "exec")
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            exec(code, namespace)  # running the docs is the point
        if expected is not None:
            assert stdout.getvalue() == expected.text, f"{page}: output of the block at line {block.line}"


def test_every_output_block_follows_python() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for path in pages:
        blocks = fenced_blocks(path.read_text())
        for i, block in enumerate(blocks):
            if block.lang == "output":
                assert i > 0, f"{path}:{block.line}: output without code"
                assert blocks[i - 1].lang == "python", f"{path}:{block.line}: output without code"


def test_the_pages_with_code_are_found() -> None:
    assert {
        "README.md",
        "docs/quickstart.md",
        "docs/placement.md",
        "docs/validation.md",
        "docs/adapters/job.md",
    } <= set(PAGES)
