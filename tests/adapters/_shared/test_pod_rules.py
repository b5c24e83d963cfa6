"""The pod rules on controller objects: the controller kind's restart policies, Volcano's and Trainer's webhooks,
the rules at each adapter's own paths, and the upstream examples judged whole."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from upstream_verdicts import CASES, DATA

from workloadbuilder.adapters import plan_object
from workloadbuilder.adapters._shared.pod_resources import canonical_quantity
from workloadbuilder.adapters._shared.pod_rules import pod_templates
from workloadbuilder.adapters._shared.strict import schema_errors
from workloadbuilder.adapters.template_rules import template_errors
from workloadbuilder.errors import WorkloadBuilderError
from workloadbuilder.field import FieldPath
from workloadbuilder.placement.k8s.quantity import parse_nanos


def pod(**spec: Any) -> dict[str, Any]:
    return {"spec": {"containers": [{"name": "main", "image": "busybox"}], **spec}}


def job(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {"template": pod(**spec)}}


def jobset(**spec: Any) -> dict[str, Any]:
    rjob = {"name": "w", "replicas": 1, "template": {"spec": {"template": pod(**spec)}}}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "s"},
            "spec": {"replicatedJobs": [rjob]}}  # fmt: skip


def lws(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "metadata": {"name": "l"},
            "spec": {"leaderWorkerTemplate": {"size": 2, "workerTemplate": pod(**spec)}}}  # fmt: skip


def volcano(volumes: Any = None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"tasks": [{"name": "t", "replicas": 1, "template": pod(**spec)}]}
    if volumes is not None:
        body["volumes"] = volumes
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "v"}, "spec": body}


def texts(obj: dict[str, Any]) -> list[str]:
    return [str(error) for error in template_errors(obj)]


JOB_RESTART = "spec.template.spec.restartPolicy"
RJ_RESTART = "spec.replicatedJobs[0].template.spec.template.spec.restartPolicy"
LWS_RESTART = "spec.leaderWorkerTemplate.workerTemplate.spec.restartPolicy"


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (job(), [f'{JOB_RESTART}: Required value: valid values: "OnFailure", "Never"']),
        (job(restartPolicy="Always"), [f'{JOB_RESTART}: Required value: valid values: "OnFailure", "Never"']),
        (job(restartPolicy="Never"), []),
        (job(restartPolicy="OnFailure"), []),
        (
            job(restartPolicy="Sometimes"),
            [
                f'{JOB_RESTART}: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
                f'{JOB_RESTART}: Unsupported value: "Sometimes": supported values: "OnFailure", "Never"',
            ],
        ),
        (jobset(), []),  # JobSet's webhook sets OnFailure
        (jobset(restartPolicy="Always"), [f'{RJ_RESTART}: Required value: valid values: "OnFailure", "Never"']),
        (lws(), []),
        (lws(restartPolicy="Never"), [f'{LWS_RESTART}: Unsupported value: "Never": supported values: "Always"']),
        (volcano(restartPolicy="Never"), []),
        (volcano(restartPolicy="Always"), []),
    ],
    ids=[
        "job-unset",
        "job-always",
        "job-never",
        "job-on-failure",
        "job-unknown",
        "jobset-defaulted",
        "jobset-always",
        "lws-defaulted",
        "lws-never",
        "volcano-never",
        "volcano-always",
    ],
)
def test_restart_policy_follows_the_controller_kind(obj: dict[str, Any], expected: list[str]) -> None:
    assert texts(obj) == expected


def test_a_pod_failure_policy_needs_never() -> None:
    obj = job(restartPolicy="OnFailure")
    obj["spec"]["podFailurePolicy"] = {"rules": []}
    assert texts(obj) == [
        f'{JOB_RESTART}: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified'
    ]


def test_the_placeholder_service_account_is_refused_at_each_adapters_path() -> None:
    account = "$K8S_SA_NAME"
    paths = {
        "Job": "spec.template.spec.serviceAccountName",
        "JobSet": "spec.replicatedJobs[0].template.spec.template.spec.serviceAccountName",
        "LeaderWorkerSet": "spec.leaderWorkerTemplate.workerTemplate.spec.serviceAccountName",
    }
    for obj in (job(serviceAccountName=account, restartPolicy="Never"), jobset(serviceAccountName=account),
                lws(serviceAccountName=account)):  # fmt: skip
        found = plan_object(obj).validate()
        assert [str(f.error.field) for f in found] == [paths[obj["kind"]]]
        assert found[0].error.detail.startswith("a lowercase RFC 1123 subdomain must consist of")
    found = plan_object(volcano(serviceAccountName=account)).validate()
    assert "spec.tasks[0].template.spec.serviceAccountName" in [f.error.field for f in found]


VOLCANO_IO = [
    ([{"mountPath": "/in", "volumeClaimName": "in"}], []),
    (
        [{"mountPath": "/in"}],
        ["spec.volumes[0]: Required value: either VolumeClaim or VolumeClaimName must be specified"],
    ),
    ([{"volumeClaimName": "in"}], ["spec.volumes[0].mountPath: Required value: mountPath is required"]),
    (
        [{"mountPath": "/in", "volumeClaimName": "a"}, {"mountPath": "/in", "volumeClaimName": "b"}],
        ['spec.volumes[1].mountPath: Invalid value: "/in": duplicated mountPath: /in'],
    ),
    (
        [{"mountPath": "/out", "volumeClaimName": "c", "volumeClaim": {"accessModes": ["ReadWriteOnce"]}}],
        [
            'spec.volumes[0]: Invalid value: {"volumeClaim":{"accessModes":["ReadWriteOnce"]},"volumeClaimName":"c"}: '
            "conflict: If you want to use an existing PVC, just specify VolumeClaimName.If you want to create a new "
            "PVC, you do not need to specify VolumeClaimName"
        ],
    ),
    (
        [{"mountPath": "/in", "volumeClaimName": "My_Claim"}],
        [
            'spec.volumes[0].volumeClaimName: Invalid value: "My_Claim": invalid VolumeClaimName My_Claim : '
            "[a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
            "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]"
        ],
    ),
    (  # Volcano stops at the first refused entry
        [{"mountPath": "/a"}, {"mountPath": "/a"}],
        ["spec.volumes[0]: Required value: either VolumeClaim or VolumeClaimName must be specified"],
    ),
]


@pytest.mark.parametrize(
    ("volumes", "expected"),
    VOLCANO_IO,
    ids=["ok", "no-claim", "no-mount-path", "duplicated", "both", "bad-claim-name", "first-only"],
)
def test_volcano_volumes_follow_validate_io(volumes: list[dict[str, Any]], expected: list[str]) -> None:
    assert texts(volcano(volumes)) == expected


def test_the_volcano_example_with_its_volumes_uncommented_is_refused() -> None:
    text = (DATA / "volcano/example/job.yaml").read_text()
    uncommented = text.replace("  #volumes:", "  volumes:").replace("  #  ", "    ").replace("  #      ", "        ")
    obj = yaml.safe_load(uncommented)
    assert obj["spec"]["volumes"][0] == {"mountPath": "/myinput"}
    found = [str(f.error) for f in plan_object(obj).validate()]
    assert "spec.volumes[0]: Required value: either VolumeClaim or VolumeClaimName must be specified" in found


def runtime(containers: list[str], ancestor: str = "trainer") -> dict[str, Any]:
    rjob = {
        "name": "node",
        "template": {
            "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": ancestor}},
            "spec": {"template": {"spec": {"containers": [{"name": n, "image": "i"} for n in containers]}}},
        },
    }
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
            "metadata": {"name": "r"}, "spec": {"template": {"spec": {"replicatedJobs": [rjob]}}}}  # fmt: skip


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (runtime(["node"]), []),
        (runtime(["trainer"]), ["node"]),
        (runtime(["dataset-initializer"], "dataset-initializer"), []),
        (runtime(["node"], "model-initializer"), ["model-initializer"]),
        (runtime(["x"], "custom-step"), []),
    ],
    ids=["trainer-node", "trainer-without-node", "initializer", "initializer-without-its-container", "other-step"],
)
def test_trainer_runtime_needs_each_steps_container(obj: dict[str, Any], expected: list[str]) -> None:
    path = "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers"
    detail = "Invalid value: must contain the required container for the ancestor: "
    assert texts(obj) == [f"{path}: {detail}{name}" for name in expected]


def test_a_trainjobs_env_names_and_resources_per_node() -> None:
    train_job = {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "t"},
        "spec": {
            "trainer": {"env": [{"name": "A=B"}], "resourcesPerNode": {"requests": {"cpu": "8"}, "limits": {"cpu": 4}}},
            "runtimePatches": [{"manager": "m", "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [
                {"name": "node", "template": {"spec": {"template": {"spec": {"serviceAccountName": "Bad"}}}}}]}}}}],
        },
    }  # fmt: skip
    patch = "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec"
    found = texts(train_job)
    assert found[0].startswith(f'{patch}.serviceAccountName: Invalid value: "Bad": a lowercase RFC 1123 subdomain')
    assert found[1:] == [
        'spec.trainer.env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of '
        "printable ASCII characters other than '='",
        'spec.trainer.resourcesPerNode.requests: Invalid value: "8": must be less than or equal to cpu limit of 4',
    ]


def test_every_adapters_kind_has_its_pod_templates_found() -> None:
    assert [str(t.path) for t in pod_templates(jobset())] == ["spec.replicatedJobs[0].template.spec.template"]
    assert [str(t.path) for t in pod_templates(volcano())] == ["spec.tasks[0].template"]
    assert [str(t.path) for t in pod_templates(runtime(["node"]))] == [
        "spec.template.spec.replicatedJobs[0].template.spec.template"
    ]
    assert pod_templates({"apiVersion": "v1", "kind": "ConfigMap"}) == []


@pytest.mark.parametrize("seed", range(8), ids=[f"seed-{s}" for s in range(8)])
def test_canonical_quantities_keep_their_amount(seed: int) -> None:
    """Seeded amounts in each format: the canonical text parses to the same amount, and is canonical again."""
    rng = random.Random(seed)
    for _ in range(200):
        number = rng.choice([str(rng.randint(0, 5000)), f"{rng.randint(0, 99)}.{rng.randint(0, 999)}"])
        text = number + rng.choice(["", "m", "k", "M", "G", "Ki", "Mi", "Gi", "e3", "e-3", "n", "u"])
        shown = canonical_quantity(text)
        assert parse_nanos(shown) == parse_nanos(text), text
        assert canonical_quantity(shown) == shown, text


def _upstream_objects() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for case in CASES:
        try:
            docs = list(yaml.safe_load_all((DATA / case).read_text()))
        except yaml.YAMLError:
            continue
        found += [(case, doc) for doc in docs if isinstance(doc, dict) and pod_templates(doc)]
    return found


UPSTREAM = _upstream_objects()
REFUSED = {  # what the apiserver (or the controller's webhook) refuses in the examples as written, and why
    "kueue/site/static/examples/serving-workloads/sample-leaderworkerset-tas.yaml": (
        "spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].resources.limits: Required value: "
        "Limit must be set for non overcommitable resources"
    ),
}


def test_the_upstream_examples_are_judged_whole() -> None:
    """Every example object with pod templates is judged; only the ones the apiserver refuses are refused."""
    assert (len(UPSTREAM), len({case for case, _ in UPSTREAM})) == (107, 103)
    refused = {case: str(template_errors(obj)[0]) for case, obj in UPSTREAM if template_errors(obj)}
    assert refused == REFUSED


def test_judging_never_changes_the_object() -> None:
    for _, obj in UPSTREAM[:40]:
        before = copy.deepcopy(obj)
        template_errors(obj)
        assert obj == before


def test_the_recorded_answers_live_beside_the_harness() -> None:
    harness = Path(__file__).resolve().parents[3] / "tools" / "reference" / "podrules" / "main.go"
    assert "ValidatePodTemplateSpec" in harness.read_text()


def full_pod(**spec: Any) -> dict[str, Any]:
    """A pod template with an entry at every list the wrong-type table reaches."""
    main = {
        "name": "main",
        "image": "busybox",
        "ports": [{"name": "http", "containerPort": 80, "hostPort": 90}],
        "env": [{"name": "A", "value": "1"}],
        "volumeMounts": [{"name": "data", "mountPath": "/data"}],
        "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}},
    }
    init = {"name": "init", "image": "busybox", "env": [{"name": "B", "value": "2"}]}
    return {"spec": {"containers": [main], "initContainers": [init], "volumes": [{"name": "data", "emptyDir": {}}],
                     **spec}}  # fmt: skip


def _with_template(obj: dict[str, Any], template: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """``obj`` with its only pod template replaced by ``template``, and that template's path."""
    (found,) = pod_templates(obj)
    holder: Any = obj
    *parents, last = found.path.elements()
    for step in parents:
        holder = holder[step]
    holder[last] = template
    return obj, str(found.path)


