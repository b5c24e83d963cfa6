"""Strict controller objects: unknown fields, wrong types and partial objects, at their full paths."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from workloadbuilder.adapters import plan_object
from workloadbuilder.adapters._shared.strict import KINDS, schema_errors

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "upstream"


def load(relative: str) -> dict[str, Any]:
    docs = [doc for doc in yaml.safe_load_all((DATA / relative).read_text()) if doc]
    return copy.deepcopy(docs[0])


def tweak(obj: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    node = obj
    for element in path[:-1]:
        node = node[element]
    node[path[-1]] = value
    return obj


RJ = ("spec", "replicatedJobs", 0)
LWT = ("spec", "leaderWorkerTemplate")


@pytest.mark.parametrize(
    ("source", "path", "value", "expected"),
    [
        (
            "jobset/paralleljobs.yaml",
            (*RJ, "replicass"),
            4,
            ["JobSet/paralleljobs: spec.replicatedJobs[0].replicass: unknown field"],
        ),
        (
            "jobset/paralleljobs.yaml",
            (*RJ, "template", "spec", "paralelism"),
            8,
            ["JobSet/paralleljobs: spec.replicatedJobs[0].template.spec.paralelism: unknown field"],
        ),
        (
            "jobset/paralleljobs.yaml",
            (*RJ, "template", "spec", "template", "spec", "containers", 0, "imagee"),
            "busybox",
            [
                (
                    "JobSet/paralleljobs: spec.replicatedJobs[0].template.spec.template.spec.containers[0].imagee: "
                    "unknown field"
                )
            ],
        ),
        (
            "jobset/paralleljobs.yaml",
            (*RJ, "replicas"),
            "4",
            ['JobSet/paralleljobs: spec.replicatedJobs[0].replicas: Invalid value: "4": must be of type integer'],
        ),
        (
            "lws/lws-sample.yaml",
            (*LWT, "sizee"),
            4,
            ["LeaderWorkerSet/leaderworkerset-sample: spec.leaderWorkerTemplate.sizee: unknown field"],
        ),
        (
            "lws/lws-sample.yaml",
            ("metadata", "labelz"),
            {},
            ["LeaderWorkerSet/leaderworkerset-sample: metadata.labelz: unknown field"],
        ),
        (
            "kueue/sample-job-partial-admission.yaml",
            ("spec", "schedulng"),
            {"schedulingPolicy": {"gang": {}}},
            ["Job/sample-job-partial-admission: spec.schedulng: unknown field"],
        ),
        (
            "kueue/sample-job-partial-admission.yaml",
            ("spec", "template", "spec", "containers", 0, "resources", "requests", "cpu"),
            [1],
            [
                (
                    "Job/sample-job-partial-admission: spec.template.spec.containers[0].resources.requests[cpu]: "
                    "Invalid value: [1]: must be of type integer or string"
                )
            ],
        ),
    ],
    ids=[
        "jobset-replicas-typo",
        "jobset-job-parallelism-typo",
        "jobset-container-typo",
        "jobset-replicas-string",
        "lws-size-typo",
        "lws-metadata-typo",
        "job-scheduling-typo",
        "quantity-of-wrong-type",
    ],
)
def test_typos_and_wrong_types_are_errors(source: str, path: tuple[Any, ...], value: Any, expected: list[str]):
    plan = plan_object(tweak(load(source), path, value))
    assert [str(finding) for finding in plan.validate()] == expected


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (
            {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "a"}, "spec": {"parallelism": 4}},
            ["spec.template: Required value"],
        ),
        (
            {
                "apiVersion": "jobset.x-k8s.io/v1alpha2",
                "kind": "JobSet",
                "metadata": {"name": "a"},
                "spec": {"replicatedJobs": [{"name": "w", "replicas": 2}]},
            },
            ["spec.replicatedJobs[0].template: Required value"],
        ),
        (
            {
                "apiVersion": "leaderworkerset.x-k8s.io/v1",
                "kind": "LeaderWorkerSet",
                "metadata": {"name": "a"},
                "spec": {"replicas": 2},
            },
            ["spec.leaderWorkerTemplate: Required value"],
        ),
        (
            {
                "apiVersion": "trainer.kubeflow.org/v1alpha1",
                "kind": "TrainJob",
                "metadata": {"name": "a"},
                "spec": {"trainer": {"numNodes": 2}},
            },
            ["spec.runtimeRef: Required value"],
        ),
        (
            {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "a"}},
            ["spec: Required value"],
        ),
        (
            {"apiVersion": "v1", "kind": "ConfigMap", "data": {"x": 1}},
            [],
        ),
    ],
    ids=["job-patch", "jobset-patch", "lws-patch", "trainjob-patch", "job-without-spec", "no-schema"],
)
def test_partial_objects_are_reported(obj: dict[str, Any], expected: list[str]):
    assert [str(err) for err in schema_errors(obj)] == expected


def test_a_partial_object_does_not_compile():
    patch = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "a", "uid": "u"}, "spec": {"parallelism": 4}}
    assert [str(f) for f in plan_object(patch).validate()] == ["Job/a: spec.template: Required value"]


def test_kinds_are_the_controller_objects():
    assert KINDS == (
        "batch.volcano.sh/v1alpha1/Job",
        "batch/v1/Job",
        "jobset.x-k8s.io/v1alpha2/JobSet",
        "leaderworkerset.x-k8s.io/v1/LeaderWorkerSet",
        "scheduling.volcano.sh/v1beta1/PodGroup",
        "scheduling.x-k8s.io/v1alpha1/PodGroup",
        "trainer.kubeflow.org/v1alpha1/ClusterTrainingRuntime",
        "trainer.kubeflow.org/v1alpha1/TrainJob",
        "trainer.kubeflow.org/v1alpha1/TrainingRuntime",
    )


CRDS = ROOT.parent / "shared" / "crds"


@pytest.mark.skipif(not CRDS.is_dir(), reason="../shared/crds is not beside this checkout")
def test_the_shipped_schemas_are_what_the_script_generates(tmp_path: Path):
    """The committed package data is regenerated byte for byte from ../shared/crds and the client's models."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_schemas  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    shipped = json.loads((ROOT / "adapters" / "schemas" / "fields.json").read_text())
    assert gen_schemas.generate(CRDS) == shipped
