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