WRONG_TYPE_OBJECTS = {
    "Job": lambda: _with_template(job(), full_pod(restartPolicy="Never")),
    "JobSet": lambda: _with_template(jobset(), full_pod()),
    "LeaderWorkerSet": lambda: _with_template(lws(), full_pod()),
    "VolcanoJob": lambda: _with_template(volcano(), full_pod()),
}
WRONG_TYPE_PATHS = [  # (steps below the pod template's spec, the type the schema wants)
    (("containers", 0, "name"), "string"),
    (("initContainers", 0, "name"), "string"),
    (("volumes", 0, "name"), "string"),
    (("containers", 0, "ports", 0, "name"), "string"),
    (("containers", 0, "ports", 0, "containerPort"), "integer"),
    (("containers", 0, "ports", 0, "hostPort"), "integer"),
    (("containers", 0, "ports", 0, "protocol"), "string"),
    (("containers", 0, "env", 0, "name"), "string"),
    (("initContainers", 0, "env", 0, "name"), "string"),
    (("containers", 0, "volumeMounts", 0, "name"), "string"),
    (("containers", 0, "env", 0), "object"),
    (("containers", 0, "ports", 0), "object"),
    (("containers", 0), "object"),
    (("volumes", 0), "object"),
    (("containers", 0, "resources"), "object"),
    (("containers", 0, "resources", "requests"), "object"),
    (("containers", 0, "volumeMounts"), "array"),
    (("containers", 0, "ports"), "array"),
    (("containers",), "array"),
    (("serviceAccountName",), "string"),
    (("restartPolicy",), "string"),
]
WRONG_VALUES = {  # a value of every JSON type but the one named
    "string": [[0], {"a": 1}, 7, True, 1.5],
    "integer": [[0], {"a": 1}, "80", True, 1.5],
    "object": [[0], "x", 7, True],
    "array": [{"a": 1}, "x", 7, True],
}


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


