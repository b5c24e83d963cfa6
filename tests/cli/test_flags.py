"""One option set (cli/flags.py): ``-f``/``-R``/``-n`` and ``-o`` declared once, the same on every command."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from workloadbuilder.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "workloadbuilder" / "cli"
JOB_WITH_UID = ROOT / "tests" / "data" / "adapters" / "job" / "root-seed-8-workers.in.yaml"  # namespace training
SIMULATE = ROOT / "tests" / "data" / "cli" / "simulate"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def usage(command: str) -> str:
    """The command's usage lines, as one line."""
    text = run(command, "--help")[1]
    return " ".join(text.split("\n\n")[0].split())


# command -> (reads files with -f/-R/-n, its -o choices)
COMMANDS = {
    "compile": (True, ["yaml", "json", "name"]),
    "validate": (True, ["text", "json", "yaml", "github", "junit", "tap"]),
    "place": (True, ["text", "json", "yaml"]),
    "explain": (True, ["text", "json", "yaml"]),
    "capacity": (True, ["text", "json", "yaml"]),
    "simulate": (True, ["text", "json", "yaml"]),
    "doctor": (False, ["text", "json", "yaml"]),
    "diff": (False, ["text", "json", "yaml"]),
    "migrate": (True, ["yaml", "json"]),
}


def test_every_command_is_in_the_table() -> None:
    listed = re.findall(r"^    ([a-z]+) ", run("--help")[1], re.MULTILINE)
    assert listed == list(COMMANDS)


@pytest.mark.parametrize(("command", "reads", "outputs"), [(c, *v) for c, v in COMMANDS.items()], ids=list(COMMANDS))
def test_every_command_spells_the_shared_options_alike(command: str, reads: bool, outputs: list[str]) -> None:
    line = usage(command)
    assert f"[-o {'|'.join(outputs)}]" in line
    assert "[-n NAMESPACE]" in line
    assert ("[-R]" in line) is reads
    assert (re.search(r"\[-f (FILE|QUEUE)\]", line) is not None) is reads


@pytest.mark.parametrize(("command", "reads", "outputs"), [(c, *v) for c, v in COMMANDS.items()], ids=list(COMMANDS))
def test_an_unknown_output_is_one_usage_line_naming_the_choices(command: str, reads: bool, outputs: list[str]) -> None:
    choices = ", ".join(f"'{output}'" for output in outputs)
    assert run(command, "-o", "wide", "x.yaml", "y.yaml") == (
        2,
        "",
        f"error: argument -o/--output: invalid choice: 'wide' (choose from {choices}) "
        f"(see workloadbuilder {command} --help)\n",
    )


def test_the_options_are_declared_in_one_module() -> None:
    """No command module declares ``-f``, ``-R``, ``-n`` or ``-o`` itself: each comes from cli/flags.py."""
    declared = re.compile(r"add_argument\(\s*\"(-f|-R|-n|-o)\"")
    places = [
        str(path.relative_to(CLI))
        for path in sorted(CLI.rglob("*.py"))
        if path.name != "flags.py" and declared.search(path.read_text())
    ]
    assert places == []


def test_capacity_takes_its_files_as_kubectl_does(tmp_path: Path) -> None:
    nested = tmp_path / "jobs" / "more"
    nested.mkdir(parents=True)
    (nested / "job.yaml").write_text(JOB_WITH_UID.read_text())
    generate = ["--generate", "zones=1,blocks=1,racks=1,hosts=2,gpus=8"]
    assert run("capacity", "-f", str(tmp_path / "jobs"), *generate) == (
        2,
        "",
        f"error: {tmp_path / 'jobs'}: no .yaml, .yml or .json file in the directory (-R reads its subdirectories)\n",
    )
    code, out, _ = run("capacity", "-R", "-f", str(tmp_path / "jobs"), *generate)
    assert code in (0, 1)
    assert out.startswith("cluster: 2 nodes, generated")
    assert run("capacity", "-n", "other", "-f", str(JOB_WITH_UID), *generate) == (
        2,
        "",
        f"error: {JOB_WITH_UID} (document 1) Job/trainer: the namespace from the provided object 'training' does not "
        "match the namespace 'other' (--namespace): leave the flag out, or pass --namespace=training\n",
    )


def test_simulate_takes_its_queue_as_an_argument_or_with_f() -> None:
    cluster = ["--cluster", str(SIMULATE / "one-node.yaml")]
    given = run("simulate", str(SIMULATE / "urgent.yaml"), *cluster)
    assert given[0] == 0
    assert run("simulate", "-f", str(SIMULATE / "urgent.yaml"), *cluster) == given
    assert run("simulate", *cluster) == (
        2,
        "",
        "error: workloadbuilder simulate: give the input as QUEUE or -f QUEUE (- reads stdin)\n",
    )
    two = [str(SIMULATE / "urgent.yaml"), str(SIMULATE / "two.yaml")]
    assert run("simulate", *two, *cluster) == (
        2,
        "",
        f"error: simulate plays one QUEUE file, got 2: {', '.join(two)}\n",
    )


def test_simulate_reads_the_queues_workload_files_with_n(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(JOB_WITH_UID.read_text())
    (tmp_path / "q.yaml").write_text("workloads:\n- {file: job.yaml, arrival: 0, duration: 10}\n")
    code, _, err = run("simulate", "-n", "other", str(tmp_path / "q.yaml"), "--generate", "zones=1,racks=1,hosts=8")
    assert (code, err) == (
        2,
        f"error: {tmp_path / 'job.yaml'} (document 1) Job/trainer: the namespace from the provided object 'training' "
        "does not match the namespace 'other' (--namespace): leave the flag out, or pass --namespace=training\n",
    )
