"""The Volcano and migration pages' Python runs as written."""

from __future__ import annotations

from pathlib import Path

import pytest
from docs_check import check_page

DOCS = Path(__file__).resolve().parents[2] / "docs" / "adapters"


@pytest.mark.parametrize(("page", "blocks"), [("volcano.md", 2), ("migrate-gangs.md", 2)], ids=["volcano", "migrate"])
def test_page_runs(page: str, blocks: int):
    assert check_page(DOCS / page) == blocks
