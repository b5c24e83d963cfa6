"""Which victims preemption picks: upstream's workload-aware preemption cases, in our words, and the root causes fixed.

Each case is a small cluster of 4-GPU nodes, what runs there, and one
preemptor gang of priority 100; the expected answer is the victims (most
important first) and where the gang lands, or that preemption cannot help.
"""

from __future__ import annotations

from typing import Any

import pytest
from placement_helpers import checked, cluster, node, pod_group, request, where

from workloadbuilder.placement import Cluster, place
from workloadbuilder.placement.framework.preemption import Unit, units_below


def _pod(name: str, node_name: str, gpus: int, **extra: Any) -> dict[str, Any]:
    return {"name": name, "node": node_name, "requests": {"nvidia.com/gpu": str(gpus)}, **extra}


def _lone(name: str, node_name: str, gpus: int, priority: int, start: str = "", **extra: Any) -> dict[str, Any]:
    entry = {
        "name": name,
        "kind": "Pod",
        "priority": priority,
        "node": node_name,
        "requests": {"nvidia.com/gpu": str(gpus)},
    }
    if start:
        entry["startTime"] = start
    return {**entry, **extra}


def _budget(name: str, labels: dict[str, str], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"selector": {"matchLabels": labels}, **spec},
    }


CASES: list[tuple[str, list[dict[str, Any]], list[dict[str, Any]], int, list[str] | None, list[str]]] = [
    # (id, nodes, running, preemptor pods (1 GPU each), victims or None (cannot help), nodes of the placed pods)
    (
        "equal-priority-is-never-a-victim",
        [node("n1", 4)],
        [_lone("peer", "n1", 4, 100)],
        1,
        None,
        [],
    ),
    (
        "higher-priority-is-never-a-victim",
        [node("n1", 4)],
        [_lone("boss", "n1", 4, 1000)],
        1,
        None,
        [],
    ),
    (
        "only-what-is-needed-goes-lowest-priority-first",
        [node("n1", 4)],
        [_lone("p1", "n1", 1, 10), _lone("p2", "n1", 1, 20), _lone("p3", "n1", 2, 30)],
        1,
        ["p1"],
        ["n1"],
    ),
    (
        "reprieve-from-the-most-important-keeps-higher-priority",
        [node("n1", 4)],
        [_lone("p1", "n1", 2, 10), _lone("p2", "n1", 2, 20)],
        2,
        ["p1"],
        ["n1", "n1"],
    ),
    (
        "later-started-pod-of-equal-priority-goes-first",
        [node("n1", 4)],
        [_lone("old", "n1", 2, 10, "2026-01-01T00:00:00Z"), _lone("new", "n1", 2, 10, "2026-01-02T00:00:00Z")],
        2,
        ["new"],
        ["n1", "n1"],
    ),
    (
        "unstarted-pod-goes-before-started-ones",
        [node("n1", 4)],
        [_lone("started", "n1", 2, 10, "2026-01-01T00:00:00Z"), _lone("pending", "n1", 2, 10)],
        2,
        ["pending"],
        ["n1", "n1"],
    ),
    (
        "a-pod-of-a-single-group-ranks-above-a-lone-pod",
        [node("n1", 4)],
        [{"name": "team", "priority": 10, "pods": [_pod("team-0", "n1", 2)]}, _lone("lone", "n1", 2, 10)],
        2,
        ["lone"],
        ["n1", "n1"],
    ),
    (
        "single-mode-group-loses-only-the-pods-needed",
        [node("n1", 4), node("n2", 4)],
        [{"name": "spread", "priority": 10, "pods": [_pod("s-0", "n1", 4), _pod("s-1", "n2", 4)]}],
        4,
        ["s-0"],
        ["n1"] * 4,
    ),
    (
        "all-mode-group-goes-whole-though-one-node-is-needed",
        [node("n1", 4), node("n2", 4)],
        [
            {
                "name": "gang",
                "priority": 10,
                "disruptionMode": "all",
                "pods": [_pod("g-0", "n1", 4), _pod("g-1", "n2", 4)],
            }
        ],
        4,
        ["gang"],
        ["n1"] * 4,
    ),
    (
        "the-larger-all-group-is-more-important",
        [node("n1", 4), node("n2", 4)],
        [
            {
                "name": "big",
                "priority": 10,
                "disruptionMode": "all",
                "pods": [_pod("b-0", "n1", 2), _pod("b-1", "n1", 2)],
            },
            {"name": "small", "priority": 10, "disruptionMode": "all", "pods": [_pod("m-0", "n2", 4)]},
        ],
        4,
        ["big"],
        ["n1"] * 4,
    ),
    (
        "a-member-priority-is-its-root-composites",
        [node("n1", 4), node("n2", 4)],
        [
            {"name": "train", "kind": "CompositePodGroup", "priority": 500},
            {"name": "train-a", "priority": 5, "parent": "train", "pods": [_pod("ta-0", "n1", 4)]},
            _lone("lone", "n2", 4, 50),
        ],
        4,
        ["lone"],
        ["n2"] * 4,
    ),
    (
        # root cause (issue 11): a node already over-committed stays so; evicting less than its debt frees nothing
        "a-debt-is-not-freed-by-a-smaller-eviction",
        [node("n1", 4)],
        [_lone("kept", "n1", 4, 1000), _lone("extra", "n1", 2, 0)],
        2,
        None,
        [],
    ),
    (
        # root cause (issue 11): evicting from a cordoned node never makes room there for the preemptor
        "a-cordoned-node-never-receives-the-preemptor",
        [{**node("n1", 4), "unschedulable": True}, node("n2", 4)],
        [_lone("cordoned-low", "n1", 4, 0), _lone("n2-high", "n2", 4, 1000)],
        1,
        None,
        [],
    ),
]


