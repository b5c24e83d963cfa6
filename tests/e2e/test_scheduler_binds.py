"""The real kube-scheduler v1.37.2 binds gangs beside ``place`` (no kubelet: Nodes are API objects).

Each case of ``scheduler_cases.CASES`` gets its own Nodes and namespace: the
busy pods are bound by ``nodeName``, the PodGroup and its pods are created,
and the test waits until every gang pod is bound or the scheduler has said
FailedScheduling for it. ``WORKLOADBUILDER_E2E_RECORD=1`` rewrites
``tests/data/e2e-recorded/scheduler.jsonl`` for the replay without Go.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from live_api import call, wait_for
from scheduler_cases import CASE_LABEL, CASES, NODE_CPU, RACK, compare, known_differences, node_names, pod, pod_group

RECORDING = Path(__file__).resolve().parents[2] / "tests" / "data" / "e2e-recorded" / "scheduler.jsonl"
TRIMMED = ("managedFields", "resourceVersion", "creationTimestamp", "uid", "generation")


def _trim(obj: dict[str, Any]) -> dict[str, Any]:
    return {**obj, "metadata": {k: v for k, v in obj["metadata"].items() if k not in TRIMMED}}


def _node(name: str, rack: str, case: str) -> dict[str, Any]:
    import controlplane  # loaded by conftest

    labels = {RACK: rack, CASE_LABEL: case}
    return controlplane.node_object(name, {"cpu": NODE_CPU, "memory": "16Gi", "pods": "110"}, labels)


def _run(api_client: Any, case: dict[str, Any]) -> dict[str, Any]:
    namespace = f"e2e-sched-{case['name']}"
    call(api_client, "POST", "/api/v1/namespaces", {"metadata": {"name": namespace}})
    nodes = []
    for name, rack in node_names(case):
        status, body = call(api_client, "POST", "/api/v1/nodes", _node(name, rack, case["name"]))
        assert status == 201, body
        nodes.append(body)
    running = []
    for i, (node, cpu) in enumerate(sorted(case["busy"].items())):
        status, body = call(
            api_client,
            "POST",
            f"/api/v1/namespaces/{namespace}/pods",
            pod(f"busy-{i}", namespace, case, cpu, node=node),
        )
        assert status == 201, body
        running.append(body)
    status, group = call(
        api_client,
        "POST",
        f"/apis/scheduling.k8s.io/v1beta1/namespaces/{namespace}/podgroups",
        pod_group(case, namespace),
    )
    assert status == 201, group
    for i in range(case["gang"]):
        status, body = call(
            api_client,
            "POST",
            f"/api/v1/namespaces/{namespace}/pods",
            pod(f"gang-{i}", namespace, case, case["cpu"], group="gang"),
        )
        assert status == 201, body

    def settled() -> tuple[list[dict[str, Any]], list[str]] | None:
        pods = [
            p
            for p in call(api_client, "GET", f"/api/v1/namespaces/{namespace}/pods")[1]["items"]
            if p["metadata"]["name"].startswith("gang-")
        ]
        events = call(api_client, "GET", f"/api/v1/namespaces/{namespace}/events")[1]["items"]
        failed = [e["message"] for e in events if e.get("reason") == "FailedScheduling"]
        if all(p["spec"].get("nodeName") for p in pods):
            return pods, failed
        return (pods, failed) if failed else None

    pods, failed = wait_for(f"the scheduler's answer to case {case['name']}", settled, timeout=90)
    record = {
        "id": case["name"],
        "case": case,
        "nodes": [_trim(n) for n in nodes],
        "running": [_trim(p) for p in running],
        "podGroup": _trim(group),
        "bound": sorted(p["spec"]["nodeName"] for p in pods if p["spec"].get("nodeName")),
        "failedScheduling": sorted(set(failed)),
    }
    call(api_client, "DELETE", f"/api/v1/namespaces/{namespace}/pods", query=[("gracePeriodSeconds", "0")])
    for name, _ in node_names(case):
        call(api_client, "DELETE", f"/api/v1/nodes/{name}")
    return record


@pytest.fixture(scope="module")
def records(api_client: Any) -> list[dict[str, Any]]:
    """One record per case, run one after the other."""
    found = [_run(api_client, case) for case in CASES]
    if os.environ.get("WORKLOADBUILDER_E2E_RECORD") == "1":
        header = {"revision": "k8s.io/kubernetes v1.37.2 kube-scheduler", "cases": len(found)}
        lines = [json.dumps(header, sort_keys=True)] + [json.dumps(r, sort_keys=True) for r in found]
        RECORDING.parent.mkdir(parents=True, exist_ok=True)
        RECORDING.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return found


@pytest.mark.parametrize("case", [c["name"] for c in CASES], ids=[c["name"] for c in CASES])
def test_the_scheduler_binds_where_place_does(records: list[dict[str, Any]], case: str) -> None:
    record = next(r for r in records if r["id"] == case)
    found = compare(record)
    if case in known_differences():
        assert found and not any(line.startswith("nodes:") for line in found), found
    else:
        assert found == []
