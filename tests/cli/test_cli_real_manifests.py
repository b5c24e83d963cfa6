"""Issue 26: the command line on real manifests, as ``kubectl apply`` would take them.

Each point is run through ``workloadbuilder``: an object never created has no uid
(its Workload's owner reference is planned without one, which is no error of the
user's).
"""

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


def write(tmp_path: Path, name: str, *docs: dict) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(docs))
    return str(path)


POD = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}


@pytest.mark.parametrize(
    ("manifest", "owner"),
    [
        ("jobset/coordinator.yaml", "JobSet/coordinator-example"),
        ("kueue/sample-job.yaml", "Job/sample-job-xxxxx"),
        ("lws/lws-sample.yaml", "LeaderWorkerSet/leaderworkerset-sample"),
    ],
    ids=["jobset", "job-generate-name", "lws"],
)
def test_compile_without_a_uid_plans_an_empty_owner_uid(manifest: str, owner: str):
    code, out, err = run("compile", str(UPSTREAM / manifest))
    assert (code, "ownerReferences" in err) == (0, False)
    workloads = [doc for doc in yaml.safe_load_all(out) if doc["kind"] == "Workload"]
    refs = [ref for doc in workloads for ref in doc["metadata"]["ownerReferences"]]
    assert [(f"{ref['kind']}/{ref['name']}", ref.get("uid", "")) for ref in refs][:1] == [(owner, "")]


JOBSET = UPSTREAM / "jobset" / "site" / "static" / "examples"
SERVICE = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "leader"}, "spec": {"clusterIP": "None"}}
CLAIM_TEMPLATE = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": "gpu"}}
ROLE = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "r"}}
JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "uid": "j-uid"}, "spec": {"template": POD}}


@pytest.mark.parametrize(
    ("command", "extra"),
    [("validate", []), ("compile", []), ("place", ["--generate", "zones=1"])],
    ids=["validate", "compile", "place"],
)
@pytest.mark.parametrize(
    "builtin", [SERVICE, CLAIM_TEMPLATE, ROLE], ids=["service", "resource-claim-template", "rbac-role"]
)
def test_a_builtin_kind_without_scheduling_content_is_skipped_with_a_note(tmp_path, command, extra, builtin):
    path = write(tmp_path, "mixed.yaml", JOB, builtin)
    code, out, err = run(command, path, *extra)
    note = (
        f"Note: {path} (document 2) {builtin['kind']}/{builtin['metadata']['name']}: {builtin['kind']} "
        f"({builtin['apiVersion']}) has no gang-scheduling content; skipped\n"
    )
    assert (code, note in out + err) == (0, True)


@pytest.mark.parametrize(
    ("command", "extra", "last"),
    [
        ("validate", [], ""),
        ("compile", [], "Note: nothing to compile: no object in the input has gang-scheduling content\n"),
        (
            "place",
            ["--generate", "zones=1"],
            "Note: nothing to place: no object in the input has gang-scheduling content\n",
        ),
    ],
    ids=["validate", "compile", "place"],
)
def test_only_builtin_kinds_is_exit_0(tmp_path, command, extra, last):
    path = write(tmp_path, "rbac.yaml", ROLE, SERVICE)
    code, out, err = run(command, path, *extra)
    assert code == 0
    assert (out + err).endswith(last or "Service (v1) has no gang-scheduling content; skipped\n")


