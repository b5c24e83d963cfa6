"""``workloadbuilder explain`` (cli/commands/explain.py): its help, the flags docs/cli.md lists and ``run``."""

from __future__ import annotations

import io
from pathlib import Path

from workloadbuilder.cli.app import main
from workloadbuilder.cli.commands import explain

ROOT = Path(__file__).resolve().parents[3]
JOB = ROOT / "tests" / "data" / "adapters" / "job" / "root-seed-8-workers.in.yaml"  # Job training/trainer, 8 GPUs
GENERATED = ["--generate", "zones=1,blocks=1,racks=1,hosts=2,gpus=8"]


def test_the_help_is_one_line_atop_the_commands_own() -> None:
    assert explain.HELP == "only why (or where): the placement's explanation, level by level"
    out = io.StringIO()
    assert main(["explain", "--help"], stdout=out) == 0
    assert " ".join(out.getvalue().split("\n\n")[1].split()) == explain.HELP


def test_add_options_declares_exactly_the_flags_docs_cli_md_lists(docs_check) -> None:
    assert docs_check(explain, "cli.md", "explain") == ([], [])


def test_run_explains_a_placed_job_in_one_line_per_root(parsed) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert explain.run(parsed(explain, "explain", [str(JOB), *GENERATED]), out, err) == 0
    assert (out.getvalue(), err.getvalue()) == (
        "cluster: 2 nodes, generated (zones=1,blocks=1,racks=1,hosts=2,gpus=8,cpu=64,memory=512Gi,seed=0,used=0.2)\n"
        "\n"
        f"Job training/trainer ({JOB}, document 1): placed (kube-scheduler)\n"
        "  `trainer-5d5cd87f58-trainer-pgt-0-9cc94c4c4`: placed 8 pods of 1 group in zone zone-00\n"
        "\n"
        "feasible (kube-scheduler): 1 of 1 object placed\n"
        "verdict: placeable\n",
        "",
    )
