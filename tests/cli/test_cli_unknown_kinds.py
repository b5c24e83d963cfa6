"""One rule for objects no adapter knows (issue 33, item 10): Kueue's queues beside a Job, in all seven commands.

Each of ``validate``, ``compile``, ``place``, ``explain``, ``capacity``,
``simulate`` and ``diff`` skips such an object with the same warning on
standard error and goes on with the others; with nothing else in the input,
each exits 2 (``validate``, ``compile`` and ``diff`` with the ``error:`` line
alone unless ``-v``).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from workloadbuilder.cli.app import main

QUEUES = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: team}
spec: {namespaceSelector: {}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: team, namespace: ml}
spec: {clusterQueue: team}
"""

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: ml
  uid: 6a1e3f0c-2b7d-4c55-9f3e-0d8a4b2c1e77
  labels: {kueue.x-k8s.io/queue-name: team}
spec:
  parallelism: 2
  completions: 2
  scheduling: {schedulingPolicy: {gang: {}}}
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: example.com/train:1
        resources: {requests: {cpu: "4"}}
"""

SKIPPED = "skipped (--mapping FILE describes a custom resource)"
CLUSTER = ["--generate", "zones=1,blocks=1,racks=1,hosts=2,gpus=0"]
COMMANDS = {
    "validate": ["validate"],
    "compile": ["compile", "-o", "name"],
    "place": ["place", *CLUSTER],
    "explain": ["explain", *CLUSTER],
    "capacity": ["capacity", *CLUSTER],
}


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def warnings(path: str) -> str:
    api = "apiVersion 'kueue.x-k8s.io/v1beta1'"
    return (
        f"Warning: {path} (document 1) ClusterQueue/team: no adapter for {api} kind 'ClusterQueue'; {SKIPPED}\n"
        f"Warning: {path} (document 2) LocalQueue/team: no adapter for {api} kind 'LocalQueue'; {SKIPPED}\n"
    )


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    Path("queues.yaml").write_text(QUEUES + "---\n" + JOB)
    Path("only-queues.yaml").write_text(QUEUES)
    Path("queue.yaml").write_text("workloads:\n- file: queues.yaml\n  arrival: 0\n  duration: 60\n")
    return tmp_path


@pytest.mark.parametrize("command", list(COMMANDS), ids=list(COMMANDS))
def test_each_command_skips_the_queues_with_the_same_warning_and_does_the_job(here: Path, command: str) -> None:
    """The same two warnings; ``validate`` prints its warnings in its report, the others on standard error."""
    code, out, err = run(*COMMANDS[command], "queues.yaml")
    said = out.split('Job "train" is valid')[0] if command == "validate" else err
    assert (code, said) == (0, warnings("queues.yaml"))
    assert out


def test_validate_judges_the_job_and_counts_the_queues_skipped(here: Path) -> None:
    assert run("validate", "--summary", "queues.yaml") == (
        0,
        warnings("queues.yaml")
        + 'Job "train" is valid\n3 objects: 1 valid, 0 invalid, 2 skipped (Kubernetes 1.37, feature gates: all)\n',
        "",
    )


def test_compile_prints_only_the_jobs_objects(here: Path) -> None:
    assert run("compile", "-o", "name", "queues.yaml")[1] == (
        "workload.scheduling.k8s.io/train-6f7665b597\n"
        "podgroup.scheduling.k8s.io/train-6f7665b597-train-pgt-0-7957f74b94\n"
        "job.batch/train\n"
    )


def test_place_places_the_job_alone(here: Path) -> None:
    out = run("place", *CLUSTER, "queues.yaml")[1]
    assert "Job ml/train (queues.yaml, document 3): placed\n" in out
    assert out.endswith("feasible (kube-scheduler): 1 of 1 object placed\nverdict: placeable\n")


def test_simulate_warns_of_the_queues_and_names_the_workload_by_its_job(here: Path) -> None:
    code, out, err = run("simulate", "queue.yaml", *CLUSTER)
    assert (code, err) == (0, warnings("queues.yaml"))
    assert out.splitlines()[1:] == [
        "queue: queue.yaml, 1 copy, tie-break seed 0",
        "train: arrived 0s, started 0s, ended 60s (waited 0s)",
        "makespan: 60s",
    ]


def test_the_allow_unknown_flag_is_kept_and_changes_nothing(here: Path) -> None:
    assert run("validate", "--allow-unknown", "queues.yaml") == run("validate", "queues.yaml")


def test_strict_validate_fails_on_the_warning_unless_it_is_hidden(here: Path) -> None:
    code, _, err = run("validate", "--strict", "queues.yaml")
    assert (code, err.splitlines()[0]) == (
        1,
        "error: queues.yaml (document 1) ClusterQueue/team: --strict: its unknown-kind warning fails the run "
        "(and 1 more warning: unknown-kind); -W no-unknown-kind hides it",
    )
    assert run("validate", "--strict", "-W", "no-unknown-kind", "queues.yaml") == (0, 'Job "train" is valid\n', "")
    assert run("compile", "-q", "-o", "name", "queues.yaml")[2] == ""


NOTHING_LEFT = {
    "validate": "only-queues.yaml: no object was checked: none is of a kind validate knows (Job, JobSet, "
    "LeaderWorkerSet, TrainJob, Volcano Job, a --mapping custom resource, Workload, PodGroup, CompositePodGroup)",
    "compile": "no object an adapter knows (Job, JobSet, LeaderWorkerSet, TrainJob, Volcano Job, or --mapping): "
    "only-queues.yaml (document 1) ClusterQueue/team (kueue.x-k8s.io/v1beta1): a custom resource: --mapping FILE "
    "says where its gangs are; only-queues.yaml (document 2) LocalQueue/team (kueue.x-k8s.io/v1beta1): a custom "
    "resource: --mapping FILE says where its gangs are",
    "place": "nothing to place: give a controller object (Job, JobSet, LeaderWorkerSet, TrainJob, Volcano Job, or "
    "one --mapping describes), or PodGroups with the Pods that name them",
}
NOTHING_LEFT["explain"] = NOTHING_LEFT["capacity"] = NOTHING_LEFT["place"]


@pytest.mark.parametrize("command", list(COMMANDS), ids=list(COMMANDS))
def test_with_only_the_queues_each_command_warns_then_exits_2(here: Path, command: str) -> None:
    """validate and compile say the error alone (issue 37 item 8) and the warnings too with -v."""
    argv = [*COMMANDS[command], "only-queues.yaml"]
    if command in ("validate", "compile"):
        assert run(*argv) == (2, "", f"error: {NOTHING_LEFT[command]}\n")
        argv.insert(1, "-v")
    assert run(*argv) == (
        2,
        "",
        warnings("only-queues.yaml") + f"error: {NOTHING_LEFT[command]}\n",
    )


def test_diff_skips_the_queues_with_the_same_warning_and_compares_the_job(here: Path) -> None:
    Path("new.yaml").write_text(QUEUES + "---\n" + JOB.replace("parallelism: 2", "parallelism: 3"))
    code, out, err = run("diff", "queues.yaml", "new.yaml")
    assert (code, out, err) == (
        0,
        'Job "train": the update would be accepted\n',
        warnings("queues.yaml") + warnings("new.yaml"),
    )


def test_with_only_the_queues_diff_exits_2_with_one_line(here: Path) -> None:
    error = (
        "error: only-queues.yaml (document 1) ClusterQueue/team: no adapter for apiVersion 'kueue.x-k8s.io/v1beta1' "
        "kind 'ClusterQueue'; --mapping FILE describes a custom resource\n"
    )
    assert run("diff", "only-queues.yaml", "queues.yaml") == (2, "", error)
    assert run("diff", "-v", "only-queues.yaml", "queues.yaml") == (
        2,
        "",
        warnings("only-queues.yaml") + warnings("queues.yaml") + error,
    )


def test_with_only_the_queues_simulate_warns_then_exits_2(here: Path) -> None:
    Path("queue.yaml").write_text("workloads:\n- file: only-queues.yaml\n  arrival: 0\n  duration: 60\n")
    assert run("simulate", "queue.yaml", *CLUSTER) == (
        2,
        "",
        warnings("only-queues.yaml") + f"error: {NOTHING_LEFT['place']}\n",
    )


def test_a_pod_that_joins_a_pod_group_is_no_unknown_kind(here: Path) -> None:
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
        "spec: {schedulingGroup: {podGroupName: g}, containers: [{name: main, image: busybox}]}\n"
    )
    Path("pod.yaml").write_text(pod)
    assert run("validate", "pod.yaml") == (0, 'Pod "p" is valid\n', "")


# -- issue 33 item 8: what migrate writes passes validate; a ReplicaSet that joins a native PodGroup is checked

COSCHEDULED = """\
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: nginx, namespace: default}
spec: {minMember: 3}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: nginx, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: nginx}}
  template:
    metadata:
      labels: {app: nginx, scheduling.x-k8s.io/pod-group: nginx}
    spec:
      schedulerName: scheduler-plugins-scheduler
      containers:
      - {name: nginx, image: nginx, resources: {requests: {cpu: "1"}}}
