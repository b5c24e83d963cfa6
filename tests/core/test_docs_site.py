"""The built documentation site (issue 26 point 9): grouped navigation, code blocks, no link that 404s.

``mkdocs build --strict`` fails on a warning, and ``mkdocs.yml`` makes every link that leads out of
the site (a folder, a file outside docs/, a missing anchor) a warning. The build itself runs only
where the ``docs`` extra is installed.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def _config() -> dict:
    class _Loader(yaml.SafeLoader):
        """mkdocs.yml may hold ``!!python/name`` tags; none is needed to read the nav."""

    # yaml.load with a loader of our own: mkdocs.yml's tags need one, and it is still a SafeLoader.
    return yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=_Loader)


def test_the_navigation_is_grouped() -> None:
    nav = _config()["nav"]
    assert [next(iter(entry)) for entry in nav] == [
        "Home",
        "Getting started",
        "The library",
        "Adapters",
        "Placement",
        "Fidelity",
        "API reference",
    ]


def test_code_blocks_are_fenced_and_links_must_resolve() -> None:
    config = _config()
    names = [next(iter(ext)) if isinstance(ext, dict) else ext for ext in config["markdown_extensions"]]
    assert {"pymdownx.highlight", "pymdownx.superfences"} <= set(names)
    assert config["validation"]["links"] == {"not_found": "warn", "unrecognized_links": "warn", "anchors": "warn"}


@pytest.mark.parametrize(
    ("page", "link"),
    [("docs/differences.md", "](adapters/)"), ("docs/parity.md", "](../examples/")],
    ids=["differences-to-a-folder", "parity-out-of-docs"],
)
def test_no_page_links_out_of_the_site(page: str, link: str) -> None:
    assert link not in (ROOT / page).read_text()


def test_the_readme_names_python_and_the_test_time() -> None:
    text = (ROOT / "README.md").read_text()
    commands = re.search(r"```sh\n(.*?)```", text, re.DOTALL)
    assert commands is not None
    assert len(commands.group(1).splitlines()) == 2
    assert "Python 3.11 or" in text
    assert re.search(r"about [\d,]+ tests, which take about \w+\s+minutes on a two-core machine", text)


def test_the_strict_build_passes(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