@pytest.mark.parametrize(
    ("nodes", "running", "count", "victims", "placed"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_victims(
    nodes: list[dict[str, Any]], running: list[dict[str, Any]], count: int, victims: list[str] | None, placed: list[str]
) -> None:
    cl = cluster(*nodes, running=running)
    req = request([pod_group("w", count, priority=100)], {"w": (count, {"nvidia.com/gpu": "1"})})
    answer = checked(req, cl, place(req, cl, preempt=True))
    got = [victim.name for victim in answer.victims]
    if victims is None:
        assert (answer.feasible, got, answer.explanation["roots"][0]["preemption"]["wouldHelp"]) == (False, [], False)
    else:
        assert (answer.feasible, got, where(answer)) == (True, victims, {"w": ({}, placed)})


def _with_budgets(running: list[dict[str, Any]], budgets: list[dict[str, Any]]) -> Cluster:
    return Cluster.from_yaml({"nodes": [node("n1", 4)], "running": running, "podDisruptionBudgets": budgets})


PDB_CASES = [
    # two equal pods share the node; the gang needs the room of one. Without a budget the later-started
    # `new` goes; a budget that allows no disruption of `new` moves the eviction to `old`.
    ("no-budget", [], ["new"], 0),
    ("budget-protects-the-less-important", [_budget("keep-new", {"app": "new"}, minAvailable=1)], ["old"], 0),
    ("budget-with-room-changes-nothing", [_budget("roomy", {"app": "new"}, maxUnavailable=1)], ["new"], 0),
    (
        "disruptions-allowed-from-status",
        [{**_budget("st", {"app": "new"}), "status": {"disruptionsAllowed": 0}}],
        ["old"],
        0,
    ),
    # both protected: the reprieve keeps the more important one, the other goes in violation
    ("both-protected", [_budget("all", {"team": "ml"}, maxUnavailable="0%")], ["new"], 1),
]


@pytest.mark.parametrize(
    ("budgets", "victims", "violations"), [c[1:] for c in PDB_CASES], ids=[c[0] for c in PDB_CASES]
)
def test_budgets_are_spent_as_kube_scheduler_counts_them(
    budgets: list[dict[str, Any]], victims: list[str], violations: int
) -> None:
    running = [
        _lone("old", "n1", 2, 10, "2026-01-01T00:00:00Z", labels={"app": "old", "team": "ml"}),
        _lone("new", "n1", 2, 10, "2026-01-02T00:00:00Z", labels={"app": "new", "team": "ml"}),
    ]
    cl = _with_budgets(running, budgets)
    req = request([pod_group("w", 2, priority=100)], {"w": (2, {"nvidia.com/gpu": "1"})})
    answer = checked(req, cl, place(req, cl, preempt=True))
    preemption = answer.explanation["roots"][0]["preemption"]
    assert ([v.name for v in answer.victims], preemption["violations"]) == (victims, violations)


def test_the_explanation_names_each_victim_and_why() -> None:
    running = [_lone("old", "n1", 2, 10, "2026-01-01T00:00:00Z", labels={"app": "old"})]
    cl = _with_budgets(running, [_budget("keep", {"app": "old"}, minAvailable=1)])
    req = request([pod_group("w", 4, priority=100)], {"w": (4, {"nvidia.com/gpu": "1"})})
    preemption = place(req, cl).explanation["roots"][0]["preemption"]
    assert (preemption["text"], [reason["text"] for reason in preemption["reasons"]]) == (
        "preemption would help: evicting 1 unit (1 pod, priority up to 10), 1 PodDisruptionBudget violation",
        [
            (
                "`old` (Pod, priority 10 < 100): 1 pod on n1; with it back, a placed pod would not fit there; "
                "evicting it violates a PodDisruptionBudget (no reprieve kept the budget)"
            )
        ],
    )


def test_nothing_of_lower_priority_says_so_in_kube_scheduler_words() -> None:
    cl = cluster(node("n1", 4), running=[_lone("peer", "n1", 4, 100)])
    req = request([pod_group("w", 1, priority=100)], {"w": (1, {"nvidia.com/gpu": "1"})})
    preemption = place(req, cl, preempt=True).explanation["roots"][0]["preemption"]
    assert (preemption["status"], preemption["text"]) == (
        "pod group preemption: No preemption victims found for incoming preemptor",
        "preemption cannot help: nothing of lower priority runs",
    )


def test_a_later_root_does_not_evict_what_an_earlier_one_placed() -> None:
    """Two gangs of different priority, one node's worth of low-priority work to evict."""
    cl = cluster(node("n1", 4), node("n2", 4), running=[_lone("low", "n1", 4, 0), _lone("mid", "n2", 4, 50)])
    groups = [pod_group("second", 4, priority=60), pod_group("first", 4, priority=100)]
    req = request(groups, {"second": (4, {"nvidia.com/gpu": "1"}), "first": (4, {"nvidia.com/gpu": "1"})})
    answer = checked(req, cl, place(req, cl, preempt=True))
    # `first` (priority 100) is scheduled first and takes n1 from `low`; `second` (60) can then only evict `mid`;
    # victims are listed root by root in request order
    assert ([v.name for v in answer.victims], where(answer)) == (
        ["mid", "low"],
        {"second": ({}, ["n2"] * 4), "first": ({}, ["n1"] * 4)},
    )


# -- upstream's TestPodGroupEvaluator_Preempt_Victims (podgrouppreemption_test.go), in our words ----------------
# Upstream sizes pods with a mock filter (node capacity, pod size 1); here each node has that many GPUs and each
# pod takes one. Priorities: low 10, mid 50, high 100; the preemptor is a one-pod group of priority `high` unless
# said otherwise.

LOW, MID, HIGH = 10, 50, 100


def _gpu_pod(name: str, node_name: str, priority: int, **extra: Any) -> dict[str, Any]:
    return _lone(name, node_name, 1, priority, **extra)


def _member(name: str, node_name: str, **extra: Any) -> dict[str, Any]:
    return _pod(name, node_name, 1, **extra)


UPSTREAM: list[tuple[str, list[tuple[str, int]], list[dict[str, Any]], list[dict[str, Any]], int, list[str]]] = [
    # (upstream test name, nodes (name, capacity), running, budgets, preemptor priority, expected victims)
    (
        "mix-of-no-groups-and-pod-groups",
        [("node1", 2)],
        [_gpu_pod("p1", "node1", LOW), {"name": "pg1", "priority": LOW, "pods": [_member("p2", "node1")]}],
        [],
        HIGH,
        ["p1"],
    ),
    (
        "start-time-of-pods-from-same-single-group",
        [("node1", 2)],
        [
            {
                "name": "pg1",
                "priority": LOW,
                "pods": [
                    _member("p1", "node1", startTime="1970-01-01T00:00:01Z"),
                    _member("p2", "node1", startTime="1970-01-01T00:00:00Z"),
                ],
            }
        ],
        [],
        HIGH,
        ["p1"],
    ),
    ("preempt-single-lower-priority-pod", [("node1", 1)], [_gpu_pod("p1", "node1", LOW)], [], HIGH, ["p1"]),
    (
        "prefer-lower-priority-victim",
        [("node1", 2)],
        [_gpu_pod("p1", "node1", LOW), _gpu_pod("p2", "node1", MID), _gpu_pod("p3", "node1", HIGH)],
        [],
        HIGH,
        ["p2", "p1"],  # both go; victims are listed most important first
    ),
    (
        # four pods on a node of three: the node is over-committed, so two must go
        "efficiency-preempt-minimum-number-of-victims",
        [("node1", 3)],
        [_gpu_pod(f"p{i}", "node1", LOW) for i in range(1, 5)],
        [],
        HIGH,
        ["p3", "p4"],
    ),
    (
        "pdb-prefer-non-violating-victim",
        [("node1", 2)],
        [_gpu_pod("victim-pdb", "node1", LOW, labels={"app": "foo"}), _gpu_pod("victim-no-pdb", "node1", LOW)],
        [{**_budget("foo", {"app": "foo"}), "status": {"disruptionsAllowed": 0}}],
        HIGH,
        ["victim-no-pdb"],
    ),
    (
        "pdb-prefer-removing-non-violating-over-lower-priority-violating",
        [("node1", 2)],
        [_gpu_pod("victim-pdb", "node1", LOW, labels={"app": "foo"}), _gpu_pod("victim-no-pdb", "node1", MID)],
        [{**_budget("foo", {"app": "foo"}), "status": {"disruptionsAllowed": 0}}],
        HIGH,
        ["victim-no-pdb"],
    ),
    (
        "pdb-mixed-groups",
        [("node1", 2)],
        [
            {
                "name": "pg1",
                "priority": LOW,
                "pods": [_member("victim-pdb", "node1", labels={"app": "foo"}), _member("victim-no-pdb", "node1")],
            }
        ],
        [{**_budget("foo", {"app": "foo"}), "status": {"disruptionsAllowed": 0}}],
        HIGH,
        ["victim-no-pdb"],
    ),
    (
        "pdb-prefer-lower-priority-when-violation-cannot-be-avoided",
        [("node1", 2)],
        [
            _gpu_pod("p1", "node1", LOW, labels={"app": "foo"}),
            _gpu_pod("p2", "node1", MID, labels={"app": "foo"}),
        ],
        [{**_budget("foo", {"app": "foo"}), "status": {"disruptionsAllowed": 0}}],
        HIGH,
        ["p1"],
    ),
    (
        "pod-group-preempted-as-a-whole",
        [("node1", 1), ("node2", 1)],
        [
            {
                "name": "pg1",
                "priority": LOW,
                "disruptionMode": "all",
                "pods": [_member("p1", "node1"), _member("p2", "node2")],
            }
        ],
        [],
        HIGH,
        ["pg1"],
    ),
    (
        "prefer-single-pod-over-pod-group",
        [("node1", 3)],
        [
            _gpu_pod("p1", "node1", LOW),
            {
                "name": "pg1",
                "priority": LOW,
                "disruptionMode": "all",
                "pods": [_member("g1-1", "node1"), _member("g1-2", "node1")],
            },
        ],
        [],
        HIGH,
        ["p1"],
    ),
    (
        "pod-group-preempted-as-a-whole-on-single-node",
        [("node1", 3)],
        [
            {
                "name": "pg1",
                "priority": LOW,
                "disruptionMode": "all",
                "pods": [_member("g1-1", "node1"), _member("g1-2", "node1")],
            },
            _gpu_pod("p1", "node1", MID),
        ],
        [],
        HIGH,
        ["pg1"],
    ),
    (
        "pdb-unit-violation-if-any-member-violates",
        [("node1", 3)],
        [
            {
                "name": "pg1",
                "priority": LOW,
                "disruptionMode": "all",
                "pods": [_member("g1-1", "node1", labels={"app": "foo"}), _member("g1-2", "node1")],
            },
            _gpu_pod("p1", "node1", LOW),
        ],
        [{**_budget("foo", {"app": "foo"}), "status": {"disruptionsAllowed": 0}}],
        HIGH,
        ["p1"],
    ),
    ("cannot-preempt-higher-priority", [("node1", 1)], [_gpu_pod("p1", "node1", HIGH)], [], MID, []),
    ("cannot-preempt-equal-priority", [("node1", 1)], [_gpu_pod("p1", "node1", MID)], [], MID, []),
]


@pytest.mark.parametrize(
    ("nodes", "running", "budgets", "priority", "victims"), [c[1:] for c in UPSTREAM], ids=[c[0] for c in UPSTREAM]
)
def test_upstream_cases(
    nodes: list[tuple[str, int]],
    running: list[dict[str, Any]],
    budgets: list[dict[str, Any]],
    priority: int,
    victims: list[str],
) -> None:
    cl = Cluster.from_yaml(
        {"nodes": [node(name, gpus) for name, gpus in nodes], "running": running, "podDisruptionBudgets": budgets}
    )
    req = request([pod_group("preemptor-pg", 1, priority=priority)], {"preemptor-pg": (1, {"nvidia.com/gpu": "1"})})
    answer = checked(req, cl, place(req, cl, preempt=True))
    assert ([v.name for v in answer.victims], answer.feasible) == (victims, bool(victims))


def test_importance_order_is_upstreams() -> None:
    """MoreImportantVictim: priority, then CompositePodGroup > PodGroup (a single group's pod too) > pod, then size."""
    cl = cluster(
        node("n1", 8),
        running=[
            {"name": "cpg", "kind": "CompositePodGroup", "priority": 10, "disruptionMode": "all"},
            {"name": "cpg-a", "priority": 10, "parent": "cpg", "pods": [_pod("c-0", "n1", 1)]},
            {
                "name": "big",
                "priority": 10,
                "disruptionMode": "all",
                "pods": [_pod(f"b-{i}", "n1", 1) for i in range(3)],
            },
            {"name": "single", "priority": 10, "pods": [_pod("s-0", "n1", 1)]},
            _lone("lone-old", "n1", 1, 10, "2026-01-01T00:00:00Z"),
            _lone("lone-new", "n1", 1, 10, "2026-01-02T00:00:00Z"),
            _lone("higher", "n1", 1, 20),
        ],
    )
    units = sorted(units_below(cl, 100), key=Unit.importance)
    assert [(u.name, u.rank) for u in units] == [
        ("higher", 1),
        ("cpg", 3),
        ("big", 2),
        ("s-0", 2),
        ("lone-old", 1),
        ("lone-new", 1),
    ]
