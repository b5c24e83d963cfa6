"""A TrainJob's pods as Kubeflow Trainer renders them (``adapters.trainer.pods``, kubeflow/trainer 8c0f5059).

The expectations are worked out by hand from Trainer's rules (``newRuntimeInfo`` merges
``resourcesPerNode`` into the trainer step's ``node`` container, ``MergeResourceRequirements``
merges key by key, ``Builder.Trainer`` overlays image, command, args and env), and the merge
cases are those of Trainer's own ``TestMergeResourceRequirements``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from workloadbuilder.adapters.trainer import TrainJobAdapter
from workloadbuilder.adapters.trainer.pods import merge_resources

UPSTREAM = Path(__file__).resolve().parents[2] / "data" / "upstream" / "trainer"
TORCH = UPSTREAM / "manifests" / "base" / "runtimes" / "torch_distributed.yaml"
DEEPSPEED = UPSTREAM / "manifests" / "base" / "runtimes" / "deepspeed_distributed.yaml"
MLX = UPSTREAM / "manifests" / "base" / "runtimes" / "mlx_distributed.yaml"
LLAMA = UPSTREAM / "manifests" / "base" / "runtimes" / "torchtune" / "llama3_2" / "llama3_2_1B.yaml"
FLUX = UPSTREAM / "examples" / "flux" / "flux-runtime.yaml"
TORCH_IMAGE = "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime"
CPU_2_4 = {"requests": {"cpu": "2", "memory": "4Gi"}, "limits": {"cpu": "4", "memory": "8Gi"}}


def _docs(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if isinstance(doc, dict)]


def _one(path: Path, kind: str) -> dict[str, Any]:
    (doc,) = [doc for doc in _docs(path) if doc.get("kind") == kind]
    return doc


def _pods(job: dict[str, Any], runtime: dict[str, Any]) -> list[tuple[str, int, dict[str, Any]]]:
    """Per pod assignment: ReplicatedJob, pod count, and each container's resources (``{}`` when it sets none)."""
    compiled = TrainJobAdapter().plan(job, [runtime]).compile()
    out = []
    for pods in compiled.pods:
        containers = pods.pod_template["spec"]["containers"]
        resources = {c["name"]: c.get("resources", {}) for c in containers}
        out.append((pods.selector["jobset.sigs.k8s.io/replicatedjob-name"], pods.count, resources))
    return out


# (file, runtime file or None when the file holds it, expected pods)
EXAMPLES = [
    ("examples/yaml/01-multi-node.yaml", TORCH, [("node", 3, {"node": {}})]),
    ("examples/yaml/02-runtime-patches.yaml", TORCH, [("node", 2, {"node": CPU_2_4})]),
    ("examples/yaml/03-kueue-integration.yaml", TORCH, [("node", 3, {"node": CPU_2_4})]),
    (
        "examples/yaml/04-volcano-integration.yaml",
        None,
        [("node", 4, {"node": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"cpu": "2", "memory": "4Gi"}}})],
    ),
    (
        "examples/yaml/05-multi-step.yaml",
        None,
        [("dataset-initializer", 1, {"dataset-initializer": {}}), ("node", 2, {"node": CPU_2_4})],
    ),
    ("examples/flux/flux-interactive.yaml", FLUX, [("node", 4, {"node": {}})]),
    (
        "examples/flux/lammps-train-gpus.yaml",
        FLUX,
        [("node", 2, {"node": {"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1"}}})],
    ),
    ("examples/flux/lammps-train-job.yaml", FLUX, [("node", 2, {"node": {}})]),
    ("02-runtime-patches.yaml", TORCH, [("node", 2, {"node": CPU_2_4})]),
    ("03-kueue-integration.yaml", TORCH, [("node", 3, {"node": CPU_2_4})]),
    ("flux-lammps-train-job.yaml", FLUX, [("node", 2, {"node": {}})]),
]


@pytest.mark.parametrize(("file", "runtime_file", "expected"), EXAMPLES, ids=[case[0] for case in EXAMPLES])
def test_upstream_examples_pods_request_what_trainer_renders(
    file: str, runtime_file: Path | None, expected: list[tuple[str, int, dict[str, Any]]]
) -> None:
    job = _one(UPSTREAM / file, "TrainJob")
    if runtime_file is None:
        (runtime,) = [doc for doc in _docs(UPSTREAM / file) if doc.get("kind", "").endswith("TrainingRuntime")]
    else:
        runtime = _one(runtime_file, "ClusterTrainingRuntime")
    assert _pods(job, runtime) == expected


def test_every_upstream_trainjob_is_checked() -> None:
    files = sorted(
        str(path.relative_to(UPSTREAM))
        for path in UPSTREAM.rglob("*.yaml")
        if any(doc.get("kind") == "TrainJob" for doc in _safe_docs(path))
    )
    assert files == sorted(case[0] for case in EXAMPLES)