@pytest.mark.parametrize("seed", range(6), ids=[f"seed-{s}" for s in range(6)])
@pytest.mark.parametrize("kind", list(WRONG_TYPE_OBJECTS), ids=list(WRONG_TYPE_OBJECTS))
def test_a_value_of_the_wrong_type_is_a_field_error_at_its_path(kind: str, seed: int) -> None:
    """Seeded wrong types at every name, port, env entry and list of a pod template: a type error, never a crash."""
    rng = random.Random(f"{kind}-{seed}")
    for steps, wanted in WRONG_TYPE_PATHS:
        obj, template_path = WRONG_TYPE_OBJECTS[kind]()
        value = rng.choice(WRONG_VALUES[wanted])
        holder: Any = obj
        for step in (*FieldPath.parse(template_path).elements(), "spec", *steps[:-1]):
            holder = holder[step]
        holder[steps[-1]] = value
        at = FieldPath.parse(template_path).child("spec")
        for step in steps:
            at = at.index(step) if isinstance(step, int) else at.child(step)
        plan = plan_object(obj)
        found = [str(f.error) for f in plan.validate()]
        assert f"{at}: Invalid value: {_json(value)}: must be of type {wanted}" in found, (steps, value)
        with pytest.raises(WorkloadBuilderError):
            plan.compile()


