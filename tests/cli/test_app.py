"""The command line's commands (cli/app.py) as the docs list them: docs/cli.md's table and the README's summary."""

from __future__ import annotations

import re
from pathlib import Path

from workloadbuilder.cli.app import COMMANDS
from workloadbuilder.cli.messages import WARNING_KINDS

ROOT = Path(__file__).resolve().parents[2]
CLI_PAGE = (ROOT / "docs" / "cli.md").read_text()
README = (ROOT / "README.md").read_text()


def test_the_cli_pages_table_lists_every_command_in_help_order() -> None:
    table = re.findall(r"^\| \[`([a-z]+)`\]", CLI_PAGE, re.MULTILINE)
    assert table == list(COMMANDS)


def test_the_readmes_summary_names_every_command() -> None:
    summary = README[README.index("[docs/cli.md](docs/cli.md)") :].split("\n- ")[0]
    assert re.findall(r"`([a-z]+)`", summary.partition(" command (")[2]) == list(COMMANDS)


def test_the_cli_page_names_every_warning_kind() -> None:
    sentence = CLI_PAGE[CLI_PAGE.index("every warning has a kind") :].split("`-W no-KIND`")[0]
    assert re.findall(r"`([a-z-]+)` \(", sentence) == list(WARNING_KINDS)
