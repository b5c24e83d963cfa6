"""``workloadbuilder migrate`` (cli/commands/migrate.py): its help, the flags docs/cli.md lists and ``run``."""

from __future__ import annotations

import io
from pathlib import Path

import yaml

from workloadbuilder.cli.app import main
from workloadbuilder.cli.commands import migrate

ROOT = Path(__file__).resolve().parents[3]
JOB = ROOT / "tests" / "data" / "adapters" / "job" / "root-seed-8-workers.in.yaml"  # Job training/trainer, 8 GPUs


def test_the_help_is_one_line_atop_the_commands_own() -> None:
    assert migrate.HELP == "rewrite v1alpha1/v1alpha2 manifests for 1.37, with a report"
    out = io.StringIO()
    assert main(["migrate", "--help"], stdout=out) == 0
    assert " ".join(out.getvalue().split("\n\n")[1].split()) == migrate.HELP


def test_add_options_declares_exactly_the_flags_docs_cli_md_lists(docs_check) -> None:
    assert docs_check(migrate, "cli.md", "migrate") == ([], [])


def test_run_passes_a_1_37_object_through_unchanged(parsed) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert migrate.run(parsed(migrate, "migrate", [str(JOB)]), out, err) == 0
    assert (yaml.safe_load(out.getvalue()), err.getvalue()) == (yaml.safe_load(JOB.read_text()), "")
