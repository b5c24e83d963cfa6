"""The Trainer adapter against Trainer's own runtimes and TrainJobs: the derived groups, KEP-3015's levels,
findings per object."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from plan_summary import accepted_by_the_apiserver, golden_documents

from workloadbuilder import FieldPath
from workloadbuilder.adapters import PlanError, adapter_for, plan_object
from workloadbuilder.adapters.trainer import TrainJobAdapter
from workloadbuilder.manifests import read_documents
from workloadbuilder.testing import assert_golden

DATA = Path(__file__).resolve().parents[2] / "data" / "adapters" / "trainer"
UID = "7e3a9c1d-2b4f-4e6a-8d0c-1f2e3d4c5b6a"
ADAPTER = TrainJobAdapter()
DROP = object()
GANG = {"schedulingPolicy": {"gang": {}}}

MULTI_NODE = ("01-multi-node.yaml", "multi-node-example")
VOLCANO = ("04-volcano-integration.yaml", "volcano-example")
MULTI_STEP = ("05-multi-step.yaml", "multi-step-example")
DEEPSPEED_JOB = ("trainjobs.yaml", "deepspeed-t5")
LLAMA_JOB = ("trainjobs.yaml", "llama-alpaca")
TORCH = "torch_distributed.yaml"
DEEPSPEED = "deepspeed_distributed.yaml"
LLAMA = "llama3_2_1B.yaml"


def changed(doc: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with each change (``__`` for ``.``) set at its path, or removed for ``DROP``."""
    for path, value in changes.items():
        *parents, last = FieldPath.parse(path.replace("__", ".")).elements()
        node = doc
        for element in parents:
            node = node[element] if isinstance(element, int) else node.setdefault(element, {})
        if value is DROP:
            del node[last]
        else:
            node[last] = copy.deepcopy(value)
    return doc


def document(file: str, kind: str, name: str | None = None) -> dict[str, Any]:
    return next(
        doc
        for doc in read_documents(DATA / file)
        if doc.get("kind") == kind and (name is None or doc["metadata"]["name"] == name)
    )


def train_job(source: tuple[str, str], **changes: Any) -> dict[str, Any]:
    """A saved TrainJob as read back from a cluster (with a uid), changed."""
    job = document(source[0], "TrainJob", source[1])
    job["metadata"]["uid"] = UID
    return changed(job, changes)


def runtime(file: str, **changes: Any) -> dict[str, Any]:
    """The (Cluster)TrainingRuntime of a saved manifest, changed."""
    found = next(doc for doc in read_documents(DATA / file) if doc.get("kind", "").endswith("TrainingRuntime"))
    return changed(found, changes)


MPI_TOGETHER = {
    "spec__mlPolicy__mpi__runLauncherAsNode": False,
    "spec__template__spec__replicatedJobs[1]__dependsOn": DROP,
    "spec__scheduling": {"replicatedJobs": [{"targetReplicatedJobs": ["launcher", "node"], **GANG}]},
}
STORY_3 = {
    "spec__scheduling": {
        "replicatedJobs": [
            {"targetReplicatedJobs": ["dataset-initializer", "model-initializer"], "schedulingPolicy": {"basic": {}}},
            {"targetReplicatedJobs": ["node"], **GANG},
        ]
    }
}

GOLDEN = [
    pytest.param(train_job(MULTI_NODE), runtime(TORCH), id="torch-multi-node-one-gang-of-nodes"),
    pytest.param(train_job(VOLCANO), runtime(VOLCANO[0]), id="volcano-runtime-becomes-a-workload"),
    pytest.param(train_job(DEEPSPEED_JOB), runtime(DEEPSPEED), id="mpi-launcher-after-its-nodes-gangs-alone"),
    pytest.param(train_job(LLAMA_JOB), runtime(LLAMA), id="torchtune-initializers-are-basic"),
    pytest.param(train_job(MULTI_STEP), runtime(MULTI_STEP[0]), id="multi-step-initializer-then-trainer"),
    pytest.param(
        train_job(MULTI_NODE), runtime(TORCH, spec__scheduling=GANG), id="kep-story-1-one-gang-over-the-trainjob"
    ),
    pytest.param(
        train_job(DEEPSPEED_JOB, spec__trainer__numNodes=50),
        runtime(DEEPSPEED, **MPI_TOGETHER),
        id="kep-story-2-launcher-and-nodes-together",
    ),
    pytest.param(train_job(LLAMA_JOB), runtime(LLAMA, **STORY_3), id="kep-story-3-initializers-basic-node-gang"),
    pytest.param(
        train_job(LLAMA_JOB), runtime(LLAMA, spec__scheduling={}), id="kep-level-1-sequenced-falls-back-per-rj"
    ),
    pytest.param(
        train_job(MULTI_NODE),
        runtime(
            TORCH,
            spec__scheduling={
                "replicatedJobs": [
                    {
                        "targetReplicatedJobs": ["node"],
                        "job": {
                            **GANG,
                            "resourceClaims": [{"name": "imex", "resourceClaimTemplateName": "imex-channel"}],
                        },
                    }
                ]
            },
        ),
        id="kep-level-3-per-job-gang-with-claims",
    ),
]


@pytest.mark.parametrize(("job", "runtime_doc"), GOLDEN)
def test_golden(request: pytest.FixtureRequest, job: dict[str, Any], runtime_doc: dict[str, Any]) -> None:
    plan = ADAPTER.plan(job, [runtime_doc])
    compiled = plan.compile()
    assert accepted_by_the_apiserver(compiled) == []
    documents = golden_documents(plan, compiled, instances=plan.instances)
    update = request.config.getoption("--update-goldens")
    assert_golden(documents, DATA / f"{request.node.callspec.id}.golden.yaml", update=update)


