"""The command line on scheduling objects: validate, diff, migrate; exit codes and one-line errors."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from workloadbuilder.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = ROOT / "examples" / "manifests"

WORKLOAD = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: wl, namespace: ml}
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy: {gang: {minCount: %d}}
"""


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def workload_file(tmp_path: Path):
    def write(min_count: int, name: str = "wl.yaml") -> str:
        path = tmp_path / name
        path.write_text(WORKLOAD % min_count)
        return str(path)

    return write


def test_validate_accepts_a_valid_workload(workload_file):
    assert run("validate", workload_file(4)) == (0, 'Workload "wl" is valid\n', "")


def test_validate_prints_kubectls_message_and_exits_1(workload_file):
    code, out, _ = run("validate", workload_file(-1))
    assert (code, out) == (
        1,
        f'{workload_file(-1)} (document 1) Workload/wl: The Workload "wl" is invalid: '
        f"spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: "
        "Invalid value: -1: must be greater than or equal to 1\n",
    )


def test_validate_lists_several_errors_as_kubectl_does():
    code, out, _ = run("validate", str(MANIFESTS / "typos.yaml"))
    assert code == 1
    assert out == (
        f'{MANIFESTS / "typos.yaml"} (document 1) PodGroup/typo: The PodGroup "typo" is invalid: \n'
        "* spec.schedulingPolicy.gang.minCont: unknown field\n"
        '* spec.disruptionMode: Invalid value: "all": must be of type object\n'
    )


def test_validate_json_output_has_loc_paths(workload_file):
    code, out, _ = run("validate", "--output", "json", workload_file(0))
    record = json.loads(out)[0]
    assert code == 1
    assert {k: record[k] for k in ("kind", "name", "valid", "document")} == {
        "kind": "Workload",
        "name": "wl",
        "valid": False,
        "document": 1,
    }
    assert record["errors"] == [
        {
            "type": "FieldValueRequired",
            "field": "spec.podGroupTemplates[0].schedulingPolicy.gang.minCount",
            "loc": ["spec", "podGroupTemplates", 0, "schedulingPolicy", "gang", "minCount"],
            "detail": "",
            "badValue": "",
            "message": "spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: Required value",
        }
    ]


@pytest.mark.parametrize(
    ("spec", "bad_value"),
    [
        ("{parallelism: -1}", -1),
        ("{parallelism: '5'}", "5"),
        ("{suspend: 'yes'}", "yes"),
        ("{parallelism: [1, 2]}", [1, 2]),
        ("{parallelism: .nan}", "NaN"),
        ("{suspend: %s}" % ("x" * 1500), "x" * 1000 + "..."),
    ],
    ids=["int", "string-of-digits", "string", "list", "nan", "capped-string"],
)
def test_validate_json_bad_value_keeps_the_values_type(tmp_path, spec, bad_value):
    path = tmp_path / "job.yaml"
    path.write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, uid: u}\n"
        f"spec: {spec[:-1]}, template: {{spec: {{restartPolicy: Never, containers: [{{name: c, image: i}}]}}}}}}\n"
    )
    code, out, err = run("validate", "-o", "json", str(path))
    (error,) = json.loads(out)[0]["errors"]
    assert (code, err, error["badValue"]) == (1, "", bad_value)


def test_validate_github_output_is_escaped_annotations(workload_file):
    path = workload_file(-1)
    code, out, _ = run("validate", "--output", "github", path)
    assert code == 1
    assert out == (
        f"::error file={path},line=7,col=31,title=Workload wl is "
        f"invalid::spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: "
        "Invalid value: -1: must be greater than or equal to 1\n"
    )


def test_feature_gates_can_be_turned_off(workload_file):
    code, out, _ = run("validate", "--gates", "GenericWorkload=false", workload_file(4))
    assert code == 1
    assert "GenericWorkload" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["validate", "missing.yaml"], "error: missing.yaml: no such file or directory\n"),
        (["validate", "--gates", "Nope=true", "x"], None),
        (["diff", "a.yaml", "b.yaml"], "error: a.yaml: no such file or directory\n"),
    ],
    ids=["missing-file", "unknown-gate", "diff-missing-file"],
)
def test_bad_input_is_one_line_and_exit_2(argv, message):
    code, out, err = run(*argv)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith("error: ")
    if message is not None:
        assert err == message


def test_malformed_yaml_is_one_line(tmp_path: Path):
    path = tmp_path / "bad.yaml"
    path.write_text("kind: [unclosed\n")
    code, _, err = run("validate", str(path))
    assert code == 2
    assert err.startswith("error: ")
    assert err.count("\n") == 1


