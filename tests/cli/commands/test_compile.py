"""``workloadbuilder compile`` (cli/commands/compile.py): its help, the flags docs/cli.md lists and ``run``."""

from __future__ import annotations

import io
from pathlib import Path

from workloadbuilder.cli.app import main
from workloadbuilder.cli.commands import compile as compile_

ROOT = Path(__file__).resolve().parents[3]
JOB = ROOT / "tests" / "data" / "adapters" / "job" / "root-seed-8-workers.in.yaml"  # Job training/trainer, 8 GPUs


def test_the_help_is_one_line_atop_the_commands_own() -> None:
    assert compile_.HELP == "print the Workload, its runtime groups and the stamped input"
    out = io.StringIO()
    assert main(["compile", "--help"], stdout=out) == 0
    assert " ".join(out.getvalue().split("\n\n")[1].split()) == compile_.HELP


def test_add_options_declares_exactly_the_flags_docs_cli_md_lists(docs_check) -> None:
    assert docs_check(compile_, "cli.md", "compile") == ([], [])


def test_run_prints_the_names_of_what_the_controller_creates(parsed) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert compile_.run(parsed(compile_, "compile", ["-o", "name", str(JOB)]), out, err) == 0
    assert (out.getvalue(), err.getvalue()) == (
        "workload.scheduling.k8s.io/trainer-5d5cd87f58\n"
        "podgroup.scheduling.k8s.io/trainer-5d5cd87f58-trainer-pgt-0-9cc94c4c4\n"
        "job.batch/trainer\n",
        "",
    )
