"""``workloadbuilder doctor`` reads a real cluster: pending Job, JobSet, LWS, TrainJob and Volcano Job gangs.

Each test gets two Nodes of 4 CPU of its own (``doctor_nodes``, labelled, the
pods held to them by a ``nodeSelector``). A gang Job of 3 pods of 3 CPU cannot
be placed: the real scheduler says FailedScheduling, and once every pod of the
gang has its event the doctor must find the gang ``unschedulable``, quote the
scheduler's FitError as evidence and replay the same answer as ``place`` on the
live state. A gang of 2 such pods is bound, and the doctor calls it healthy
(exit 0). No JobSet, LeaderWorkerSet, Trainer or Volcano controller runs: for
those the test plays the controller (the object against a CRD made from the
shipped schemas, its compiled objects through ``interop.apply``, the pods its
plan assigns, stamped with their PodGroup).
"""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from live_api import call, delete_jobs, delete_nodes, scheduler_sees, wait_for

from workloadbuilder import interop
from workloadbuilder.adapters.base import plan_object
from workloadbuilder.cli.app import main
from workloadbuilder.placement import Cluster, PlacementRequest, Pods, place

LABEL = "e2e.workloadbuilder.io/case"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def doctor_nodes(api_client: Any, namespace: str) -> Iterator[list[str]]:
    """Two Nodes of 4 CPU for one test, made for it and deleted after it.

    Each test gets Nodes no earlier test's pod was ever bound to (the Nodes of
    an earlier version were shared by the module, and an earlier test's pods,
    which no kubelet ever lets go, held their CPU into the next test). The test
    starts once kube-scheduler's cache holds both (``scheduler_sees``); the
    namespace fixture, torn down after this one, deletes every pod at once.
    """
    import controlplane  # loaded by conftest

    names = ["doc-n1", "doc-n2"]
    for name in names:
        node = controlplane.node_object(name, {"cpu": "4", "memory": "16Gi", "pods": "110"}, {LABEL: "doctor"})
        status, body = call(api_client, "POST", "/api/v1/nodes", node)
        assert status == 201, body
    try:
        scheduler_sees(api_client, namespace, names[-1])
        yield names
    finally:
        delete_nodes(api_client, names)


def _failed_scheduling(api_client: Any, namespace: str) -> list[str]:
    events = call(api_client, "GET", f"/api/v1/namespaces/{namespace}/events")[1]["items"]
    return [e["message"] for e in events if e.get("reason") == "FailedScheduling"]


def _gang_told(api_client: Any, namespace: str, pods: int) -> list[str]:
    """Wait until the namespace has its ``pods`` stamped pods and each unbound one a FailedScheduling event.

    Returns the events' messages (a basic group's pod that fits is bound and has none).

    The scheduler writes the first pod's FitError first and the pod group's
    message for the others after it: at the first event, doctor and the test
    could read two different sets of events.
    """

    def told() -> list[str] | None:
        listed = call(api_client, "GET", f"/api/v1/namespaces/{namespace}/pods")[1]["items"]
        stamped = [p for p in listed if (p["spec"].get("schedulingGroup") or {}).get("podGroupName")]
        pending = [p for p in stamped if not p["spec"].get("nodeName")]
        events = call(api_client, "GET", f"/api/v1/namespaces/{namespace}/events")[1]["items"]
        failed = [e for e in events if e.get("reason") == "FailedScheduling"]
        named = {e["involvedObject"]["name"] for e in failed}
        if len(stamped) == pods and pending and all(p["metadata"]["name"] in named for p in pending):
            return [e["message"] for e in failed]
        return None

    return list(wait_for("a FailedScheduling event for every pod of the gang", told, timeout=300))


def _job(name: str, namespace: str, pods: int) -> dict[str, Any]:
    container = {"name": "main", "image": "e2e.invalid/none:1", "resources": {"requests": {"cpu": "3"}}}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "parallelism": pods,
            "completions": pods,
            "completionMode": "Indexed",
            "scheduling": {"schedulingPolicy": {"gang": {}}},
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "terminationGracePeriodSeconds": 0,
                    "nodeSelector": {LABEL: "doctor"},
                    "containers": [container],
                }
            },
        },
    }


def _doctor(control_plane: Any, target: str, namespace: str) -> tuple[int, dict[str, Any]]:
    out, err = io.StringIO(), io.StringIO()
    argv = ["doctor", target, "-n", namespace, "--kubeconfig", str(control_plane.kubeconfig), "-o", "json"]
    code = main(argv, out, err)
    assert out.getvalue(), err.getvalue()
    return code, json.loads(out.getvalue())