def _safe_docs(path: Path) -> list[dict[str, Any]]:
    try:
        return _docs(path)
    except yaml.YAMLError:
        return []


def test_image_command_args_and_env_overlay_the_node_container() -> None:
    job = _one(UPSTREAM / "examples/yaml/02-runtime-patches.yaml", "TrainJob")
    job["spec"]["trainer"]["image"] = "example.com/train:1"
    job["spec"]["trainer"]["args"] = ["--epochs", "3"]
    runtime = _one(TORCH, "ClusterTrainingRuntime")
    runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0][
        "env"
    ] = [{"name": "PYTHONUNBUFFERED", "value": "0"}, {"name": "FROM_RUNTIME", "value": "r"}]
    (pods,) = TrainJobAdapter().plan(job, [runtime]).compile().pods
    (node,) = pods.pod_template["spec"]["containers"]
    assert node["image"] == "example.com/train:1"
    assert node["command"] == job["spec"]["trainer"]["command"]
    assert node["args"] == ["--epochs", "3"]
    assert node["env"] == [
        {"name": "PYTHONUNBUFFERED", "value": "1"},
        {"name": "FROM_RUNTIME", "value": "r"},
        {"name": "CUSTOM_VAR", "value": "custom-value"},
    ]
    untouched = runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    assert untouched["spec"]["containers"][0]["image"] == TORCH_IMAGE
    assert "resources" not in untouched["spec"]["containers"][0]


def _job(runtime_name: str, trainer: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "t", "namespace": "ml", "uid": "7e3a9c1d-2b4f-4e6a-8d0c-1f2e3d4c5b6a"},
        "spec": {"runtimeRef": {"name": runtime_name}, "trainer": trainer},
    }


GPU_8 = {"limits": {"nvidia.com/gpu": "8"}}


def test_runtime_resources_are_merged_key_by_key() -> None:
    """torchtune's runtime limits 2 GPUs; the TrainJob adds cpu and raises the GPUs: the initializers are untouched."""
    runtime = _one(LLAMA, "ClusterTrainingRuntime")
    job = _job("torchtune-llama3.2-1b", {"resourcesPerNode": {"limits": {"cpu": "16", "nvidia.com/gpu": "4"}}})
    assert _pods(job, runtime) == [
        ("dataset-initializer", 1, {"dataset-initializer": {}}),
        ("model-initializer", 1, {"model-initializer": {}}),
        ("node", 1, {"node": {"limits": {"nvidia.com/gpu": "4", "cpu": "16"}}}),
    ]


def test_mpi_launcher_as_node_gives_both_replicated_jobs_the_resources() -> None:
    runtime = _one(DEEPSPEED, "ClusterTrainingRuntime")
    job = _job("deepspeed-distributed", {"numNodes": 4, "resourcesPerNode": GPU_8})
    assert _pods(job, runtime) == [("node", 3, {"node": GPU_8}), ("launcher", 1, {"node": GPU_8})]


def test_mpi_launcher_as_node_gives_the_env_to_both_node_containers() -> None:
    runtime = _one(DEEPSPEED, "ClusterTrainingRuntime")
    job = _job("deepspeed-distributed", {"env": [{"name": "NCCL_DEBUG", "value": "INFO"}], "image": "x.io/ds:2"})
    compiled = TrainJobAdapter().plan(job, [runtime]).compile()
    rendered = {p.selector["jobset.sigs.k8s.io/replicatedjob-name"]: p.pod_template for p in compiled.pods}
    node, launcher = (rendered[name]["spec"]["containers"][0] for name in ("node", "launcher"))
    assert node["env"] == launcher["env"] == [{"name": "NCCL_DEBUG", "value": "INFO"}]
    assert (node["image"], launcher["image"]) == ("ghcr.io/kubeflow/trainer/deepspeed-runtime", "x.io/ds:2")


def test_a_bad_quantity_is_reported_even_without_the_runtime() -> None:
    job = _job("missing", {"resourcesPerNode": {"requests": {"cpu": "lots"}}})
    assert [str(e).split(": Invalid value")[0] for e in TrainJobAdapter().plan(job, []).errors] == [
        "TrainJob/t: spec.trainer.resourcesPerNode.requests[cpu]",
        'TrainJob/t: spec.runtimeRef.name: Not found: "missing": no ClusterTrainingRuntime of that name was given '
        "alongside the TrainJob",
    ]


