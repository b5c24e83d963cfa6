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


def test_every_command_module_has_one_shape_and_the_app_uses_it() -> None:
    import importlib
    import pkgutil

    import workloadbuilder.cli.commands as package

    names = sorted(info.name for info in pkgutil.iter_modules(package.__path__))
    assert names == sorted(COMMANDS)
    for name in names:
        module = importlib.import_module(f"{package.__name__}.{name}")
        assert sorted(module.__all__) == ["HELP", "add_options", "run"]
        assert COMMANDS[name] == (module.HELP, module.add_options, module.run)


def test_start_up_loads_no_command_work() -> None:
    import subprocess
    import sys

    code = (
        "import sys, workloadbuilder.cli.app; "
        "print(sorted(m for m in sys.modules if m.startswith(('workloadbuilder.cli.run_', 'workloadbuilder.placement', "
        "'workloadbuilder.adapters', 'workloadbuilder.doctor', 'yaml', 'pydantic'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"
