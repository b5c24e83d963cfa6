"""Preemption's victims against a brute-force reference on small random clusters.

Instances: up to four nodes (some cordoned, some over-committed), up to
five running units of several priorities (lone pods, ``all`` and
``single`` groups, sometimes under a CompositePodGroup of either mode, pods
labelled for up to two PodDisruptionBudgets) and one
gang of priority 100 asking for GPUs. The reference shares nothing with the
engine but the placement it reports: it rebuilds the units, their order
and the budgets' counts itself, checks that the placed pods fit after the
evictions, and finds by enumerating every subset of the candidates the set
kube-scheduler keeps: among the reprieve sets with which every placed pod
still fits, the greatest in the reprieve order (budget-violating
candidates first, each part from the most important). When the engine says
preemption cannot help, the reference checks that the gang does not fit
even with every candidate gone.
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from placement_helpers import checked, node, pod_group, request
from running_units import CPU, GPU, running_units

from workloadbuilder.placement import Cluster, place

PREEMPTOR = 100


@st.composite
def instances(draw: st.DrawFn) -> dict[str, Any]:
    """Nodes, running entries (compact YAML), budgets and the gang's pod count."""
    nodes = []
    for i in range(draw(st.integers(1, 4))):
        entry = node(f"n{i}", draw(st.integers(1, 4)), cpu=str(draw(st.integers(2, 4))))
        if draw(st.integers(0, 4)) == 0:
            entry["unschedulable"] = True
        nodes.append(entry)
    names = [entry["name"] for entry in nodes]
    running, budgets = draw(running_units(names, (1, 5), [0, 10, 10, 20, 100, 200], 1))
    return {"nodes": nodes, "running": running, "budgets": budgets, "gang": draw(st.integers(1, 4))}


def _units(running: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Preemption units: a lone pod, a whole ``all`` group, or each pod of a ``single`` group."""
    out = []
    composite = next((entry for entry in running if entry.get("kind") == "CompositePodGroup"), None)
    if composite is not None and composite["disruptionMode"] == "all":
        members = [entry for entry in running if entry.get("parent") == "cpg"]
        pods = [pod for entry in members for pod in entry["pods"]]
        starts = [entry.get("startTime", "") for entry in members if entry.get("startTime")]
        out.append(
            {
                "name": "cpg",
                "priority": composite["priority"],
                "rank": 3,
                "pods": pods,
                "start": min(starts, default=""),
            }
        )
        running = [entry for entry in running if entry.get("parent") != "cpg"]
    for entry in running:
        if entry.get("kind") == "CompositePodGroup":
            continue
        if entry.get("kind") == "Pod":
            pods, rank = [entry], 1
        elif entry["disruptionMode"] == "all":
            out.append(
                {
                    "name": entry["name"],
                    "priority": entry["priority"],
                    "rank": 2,
                    "pods": entry["pods"],
                    "start": entry.get("startTime", ""),
                }
            )
            continue
        else:
            pods, rank = entry["pods"], 2
        out.extend(
            {
                "name": pod["name"],
                "priority": entry["priority"],
                "rank": rank,
                "pods": [pod],
                "start": entry.get("startTime", ""),
            }
            for pod in pods
        )
    return out


def _importance(unit: dict[str, Any]) -> tuple[Any, ...]:
    return (-unit["priority"], -unit["rank"], -len(unit["pods"]), unit["start"] or "~", unit["pods"][0]["name"])


def _violating(ordered: list[dict[str, Any]], budgets: list[dict[str, Any]]) -> set[str]:
    left = {b["spec"]["selector"]["matchLabels"]["app"]: b["status"]["disruptionsAllowed"] for b in budgets}
    out = set()
    for unit in ordered:
        for pod in unit["pods"]:
            app = pod["labels"]["app"]
            if app in left:
                left[app] -= 1
                if left[app] < 0:
                    out.add(unit["name"])
    return out


def _amount(resource: str, text: str) -> int:
    return int(text)


def _free(inst: dict[str, Any], evicted: list[dict[str, Any]], placed: dict[str, int]) -> dict[str, dict[str, int]]:
    """Per node, GPUs, CPUs and pod slots left: allocatable less every running pod not evicted, less placed pods."""
    gone = {pod["name"] for unit in evicted for pod in unit["pods"]}
    free = {
        entry["name"]: {GPU: int(entry["allocatable"][GPU]), CPU: int(entry["allocatable"][CPU]), "pods": 110}
        for entry in inst["nodes"]
    }
    for unit in _units(inst["running"]):
        for pod in unit["pods"]:
            if pod["name"] not in gone:
                room = free[pod["node"]]
                room[GPU] -= int(pod["requests"][GPU])
                room[CPU] -= int(pod["requests"][CPU])
                room["pods"] -= 1
    for name, count in placed.items():
        free[name][GPU] -= count
        free[name]["pods"] -= count
    return free


def _fits(inst: dict[str, Any], evicted: list[dict[str, Any]], placed: dict[str, int]) -> bool:
    """Every node holding placed pods has room left in the resources they request (GPUs and pod slots)."""
    free = _free(inst, evicted, placed)
    return all(free[name][GPU] >= 0 and free[name]["pods"] >= 0 for name in placed)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(instances())
def test_victims_match_the_brute_force_reference(inst: dict[str, Any]) -> None:
    cl = Cluster.from_yaml(
        {"nodes": inst["nodes"], "running": inst["running"], "podDisruptionBudgets": inst["budgets"]}
    )
    req = request([pod_group("w", inst["gang"], priority=PREEMPTOR)], {"w": (inst["gang"], {GPU: "1"})})
    answer = checked(req, cl, place(req, cl, preempt=True))
    cordoned = {entry["name"] for entry in inst["nodes"] if entry.get("unschedulable")}
    candidates = sorted((u for u in _units(inst["running"]) if u["priority"] < PREEMPTOR), key=_importance)
    placed: dict[str, int] = {}
    for pod in answer.group("w").pods:
        placed[pod.node] = placed.get(pod.node, 0) + 1
    if not answer.feasible:
        # even with every candidate gone (pods on cordoned nodes stay: nothing lands there) the gang does not fit
        free = _free(inst, candidates, {})
        room = sum(max(0, min(free[n][GPU], free[n]["pods"])) for n in free if n not in cordoned)
        assert room < inst["gang"]
        assert answer.victims == []
        return
    assert not set(placed) & cordoned
    victims = [v.name for v in answer.victims]
    by_name = {u["name"]: u for u in candidates}
    assert all(name in by_name for name in victims), "a victim of equal or higher priority"
    assert _fits(inst, [by_name[name] for name in victims], placed)
    violating = _violating(candidates, inst["budgets"])
    order = [u for u in candidates if u["name"] in violating] + [u for u in candidates if u["name"] not in violating]
    best: tuple[bool, ...] | None = None
    for keep in itertools.product([True, False], repeat=len(order)):  # greatest reprieve vector first
        evicted = [unit for unit, kept in zip(order, keep, strict=True) if not kept]
        if _fits(inst, evicted, placed):
            best = keep
            break
    assert best is not None
    expected = [u["name"] for u, kept in zip(order, best, strict=True) if not kept]
    assert sorted(victims) == sorted(expected)
    assert victims == [u["name"] for u in candidates if u["name"] in set(expected)], "victims not most important first"