ERRORS = [
    pytest.param(
        train_job(MULTI_NODE, spec__trainer__numNodes=0),
        runtime(TORCH),
        [
            (
                "TrainJob/multi-node-example: spec.trainer.numNodes: Invalid value: 0: must be greater than or "
                "equal to 1 "
                "when the trainer is gang-scheduled"
            )
        ],
        id="zero-nodes-on-the-trainjob",
    ),
    pytest.param(
        train_job(LLAMA_JOB),
        runtime(LLAMA, spec__mlPolicy__numNodes=0),
        [
            (
                "ClusterTrainingRuntime/torchtune-llama3.2-1b: spec.mlPolicy.numNodes: Invalid value: 0: must be "
                "greater "
                "than or equal to 1 when the trainer is gang-scheduled"
            )
        ],
        id="zero-nodes-from-the-runtime",
    ),
    pytest.param(
        train_job(MULTI_NODE, spec__trainer__numNodes="3"),
        runtime(TORCH),
        ['TrainJob/multi-node-example: spec.trainer.numNodes: Invalid value: "3": must be of type integer'],
        id="nodes-of-the-wrong-type",
    ),
    pytest.param(
        train_job(MULTI_NODE),
        runtime(VOLCANO[0]),
        [
            (
                'TrainJob/multi-node-example: spec.runtimeRef.name: Not found: "torch-distributed": no '
                "ClusterTrainingRuntime of that name was given alongside the TrainJob"
            )
        ],
        id="runtime-not-given",
    ),
    pytest.param(
        train_job(MULTI_NODE),
        runtime(TORCH, spec__scheduling={"schedulingPolicy": {"gang": {"minCount": 2}}}),
        [
            (
                'ClusterTrainingRuntime/torch-distributed: spec.scheduling.schedulingPolicy: Invalid value: "object": '
                "gang.minCount is computed from numNodes and must not be set"
            )
        ],
        id="min-count-is-computed",
    ),
    pytest.param(
        train_job(VOLCANO),
        runtime(VOLCANO[0], spec__scheduling=GANG),
        [
            (
                'ClusterTrainingRuntime/torch-distributed-volcano: spec: Invalid value: "object": scheduling and '
                "podGroupPolicy are mutually exclusive"
            )
        ],
        id="scheduling-or-pod-group-policy",
    ),
    pytest.param(
        train_job(DEEPSPEED_JOB),
        runtime(DEEPSPEED, spec__scheduling=MPI_TOGETHER["spec__scheduling"]),
        [
            (
                "ClusterTrainingRuntime/deepspeed-distributed: "
                "spec.scheduling.replicatedJobs[0].targetReplicatedJobs[1]: "
                'Invalid value: "node": must not share a gang with replicatedJob "launcher": "launcher" starts '
                "only after "
                '"node" (dependsOn), so the gang could never fill'
            )
        ],
        id="kep-story-2-on-the-shipped-runtime-never-fills",
    ),
    pytest.param(
        train_job(MULTI_NODE),
        runtime(
            TORCH,
            spec__scheduling={"schedulingConstraints": {"topology": [{"key": "a"}, {"key": "b"}]}},
            **{
                "spec__template__spec__replicatedJobs[0]__template__spec__template__spec__schedulingGroup": {
                    "podGroupName": "x"
                }
            },
        ),
        [
            (
                'ClusterTrainingRuntime/torch-distributed: spec: Invalid value: "object": Pod schedulingGroup must '
                "not be "
                "set, it is owned by the TrainJob controller"
            ),
            (
                "ClusterTrainingRuntime/torch-distributed: spec.scheduling.schedulingConstraints.topology: Too "
                "many: 2: "
                "must have at most 1 item"
            ),
        ],
        id="runtime-errors-name-the-runtime",
    ),
]


@pytest.mark.parametrize(("job", "runtime_doc", "expected"), ERRORS)
def test_errors(job: dict[str, Any], runtime_doc: dict[str, Any], expected: list[str]) -> None:
    plan = ADAPTER.plan(job, [runtime_doc])
    assert [str(finding) for finding in plan.validate()] == expected
    with pytest.raises(PlanError) as raised:
        plan.compile()
    assert [str(finding) for finding in raised.value.findings] == expected


def test_processes_per_node_are_not_pods() -> None:
    job = train_job(MULTI_NODE, spec__trainer__numProcPerNode=8)
    workload = ADAPTER.plan(job, [runtime(TORCH)]).compile().workload
    assert workload.spec.pod_group_templates[0].scheduling_policy.gang.min_count == 3


def test_trainer_pods_are_stamped_in_the_rendered_jobset() -> None:
    compiled = ADAPTER.plan(train_job(DEEPSPEED_JOB), [runtime(DEEPSPEED)]).compile()
    assert [(pods.template, pods.count, dict(pods.selector), pods.stamp_path) for pods in compiled.pods] == [
        (
            "trainer",
            3,
            {"jobset.sigs.k8s.io/jobset-name": "deepspeed-t5", "jobset.sigs.k8s.io/replicatedjob-name": "node"},
            "spec.replicatedJobs[0].template.spec.template",
        ),
        (
            "launcher",
            1,
            {"jobset.sigs.k8s.io/jobset-name": "deepspeed-t5", "jobset.sigs.k8s.io/replicatedjob-name": "launcher"},
            "spec.replicatedJobs[1].template.spec.template",
        ),
    ]


def test_registered_for_trainjob_v1alpha1() -> None:
    assert isinstance(adapter_for("trainer.kubeflow.org/v1alpha1", "TrainJob"), TrainJobAdapter)
    plan = plan_object(train_job(MULTI_NODE), [runtime(TORCH)])
    assert [root.name for root in plan.roots] == ["trainer"]