---
apiVersion: v1
kind: Pod
metadata: {name: solo, namespace: default, labels: {scheduling.x-k8s.io/pod-group: nginx}}
spec:
  containers: [{name: main, image: busybox}]
"""


def test_what_migrate_writes_passes_validate_and_place_counts_the_replicas(here: Path) -> None:
    Path("cosched.yaml").write_text(COSCHEDULED)
    code, migrated, _ = run("migrate", "cosched.yaml")
    assert code == 0
    Path("migrated.yaml").write_text(migrated)
    assert run("validate", "migrated.yaml") == (
        0,
        'Workload "nginx" is valid\nPodGroup "nginx" is valid\nReplicaSet "nginx" is valid\nPod "solo" is valid\n',
        "",
    )
    out = run("place", *CLUSTER, "migrated.yaml")[1]
    assert "    placed 3 of 3 pods in the cluster, on 2 nodes: node-00000 x2, node-00001\n" in out


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (
            lambda rs: rs["spec"]["template"]["spec"]["containers"][0].update(name="Bad_Name"),
            'spec.template.spec.containers[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label',
        ),
        (
            lambda rs: rs["spec"]["template"]["spec"]["containers"][0].update(name=[0]),
            "spec.template.spec.containers[0].name: Invalid value: [0]: must be of type string",
        ),
        (
            lambda rs: rs["spec"]["template"]["spec"]["schedulingGroup"].update(podGroupName=7),
            "spec.template.spec.schedulingGroup.podGroupName: Invalid value: 7: must be of type string",
        ),
    ],
    ids=["container-name", "name-of-another-type", "group-name-of-another-type"],
)
def test_a_replicaset_that_joins_a_pod_group_is_checked_at_its_own_paths(here: Path, change, said: str) -> None:
    import yaml

    replica_set = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": "rs"},
        "spec": {"replicas": 2, "template": {"spec": {
            "schedulingGroup": {"podGroupName": "g"}, "containers": [{"name": "main", "image": "busybox"}]}}},
    }  # fmt: skip
    change(replica_set)
    Path("rs.yaml").write_text(yaml.safe_dump(replica_set))
    code, out, _ = run("validate", "rs.yaml")
    assert code == 1, out
    assert said in out, out


def test_a_pods_port_of_the_wrong_type_is_a_type_error_at_its_path(here: Path) -> None:
    Path("pod.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  schedulingGroup: {podGroupName: g}\n"
        "  containers: [{name: main, image: busybox, ports: [{containerPort: '80'}], env: [{name: [A]}]}]\n"
    )
    code, out, _ = run("validate", "pod.yaml")
    assert code == 1
    assert 'spec.containers[0].ports[0].containerPort: Invalid value: "80": must be of type integer' in out
    assert 'spec.containers[0].env[0].name: Invalid value: ["A"]: must be of type string' in out


def test_a_daemonset_that_joins_a_pod_group_is_checked_and_said_not_placed(here: Path) -> None:
    group = "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g, namespace: default}\n"
    group += "spec: {schedulingPolicy: {gang: {minCount: 1}}}\n"
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n"
    pod += "spec: {schedulingGroup: {podGroupName: g}, containers: [{name: main, image: busybox}]}\n"
    daemons = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: default}\n"
    daemons += "spec: {template: {spec: {schedulingGroup: {podGroupName: g}, containers: [{name: main, image: b}]}}}\n"
    Path("ds.yaml").write_text("---\n".join([group, pod, daemons]))
    assert run("validate", "ds.yaml") == (
        0,
        'PodGroup "g" is valid\nPod "p" is valid\nDaemonSet "agent" is valid\n',
        "",
    )
    code, _, err = run("place", *CLUSTER, "ds.yaml")
    assert (code, err) == (
        0,
        "Warning: ds.yaml (document 3): DaemonSet 'agent': its pods join PodGroup 'g', but how many it makes depends "
        "on the nodes; not placed\n",
    )
