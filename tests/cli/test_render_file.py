"""``--render`` writes only the file it names: never over an existing one without ``--force``, never through a link."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from workloadbuilder.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
JOB = ROOT / "tests" / "data" / "adapters" / "job" / "root-seed-8-workers.in.yaml"


def _place(*extra: str) -> tuple[int, str]:
    err = io.StringIO()
    code = main(["place", str(JOB), "--generate", "zones=1,blocks=1,racks=2,hosts=4", *extra], io.StringIO(), err)
    return code, err.getvalue().splitlines()[-1] if err.getvalue() else ""


@pytest.mark.parametrize(
    ("force", "code", "last", "kept"),
    [
        ([], 2, "exists; --force overwrites it", True),
        (["--force"], 0, "", False),
    ],
    ids=["kept-without-force", "overwritten-with-force"],
)
def test_an_existing_file_is_overwritten_only_with_force(
    tmp_path: Path, force: list[str], code: int, last: str, kept: bool
) -> None:
    target = tmp_path / "out.svg"
    target.write_text("mine")
    got, line = _place("--render", str(target), *force)
    assert (got, line.endswith(last) if last else not line.startswith("error"), target.read_text() == "mine") == (
        code,
        True,
        kept,
    )
    if not kept:
        assert "<svg" in target.read_text()


@pytest.mark.parametrize("force", [[], ["--force"]], ids=["plain", "with-force"])
def test_a_symbolic_link_is_never_followed(tmp_path: Path, force: list[str]) -> None:
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("precious")
    link = tmp_path / "out.svg"
    link.symlink_to(elsewhere)
    got, line = _place("--render", str(link), *force)
    assert (got, line, elsewhere.read_text()) == (
        2,
        f"error: --render: {link} is a symbolic link; it is not followed: give the file itself",
        "precious",
    )


def test_a_new_file_is_written(tmp_path: Path) -> None:
    target = tmp_path / "new.html"
    assert _place("--render", str(target))[0] == 0
    assert target.read_text().startswith("<!DOCTYPE html>")