def test_an_unknown_custom_kind_beside_a_job_is_skipped_with_a_warning(tmp_path):
    path = write(
        tmp_path,
        "cq.yaml",
        JOB,
        {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue", "metadata": {"name": "q"}},
    )
    assert run("validate", path)[0] == 0
    assert run("validate", "--allow-unknown", path) == run("validate", path)  # the flag is kept for old scripts
    assert run("validate", "--strict", "-W", "no-uid", path)[0] == 1


NOT_SERVED = (
    'The PodGroup "js-abc-workers-def" is invalid: apiVersion: Invalid value: "scheduling.k8s.io/v1alpha2": '
    "PodGroup scheduling.k8s.io/v1alpha2 is not served by Kubernetes 1.37: the workloadbuilder migrate command "
    "rewrites it to scheduling.k8s.io/v1beta1"
)


@pytest.mark.parametrize(
    ("command", "extra", "code"),
    [
        ("validate", [], 1),
        ("compile", [], 2),
        ("place", ["--generate", "zones=1"], 2),
        ("explain", ["--generate", "zones=1"], 2),
        ("capacity", [], 2),
    ],
    ids=["validate", "compile", "place", "explain", "capacity"],
)
def test_every_command_gives_the_not_served_message(command, extra, code):
    path = JOBSET / "workload-aware-scheduling" / "podgroup.yaml"
    got, out, err = run(command, str(path), *extra)
    assert got == code
    assert NOT_SERVED in out + err


def test_a_runtime_error_is_said_of_the_runtime_document(tmp_path):
    runtime = yaml.safe_load(
        (UPSTREAM / "trainer" / "manifests" / "base" / "runtimes" / "torch_distributed.yaml").read_text()
    )
    runtime["spec"]["mlPolicy"]["numNodes"] = "two"
    train_job = next(
        d
        for d in yaml.safe_load_all((UPSTREAM / "trainer" / "examples" / "yaml" / "01-multi-node.yaml").read_text())
        if d
    )
    path = write(tmp_path, "tj.yaml", train_job, runtime)
    error = 'spec.mlPolicy.numNodes: Invalid value: "two": must be of type integer'
    where = f"{path} (document 2)"
    assert run("validate", path)[1].splitlines()[-2:] == [
        'TrainJob "multi-node-example" is valid',
        f'{where} ClusterTrainingRuntime/torch-distributed: The ClusterTrainingRuntime "torch-distributed" is invalid: '
        f"{error}",
    ]
    assert run("compile", path)[2].splitlines()[-1] == (
        f"error: {where} ClusterTrainingRuntime/torch-distributed: {error}"
    )
    assert run("place", path, "--generate", "zones=1")[1].splitlines()[-1] == (
        f'verdict: invalid: {where}: The ClusterTrainingRuntime "torch-distributed" is invalid: {error}'
    )


@pytest.mark.parametrize(
    ("manifest", "verdict"),
    [
        ("failure-policy/failjobset-action.yaml", 'JobSet "failjobset-action-example" is valid'),
        ("failure-policy/restartjobset-action.yaml", 'JobSet "restartjobset-action-example" is valid'),
    ],
    ids=["failjobset", "restartjobset"],
)
def test_jobset_rules_without_names_are_named_by_the_webhook(manifest, verdict):
    code, out, _ = run("validate", "-W", "no-uid", str(JOBSET / manifest))
    assert (code, out.splitlines()[-1]) == (0, verdict)


@pytest.mark.parametrize(
    ("manifest", "error"),
    [
        (
            "duplicatedPolicyEvent-webhook-deny.yaml",
            'spec.policies[1].event: Invalid value: "PodFailed": duplicate event PodFailed  across different policy',
        ),
        (
            "duplicatedTaskName-webhook-deny.yaml",
            'spec.tasks[1].name: Invalid value: "task-1": duplicated task name task-1',
        ),
        (
            "minAvailable-webhook-deny.yaml",
            "spec.minAvailable: Invalid value: 5: "
            "job 'minAvailable' should not be greater than total replicas in tasks",
        ),
    ],
    ids=["duplicated-policy-event", "duplicated-task-name", "min-available"],
)
def test_volcanos_own_denials_name_its_rule(manifest, error):
    path = UPSTREAM / "volcano" / "example" / "invalid_jobs" / manifest
    code, out, _ = run("validate", "-W", "no-uid", str(path))
    assert (code, out.splitlines()[-1]) == (
        1,
        f'{path} (document 1) Job/test-job-webhook-disallow: The Job "test-job-webhook-disallow" is invalid: {error}',
    )
