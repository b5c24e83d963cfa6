"""Run a doc page's Python blocks in one namespace and compare each with the ``output`` block right after it."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

__all__ = ["check_page"]

_FENCE = re.compile(r"^```(\S*)\s*$", re.MULTILINE)


def check_page(page: Path) -> int:
    """Run every ```python block of ``page`` in order; returns how many ran.

    Raises:
        AssertionError: a block printed something other than its ```output block.
    """
    text = page.read_text()
    blocks: list[tuple[str, str]] = []
    position = 0
    while (start := _FENCE.search(text, position)) is not None:
        end = text.index("\n```", start.end())
        blocks.append((start.group(1), text[start.end() + 1 : end + 1]))
        position = end + 4
    namespace: dict[str, object] = {"__name__": "__doc__"}
    ran = 0
    for i, (lang, code) in enumerate(blocks):
        if lang != "python":
            continue
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, f"{page.name} block {i}", "exec"), namespace)  # noqa: S102 - the docs' own code
        ran += 1
        if i + 1 < len(blocks) and blocks[i + 1][0] == "output":
            assert printed.getvalue() == blocks[i + 1][1], f"{page.name} block {i} printed:\n{printed.getvalue()}"
    return ran
