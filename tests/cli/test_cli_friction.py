"""CLI friction of issue 26 point 8: ``-o/--output json|yaml`` on the answer commands, and what cli.md says.

``-o yaml`` is the same data as ``-o json``, for place, explain, capacity and simulate alike; an
unknown output is one usage line.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml

from workloadbuilder.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
LINUX = "tests/data/cli/kubelet/linux-selector.yaml"
SMALL = "hosts=2,racks=1,blocks=1"
QUEUE = "tests/data/cli/simulate/urgent.yaml"
NODE = "tests/data/cli/simulate/one-node.yaml"


@pytest.fixture(autouse=True)
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run where the tables' paths lead."""
    monkeypatch.chdir(ROOT)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


COMMANDS = [
    ["place", LINUX, "--generate", SMALL],
    ["explain", LINUX, "--generate", SMALL],
    ["capacity", LINUX, "--generate", SMALL],
    ["simulate", QUEUE, "--cluster", NODE],
]
IDS = ["place", "explain", "capacity", "simulate"]


@pytest.mark.parametrize("argv", COMMANDS, ids=IDS)
@pytest.mark.parametrize("flag", ["-o", "--output"], ids=["short", "long"])
def test_yaml_output_is_the_json_output(argv: list[str], flag: str) -> None:
    code, as_json, _ = run(*argv, flag, "json")
    assert run(*argv, flag, "yaml")[0] == code
    assert yaml.safe_load(run(*argv, flag, "yaml")[1]) == json.loads(as_json)


@pytest.mark.parametrize("argv", COMMANDS, ids=IDS)
def test_an_unknown_output_is_one_usage_line(argv: list[str]) -> None:
    assert run(*argv, "-o", "xml") == (2, "", "error: --output: 'xml' is not one of text, json, yaml\n")


def test_cli_page_says_which_command_talks_to_a_cluster() -> None:
    page = (ROOT / "docs" / "cli.md").read_text()
    assert "never talks to a cluster" not in page
    assert "One\ncommand talks to a cluster: [`doctor`](doctor.md) reads a live gang through\nyour kubeconfig" in page
