"""``workloadbuilder capacity`` (cli/commands/capacity.py): its one-line help, the options it declares, and ``run``."""

from __future__ import annotations

import io
from pathlib import Path

from workloadbuilder.cli.app import main
from workloadbuilder.cli.commands import capacity

ROOT = Path(__file__).resolve().parents[3]
JOB = ROOT / "tests" / "data" / "adapters" / "job" / "root-seed-8-workers.in.yaml"  # Job training/trainer, 8 GPUs
GENERATED = ["--generate", "zones=1,blocks=1,racks=1,hosts=2,gpus=8"]


def test_the_help_is_one_line_atop_the_commands_own() -> None:
    assert capacity.HELP == "how many copies of the input fit, per domain, and what to add"
    out = io.StringIO()
    assert main(["capacity", "--help"], stdout=out) == 0
    assert " ".join(out.getvalue().split("\n\n")[1].split()) == capacity.HELP


def test_add_options_declares_these_flags(options) -> None:
    assert options(capacity) == [
        ["-f", "--filename"],
        ["-R", "--recursive"],
        ["-n", "--namespace"],
        ["--cluster"],
        ["--pods"],
        ["--groups"],
        ["--generate"],
        ["--claim"],
        ["--add-nodes-like"],
        ["--target"],
        ["--timeout"],
        ["--render"],
        ["--force"],
        ["--strategy"],
        ["-o", "--output"],
        ["--mapping"],
    ]


def test_run_counts_the_copies_that_fit(parsed) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert capacity.run(parsed(capacity, "capacity", [str(JOB), *GENERATED]), out, err) == 0
    assert (out.getvalue(), err.getvalue()) == (
        "cluster: 2 nodes, generated (zones=1,blocks=1,racks=1,hosts=2,gpus=8,cpu=64,memory=512Gi,seed=0,used=0.2)\n"
        "copies that fit: 2\n"
        "per topology.kubernetes.io/zone (each alone):\n"
        "  zone-00  2\n"
        "stranded after those copies:\n"
        "  nvidia.com/gpu  0\n"
        "  pods            204\n",
        "",
    )


def test_run_exits_1_when_not_one_copy_fits(parsed) -> None:
    small = ["--generate", "zones=1,blocks=1,racks=1,hosts=1,gpus=4"]
    out = io.StringIO()
    assert capacity.run(parsed(capacity, "capacity", [str(JOB), *small]), out, io.StringIO()) == 1
    assert "copies that fit: 0\n" in out.getvalue()
