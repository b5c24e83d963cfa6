"""The README's first command works, and prints what the golden files say.

The command is read from the README itself, so the two cannot drift apart:
every ``workloadbuilder ...`` part of its first line is run through ``main``
and compared with ``tests/data/cli/readme-<n>.out``.
"""

from __future__ import annotations

import io
import re
import shlex
from pathlib import Path

import pytest

from workloadbuilder.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "cli"


def _readme_commands() -> list[list[str]]:
    block = re.search(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.DOTALL)
    assert block is not None
    first_line = block.group(1).splitlines()[0]
    parts = [shlex.split(part) for part in first_line.split("&&")]
    return [argv[1:] for argv in parts if argv[0] == "workloadbuilder"]


COMMANDS = _readme_commands()


def test_the_first_command_installs_then_compiles_and_places():
    assert [argv[0] for argv in COMMANDS] == ["compile", "place"]


@pytest.mark.parametrize("number", range(len(COMMANDS)), ids=[argv[0] for argv in COMMANDS])
def test_readme_command_output(number: int, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(ROOT)
    out, err = io.StringIO(), io.StringIO()
    code = main(COMMANDS[number], stdout=out, stderr=err)
    assert (code, err.getvalue()) == (0, "")
    assert out.getvalue() == (GOLDEN / f"readme-{number + 1}.out").read_text()
