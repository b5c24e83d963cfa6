"""A hypothesis strategy for what runs on a small cluster, shared by the preemption tests.

Running entries are compact YAML (``Cluster.from_yaml``'s ``running``):
lone pods, ``all`` and ``single`` PodGroups of one to three pods,
sometimes every group under a CompositePodGroup of either mode (then of
the composite's priority), with start times and ``app`` labels for up to
two PodDisruptionBudgets.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

GPU, CPU = "nvidia.com/gpu", "cpu"
STARTS = ["", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"]


@st.composite
def running_units(
    draw: st.DrawFn, nodes: list[str], units: tuple[int, int], priorities: list[int], allowed: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Running entries on ``nodes`` (``units`` is the range of their count) and budgets allowing up to ``allowed``."""
    running: list[dict[str, Any]] = []
    for u in range(draw(st.integers(*units))):
        priority = draw(st.sampled_from(priorities))
        kind = draw(st.sampled_from(["Pod", "all", "single"]))
        pods = [
            {
                "name": f"u{u}-{j}",
                "node": draw(st.sampled_from(nodes)),
                "requests": {GPU: str(draw(st.integers(1, 2))), CPU: str(draw(st.integers(0, 2)))},
                "labels": {"app": draw(st.sampled_from(["a", "b"]))},
            }
            for j in range(1 if kind == "Pod" else draw(st.integers(1, 3)))
        ]
        if kind == "Pod":
            entry = {"kind": "Pod", "priority": priority, **pods[0]}
        else:
            entry = {"name": f"u{u}", "priority": priority, "disruptionMode": kind, "pods": pods}
        start = draw(st.sampled_from(STARTS))
        if start:
            entry["startTime"] = start
        running.append(entry)
    groups = [entry for entry in running if entry.get("kind") != "Pod"]
    if groups and draw(st.booleans()):
        # a CompositePodGroup over every group: with `all` it is one unit, of the composite's priority
        mode = draw(st.sampled_from(["all", "single"]))
        top = {"name": "cpg", "kind": "CompositePodGroup", "priority": groups[0]["priority"], "disruptionMode": mode}
        running.insert(0, top)
        for entry in groups:
            entry["parent"] = "cpg"
            entry["priority"] = groups[0]["priority"]
    budgets = [
        {
            "kind": "PodDisruptionBudget",
            "metadata": {"name": f"pdb-{app}", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": app}}},
            "status": {"disruptionsAllowed": draw(st.integers(0, allowed))},
        }
        for app in draw(st.sampled_from([[], ["a"], ["a", "b"]]))
    ]
    return running, budgets
