"""tests/cli/commands: each command module's ``HELP``, ``add_options`` and ``run``, called as ``cli.app`` calls them.

``parsed`` builds the command's parser from its ``add_options`` alone and parses a command line, as ``main``
would (``files`` already expanded); ``synopsis`` reads a command's usage block from the docs, so a flag
declared and not documented (or documented and not declared) fails.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[3]


def declared_options(module: ModuleType) -> list[list[str]]:
    """The option strings of each optional argument ``module.add_options`` declares (``-h`` left out)."""
    parser = argparse.ArgumentParser()
    module.add_options(parser)
    return [action.option_strings for action in parser._actions if action.option_strings and action.dest != "help"]


def synopsis_flags(page: str, command: str) -> list[str]:
    """The flags of ``command``'s usage block on ``page`` (docs/<page>): every ``-x`` and ``--name`` in it."""
    text = (ROOT / "docs" / page).read_text()
    found = re.search(rf"```text\n(workloadbuilder {command} .*?)```", text, re.DOTALL)
    assert found is not None, f"docs/{page} has no usage block for {command}"
    return sorted(set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", found.group(1))))


def undocumented_and_undeclared(module: ModuleType, flags: list[str]) -> tuple[list[list[str]], list[str]]:
    """The declared options no flag of ``flags`` names, and the flags no declared option has."""
    options = declared_options(module)
    spelled = {flag for strings in options for flag in strings}
    return [strings for strings in options if not set(strings) & set(flags)], [f for f in flags if f not in spelled]


@pytest.fixture
def parsed() -> Callable[[ModuleType, str, list[str]], argparse.Namespace]:
    def parse(module: ModuleType, command: str, argv: list[str]) -> argparse.Namespace:
        parser = argparse.ArgumentParser(prog=f"workloadbuilder {command}")
        module.add_options(parser)
        args = parser.parse_args(argv)
        args.command, args.debug = command, False
        return args

    return parse


@pytest.fixture
def docs_check() -> Callable[[ModuleType, str, str], tuple[list[list[str]], list[str]]]:
    """``(module, page, command)`` -> the declared options docs/<page>'s usage block leaves out, and its flags
    the module does not declare: both empty when the two agree."""

    def check(module: ModuleType, page: str, command: str) -> tuple[list[list[str]], list[str]]:
        return undocumented_and_undeclared(module, synopsis_flags(page, command))

    return check


@pytest.fixture
def options() -> Callable[[ModuleType], list[list[str]]]:
    """``module`` -> the option strings of each optional argument its ``add_options`` declares."""
    return declared_options
