"""Every relative link in the docs and the README points at a file that exists.

mkdocs only checks links between documentation pages; pages also link to
examples and sources outside ``docs/``, so this test checks them all on disk.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


def _relative_links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.DOTALL)
    return [target for target in LINK.findall(text) if "://" not in target and not target.startswith("mailto:")]


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_relative_links_resolve(page: Path):
    missing = [target for target in _relative_links(page) if not (page.parent / target).exists()]
    assert missing == []
