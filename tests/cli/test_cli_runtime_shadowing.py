"""validate judges every runtime document on its own: a second one of a name is never hidden behind the first.

Two files hold a ClusterTrainingRuntime ``torch``; ``b.yaml``'s has an unknown field. Whatever the order,
each is reported at its own file and document, once, and two different definitions of the name are an error
naming both places.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from workloadbuilder.cli.app import main

RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: torch}
spec:
__EXTRA__  mlPolicy: {numNodes: 1, torch: {}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec: {template: {spec: {containers: [{name: node, image: i}]}}}
"""
GOOD = RUNTIME.replace("__EXTRA__", "")
BAD = RUNTIME.replace("__EXTRA__", "  bogusField: 1\n")
TRAIN_JOB = """\
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: t, uid: 7e3a9c1d-2b4f-4e6a-8d0c-1f2e3d4c5b6a}
spec:
  runtimeRef: {name: torch}
"""
FILES = {"a.yaml": GOOD + TRAIN_JOB, "b.yaml": BAD, "b2.yaml": BAD + TRAIN_JOB, "c.yaml": GOOD, "copy.yaml": GOOD}
UNKNOWN = "spec.bogusField: unknown field"


def _duplicate(first: str, then: str, checked: bool = True) -> str:
    text = (
        f'metadata.name: Duplicate value: "torch": ClusterTrainingRuntime "torch" is defined differently in '
        f"{first} (document 1) and in {then} (document 1): the cluster keeps one object of a name"
    )
    return text + (
        f", and the objects that use it were checked against the one in {first} (document 1)" if checked else ""
    )


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _validate(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["validate", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def _records(*files: str) -> list[tuple[str, int, str, bool, list[str]]]:
    code, out, _ = _validate("-o", "json", *files)
    assert code == 1
    return [
        (r["source"], r["document"], r["kind"], r["valid"], [e["message"] for e in r["errors"]])
        for r in json.loads(out)
    ]


def test_the_bad_runtime_after_the_good_one_is_reported_at_its_file(workdir: Path) -> None:
    code, out, err = _validate("a.yaml", "b.yaml")
    assert (code, err) == (1, "")
    assert out == (
        'ClusterTrainingRuntime "torch" is valid\n'
        'TrainJob "t" is valid\n'
        'b.yaml (document 1) ClusterTrainingRuntime/torch: The ClusterTrainingRuntime "torch" is invalid: \n'
        f"* {UNKNOWN}\n"
        f"* {_duplicate('a.yaml', 'b.yaml')}\n"
    )
    assert _records("a.yaml", "b.yaml") == [
        ("a.yaml", 1, "ClusterTrainingRuntime", True, []),
        ("a.yaml", 2, "TrainJob", True, []),
        ("b.yaml", 1, "ClusterTrainingRuntime", False, [UNKNOWN, _duplicate("a.yaml", "b.yaml")]),
    ]


def test_the_bad_runtime_first_is_reported_once_and_the_good_one_at_its_own_file(workdir: Path) -> None:
    code, out, err = _validate("b.yaml", "a.yaml")
    assert (code, err) == (1, "")
    assert out == (
        f'b.yaml (document 1) ClusterTrainingRuntime/torch: The ClusterTrainingRuntime "torch" is invalid: {UNKNOWN}\n'
        "a.yaml (document 1) ClusterTrainingRuntime/torch: "
        f'The ClusterTrainingRuntime "torch" is invalid: {_duplicate("b.yaml", "a.yaml")}\n'
        'TrainJob "t" is valid\n'
    )
    assert _records("b.yaml", "a.yaml") == [
        ("b.yaml", 1, "ClusterTrainingRuntime", False, [UNKNOWN]),
        ("a.yaml", 1, "ClusterTrainingRuntime", False, [_duplicate("b.yaml", "a.yaml")]),
        ("a.yaml", 2, "TrainJob", True, []),
    ]


def test_a_runtime_two_trainjobs_use_is_one_record_with_each_error_once(workdir: Path) -> None:
    assert _records("a.yaml", "b2.yaml") == [
        ("a.yaml", 1, "ClusterTrainingRuntime", True, []),
        ("a.yaml", 2, "TrainJob", True, []),
        ("b2.yaml", 1, "ClusterTrainingRuntime", False, [UNKNOWN, _duplicate("a.yaml", "b2.yaml")]),
        ("b2.yaml", 2, "TrainJob", True, []),
    ]
    assert _records("b2.yaml", "a.yaml") == [
        ("b2.yaml", 1, "ClusterTrainingRuntime", False, [UNKNOWN]),
        ("b2.yaml", 2, "TrainJob", True, []),
        ("a.yaml", 1, "ClusterTrainingRuntime", False, [_duplicate("b2.yaml", "a.yaml")]),
        ("a.yaml", 2, "TrainJob", True, []),
    ]


def test_the_same_runtime_given_twice_is_judged_twice_and_valid(workdir: Path) -> None:
    code, out, err = _validate("-o", "json", "a.yaml", "copy.yaml")
    assert (code, err) == (0, "")
    assert [(r["source"], r["document"], r["kind"], r["valid"]) for r in json.loads(out)] == [
        ("a.yaml", 1, "ClusterTrainingRuntime", True),
        ("a.yaml", 2, "TrainJob", True),
        ("copy.yaml", 1, "ClusterTrainingRuntime", True),
    ]


def test_unused_runtimes_of_one_name_are_each_checked(workdir: Path) -> None:
    code, out, err = _validate("b.yaml", "c.yaml")
    unused = "no object in the input uses this ClusterTrainingRuntime: only its fields were checked"
    assert (code, err) == (1, "")
    assert out == (
        f"Warning: b.yaml (document 1) ClusterTrainingRuntime/torch: {unused}\n"
        f'b.yaml (document 1) ClusterTrainingRuntime/torch: The ClusterTrainingRuntime "torch" is invalid: {UNKNOWN}\n'
        f"Warning: c.yaml (document 1) ClusterTrainingRuntime/torch: {unused}\n"
        "c.yaml (document 1) ClusterTrainingRuntime/torch: "
        f'The ClusterTrainingRuntime "torch" is invalid: {_duplicate("b.yaml", "c.yaml", checked=False)}\n'
    )
