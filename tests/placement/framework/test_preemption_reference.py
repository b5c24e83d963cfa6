"""The engine's indexed preemption against a straightforward one (``preemption_reference``) on random clusters.

Preemption indexes a cluster's units once, evicts and gives back per
node, and looks only at the units on nodes that hold placed pods. The
reference removes and puts back every pod one by one and tries every
candidate. Both run inside the same ``place`` (the reference swapped in for
``preempt``), so whole answers must be equal: placement, victims and their
order, budget violations, explanation and text.

Instances: two blocks of two racks of one to three nodes (some cordoned,
some over-committed by their running pods), two to ten running units of
several priorities (lone pods, ``all`` and ``single`` groups, sometimes
under a CompositePodGroup), pods labelled for up to two
PodDisruptionBudgets, and one or two roots (a gang on a rack or block key,
or a composite of two gangs) of priorities 50 and 100, so that the second
root sees what the first evicted; with and without ``preempt`` (a probe),
and with the complete strategy.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from placement_helpers import BLOCK, RACK, composite, node, pod_group, request
from preemption_reference import reference_preempt
from running_units import CPU, GPU, running_units

from workloadbuilder.placement import Cluster, PlacementRequest, engine, place


@st.composite
def clusters(draw: st.DrawFn) -> Cluster:
    """Nodes in racks and blocks, running units and budgets (compact YAML)."""
    nodes = []
    for b in range(2):
        for r in range(2):
            for h in range(draw(st.integers(1, 3))):
                entry = node(f"n{b}{r}{h}", draw(st.integers(1, 4)), cpu=str(draw(st.integers(2, 4))))
                entry["labels"] = {BLOCK: f"b{b}", RACK: f"r{b}{r}"}
                if draw(st.integers(0, 5)) == 0:
                    entry["unschedulable"] = True
                nodes.append(entry)
    names = [entry["name"] for entry in nodes]
    running, budgets = draw(running_units(names, (2, 10), [0, 10, 10, 20, 20, 50, 100, 200], 2))
    return Cluster.from_yaml({"nodes": nodes, "running": running, "podDisruptionBudgets": budgets})


@st.composite
def requests(draw: st.DrawFn) -> PlacementRequest:
    """One or two roots: a gang on a rack or block key (or none), or a block composite of two rack gangs."""
    groups: list[dict[str, Any]] = []
    pods: dict[str, Any] = {}
    for k in range(draw(st.sampled_from([1, 2, 2]))):
        priority = draw(st.sampled_from([50, 100]))
        shape = {GPU: str(draw(st.integers(1, 2))), CPU: str(draw(st.integers(0, 1)))}
        if draw(st.integers(0, 3)) == 0:
            groups.append(composite(f"c{k}", 2, key=BLOCK, priority=priority))
            for child in range(2):
                name = f"c{k}-{child}"
                count = draw(st.integers(1, 3))
                groups.append(pod_group(name, count, key=RACK, parent=f"c{k}", priority=priority))
                pods[name] = (count, shape)
        else:
            count = draw(st.integers(2, 6))
            key = draw(st.sampled_from([RACK, BLOCK, None]))
            groups.append(pod_group(f"g{k}", count, key=key, priority=priority))
            pods[f"g{k}"] = (count, shape)
    return request(groups, pods)


@pytest.mark.parametrize(
    ("strategy", "preempt"),
    [("kube-scheduler", True), ("kube-scheduler", False), ("complete", True)],
    ids=["evicting", "probing", "complete-evicting"],
)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(cl=clusters(), req=requests())
def test_indexed_preemption_answers_as_the_reference(
    cl: Cluster, req: PlacementRequest, strategy: str, preempt: bool
) -> None:
    fast = place(req, cl, strategy, preempt).to_dict()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "preempt", reference_preempt)
        slow = place(req, cl, strategy, preempt).to_dict()
    assert fast == slow


def _lone(name: str, node_name: str, priority: int, gpus: int) -> dict[str, Any]:
    return {
        "kind": "Pod",
        "name": name,
        "node": node_name,
        "priority": priority,
        "requests": {GPU: str(gpus)},
        "labels": {"app": "a"},
    }


_BUDGET = {
    "kind": "PodDisruptionBudget",
    "metadata": {"name": "pdb-a", "namespace": "default"},
    "spec": {"selector": {"matchLabels": {"app": "a"}}},
    "status": {"disruptionsAllowed": 1},
}


@pytest.mark.parametrize(
    ("nodes", "running", "budgets", "victims", "violations", "placed"),
    [
        (
            # g0 takes n0: p1 (more important) spends the budget's one disruption, p0 violates it; g1 then takes n1
            [("n0", 2), ("n1", 2)],
            [_lone("p0", "n0", 0, 2), _lone("p1", "n1", 10, 2)],
            [_BUDGET],
            [("p0", ["n0"]), ("p1", ["n1"])],
            [1, 0],
            [["n0", "n0"], ["n1", "n1"]],
        ),
        (
            # g0 evicts p1 and keeps p0 on n0; g1 evicts p0 there, and p1 (already gone) is no candidate again
            [("n0", 4)],
            [_lone("p0", "n0", 0, 2), _lone("p1", "n0", 0, 2)],
            [],
            [("p1", ["n0"]), ("p0", ["n0"])],
            [0, 0],
            [["n0", "n0"], ["n0", "n0"]],
        ),
    ],
    ids=["budget-then-second-root", "evicted-unit-not-a-candidate-again"],
)
def test_fixed_instances(
    nodes: list[tuple[str, int]],
    running: list[dict[str, Any]],
    budgets: list[dict[str, Any]],
    victims: list[tuple[str, list[str]]],
    violations: list[int],
    placed: list[list[str]],
) -> None:
    """Instances of the generator's kind where both roots evict, checked exactly and against the reference."""
    entries = [{**node(name, gpus), "labels": {BLOCK: "b0", RACK: "r0"}} for name, gpus in nodes]
    cl = Cluster.from_yaml({"nodes": entries, "running": running, "podDisruptionBudgets": budgets})
    req = request(
        [pod_group("g0", 2, key=RACK, priority=100), pod_group("g1", 2, key=RACK, priority=50)],
        {"g0": (2, {GPU: "1"}), "g1": (2, {GPU: "1"})},
    )
    answer = place(req, cl, preempt=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "preempt", reference_preempt)
        assert place(req, cl, preempt=True).to_dict() == answer.to_dict()
    assert [(victim.name, [pod.node for pod in victim.pods]) for victim in answer.victims] == victims
    assert [root["preemption"]["violations"] for root in answer.explanation["roots"]] == violations
    assert [[pod.node for pod in answer.group(name).pods] for name in ("g0", "g1")] == placed
