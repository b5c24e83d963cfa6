"""Gangs for the real kube-scheduler on Node objects, and the comparison with ``place``.

A case is a small cluster of Nodes (labelled with the case, two racks of
four), pods already bound to some of them, and one gang: a PodGroup with a
gang ``minCount`` and a rack constraint, and its pods, each pointing at it
with ``spec.schedulingGroup.podGroupName`` and held to the case's Nodes by a
``nodeSelector``. The live run records the Node and pod JSON, what the
scheduler bound and its FailedScheduling events; ``compare`` asks ``place``
(the ``kube-scheduler`` strategy) on the recorded state and lists where the
two part. Every case is built so that no tie is left for the scheduler to
break at random: each pod fits a node only alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from workloadbuilder.placement import Cluster, PlacementRequest, Pods, place

DIFFERENCES = Path(__file__).resolve().parents[1] / "data" / "e2e-recorded" / "differences.yaml"

RACK = "topology.example.com/rack"
CASE_LABEL = "e2e.workloadbuilder.io/case"
NODE_CPU = "4"


def _case(
    name: str, busy: Mapping[str, str], gang: int, cpu: str, racks: int = 2, priority: int | None = None
) -> dict[str, Any]:
    return {"name": name, "busy": dict(busy), "gang": gang, "cpu": cpu, "racks": racks, "priority": priority}


CASES = [
    # r1 has two nodes taken: the gang of 4 needs a whole rack, r2.
    _case("rack-r2", {"a-r1-n1": "3", "a-r1-n2": "3"}, gang=4, cpu="3"),
    # both racks have a busy node: no rack takes 4 pods of 3 CPU; the gang stays pending.
    _case("no-rack-fits", {"b-r1-n1": "3", "b-r2-n1": "3"}, gang=4, cpu="3"),
    # a gang of 2 in one rack of one free node each: r1 has n3, n4 free only.
    _case(
        "rack-r1-two", {"c-r1-n1": "3", "c-r1-n2": "3", "c-r2-n1": "3", "c-r2-n2": "3", "c-r2-n3": "3"}, gang=2, cpu="3"
    ),
    # a single pod's gang larger than any node: FailedScheduling names the resource.
    _case("too-big", {}, gang=2, cpu="5"),
]
"""The gang cases; node names are ``<prefix>-r<rack>-n<i>``, the prefix being a letter per case (``a``, ``b``...)."""


def node_names(case: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(node, rack)`` for every Node of the case."""
    prefix = "abcdefghijklmnopqrstuvwxyz"[[c["name"] for c in CASES].index(case["name"])]
    return [(f"{prefix}-r{r}-n{i}", f"r{r}") for r in range(1, case["racks"] + 1) for i in range(1, 5)]


def pod_group(case: Mapping[str, Any], namespace: str) -> dict[str, Any]:
    """The case's PodGroup: a gang of ``gang`` pods in one rack."""
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "gang", "namespace": namespace},
        "spec": {
            "schedulingPolicy": {"gang": {"minCount": case["gang"]}},
            "schedulingConstraints": {"topology": [{"key": RACK}]},
        },
    }


def pod(
    name: str, namespace: str, case: Mapping[str, Any], cpu: str, node: str | None = None, group: str | None = None
) -> dict[str, Any]:
    """A pod of the case: bound to ``node`` (a running pod) or pointing at ``group`` (a gang member)."""
    spec: dict[str, Any] = {
        "containers": [{"name": "main", "image": "e2e.invalid/none:1", "resources": {"requests": {"cpu": cpu}}}],
        "nodeSelector": {CASE_LABEL: case["name"]},
        "terminationGracePeriodSeconds": 0,
    }
    if node:
        spec["nodeName"] = node
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def ours(record: Mapping[str, Any]) -> dict[str, Any]:
    """What ``place`` says on the recorded state: the nodes of the gang's pods, or the FitError lines."""
    cluster = Cluster.from_kubectl(record["nodes"], record["running"])
    count = record["case"]["gang"]
    request = PlacementRequest.from_groups(
        [record["podGroup"]], {"gang": Pods(count, requests={"cpu": record["case"]["cpu"]})}
    )
    answer = place(request, cluster, strategy="kube-scheduler")
    placed = answer.group("gang").pods if answer.feasible else []
    roots = answer.to_dict()["explanation"].get("roots") or []
    return {
        "bound": sorted(p.node for p in placed if p.node),
        "fitErrors": [line["message"] for root in roots for line in root.get("fitErrors", [])],
    }


def known_differences() -> dict[str, str]:
    """The cases listed in ``tests/data/e2e-recorded/differences.yaml``: id -> how they part."""
    data = yaml.safe_load(DIFFERENCES.read_text(encoding="utf-8")) or {}
    return {str(k): str(v["how"]) for k, v in (data.get("scheduler") or {}).items()}


def compare(record: Mapping[str, Any]) -> list[str]:
    """Where the scheduler and ``place`` part on one recorded case; empty when they agree."""
    mine = ours(record)
    found = []
    if sorted(record["bound"]) != mine["bound"]:
        found.append(f"nodes: scheduler {sorted(record['bound'])}, place {mine['bound']}")
    if not record["bound"]:
        real = sorted(set(record["failedScheduling"]))
        if not set(mine["fitErrors"]) & set(real):
            found.append(f"FitError: scheduler {real}, explain {mine['fitErrors']}")
    return found
