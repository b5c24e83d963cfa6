"""``simulate`` (cli/commands/simulate.py): its help and flags; it frees what it evicts and says so, and echoes its
``--seed``.

A high-priority Job on a one-node, 8-GPU cluster that runs a low-priority 4-GPU pod evicts the pod:
its GPUs are freed (utilization 1, not 1.5) and an eviction line names it. A copy of the queue that
is evicted is queued again and named by its copy name.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from workloadbuilder.cli.app import main
from workloadbuilder.cli.commands import simulate

ROOT = Path(__file__).resolve().parents[3]
DATA = "tests/data/cli/simulate"
NODE = f"{DATA}/one-node.yaml"


@pytest.fixture(autouse=True)
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run where the tables' paths lead."""
    monkeypatch.chdir(ROOT)


def run(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue()


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["simulate", f"{DATA}/urgent.yaml", "--cluster", NODE],
            [
                f"cluster: 1 node from {NODE}",
                f"queue: {DATA}/urgent.yaml, 1 copy, tie-break seed 0",
                "urgent: arrived 0s, started 0s, ended 600s (waited 0s)",
                "at 0s: urgent evicted Pod low (priority 0, 1 pod)",
                "makespan: 600s",
            ],
        ),
        (
            ["simulate", f"{DATA}/two.yaml", "--cluster", NODE, "--seed", "5"],
            [
                f"cluster: 1 node from {NODE}",
                f"queue: {DATA}/two.yaml, 2 copies, tie-break seed 5",
                "batch: arrived 0s, started 60s, ended 160s (waited 60s, preempted 1x)",
                "urgent: arrived 10s, started 10s, ended 60s (waited 0s)",
                "at 10s: urgent evicted Pod low (priority 0, 1 pod)",
                "at 10s: urgent evicted copy batch (priority 0, 1 pod)",
                "makespan: 160s",
            ],
        ),
    ],
    ids=["evicts-the-clusters-pod", "evicts-a-copy-and-a-pod-seed-echoed"],
)
def test_simulate_text_reports_each_eviction(argv: list[str], expected: list[str]) -> None:
    assert run(*argv) == (0, "\n".join(expected) + "\n")


@pytest.mark.parametrize(
    ("queue", "seed", "utilization", "evictions"),
    [
        (
            "urgent.yaml",
            "0",
            {
                "cpu": [[0, 0.0625], [600, 0.0]],
                "nvidia.com/gpu": [[0, 1.0], [600, 0.0]],
                "pods": [[0, 0.009091], [600, 0.0]],
            },
            [{"time": 0, "by": "urgent", "victim": "low", "kind": "Pod", "priority": 0, "pods": 1}],
        ),
        (
            "two.yaml",
            "9",
            {
                "cpu": [[0, 0.046875], [10, 0.0625], [60, 0.03125], [160, 0.0]],
                "nvidia.com/gpu": [[0, 1.0], [60, 0.5], [160, 0.0]],
                "pods": [[0, 0.018182], [10, 0.009091], [160, 0.0]],
            },
            [
                {"time": 10, "by": "urgent", "victim": "low", "kind": "Pod", "priority": 0, "pods": 1},
                {"time": 10, "by": "urgent", "victim": "batch", "kind": "copy", "priority": 0, "pods": 1},
            ],
        ),
    ],
    ids=["gpu-utilization-is-1-not-1.5", "a-copy-and-a-pod"],
)
def test_simulate_json_frees_what_it_evicts(
    queue: str, seed: str, utilization: dict[str, list[list[float]]], evictions: list[dict[str, object]]
) -> None:
    code, out = run("simulate", f"{DATA}/{queue}", "--cluster", NODE, "--seed", seed, "--output", "json")
    data = json.loads(out)
    assert (code, data["utilization"], data["evictions"], data["seed"]) == (0, utilization, evictions, int(seed))
    assert max(fraction for points in data["utilization"].values() for _, fraction in points) <= 1


def test_the_help_is_one_line_atop_the_commands_own() -> None:
    assert simulate.HELP == "a queue of workloads played out over time on a cluster"
    out = io.StringIO()
    assert main(["simulate", "--help"], stdout=out) == 0
    assert " ".join(out.getvalue().split("\n\n")[1].split()) == simulate.HELP


def test_add_options_declares_these_flags(options) -> None:
    assert options(simulate) == [
        ["-f", "--filename"],
        ["-R", "--recursive"],
        ["-n", "--namespace"],
        ["--cluster"],
        ["--pods"],
        ["--groups"],
        ["--generate"],
        ["--claim"],
        ["--seed"],
        ["--exit-zero"],
        ["--timeout"],
        ["--render"],
        ["--force"],
        ["--strategy"],
        ["-o", "--output"],
        ["--mapping"],
    ]


def test_run_plays_one_queue_file_and_exits_0_when_every_copy_runs(parsed) -> None:
    out, err = io.StringIO(), io.StringIO()
    args = parsed(simulate, "simulate", [f"{DATA}/urgent.yaml", "--cluster", NODE])
    assert simulate.run(args, out, err) == 0
    assert (out.getvalue(), err.getvalue()) == (
        f"cluster: 1 node from {NODE}\n"
        f"queue: {DATA}/urgent.yaml, 1 copy, tie-break seed 0\n"
        "urgent: arrived 0s, started 0s, ended 600s (waited 0s)\n"
        "at 0s: urgent evicted Pod low (priority 0, 1 pod)\n"
        "makespan: 600s\n",
        "",
    )
