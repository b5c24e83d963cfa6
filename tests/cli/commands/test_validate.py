"""``validate`` in CI (cli/commands/validate.py): nothing checked is a failure, unknown kinds, warning kinds, --strict,
GitHub annotations."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from workloadbuilder.cli.app import main
from workloadbuilder.cli.commands import validate

ROOT = Path(__file__).resolve().parents[3]
JOB_WITH_UID = ROOT / "tests" / "data" / "adapters" / "job" / "root-seed-8-workers.in.yaml"
TRAINJOB = ROOT / "tests" / "data" / "adapters" / "trainer" / "01-multi-node.yaml"
RUNTIME = ROOT / "tests" / "data" / "adapters" / "trainer" / "torch_distributed.yaml"

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: trainer
  namespace: ml
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{name: w, image: trainer}]
"""

CONFIG_MAP = "apiVersion: example.com/v1\nkind: Settings\nmetadata: {name: settings}\n"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path: Path):
    def write(**texts: str) -> list[str]:
        paths = []
        for name, text in texts.items():
            path = tmp_path / f"{name}.yaml"
            path.write_text(text)
            paths.append(str(path))
        return paths

    return write


def no_uid(path: str) -> str:
    return (
        f"Warning: {path} (document 1) Job/trainer: no metadata.uid (the object was never created), so the Workload "
        "and group names are not the ones the controller will use; for those, run on the object as the cluster "
        "returns it (kubectl get job trainer -n ml -o yaml); -W no-uid hides this warning\n"
    )


def test_a_job_without_uid_is_warned_once_in_plain_words(files) -> None:
    [job] = files(job=JOB)
    assert run("validate", job) == (0, no_uid(job) + 'Job "trainer" is valid\n', "")


def test_a_job_with_its_uid_is_not_warned() -> None:
    assert run("validate", str(JOB_WITH_UID)) == (0, 'Job "trainer" is valid\n', "")


@pytest.mark.parametrize(
    "options",
    [["-W", "no-uid"], ["-Wno-uid"], ["-W", "ignore"], ["--quiet"], ["-q"]],
    ids=["W-no-uid", "W-attached", "W-ignore", "quiet", "q"],
)
def test_warnings_can_be_silenced(files, options) -> None:
    [job] = files(job=JOB)
    assert run("validate", *options, job) == (0, 'Job "trainer" is valid\n', "")


@pytest.mark.parametrize(
    ("options", "code"),
    [([], 0), (["--strict"], 1), (["-W", "error"], 1), (["--strict", "-W", "no-uid"], 0)],
    ids=["default", "strict", "W-error", "strict-but-silenced"],
)
def test_strict_makes_a_shown_warning_fail(files, options, code) -> None:
    [job] = files(job=JOB)
    assert run("validate", *options, job)[0] == code


def test_an_unknown_kind_is_skipped_with_a_warning(files) -> None:
    job, config = files(job=JOB, config=CONFIG_MAP)
    assert run("validate", job, config) == (
        0,
        no_uid(job) + 'Job "trainer" is valid\n'
        f"Warning: {config} (document 1) Settings/settings: no adapter for apiVersion 'example.com/v1' "
        "kind 'Settings'; skipped (--mapping FILE describes a custom resource)\n",
        "",
    )
    assert run("validate", "--allow-unknown", job, config) == run("validate", job, config)


def test_the_unknown_kind_warning_has_its_own_kind(files) -> None:
    job, config = files(job=JOB, config=CONFIG_MAP)
    assert run("validate", "--allow-unknown", "-W", "no-unknown-kind", "-W", "no-uid", job, config) == (
        0,
        'Job "trainer" is valid\n',
        "",
    )


def test_nothing_checked_is_a_failure_even_when_unknown_kinds_are_allowed(files) -> None:
    [config] = files(config=CONFIG_MAP)
    assert run("validate", "-v", "--allow-unknown", config) == (
        2,
        "",
        (
            f"Warning: {config} (document 1) Settings/settings: no adapter for apiVersion 'example.com/v1' kind "
            "'Settings'; skipped (--mapping FILE describes a custom resource)\n"
            f"error: {config}: no object was checked: none is of a kind validate knows (Job, JobSet, LeaderWorkerSet, "
            "TrainJob, Volcano Job, a --mapping custom resource, Workload, PodGroup, CompositePodGroup)\n"
        ),
    )


def test_a_trainjobs_runtime_is_its_related_object_not_an_unknown_kind() -> None:
    code, out, _ = run("validate", "-q", str(TRAINJOB), str(RUNTIME))
    assert (code, out) == (
        0,
        'TrainJob "multi-node-example" is valid\nClusterTrainingRuntime "torch-distributed" is valid\n',
    )


def test_json_records_carry_the_shown_warnings(files) -> None:
    [job] = files(job=JOB)
    code, out, _ = run("validate", "-o", "json", job)
    [record] = json.loads(out)
    assert code == 0
    assert record["warnings"] == [no_uid(job).removeprefix("Warning: ").rstrip("\n")]


def test_github_annotations_point_at_the_offending_field(files) -> None:
    [job] = files(job=JOB.replace("parallelism: 2", "parallelism: -2"))
    code, out, _ = run("validate", "-o", "github", job)
    errors = [line for line in out.splitlines() if line.startswith("::error")]
    warnings = [line for line in out.splitlines() if line.startswith("::warning")]
    assert code == 1
    assert errors
    assert all(
        line.startswith(f"::error file={job},line=7,col=3,title=Job trainer is invalid::spec.parallelism")
        for line in errors
    )
    assert [line.partition("::")[2].partition("::")[0] for line in warnings] == [f"warning file={job},line=3,col=1"]


def test_github_annotations_point_into_a_lists_items(files) -> None:
    item = (
        "- apiVersion: scheduling.k8s.io/v1beta1\n  kind: Workload\n  metadata: {name: %s}\n  spec:\n"
        "    podGroupTemplates:\n    - name: w\n      schedulingPolicy: {gang: {minCount: %d}}\n"
    )
    [path] = files(listed="apiVersion: v1\nkind: List\nitems:\n" + item % ("ok", 2) + item % ("bad", -2))
    assert run("validate", "-o", "github", path) == (
        1,
        f"::error file={path},line=17,col=33,title=Workload bad is invalid::spec.podGroupTemplates[0].schedulingPolicy"
        ".gang.minCount: Invalid value: -2: must be greater than or equal to 1\n",
        "",
    )


def test_the_help_is_one_line_atop_the_commands_own() -> None:
    assert validate.HELP == (
        "report errors as a Kubernetes 1.37 apiserver would, with the --gates named (exit 1 when invalid)"
    )
    out = io.StringIO()
    assert main(["validate", "--help"], stdout=out) == 0
    assert " ".join(out.getvalue().split("\n\n")[1].split()) == validate.HELP


def test_add_options_declares_exactly_the_flags_docs_cli_md_lists(docs_check) -> None:
    assert docs_check(validate, "cli.md", "validate") == ([], [])


def test_run_judges_one_job_and_exits_0(parsed) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert validate.run(parsed(validate, "validate", [str(JOB_WITH_UID)]), out, err) == 0
    assert (out.getvalue(), err.getvalue()) == ('Job "trainer" is valid\n', "")
