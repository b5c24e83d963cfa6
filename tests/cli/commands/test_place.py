"""``workloadbuilder place`` (cli/commands/place.py): its help, the flags docs/cli.md lists and ``run``."""

from __future__ import annotations

import io
from pathlib import Path

from workloadbuilder.cli.app import main
from workloadbuilder.cli.commands import place

ROOT = Path(__file__).resolve().parents[3]
JOB = ROOT / "tests" / "data" / "adapters" / "job" / "root-seed-8-workers.in.yaml"  # Job training/trainer, 8 GPUs
GENERATED = ["--generate", "zones=1,blocks=1,racks=1,hosts=2,gpus=8"]


def test_the_help_is_one_line_atop_the_commands_own() -> None:
    assert place.HELP == "where each group lands on a cluster, or why not (exit 1 unless the verdict is placeable)"
    out = io.StringIO()
    assert main(["place", "--help"], stdout=out) == 0
    assert " ".join(out.getvalue().split("\n\n")[1].split()) == place.HELP


def test_add_options_declares_exactly_the_flags_docs_cli_md_lists(docs_check) -> None:
    assert docs_check(place, "cli.md", "place") == ([], [])


def test_run_places_a_job_and_exits_0_for_placeable(parsed) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert place.run(parsed(place, "place", [str(JOB), *GENERATED]), out, err) == 0
    assert (out.getvalue().splitlines()[-2:], err.getvalue()) == (
        ["feasible (kube-scheduler): 1 of 1 object placed", "verdict: placeable"],
        "",
    )
    assert "    placed 8 of 8 pods in zone zone-00, on 2 nodes: node-00000 x6, node-00001 x2\n" in out.getvalue()


def test_run_exits_1_when_the_cluster_is_too_small(parsed) -> None:
    out = io.StringIO()
    small = ["--generate", "zones=1,blocks=1,racks=1,hosts=1,gpus=4"]
    assert place.run(parsed(place, "place", [str(JOB), *small]), out, io.StringIO()) == 1
    assert out.getvalue().splitlines()[-1].startswith("verdict: never")