def test_mpi_without_launcher_as_node_leaves_the_node_replicated_job_alone() -> None:
    """Trainer's TODO: only the trainer step (the launcher) gets resourcesPerNode."""
    runtime = _one(MLX, "ClusterTrainingRuntime")
    runtime["spec"]["mlPolicy"]["mpi"]["runLauncherAsNode"] = False
    job = _job("mlx-distributed", {"numNodes": 2, "resourcesPerNode": GPU_8})
    assert [(name, count, res["node"]) for name, count, res in _pods(job, runtime)] == [
        ("node", 2, {}),
        ("launcher", 1, GPU_8),
    ]


def test_a_runtime_without_ml_policy_drops_the_resources_with_a_warning() -> None:
    runtime = _one(TORCH, "ClusterTrainingRuntime")
    del runtime["spec"]["mlPolicy"]
    job = _job("torch-distributed", {"numNodes": 2, "resourcesPerNode": GPU_8, "numProcPerNode": 8})
    plan = TrainJobAdapter().plan(job, [runtime])
    assert _pods(job, runtime) == [("node", 2, {"node": {}})]
    assert [str(w) for w in plan.warnings if w.object == "TrainJob/t"] == [
        "TrainJob/t: spec.trainer.numProcPerNode: Unsupported value: not rendered: Trainer's ML plugins turn it "
        "into environment variables of the node container (PET_NPROC_PER_NODE, MPI slots); it does not change what "
        "a pod requests",
        "TrainJob/t: spec.trainer.resourcesPerNode: Unsupported value: not applied: Trainer merges it only into the "
        "container named node of the runtime's trainer step, and only when the runtime sets spec.mlPolicy; this "
        "runtime offers no such container, so its pods request what its templates say",
    ]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            "abc",
            'TrainJob/t: spec.trainer.resourcesPerNode.limits[nvidia.com/gpu]: Invalid value: "abc": quantities must '
            "match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
        (
            -1,
            "TrainJob/t: spec.trainer.resourcesPerNode.limits[nvidia.com/gpu]: Invalid value: -1: "
            "must be greater than or equal to 0",
        ),
    ],
    ids=["not-a-quantity", "negative"],
)
def test_a_bad_quantity_is_an_error_on_the_trainjob(value: Any, message: str) -> None:
    runtime = _one(TORCH, "ClusterTrainingRuntime")
    job = _job("torch-distributed", {"resourcesPerNode": {"limits": {"nvidia.com/gpu": value}}})
    assert [str(e) for e in TrainJobAdapter().plan(job, [runtime]).errors] == [message]


# Trainer's TestMergeResourceRequirements (pkg/util/trainingruntime), case by case.
MERGES = {
    "gpu only overlays runtime cpu and memory": (
        {"limits": {"cpu": "8", "memory": "32Gi"}},
        {"limits": {"nvidia.com/gpu": "4"}},
        {"limits": {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "4"}},
    ),
    "trainjob cpu overrides runtime cpu": (
        {"limits": {"cpu": "8"}},
        {"limits": {"cpu": "4"}},
        {"limits": {"cpu": "4"}},
    ),
    "partial override keeps other runtime keys": (
        {"limits": {"cpu": "5", "memory": "32Gi"}},
        {"limits": {"nvidia.com/gpu": "2", "memory": "1Gi"}},
        {"limits": {"cpu": "5", "memory": "1Gi", "nvidia.com/gpu": "2"}},
    ),
    "empty override returns base": ({"requests": {"cpu": "1"}}, {}, {"requests": {"cpu": "1"}}),
    "trainjob requests override runtime requests": (
        {"requests": {"cpu": "8", "memory": "32Gi"}},
        {"requests": {"cpu": "4"}},
        {"requests": {"cpu": "4", "memory": "32Gi"}},
    ),
    "trainjob claims override runtime claims by name": (
        {"claims": [{"name": "gpu", "request": "default"}]},
        {"claims": [{"name": "gpu", "request": "large"}]},
        {"claims": [{"name": "gpu", "request": "large"}]},
    ),
    "trainjob claims merge keeps other runtime claims": (
        {"claims": [{"name": "gpu", "request": "default"}, {"name": "storage", "request": "fast"}]},
        {"claims": [{"name": "gpu", "request": "large"}]},
        {"claims": [{"name": "gpu", "request": "large"}, {"name": "storage", "request": "fast"}]},
    ),
    "unset override claims keep runtime claims": (
        {"claims": [{"name": "gpu", "request": "default"}]},
        {"limits": {"cpu": "4"}},
        {"limits": {"cpu": "4"}, "claims": [{"name": "gpu", "request": "default"}]},
    ),
}


@pytest.mark.parametrize(("base", "override", "want"), MERGES.values(), ids=list(MERGES))
def test_merge_resources_as_trainer_does(base: dict[str, Any], override: dict[str, Any], want: dict[str, Any]) -> None:
    before = yaml.safe_dump(base)
    assert merge_resources(base, override) == want
    assert yaml.safe_dump(base) == before