def _place_on_live_state(api_client: Any, namespace: str) -> str:
    """``place`` on the live Nodes and pods for the namespace's PodGroups that have pending pods: its text."""
    nodes = call(api_client, "GET", "/api/v1/nodes")[1]
    pods = call(api_client, "GET", "/api/v1/pods")[1]
    base = f"/apis/scheduling.k8s.io/v1beta1/namespaces/{namespace}/podgroups"
    live = [
        {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", **g}
        for g in call(api_client, "GET", base)[1]["items"]
    ]
    mine = [p for p in pods["items"] if p["metadata"]["namespace"] == namespace and not p["spec"].get("nodeName")]
    wanted: dict[str, Any] = {}
    for group in live:
        name = group["metadata"]["name"]
        pending = [p for p in mine if (p["spec"].get("schedulingGroup") or {}).get("podGroupName") == name]
        if pending:
            names = tuple(sorted(p["metadata"]["name"] for p in pending))
            wanted[name] = Pods(len(pending), template={"spec": pending[0]["spec"]}, names=names)
    groups = [g for g in live if g["metadata"]["name"] in wanted]
    request = PlacementRequest.from_groups(groups, wanted)
    return place(request, Cluster.from_kubectl(nodes, pods), strategy="kube-scheduler").text


def _pods(api_client: Any, namespace: str, job: str) -> list[dict[str, Any]]:
    path = f"/api/v1/namespaces/{namespace}/pods?labelSelector=batch.kubernetes.io/job-name%3D{job}"
    return list(call(api_client, "GET", path)[1]["items"])


def test_a_pending_gang_is_explained(
    control_plane: Any, api_client: Any, namespace: str, doctor_nodes: list[str]
) -> None:
    assert (
        call(api_client, "POST", f"/apis/batch/v1/namespaces/{namespace}/jobs", _job("too-wide", namespace, 3))[0]
        == 201
    )
    messages = _gang_told(api_client, namespace, 3)  # the scheduler backs off a gang
    code, diagnosis = _doctor(control_plane, "job/too-wide", namespace)
    print(json.dumps(diagnosis, indent=1), messages)
    assert code == 1
    assert diagnosis["problem"] == "unschedulable"
    fit_error = next(line for line in diagnosis["evidence"] if line.startswith("FitError: "))
    # the events after doctor read them: the scheduler's retries add events, never remove one
    assert fit_error.removeprefix("FitError: ") in _failed_scheduling(api_client, namespace)
    assert diagnosis["replay"] == _place_on_live_state(api_client, namespace), diagnosis["replay"]


def test_a_bound_gang_is_healthy(control_plane: Any, api_client: Any, namespace: str, doctor_nodes: list[str]) -> None:
    assert call(api_client, "POST", f"/apis/batch/v1/namespaces/{namespace}/jobs", _job("fits", namespace, 2))[0] == 201
    wait_for(
        "both pods bound",
        lambda: (
            (p := _pods(api_client, namespace, "fits")) and len(p) == 2 and all(x["spec"].get("nodeName") for x in p)
        ),
        timeout=90,
    )
    code, diagnosis = _doctor(control_plane, "job/fits", namespace)
    assert (code, diagnosis["problem"], diagnosis["healthy"]) == (0, "healthy", True)
    # the Job first, or its controller makes the deleted pods again (the namespace fixture does it too)
    delete_jobs(api_client, namespace, "fits")
    assert _pods(api_client, namespace, "fits") == []


CONTROLLER_SOURCES = {
    "jobset": ROOT / "examples" / "jobset-training.yaml",
    "lws": ROOT / "examples" / "gpu_cluster" / "lws-cpu-leader-gpu-workers.yaml",
    "trainjob": ROOT / "tests" / "data" / "upstream" / "trainer" / "02-runtime-patches.yaml",
    "vcjob": ROOT / "tests" / "data" / "upstream" / "volcano" / "vcjob.yaml",
}
"""The controller objects doctor reads live, with no controller running: the test plays the controller."""

RELATED = {"trainjob": ROOT / "tests" / "data" / "upstream" / "trainer-related" / "torch_distributed.yaml"}
"""Objects created first, for real, and given to the plan as related (a TrainJob's runtime)."""

SOURCE_KINDS = {"JobSet", "LeaderWorkerSet", "TrainJob", "Job"}
"""The kinds of the object to play the controller of (a ``Job`` of another group than ``batch``: Volcano's)."""


def _volcano(doc: dict[str, Any]) -> None:
    """kube-scheduler takes the gang (no ``schedulerName: volcano``), and a pod of 3 CPU fits a Node only alone."""
    doc["spec"].pop("schedulerName", None)
    for task in doc["spec"]["tasks"]:
        for container in task["template"]["spec"]["containers"]:
            container["resources"] = {"requests": {"cpu": "3"}}


TWEAKS: dict[str, Any] = {
    "trainjob": lambda doc: doc["spec"].setdefault("trainer", {}).update(numNodes=5),
    "vcjob": _volcano,
}
"""Changes that make the gang too large for the two Nodes (the TrainJob's 2 nodes of 2 CPU would fit; the
Volcano Job's gang of 3 of 6 pods of 1 CPU would too, and its pods would wait for a Volcano scheduler)."""


def _play_controller(
    api_client: Any, namespace: str, source: dict[str, Any], related: list[dict[str, Any]]
) -> tuple[dict[str, Any], int]:
    """Create the object, the objects its adapter compiles (``interop.apply``) and the pods it says, stamped.

    Returns the stored object and the number of pods made.
    """
    import crd_sources

    source = {**source, "metadata": {**source["metadata"], "namespace": namespace}}
    status, stored = call(api_client, "POST", crd_sources.path_of(source), source)
    assert status == 201, stored.get("message")
    compiled = plan_object(stored, related).compile()
    assert all(r.ok for r in interop.apply(compiled.objects(), api_client, dry_run=False))
    made = 0
    for assignment in compiled.pods:
        template = copy.deepcopy(assignment.pod_template or {})
        spec = template.get("spec") or {}
        spec["schedulingGroup"] = {"podGroupName": assignment.pod_group}
        spec["nodeSelector"] = {LABEL: "doctor"}
        spec["terminationGracePeriodSeconds"] = 0
        labels = {**((template.get("metadata") or {}).get("labels") or {}), **assignment.selector}
        for _ in range(assignment.count):
            made += 1
            pod = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"pod-{made}", "labels": labels},
                "spec": spec,
            }
            status, body = call(api_client, "POST", f"/api/v1/namespaces/{namespace}/pods", pod)
            assert status == 201, body.get("message")
    return dict(stored), made


