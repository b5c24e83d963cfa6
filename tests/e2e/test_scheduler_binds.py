"""The real kube-scheduler v1.37.2 binds gangs beside ``place`` (no kubelet: Nodes are API objects).

Each case of ``scheduler_cases.CASES`` gets its own Nodes and namespace: the
busy pods are bound by ``nodeName``, the groups (a PodGroup, or a
CompositePodGroup and two PodGroups) and their pods are created, and the
test waits until every gang pod is bound or the scheduler has said
FailedScheduling for it. Preemption's victims are deleted by the scheduler;
with no kubelet to confirm it, the test finishes each deletion
(``gracePeriodSeconds=0``), as a kubelet would. After each case its namespace and
Nodes are deleted and waited for, so the next case starts on a cluster holding
only its own. ``WORKLOADBUILDER_E2E_RECORD=1`` rewrites
``tests/data/e2e-recorded/scheduler.jsonl`` for the replay without Go.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from live_api import call, delete_namespace, delete_nodes, scheduler_sees, wait_for
from scheduler_cases import (
    CASE_LABEL,
    CASES,
    NODE_CPU,
    PRIORITY_CLASSES,
    RACK,
    compare,
    group_names,
    groups,
    known_differences,
    node_names,
    pod,
)

RECORDING = Path(__file__).resolve().parents[2] / "tests" / "data" / "e2e-recorded" / "scheduler.jsonl"
TRIMMED = ("managedFields", "resourceVersion", "creationTimestamp", "uid", "generation")


def _trim(obj: dict[str, Any]) -> dict[str, Any]:
    return {**obj, "metadata": {k: v for k, v in obj["metadata"].items() if k not in TRIMMED}}


def _node(name: str, rack: str, case: dict[str, Any]) -> dict[str, Any]:
    import controlplane  # loaded by conftest

    labels = {RACK: rack, CASE_LABEL: case["name"]}
    cpu = case.get("cpus", {}).get(name, NODE_CPU)
    return controlplane.node_object(name, {"cpu": cpu, "memory": "16Gi", "pods": "110"}, labels)


def _post(api_client: Any, path: str, body: dict[str, Any]) -> dict[str, Any]:
    status, stored = call(api_client, "POST", path, body)
    assert status == 201, stored.get("message")
    return dict(stored)


def _run(api_client: Any, case: dict[str, Any]) -> dict[str, Any]:
    namespace = f"e2e-sched-{case['name']}"
    _post(api_client, "/api/v1/namespaces", {"metadata": {"name": namespace}})
    try:
        return _run_in(api_client, case, namespace)
    finally:
        delete_namespace(api_client, namespace)
        delete_nodes(api_client, [name for name, _ in node_names(case)])


def _run_in(api_client: Any, case: dict[str, Any], namespace: str) -> dict[str, Any]:
    nodes = [_post(api_client, "/api/v1/nodes", _node(name, rack, case)) for name, rack in node_names(case)]
    scheduler_sees(api_client, namespace, nodes[-1]["metadata"]["name"])  # no gang pod meets a cache short of a Node
    pods_path = f"/api/v1/namespaces/{namespace}/pods"
    running = [
        _post(
            api_client,
            pods_path,
            pod(f"busy-{i}", namespace, case, cpu, node=node, priority_class=case["classes"].get(node)),
        )
        for i, (node, cpu) in enumerate(sorted(case["busy"].items()))
    ]
    made = []
    for group in groups(case, namespace):
        plural = group["kind"].lower() + "s"
        version = group["apiVersion"].split("/")[1]
        made.append(_post(api_client, f"/apis/scheduling.k8s.io/{version}/namespaces/{namespace}/{plural}", group))
    gang_pods = [
        _post(
            api_client,
            pods_path,
            pod(f"{name}-{i}", namespace, case, case["cpu"], group=name, priority_class=case["gangClass"]),
        )
        for name in group_names(case)
        for i in range(case["gang"])
    ]
    victims: set[str] = set()

    def settled() -> tuple[list[dict[str, Any]], list[str]] | None:
        listed = call(api_client, "GET", pods_path)[1]["items"]
        names = {p["metadata"]["name"] for p in listed}
        for busy in running:  # no kubelet confirms a deletion: finish what preemption started
            name = busy["metadata"]["name"]
            terminating = any(p["metadata"]["name"] == name and p["metadata"].get("deletionTimestamp") for p in listed)
            if name not in names or terminating:
                victims.add(name)
                if terminating:
                    call(api_client, "DELETE", f"{pods_path}/{name}", query=[("gracePeriodSeconds", "0")])
        mine = [p for p in listed if p["spec"].get("schedulingGroup")]
        events = call(api_client, "GET", f"/api/v1/namespaces/{namespace}/events")[1]["items"]
        failed = [e["message"] for e in events if e.get("reason") == "FailedScheduling"]
        if mine and all(p["spec"].get("nodeName") for p in mine):
            return mine, failed
        # every pod of the gang gets its own message (its FitError, or the pod group's, written after the first):
        # settled once each gang pod has one, not at the first event
        told = {e["involvedObject"]["name"] for e in events if e.get("reason") == "FailedScheduling"}
        everyone = len(mine) == len(gang_pods) and all(p["metadata"]["name"] in told for p in mine)
        return (mine, failed) if everyone and not case["gangClass"] else None

    bound_pods, failed = wait_for(f"the scheduler's answer to case {case['name']}", settled, timeout=90)
    record = {
        "id": case["name"],
        "case": case,
        "nodes": [_trim(n) for n in nodes],
        "running": [_trim(p) for p in running],
        "groups": [_trim(g) for g in made],
        "gangPod": _trim(gang_pods[0]),
        "bound": sorted(p["spec"]["nodeName"] for p in bound_pods if p["spec"].get("nodeName")),
        "victims": sorted(victims),
        "failedScheduling": sorted(set(failed)),
    }
    return record


@pytest.fixture(scope="module")
def records(api_client: Any) -> list[dict[str, Any]]:
    """One record per case, run one after the other."""
    for name, value in PRIORITY_CLASSES.items():
        body = {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": value,
        }
        call(api_client, "POST", "/apis/scheduling.k8s.io/v1/priorityclasses", body)
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
        assert found, "a listed difference went away"
        assert not any(line.startswith("nodes:") for line in found), found
    else:
        assert found == []
