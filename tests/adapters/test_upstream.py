"""Every upstream example is a golden test: what validate, compile (gang sizes) and place make of it.

The corpus is each controller's examples, samples and site folders copied whole (``tests/data/upstream/<project>/``,
each project's ``SOURCE`` naming repository, commit and folders).
"""

from __future__ import annotations

from pathlib import Path

import yaml
from upstream_verdicts import CASES, DATA, GOLDEN, LEGACY, SOURCES, render_table, verdicts

DOCS = Path(__file__).resolve().parents[2] / "docs" / "adapters.md"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "manifests" / "upstream"


def test_every_project_names_its_source_and_every_folder_is_copied():
    assert sorted(SOURCES) == ["jobset", "kueue", "lws", "scheduler-plugins", "trainer", "volcano"]
    assert all(
        len(source["commit"]) == 40 and source["repository"].startswith("github.com/") for source in SOURCES.values()
    )
    assert len(CASES) == 298


def test_the_shared_manifests_are_corpus_files():
    """The 46 manifests other tests use (``../shared/manifests/upstream``) are byte-for-byte corpus files."""
    assert len(LEGACY) == 46
    for case in LEGACY:
        first, _, rest = (DATA / case).read_text().partition("\n")
        project = Path(case).parts[0].replace("trainer-related", "trainer")
        path = first.split(" @ ")[0].split("/", 3)[3]
        assert (DATA / project / path).read_text() == rest, case
    if SHARED.is_dir():
        assert sorted(str(p.relative_to(SHARED)) for p in SHARED.rglob("*.yaml")) == LEGACY


def test_verdicts_match_the_golden_file(tmp_path: Path):
    assert verdicts(tmp_path) == yaml.safe_load(GOLDEN.read_text())


def test_docs_table_is_the_golden_file():
    assert render_table(yaml.safe_load(GOLDEN.read_text())) in DOCS.read_text()
