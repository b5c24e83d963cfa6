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
    name: str,
    busy: Mapping[str, str],
    gang: int,
    cpu: str,
    racks: int = 2,
    classes: Mapping[str, str] | None = None,
    gang_class: str | None = None,
    composite: bool = False,
    cpus: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    return {
        "name": name,
        "busy": dict(busy),
        "gang": gang,
        "cpu": cpu,
        "racks": racks,
        "classes": dict(classes or {}),
        "gangClass": gang_class,
        "composite": composite,
        "cpus": dict(cpus or {}),
    }


PRIORITY_CLASSES = {"e2e-mid": 500, "e2e-high": 1000}
"""PriorityClasses the preemption case names (busy pods without a class have priority 0)."""

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
    # one rack, every node taken; the gang of priority 1000 evicts the two pods of priority 0, not the 500s.
    # Pod-group preemption places the gang on the rack with every lower-priority pod removed, then reprieves
    # the victims it does not need: on four equal nodes that placement is a tie, broken by where the
    # scheduler's node scan starts (which every earlier scheduling cycle moves). The two nodes of priority-0
    # pods are larger (5 CPU), so they score higher once emptied: no tie is left.
    _case(
        "preempt-lowest",
        {"e-r1-n1": "3", "e-r1-n2": "3", "e-r1-n3": "3", "e-r1-n4": "3"},
        gang=2,
        cpu="3",
        racks=1,
        classes={"e-r1-n3": "e2e-mid", "e-r1-n4": "e2e-mid"},
        gang_class="e2e-high",
        cpus={"e-r1-n1": "5", "e-r1-n2": "5"},
    ),
    # a CompositePodGroup (gang of 2 children, in one rack) over two PodGroups of 2 pods: only r2 is free.
    _case("composite-r2", {"f-r1-n1": "3", "f-r1-n2": "3"}, gang=2, cpu="3", composite=True),
]
"""The gang cases; node names are ``<prefix>-r<rack>-n<i>``, the prefix being a letter per case (``a``, ``b``...)."""


def node_names(case: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(node, rack)`` for every Node of the case."""
    prefix = "abcdefghijklmnopqrstuvwxyz"[[c["name"] for c in CASES].index(case["name"])]
    return [(f"{prefix}-r{r}-n{i}", f"r{r}") for r in range(1, case["racks"] + 1) for i in range(1, 5)]


def group_names(case: Mapping[str, Any]) -> list[str]:
    """The PodGroups that take pods: ``gang``, or the composite's children ``a`` and ``b``."""
    return ["a", "b"] if case["composite"] else ["gang"]


def groups(case: Mapping[str, Any], namespace: str) -> list[dict[str, Any]]:
    """The case's objects, parents first: one PodGroup, or a Workload, a CompositePodGroup and its two PodGroups."""
    topology = {"topology": [{"key": RACK}]}
    gang: dict[str, Any] = {"gang": {"minCount": case["gang"]}}
    priority = {"priorityClassName": case["gangClass"]} if case["gangClass"] else {}
    if not case["composite"]:
        spec = {"schedulingPolicy": gang, "schedulingConstraints": topology, **priority}
        return [_object("v1beta1", "PodGroup", "gang", namespace, spec)]
    parent = {"schedulingPolicy": {"gang": {"minGroupCount": 2}}, "schedulingConstraints": topology}
    templates = [{"name": child, "schedulingPolicy": gang} for child in group_names(case)]
    workload = {"compositePodGroupTemplates": [{"name": "pair", **parent, "podGroupTemplates": templates}]}
    reference = {"workloadName": "pairs", "templateName": "pair"}
    found = [
        _object("v1alpha3", "Workload", "pairs", namespace, workload),
        _object("v1alpha3", "CompositePodGroup", "composite", namespace, {**parent, "workloadRef": reference}),
    ]
    for child in group_names(case):
        spec = {
            "schedulingPolicy": gang,
            "parentCompositePodGroupName": "composite",
            "workloadRef": {"workloadName": "pairs", "templateName": child},
        }
        found.append(_object("v1alpha3", "PodGroup", child, namespace, spec))
    return found


def _object(version: str, kind: str, name: str, namespace: str, spec: dict[str, Any]) -> dict[str, Any]:
    metadata = {"name": name, "namespace": namespace}
    return {"apiVersion": f"scheduling.k8s.io/{version}", "kind": kind, "metadata": metadata, "spec": spec}


def pod(
    name: str,
    namespace: str,
    case: Mapping[str, Any],
    cpu: str,
    node: str | None = None,
    group: str | None = None,
    priority_class: str | None = None,
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
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def ours(record: Mapping[str, Any]) -> dict[str, Any]:
    """What ``place`` says on the recorded state: the gang's nodes, the victims, or its FailedScheduling messages."""
    policies = [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": k}, "value": v}
        for k, v in PRIORITY_CLASSES.items()
    ]
    cluster = Cluster.from_kubectl(record["nodes"], record["running"], policies_json=policies)
    case = record["case"]
    template = {"spec": record["gangPod"]["spec"]}
    pods = {name: Pods(case["gang"], template=template) for name in group_names(case)}
    runtime = [group for group in record["groups"] if group["kind"] != "Workload"]
    request = PlacementRequest.from_groups(runtime, pods)
    answer = place(request, cluster, strategy="kube-scheduler", preempt=bool(case["gangClass"]))
    placed = [p for name in group_names(case) for p in answer.group(name).pods] if answer.feasible else []
    roots = answer.to_dict()["explanation"].get("roots") or []
    return {
        "bound": sorted(p.node for p in placed if p.node),
        "victims": sorted(p.name.rsplit("/", 1)[-1] for v in answer.victims for p in v.pods) if answer.feasible else [],
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
    if sorted(record.get("victims", [])) != mine["victims"]:
        found.append(f"nodes: victims: scheduler {sorted(record.get('victims', []))}, place {mine['victims']}")
    if not record["bound"]:  # every message the pods' FailedScheduling events carry, and no other
        real = sorted(set(record["failedScheduling"]))
        if sorted(set(mine["fitErrors"])) != real:
            found.append(f"FitError: scheduler {real}, explain {sorted(set(mine['fitErrors']))}")
    return found
