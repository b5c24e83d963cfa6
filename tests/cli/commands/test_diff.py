"""``workloadbuilder diff`` (cli/commands/diff.py): its help, the flags docs/cli.md lists and ``run``."""

from __future__ import annotations

import io
from pathlib import Path

from workloadbuilder.cli.app import main
from workloadbuilder.cli.commands import diff

ROOT = Path(__file__).resolve().parents[3]
JOB = ROOT / "tests" / "data" / "adapters" / "job" / "root-seed-8-workers.in.yaml"  # Job training/trainer, 8 GPUs


def test_the_help_is_one_line_atop_the_commands_own() -> None:
    assert diff.HELP == "the errors an apiserver would return for updating OLD to NEW"
    out = io.StringIO()
    assert main(["diff", "--help"], stdout=out) == 0
    assert " ".join(out.getvalue().split("\n\n")[1].split()) == diff.HELP


def test_add_options_declares_exactly_the_flags_docs_cli_md_lists(docs_check) -> None:
    assert docs_check(diff, "cli.md", "diff") == ([], [])


def test_run_accepts_an_unchanged_object_with_exit_0(parsed) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert diff.run(parsed(diff, "diff", [str(JOB), str(JOB)]), out, err) == 0
    assert (out.getvalue(), err.getvalue()) == ('Job "trainer": the update would be accepted\n', "")


def test_run_refuses_a_changed_topology_key_with_exit_1(parsed, tmp_path: Path) -> None:
    new = tmp_path / "new.yaml"
    new.write_text(JOB.read_text().replace("topology.kubernetes.io/zone", "topology.kubernetes.io/rack"))
    out, err = io.StringIO(), io.StringIO()
    assert diff.run(parsed(diff, "diff", [str(JOB), str(new)]), out, err) == 1
    assert (out.getvalue(), err.getvalue()) == (
        f'{new} (document 1) Job/trainer: The Job "trainer" is invalid: '
        "spec.scheduling.schedulingConstraints: Invalid value: null: field is immutable\n",
        "",
    )