def test_debug_shows_the_traceback(tmp_path: Path):
    path = tmp_path / "bad.yaml"
    path.write_text("kind: [unclosed\n")
    _, _, err = run("--debug", "validate", str(path))
    assert "Traceback" in err
    assert err.rstrip().splitlines()[-1].startswith("error: ")


def test_diff_reports_what_the_apiserver_refuses(workload_file, tmp_path: Path):
    old = workload_file(4, "old.yaml")
    changed = tmp_path / "new.yaml"
    changed.write_text(WORKLOAD.replace("{gang: {minCount: %d}}", "{basic: {}}") % ())
    code, out, _ = run("diff", old, str(changed))
    assert code == 1
    assert out.startswith(f'{changed} (document 1) Workload/wl: The Workload "wl" is invalid: \n* ')
    assert (
        "spec.podGroupTemplates[0].schedulingPolicy.gang: Invalid value: null: field cannot be cleared once set" in out
    )


def test_diff_accepts_a_min_count_change(workload_file):
    assert run("diff", workload_file(4, "old.yaml"), workload_file(6, "new.yaml")) == (
        0,
        'Workload "wl": the update would be accepted\n',
        "",
    )


def test_migrate_rewrites_and_reports():
    code, out, err = run("migrate", str(MANIFESTS / "legacy-v1alpha2.yaml"))
    assert code == 0
    assert "apiVersion: scheduling.k8s.io/v1beta1" in out
    assert "workloadRef:" in out
    assert "all: {}" in out
    assert err.splitlines()[0].endswith("apiVersion: scheduling.k8s.io/v1alpha2 is now scheduling.k8s.io/v1beta1")


def test_python_dash_m_runs_the_command(workload_file):
    done = subprocess.run(
        [sys.executable, "-m", "workloadbuilder", "validate", workload_file(4)], capture_output=True, text=True
    )
    assert (done.returncode, done.stdout) == (0, 'Workload "wl" is valid\n')


@pytest.mark.parametrize("command", ["validate", "compile", "migrate"], ids=["validate", "compile", "migrate"])
def test_a_document_that_is_not_a_mapping_is_one_line(tmp_path: Path, command: str):
    path = tmp_path / "list.yaml"
    path.write_text("- 1\n- 2\n")
    assert run(command, str(path)) == (2, "", f"error: {path} (document 1): a manifest is a mapping, not a list\n")


def test_an_invalid_crd_mapping_is_one_line(tmp_path: Path, workload_file):
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text("- 1\n")
    code, _, err = run("compile", "--mapping", str(mapping), workload_file(4))
    assert code == 2
    assert err.startswith(f"error: {mapping}: not a valid CRD mapping: (the mapping): ")
    assert err.count("\n") == 1


@pytest.mark.parametrize("command", ["validate", "compile", "migrate"], ids=["validate", "compile", "migrate"])
def test_an_empty_input_is_one_line(tmp_path: Path, command: str):
    path = tmp_path / "empty.yaml"
    path.write_text("# nothing here\n---\n")
    assert run(command, str(path)) == (2, "", f"error: {path}: no object in the input\n")


def test_validate_refuses_an_input_of_objects_it_cannot_check(tmp_path: Path):
    """An object of a kind no adapter knows is skipped with its warning; with nothing else, nothing was checked."""
    path = tmp_path / "cq.yaml"
    path.write_text("apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: c}\n")
    assert run("validate", "-v", str(path)) == (
        2,
        "",
        f"Warning: {path} (document 1) ClusterQueue/c: no adapter for apiVersion 'kueue.x-k8s.io/v1beta1' kind "
        "'ClusterQueue'; skipped (--mapping FILE describes a custom resource)\n"
        f"error: {path}: no object was checked: none is of a kind validate knows (Job, JobSet, LeaderWorkerSet, "
        "TrainJob, Volcano Job, a --mapping custom resource, Workload, PodGroup, CompositePodGroup)\n",
    )


NAN_WORKLOAD = (
    "apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {name: w}\n"
    "spec: {x: .nan, podSets: [{name: a, count: 1}]}\n"
)


@pytest.mark.parametrize("verbose", [[], ["-v"]], ids=["alone", "with-v"])
def test_a_migrate_error_is_its_one_line_unless_v_asks_for_the_notes(tmp_path, verbose):
    path = tmp_path / "w.yaml"
    path.write_text(NAN_WORKLOAD)
    code, out, err = run("migrate", "-o", "json", *verbose, str(path))
    error = "error: Workload/w: spec.x: NaN is not a JSON number: -o json cannot write it"
    assert (code, out, err.splitlines()[-1].startswith(error)) == (2, "", True)
    assert len(err.splitlines()) == (1 if not verbose else 4)
