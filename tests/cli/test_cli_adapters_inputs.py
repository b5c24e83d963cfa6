"""The command line on the manifests people have: Lists, generateName, runtimes given beside a TrainJob."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import yaml

from workloadbuilder.cli.app import main

UPSTREAM = Path(__file__).resolve().parents[1] / "data" / "upstream"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def job(name: str) -> dict:
    return {
        "metadata": {"name": name, "uid": f"{name}-uid"},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}},
    }


def listed(kind: str) -> str:
    if kind == "List":
        items = [
            {"apiVersion": "batch/v1", "kind": "Job", **job("a")},
            {"apiVersion": "batch/v1", "kind": "Job", **job("b")},
        ]
        return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items})
    return yaml.safe_dump({"apiVersion": "batch/v1", "kind": "JobList", "items": [job("a"), job("b")]})


@pytest.mark.parametrize("kind", ["List", "JobList"], ids=["v1-list", "typed-list"])
@pytest.mark.parametrize("command", ["validate", "compile", "place"], ids=["validate", "compile", "place"])
def test_lists_are_their_items(tmp_path: Path, kind: str, command: str):
    path = tmp_path / "list.yaml"
    path.write_text(listed(kind))
    extra = ["--generate", "zones=1"] if command == "place" else []
    code, out, _ = run(command, str(path), *extra)
    assert code == 0
    if command == "validate":
        assert [line for line in out.splitlines() if not line.startswith("Warning:")] == [
            'Job "a" is valid',
            'Job "b" is valid',
        ]
    elif command == "compile":
        assert [doc["metadata"]["name"] for doc in yaml.safe_load_all(out) if doc["kind"] == "Job"] == ["a", "b"]
    else:
        assert out.strip().splitlines()[-2:] == [
            "feasible (kube-scheduler): 2 of 2 objects placed",
            "verdict: placeable",
        ]


def test_generate_name_validates_and_compiles_with_a_placeholder():
    code, out, err = run("compile", str(UPSTREAM / "kueue" / "sample-job.yaml"))
    assert code == 0
    names = [doc["metadata"]["name"] for doc in yaml.safe_load_all(out) if doc["kind"] in ("Workload", "PodGroup")]
    assert [name.startswith("sample-job-xxxxx-") for name in names] == [True, True]
    assert err.splitlines()[0] == (
        f"Warning: {UPSTREAM / 'kueue' / 'sample-job.yaml'} (document 1) Job/sample-job-xxxxx: metadata.generateName: "
        'Invalid value: "sample-job-": planned as '
        '"sample-job-xxxxx": the apiserver appends a random suffix, so the real names of the object, its Workload '
        "and its groups follow the generated name; plan the object as read back from the cluster to get them"
    )
    assert run("validate", str(UPSTREAM / "kueue" / "sample-job.yaml"))[1].splitlines()[-1] == (
        'Job "sample-job-xxxxx" is valid'
    )


def test_a_runtime_given_with_its_train_job_is_checked_through_it():
    code, out, err = run(
        "validate",
        str(UPSTREAM / "trainer" / "03-kueue-integration.yaml"),
        str(UPSTREAM / "trainer-related" / "torch_distributed.yaml"),
    )
    assert (code, "not checked" in out + err) == (0, False)
    assert out.splitlines()[-2:] == [
        'TrainJob "kueue-example" is valid',
        'ClusterTrainingRuntime "torch-distributed" is valid',
    ]


def test_a_runtime_alone_has_its_fields_checked(tmp_path: Path):
    runtime = next(d for d in yaml.safe_load_all((UPSTREAM / "trainer" / "jax_distributed.yaml").read_text()) if d)
    runtime["spec"]["mlPolicy"]["numNodez"] = 2
    path = tmp_path / "runtime.yaml"
    path.write_text(yaml.safe_dump(runtime))
    code, out, _ = run("validate", str(path))
    assert (code, out) == (
        1,
        (
            f"Warning: {path} (document 1) ClusterTrainingRuntime/jax-distributed: no object in the input uses this "
            "ClusterTrainingRuntime: only its fields "
            f"were checked\n{path} (document 1) ClusterTrainingRuntime/jax-distributed: "
            'The ClusterTrainingRuntime "jax-distributed" is invalid: spec.mlPolicy.numNodez: unknown field\n'
        ),
    )
