"""Every upstream manifest is a golden test: what validate, compile (gang sizes) and place make of it."""

from __future__ import annotations

from pathlib import Path

import yaml
from upstream_verdicts import CASES, DATA, GOLDEN, render_table, verdicts

DOCS = Path(__file__).resolve().parents[2] / "docs" / "adapters.md"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "manifests" / "upstream"


def test_every_manifest_keeps_its_source_note():
    assert len(CASES) == 46
    assert [case for case in CASES if not (DATA / case).read_text().startswith("# source: github.com/")] == []


def test_the_copies_are_the_shared_manifests():
    if SHARED.is_dir():
        assert sorted(str(p.relative_to(SHARED)) for p in SHARED.rglob("*.yaml")) == CASES
        assert [case for case in CASES if (SHARED / case).read_text() != (DATA / case).read_text()] == []


def test_verdicts_match_the_golden_file(tmp_path: Path):
    assert verdicts(tmp_path) == yaml.safe_load(GOLDEN.read_text())


def test_docs_table_is_the_golden_file():
    assert render_table(yaml.safe_load(GOLDEN.read_text())) in DOCS.read_text()
