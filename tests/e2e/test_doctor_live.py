"""``workloadbuilder doctor`` reads a real cluster: a pending Job gang, then a healthy one.

Two Nodes of 4 CPU (labelled for this test only, the Job's pods held to them
by a ``nodeSelector``). A gang Job of 3 pods of 3 CPU cannot be placed: the
real scheduler says FailedScheduling, and the doctor must find the gang
``unschedulable``, quote the scheduler's FitError as evidence and replay the
same line with the placement engine. A gang of 2 such pods is bound, and
the doctor calls it healthy (exit 0).
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from live_api import call, wait_for

from workloadbuilder.cli.app import main
from workloadbuilder.placement import Cluster, PlacementRequest, Pods, place

LABEL = "e2e.workloadbuilder.io/case"


@pytest.fixture(scope="module")
def doctor_nodes(api_client: Any) -> Any:
    import controlplane  # loaded by conftest

    names = ["doc-n1", "doc-n2"]
    for name in names:
        node = controlplane.node_object(name, {"cpu": "4", "memory": "16Gi", "pods": "110"}, {LABEL: "doctor"})
        assert call(api_client, "POST", "/api/v1/nodes", node)[0] == 201
    yield names
    for name in names:
        call(api_client, "DELETE", f"/api/v1/nodes/{name}")


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
    """``place`` on the live Nodes and pods for the namespace's one PodGroup: its text."""
    nodes = call(api_client, "GET", "/api/v1/nodes")[1]
    pods = call(api_client, "GET", "/api/v1/pods")[1]
    groups = call(api_client, "GET", f"/apis/scheduling.k8s.io/v1beta1/namespaces/{namespace}/podgroups")[1]["items"]
    group = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", **groups[0]}
    pending = [p for p in pods["items"] if p["metadata"]["namespace"] == namespace and not p["spec"].get("nodeName")]
    template = {"spec": pending[0]["spec"]}
    request = PlacementRequest.from_groups([group], {group["metadata"]["name"]: Pods(len(pending), template=template)})
    return place(request, Cluster.from_kubectl(nodes, pods), strategy="kube-scheduler").text


def _pods(api_client: Any, namespace: str, job: str) -> list[dict[str, Any]]:
    path = f"/api/v1/namespaces/{namespace}/pods?labelSelector=batch.kubernetes.io/job-name%3D{job}"
    return list(call(api_client, "GET", path)[1]["items"])


def test_a_pending_gang_is_explained(control_plane: Any, api_client: Any, namespace: str, doctor_nodes: Any) -> None:
    assert (
        call(api_client, "POST", f"/apis/batch/v1/namespaces/{namespace}/jobs", _job("too-wide", namespace, 3))[0]
        == 201
    )

    def failed() -> list[str]:
        events = call(api_client, "GET", f"/api/v1/namespaces/{namespace}/events")[1]["items"]
        return [e["message"] for e in events if e.get("reason") == "FailedScheduling"]

    messages = wait_for("FailedScheduling for the gang", failed, timeout=90)
    code, diagnosis = _doctor(control_plane, "job/too-wide", namespace)
    assert code == 1
    assert diagnosis["problem"] == "unschedulable"
    assert any(line.startswith("FitError: ") for line in diagnosis["evidence"])
    print(json.dumps(diagnosis, indent=1), messages)
    fit_error = next(line for line in diagnosis["evidence"] if line.startswith("FitError: "))
    assert fit_error.removeprefix("FitError: ") in messages
    assert diagnosis["replay"] == _place_on_live_state(api_client, namespace), diagnosis["replay"]


def test_a_bound_gang_is_healthy(control_plane: Any, api_client: Any, namespace: str, doctor_nodes: Any) -> None:
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
    call(api_client, "DELETE", f"/api/v1/namespaces/{namespace}/pods", query=[("gracePeriodSeconds", "0")])