def test_a_jobsets_claimed_volume_beside_mounts_of_the_wrong_type() -> None:
    obj = jobset()
    obj["spec"]["volumeClaimPolicies"] = [{"templates": [{"metadata": {"name": "data"}, "spec": {}}]}]
    container = obj["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]
    container["volumeMounts"] = 7
    found = [str(f.error) for f in plan_object(obj).validate()]
    path = "spec.replicatedJobs[0].template.spec.template.spec.containers[0].volumeMounts"
    assert f"{path}: Invalid value: 7: must be of type array" in found


@pytest.mark.parametrize("value", [[0], {"a": 1}], ids=["list", "map"])
def test_a_trainjob_patchs_container_name_of_the_wrong_type(value: Any) -> None:
    """A patch's names are compared with nothing, so a name no string is only the schema's type error."""
    patched = {"name": "node", "template": {"spec": {"template": {"spec": {"containers": [{"name": value}]}}}}}
    patch = {"manager": "m", "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [patched]}}}}
    train_job = {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "t"},
        "spec": {"runtimeRef": {"name": "r"}, "runtimePatches": [patch]},
    }
    assert texts(train_job) == []
    path = "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec"
    assert f"{path}.containers[0].name: Invalid value: {_json(value)}: must be of type string" in [
        str(e) for e in schema_errors(train_job)
    ]
