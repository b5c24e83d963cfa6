"""The real Job controller compiles ``.spec.scheduling`` beside the Job adapter (kube-controller-manager v1.37.2).

Every Job of ``job_cases.CASES`` is created for real; the Workload, the
PodGroup and the pods the controller makes are read back and compared with
the adapter's ``compile`` field by field. ``WORKLOADBUILDER_E2E_RECORD=1``
rewrites ``tests/data/e2e-recorded/job-controller.jsonl``, which
``tests/conformance/test_e2e_recorded.py`` replays without Go.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from job_cases import CASES, compare, job_manifest
from live_api import call, delete_namespace, wait_for

RECORDING = Path(__file__).resolve().parents[2] / "tests" / "data" / "e2e-recorded" / "job-controller.jsonl"
SERVER_FIELDS = ("managedFields", "resourceVersion", "creationTimestamp", "generation")


def _trimmed(obj: dict[str, Any]) -> dict[str, Any]:
    meta = {k: v for k, v in obj["metadata"].items() if k not in SERVER_FIELDS}
    return {**obj, "metadata": meta}


def _run_case(api_client: Any, namespace: str, case: str) -> dict[str, Any]:
    status, job = call(api_client, "POST", f"/apis/batch/v1/namespaces/{namespace}/jobs", job_manifest(case, namespace))
    assert status == 201, job
    uid = job["metadata"]["uid"]
    pods_path = f"/api/v1/namespaces/{namespace}/pods?labelSelector=batch.kubernetes.io/controller-uid%3D{uid}"

    def owned(path: str, kind: str) -> list[dict[str, Any]]:
        items = call(api_client, "GET", path)[1]["items"]  # a List's items carry no apiVersion and kind
        found = [o for o in items if any(ref.get("uid") == uid for ref in o["metadata"].get("ownerReferences", []))]
        return [{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": kind, **o} for o in found]

    parallelism = CASES[case][0]
    workloads = wait_for(
        f"the Workload of Job {case}",
        lambda: owned(f"/apis/scheduling.k8s.io/v1beta1/namespaces/{namespace}/workloads", "Workload"),
    )
    groups = wait_for(
        f"the PodGroup of Job {case}",
        lambda: owned(f"/apis/scheduling.k8s.io/v1beta1/namespaces/{namespace}/podgroups", "PodGroup"),
    )
    pods = wait_for(
        f"{parallelism} pods of Job {case}",
        lambda: (p := call(api_client, "GET", pods_path)[1]["items"]) and len(p) >= parallelism and p,
    )
    names = [((pod["spec"].get("schedulingGroup") or {}).get("podGroupName")) for pod in pods]
    return {
        "id": case,
        "job": _trimmed(job),
        "workload": _trimmed(workloads[0]) if len(workloads) == 1 else None,
        "workloads": len(workloads),
        "podGroups": [_trimmed(group) for group in groups],
        "podGroupNames": names,
    }


@pytest.fixture(scope="module")
def records(api_client: Any) -> list[dict[str, Any]]:
    """One record per case, all Jobs in one namespace."""
    namespace = "e2e-jobs"
    status, body = call(api_client, "POST", "/api/v1/namespaces", {"metadata": {"name": namespace}})
    assert status == 201, body
    try:
        found = [_run_case(api_client, namespace, case) for case in CASES]
    finally:
        delete_namespace(api_client, namespace)
    if os.environ.get("WORKLOADBUILDER_E2E_RECORD") == "1":
        header = {"revision": "k8s.io/kubernetes v1.37.2 kube-controller-manager", "cases": len(found)}
        lines = [json.dumps(header, sort_keys=True)] + [json.dumps(r, sort_keys=True) for r in found]
        RECORDING.parent.mkdir(parents=True, exist_ok=True)
        RECORDING.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return found


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_the_controller_makes_what_the_adapter_compiles(records: list[dict[str, Any]], case: str) -> None:
    record = next(r for r in records if r["id"] == case)
    assert record["workloads"] == 1
    assert len(record["podGroups"]) == 1
    assert compare(record) == []


def test_the_controller_resizes_a_gang_as_the_adapter_compiles_the_changed_job(api_client: Any, namespace: str) -> None:
    """A running gang Job's ``minCount`` changed: what the controller patches equals the adapter's compile of it.

    kube-controller-manager v1.37.2 recompiles the Workload from the Job's
    ``.spec.scheduling`` on every sync (``syncGangMinCount``) and, for a gang,
    patches the ``minCount`` of the Workload's template and of the PodGroup
    when it changed. The Job (4 pods, a gang of 3) is created and its objects
    and pods waited for, its gang set to 2 (the one change the Job API allows),
    and once the controller has patched both objects away from 3 they are read
    back and compared, with the changed Job, as the created ones are.
    """
    record = _run_case(api_client, namespace, "gang-min-count")
    assert compare(record) == []
    workload = record["workload"]
    group = record["podGroups"][0]
    path = f"/apis/batch/v1/namespaces/{namespace}/jobs/gang-min-count"
    patch = {"spec": {"scheduling": {"schedulingPolicy": {"gang": {"minCount": 2}}}}}
    status, job = call(api_client, "PATCH", path, patch, content_type="application/merge-patch+json")
    assert status == 200, job
    base = f"/apis/scheduling.k8s.io/v1beta1/namespaces/{namespace}"
    wl_path = f"{base}/workloads/{workload['metadata']['name']}"
    pg_path = f"{base}/podgroups/{group['metadata']['name']}"

    def patched() -> tuple[dict[str, Any], dict[str, Any]] | None:
        wl, pg = call(api_client, "GET", wl_path)[1], call(api_client, "GET", pg_path)[1]
        wl_count = wl["spec"]["podGroupTemplates"][0]["schedulingPolicy"]["gang"]["minCount"]
        pg_count = pg["spec"]["schedulingPolicy"]["gang"]["minCount"]
        return (wl, pg) if wl_count != 3 and pg_count != 3 else None

    wl, pg = wait_for("the controller to patch the Workload and the PodGroup", patched)
    resized = {
        **record,
        "job": _trimmed(job),
        "workload": _trimmed({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload", **wl}),
        "podGroups": [_trimmed({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", **pg})],
    }
    assert compare(resized) == []
    assert pg["spec"]["schedulingPolicy"]["gang"]["minCount"] == 2