@pytest.mark.parametrize("kind", list(CONTROLLER_SOURCES), ids=list(CONTROLLER_SOURCES))
def test_a_pending_controller_gang_is_explained(
    control_plane: Any, api_client: Any, namespace: str, doctor_nodes: list[str], kind: str
) -> None:
    import crd_sources

    for crd in crd_sources.crds():
        call(api_client, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
    docs = [d for d in yaml.safe_load_all(CONTROLLER_SOURCES[kind].read_text()) if isinstance(d, dict)]
    source = copy.deepcopy(next(d for d in docs if d.get("kind") in SOURCE_KINDS and d.get("apiVersion") != "batch/v1"))
    if kind in TWEAKS:
        TWEAKS[kind](source)
    related = []
    if kind in RELATED:
        for doc in yaml.safe_load_all(RELATED[kind].read_text()):
            if isinstance(doc, dict) and doc.get("kind"):
                wait_for(
                    f"the {doc['kind']} API", lambda d=doc: call(api_client, "GET", crd_sources.path_of(d))[0] == 200
                )
                status, stored_related = call(api_client, "POST", crd_sources.path_of(doc), doc)
                assert status in (201, 409), stored_related.get("message")
                related.append(doc if status == 409 else stored_related)
    wait_for(
        f"the {source['kind']} API",
        lambda: (
            call(api_client, "GET", crd_sources.path_of({**source, "metadata": {"namespace": namespace}}))[0] == 200
        ),
        timeout=60,
    )
    stored, made = _play_controller(api_client, namespace, source, related)
    messages = _gang_told(api_client, namespace, made)  # the scheduler backs off a gang
    code, diagnosis = _doctor(control_plane, f"{kind}/{stored['metadata']['name']}", namespace)
    print(json.dumps(diagnosis, indent=1), messages)
    assert (code, diagnosis["problem"]) == (1, "unschedulable")
    fit_error = next(line for line in diagnosis["evidence"] if line.startswith("FitError: "))
    # the events after doctor read them: the scheduler's retries add events, never remove one
    assert fit_error.removeprefix("FitError: ") in _failed_scheduling(api_client, namespace)
    assert diagnosis["replay"] == _place_on_live_state(api_client, namespace), diagnosis["replay"]
