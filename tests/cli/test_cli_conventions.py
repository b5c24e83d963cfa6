"""kubectl's conventions and exit codes that mean what they say, through the command line."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from workloadbuilder.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = ROOT / "examples" / "manifests"
JOB_WITH_UID = ROOT / "tests" / "data" / "adapters" / "job" / "root-seed-8-workers.in.yaml"

JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: %s}
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{name: w, image: trainer}]
"""

WORKLOAD = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: wl}
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy: {gang: {minCount: 4}}
"""


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def job(tmp_path: Path):
    def write(name: str = "trainer", folder: str = "") -> Path:
        path = tmp_path / folder / f"{name}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(JOB % name)
        return path

    return write


# Exit codes: our own bug is 3, whatever the exception; only the library's refusals are bad input.

BUGS = [
    ("compile", ["compile", "JOB"], "workloadbuilder.cli.run_manifests.read_inputs", ValueError("bad value")),
    ("validate", ["validate", "JOB"], "workloadbuilder.cli.run_manifests.read_inputs", KeyError("spec")),
    ("diff", ["diff", "JOB", "JOB"], "workloadbuilder.cli.run_manifests.read_inputs", LookupError("lost")),
    ("migrate", ["migrate", "JOB"], "workloadbuilder.cli.run_manifests.read_inputs", TypeError("not a str")),
    (
        "place",
        ["place", "JOB", "--generate", "zones=1"],
        "workloadbuilder.cli.run_placement.read_inputs",
        KeyError("x"),
    ),
    (
        "explain",
        ["explain", "JOB", "--generate", "zones=1"],
        "workloadbuilder.cli.run_placement.read_inputs",
        IndexError("i"),
    ),
    (
        "capacity",
        ["capacity", "JOB", "--generate", "zones=1"],
        "workloadbuilder.cli.run_planning.read_inputs",
        KeyError("c"),
    ),
    (
        "simulate",
        ["simulate", "JOB", "--generate", "zones=1"],
        "workloadbuilder.cli.run_planning.read_queue",
        KeyError("q"),
    ),
]


@pytest.mark.parametrize(("argv", "target", "bug"), [case[1:] for case in BUGS], ids=[case[0] for case in BUGS])
def test_a_bug_in_any_command_exits_3_in_one_line(job, monkeypatch, argv, target, bug) -> None:
    def broken(*_: object, **__: object) -> None:
        raise bug

    monkeypatch.setattr(target, broken)
    code, out, err = run(*[str(job()) if arg == "JOB" else arg for arg in argv])
    assert (code, out) == (3, "")
    assert err == f"error: internal error: {type(bug).__name__}: {bug} (run with --debug for the traceback)\n"


def test_debug_prints_the_traceback_of_a_bug(job, monkeypatch) -> None:
    def broken(*_: object, **__: object) -> None:
        raise KeyError("spec")

    monkeypatch.setattr("workloadbuilder.cli.run_manifests.read_inputs", broken)
    code, _, err = run("validate", "--debug", str(job()))
    assert code == 3
    assert err.startswith("Traceback (most recent call last):\n")
    assert err.endswith("(run with --debug for the traceback)\n")


# Usage errors: one line, `error:`, exit 2.

USAGE = [
    ("no-command", [], "error: the following arguments are required: COMMAND (see workloadbuilder --help)\n"),
    (
        "unknown-command",
        ["compiel"],
        (
            "error: argument COMMAND: invalid choice: 'compiel' (choose from 'compile', 'validate', 'place', "
            "'explain', 'capacity', 'simulate', 'doctor', 'diff', 'migrate') (see workloadbuilder --help)\n"
        ),
    ),
    (
        "unknown-flag",
        ["validate", "x.yaml", "--strcit"],
        "error: unrecognized arguments: --strcit (see workloadbuilder validate --help)\n",
    ),
    (
        "bad-output",
        ["compile", "-o", "wide", "x.yaml"],
        (
            "error: argument -o/--output: invalid choice: 'wide' (choose from 'yaml', 'json', 'name') "
            "(see workloadbuilder compile --help)\n"
        ),
    ),
    ("no-input", ["validate"], "error: workloadbuilder validate: give the input as FILE or -f FILE (- reads stdin)\n"),
    (
        "diff-one-argument",
        ["diff", "a.yaml"],
        "error: the following arguments are required: NEW (see workloadbuilder diff --help)\n",
    ),
    (
        "bad-warning-option",
        ["validate", "-W", "no-typo", str(MANIFESTS / "job-trainer.yaml")],
        "error: -W: 'no-typo' is not one of ignore, error, no-uid, no-lossy, no-unknown-kind, no-unused, no-skipped\n",
    ),
]


@pytest.mark.parametrize(("argv", "expected"), [case[1:] for case in USAGE], ids=[case[0] for case in USAGE])
def test_a_usage_error_is_one_error_line_and_exit_2(argv, expected) -> None:
    assert run(*argv) == (2, "", expected)


@pytest.mark.parametrize("argv", [["--help"], ["compile", "--help"], ["place", "-h"]], ids=["top", "compile", "place"])
def test_help_goes_to_stdout_and_exits_0(argv) -> None:
    code, out, err = run(*argv)
    assert (code, err) == (0, "")
    assert out.startswith(f"usage: workloadbuilder{' ' + argv[0] if len(argv) > 1 else ''} ")


def test_version_prints_the_installed_version() -> None:
    from importlib.metadata import version

    assert run("--version") == (0, f"workloadbuilder {version('workloadbuilder')}\n", "")


# Inputs: FILE, -f (repeatable), directories, -R, -, -n.


def test_filename_is_repeatable_and_mixes_with_file_arguments(job) -> None:
    code, out, _ = run("compile", "-o", "name", str(job("a")), "-f", str(job("b")), "--filename", str(job("c")))
    assert code == 0
    assert [line.rpartition("/")[2] for line in out.splitlines() if line.startswith("job.batch/")] == ["a", "b", "c"]


def test_a_directory_gives_its_manifests_in_name_order_and_r_its_subdirectories(job, tmp_path: Path) -> None:
    job("b", "jobs")
    job("a", "jobs")
    job("deep", "jobs/more")
    (tmp_path / "jobs" / "notes.txt").write_text("not a manifest")
    flat = run("compile", "-o", "name", "-f", str(tmp_path / "jobs"))
    deep = run("compile", "-o", "name", "-R", "-f", str(tmp_path / "jobs"))
    assert [line for line in flat[1].splitlines() if line.startswith("job")] == ["job.batch/a", "job.batch/b"]
    assert [line for line in deep[1].splitlines() if line.startswith("job")] == [
        "job.batch/a",
        "job.batch/b",
        "job.batch/deep",
    ]


def test_a_directory_without_manifests_is_one_line(tmp_path: Path) -> None:
    assert run("validate", str(tmp_path)) == (
        2,
        "",
        f"error: {tmp_path}: no .yaml, .yml or .json file in the directory (-R reads its subdirectories)\n",
    )


def test_dash_reads_standard_input(monkeypatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(WORKLOAD))
    assert run("validate", "-f", "-") == (0, 'Workload "wl" is valid\n', "")


def test_namespace_fills_in_objects_without_one(job) -> None:
    code, out, _ = run("compile", "-n", "ml", "-o", "json", str(job()))
    listed = json.loads(out)
    assert code == 0
    assert {item["metadata"].get("namespace") for item in listed["items"]} == {"ml"}


def test_namespace_that_differs_from_the_objects_is_refused() -> None:
    code, out, err = run("validate", "-n", "other", str(JOB_WITH_UID))
    assert (code, out) == (2, "")
    assert err == (
        f"error: {JOB_WITH_UID} (document 1) Job/trainer: the namespace from the provided object 'training' does not "
        "match the namespace 'other' (--namespace): leave the flag out, or pass --namespace=training\n"
    )


# Output formats.


def test_compile_json_of_one_object_is_the_object_and_of_several_a_list(tmp_path: Path) -> None:
    path = tmp_path / "wl.yaml"
    path.write_text(WORKLOAD)
    code, out, _ = run("compile", "-o", "json", str(JOB_WITH_UID))
    listed = json.loads(out)
    assert code == 0
    assert (listed["apiVersion"], listed["kind"], listed["metadata"]) == ("v1", "List", {"resourceVersion": ""})
    assert [item["kind"] for item in listed["items"]] == ["Workload", "PodGroup", "Job"]
    assert out.startswith('{\n    "apiVersion": "v1",\n    "items": [\n')


def test_compile_name_is_kind_dot_group_slash_name() -> None:
    assert run("compile", "-o", "name", str(JOB_WITH_UID)) == (
        0,
        (
            "workload.scheduling.k8s.io/trainer-5d5cd87f58\n"
            "podgroup.scheduling.k8s.io/trainer-5d5cd87f58-trainer-pgt-0-9cc94c4c4\n"
            "job.batch/trainer\n"
        ),
        "",
    )


def test_diff_json_is_the_validate_record(tmp_path: Path) -> None:
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(WORKLOAD)
    new.write_text(WORKLOAD.replace("minCount: 4", "minCount: 6"))
    code, out, _ = run("diff", str(old), str(new), "-o", "json")
    assert code == 0
    assert json.loads(out) == [
        {
            "source": str(new),
            "document": 1,
            "kind": "Workload",
            "name": "wl",
            "valid": True,
            "checked": True,
            "errors": [],
            "warnings": [],
        }
    ]


def test_migrate_json_is_a_list_of_the_rewritten_objects() -> None:
    code, out, _ = run("migrate", "-o", "json", str(MANIFESTS / "legacy-v1alpha2.yaml"))
    assert code == 0
    assert json.loads(out)["apiVersion"] == "scheduling.k8s.io/v1beta1"


# Messages name the file, the document and the object.


def test_a_plan_the_adapter_refuses_names_file_document_and_object(tmp_path: Path) -> None:
    path = tmp_path / "two.yaml"
    path.write_text(WORKLOAD + "---\n" + (JOB % "bad").replace("parallelism: 2", "parallelism: -1"))
    code, out, err = run("compile", str(path))
    assert (code, out) == (2, "")
    assert err.startswith(f"error: {path} (document 2) Job/bad: ")
    assert err.count("\n") == 1


def test_a_removed_version_names_the_migrate_command() -> None:
    code, out, _ = run("validate", str(MANIFESTS / "legacy-v1alpha2.yaml"))
    assert code == 1
    assert "the workloadbuilder migrate command rewrites it to scheduling.k8s.io/v1beta1" in out


@pytest.mark.parametrize(
    ("argv", "start"),
    [
        (
            ["simulate", "q.yaml", "--seed", "9" * 5000],
            "error: argument --seed: invalid int value: '" + "9" * 1000 + "...'",
        ),
        (["place", "x.yaml", "--seed", "9" * 5000], "error: unrecognized arguments: --seed " + "9" * 1000 + "..."),
    ],
    ids=["quoted-value", "unrecognized-argument"],
)
def test_a_long_argument_is_capped_in_argparse_messages(argv: list[str], start: str):
    out, err = io.StringIO(), io.StringIO()
    assert main(argv, stdout=out, stderr=err) == 2
    command = argv[0]
    assert (out.getvalue(), err.getvalue()) == ("", f"{start} (see workloadbuilder {command} --help)\n")


@pytest.mark.parametrize("command", ["validate", "compile", "explain"], ids=["validate", "compile", "explain"])
def test_a_file_name_too_long_for_the_file_system_is_a_usage_error(command: str):
    out, err = io.StringIO(), io.StringIO()
    assert main([command, "9" * 5000], stdout=out, stderr=err) == 2
    assert (out.getvalue(), err.getvalue()) == ("", f"error: {'9' * 1000}...: cannot read: File name too long\n")


def test_a_render_name_too_long_for_the_file_system_is_a_usage_error():
    out, err = io.StringIO(), io.StringIO()
    name = "a" * 5000 + ".svg"
    argv = ["place", "examples/jobset-training.yaml", "--generate", "zones=1", "--render", name]
    assert main(argv, stdout=out, stderr=err) == 2
    assert err.getvalue() == f"error: --render: cannot write {'a' * 1000}...: File name too long\n"


def test_a_directory_tree_deeper_than_a_path_can_name_is_a_usage_error(tmp_path: Path):
    import os

    name = "d" * 200
    descriptor = os.open(tmp_path, os.O_RDONLY)
    try:
        for _ in range(25):  # 25 * 201 characters: past PATH_MAX (4,096), made one level at a time
            os.mkdir(name, dir_fd=descriptor)
            inner = os.open(name, os.O_RDONLY, dir_fd=descriptor)
            os.close(descriptor)
            descriptor = inner
    finally:
        os.close(descriptor)
    out, err = io.StringIO(), io.StringIO()
    assert main(["validate", "-R", str(tmp_path)], stdout=out, stderr=err) == 2
    assert out.getvalue() == ""
    assert err.getvalue().startswith(f"error: {tmp_path}/{name}/")
    assert err.getvalue().endswith("...: cannot read: File name too long\n")
    assert len(err.getvalue()) < 1100


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf"], ids=["nan", "inf", "minus-inf"])
def test_json_output_refuses_a_number_json_has_not(tmp_path: Path, value: str):
    source = tmp_path / "pg.yaml"
    source.write_text(
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: p, namespace: ml}\n"
        f"spec:\n  schedulingPolicy: {{gang: {{minCount: 2}}}}\n  extra: [1, {{deep: {value}}}]\n"
    )
    out, err = io.StringIO(), io.StringIO()
    assert main(["migrate", str(source), "-o", "json"], stdout=out, stderr=err) == 2
    shown = {".nan": "NaN", ".inf": "+Inf", "-.inf": "-Inf"}[value]
    assert out.getvalue() == ""
    assert err.getvalue().splitlines()[-1] == (
        f"error: PodGroup/p: spec.extra[1].deep: {shown} is not a JSON number: -o json cannot write it"
        " (-o yaml can; the API server accepts neither)"
    )
