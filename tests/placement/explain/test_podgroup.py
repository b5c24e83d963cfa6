"""kube-scheduler's FailedScheduling messages of a gang PodGroup that fits no placement (``explain.podgroup``).

The texts are ``schedule_one_podgroup.go``'s (kube-scheduler 1.37): ``errPodGroupUnschedulable``, the
placements' count, ``GangScheduling.PlacementFeasible``'s ``minCount (M) cannot be satisfied: S scheduled,
R remaining``, the wrapped message of a pod that fit and ``PodGroupPostFilter``'s verdict after it. The
functions are called directly on a snapshot; ``test_root_causes.py`` sees the same lines in an explanation.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from placement_helpers import RACK, cluster, node, pod_group, request

from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.explain import podgroup
from workloadbuilder.placement.framework.queue import resolve_request
from workloadbuilder.placement.framework.snapshot import Snapshot
from workloadbuilder.placement.strategies.kube_scheduler import KubeScheduler

GPU = {"nvidia.com/gpu": "1"}
TWO_RACKS = cluster(node("n1", 8, rack="r1"), node("n2", 8, rack="r2"))
NO_VICTIMS = "pod group preemption: No preemption victims found for incoming preemptor"


def messages(cl: Cluster, group: dict[str, Any], pods: int, requests: dict[str, str] = GPU) -> list[tuple[str, str]]:
    name = group["metadata"]["name"]
    req = request([group], {name: (pods, requests)})
    resolve_request(req, cl.priority_classes)  # the priority and preemption policy admission gives
    (root,) = req.roots
    snap = Snapshot(cl)
    return podgroup.failed_scheduling(root, snap, KubeScheduler(snap))


def status(placements: int, need: int, scheduled: int) -> str:
    remaining = max(need - scheduled - 1, 0)
    return (
        f"pod group is unschedulable, 0/{placements} placements are available, first placement status: "
        f"minCount ({need}) cannot be satisfied: {scheduled} scheduled, {remaining} remaining"
    )


def test_the_constants_are_kube_schedulers_words() -> None:
    assert podgroup.UNSCHEDULABLE == "pod group is unschedulable"
    assert podgroup.NO_PLACEMENTS == "no feasible placements found"
    assert (
        podgroup.PREEMPTION + podgroup.NOT_ELIGIBLE
        == "pod group preemption: not eligible due to preemptionPolicy=Never."
    )
    assert podgroup.PREEMPTION + podgroup.NO_VICTIMS == NO_VICTIMS


def test_a_gang_that_fits_its_first_placement_gets_no_message() -> None:
    assert messages(TWO_RACKS, pod_group("b", 6, key=RACK), 10) == []
    assert messages(TWO_RACKS, pod_group("b", 16), 20) == []


def test_a_gang_too_big_for_a_rack_gets_the_three_messages_of_the_first_rack() -> None:
    assert messages(TWO_RACKS, pod_group("b", 10, key=RACK), 10) == [
        ("b-8", "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."),
        ("b-9", status(2, 10, 8)),
        ("b-0", f"pod group is unschedulable, {status(2, 10, 8)}, {NO_VICTIMS}"),
    ]


def test_without_a_key_the_one_placement_is_the_cluster_and_the_fit_error_counts_every_node() -> None:
    assert messages(TWO_RACKS, pod_group("b", 20), 20) == [
        ("b-16", "0/2 nodes are available: 2 Insufficient nvidia.com/gpu."),
        ("b-17", status(1, 20, 16)),
        ("b-0", f"pod group is unschedulable, {status(1, 20, 16)}, {NO_VICTIMS}"),
    ]


def test_when_the_last_needed_pod_fails_no_pod_is_left_untried() -> None:
    assert messages(TWO_RACKS, pod_group("b", 9, key=RACK), 9) == [
        ("b-8", "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."),
        ("b-0", f"pod group is unschedulable, {status(2, 9, 8)}, {NO_VICTIMS}"),
    ]


def test_when_no_pod_fits_there_is_no_wrapped_message() -> None:
    assert messages(TWO_RACKS, pod_group("b", 2, key=RACK), 2, {"nvidia.com/gpu": "9"}) == [
        ("b-0", "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."),
        ("b-1", status(2, 2, 0)),
    ]


def test_no_node_with_the_key_is_no_feasible_placement() -> None:
    assert messages(TWO_RACKS, pod_group("b", 10, key="example.com/absent"), 10) == [
        ("b-0", "no feasible placements found")
    ]


def test_a_group_that_may_not_preempt_is_not_eligible() -> None:
    group = pod_group("b", 10, key=RACK)
    group["spec"]["preemptionPolicy"] = "Never"
    assert messages(TWO_RACKS, group, 10)[-1] == (
        "b-0",
        f"pod group is unschedulable, {status(2, 10, 8)}, pod group preemption: not eligible due to "
        "preemptionPolicy=Never.",
    )


def test_a_group_that_does_not_fit_even_after_evicting_everything_below_it() -> None:
    running = [{"name": "low", "kind": "Pod", "priority": 0, "node": "n1", "requests": {"nvidia.com/gpu": "1"}}]
    cl = cluster(node("n1", 8, rack="r1"), node("n2", 8, rack="r2"), running=running)
    assert messages(cl, pod_group("b", 10, key=RACK, priority=5), 10) == [
        ("b-7", "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."),
        ("b-8", status(2, 10, 7)),
        ("b-0", f"pod group is unschedulable, {status(2, 10, 7)}, pod group preemption: {status(2, 10, 8)}"),
    ]


def test_a_group_that_would_fit_by_preempting_gets_no_wrapped_message() -> None:
    running = [{"name": "low", "kind": "Pod", "priority": 0, "node": "n1", "requests": {"nvidia.com/gpu": "4"}}]
    cl = cluster(node("n1", 8, rack="r1"), node("n2", 8, rack="r2"), running=running)
    assert messages(cl, pod_group("b", 6, key=RACK, priority=5), 6) == [
        ("b-4", "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."),
        ("b-5", status(2, 6, 4)),
    ]


@pytest.mark.parametrize(
    ("group", "expected"),
    [
        (pod_group("b", 4), True),
        (pod_group("b", None), False),
        (pod_group("b", 4, parent="set"), False),
        (pod_group("b", 4, claims=[{"name": "c", "resourceClaimName": "c"}]), False),
    ],
    ids=["gang-root", "basic", "child-of-a-composite", "with-claims"],
)
def test_modelled(group: dict[str, Any], expected: bool) -> None:
    groups = [group]
    if group["spec"].get("parentCompositePodGroupName"):
        groups.insert(0, {**pod_group("set"), "kind": "CompositePodGroup", "apiVersion": "scheduling.k8s.io/v1alpha3"})
    claims = {"c": {"deviceClass": "x", "count": 1}} if group["spec"].get("resourceClaims") else None
    req = request(groups, {"b": (4, GPU)}, claims)
    leaf = next(g for root in req.roots for g in root.walk() if g.name == "b")
    assert podgroup.modelled(leaf) is expected


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.integers(1, 8))
def test_the_messages_follow_placement_feasible(pods: int, need: int, gpus: int) -> None:
    """On one node of ``gpus`` GPUs: nothing when ``need`` fit; else the FitError of the first pod that does not,
    the status of the first never tried (if any), and the wrapped message when some fit."""
    need = min(need, pods)
    cl = cluster(node("n1", gpus, rack="r1"))
    found = messages(cl, pod_group("b", need, key=RACK), pods)
    fitted = min(gpus, pods)
    if fitted >= need:
        assert found == []
        return
    expected = [(f"b-{fitted}", "0/1 nodes are available: 1 Insufficient nvidia.com/gpu.")]
    untried = fitted + pods - need + 1
    if untried < pods:
        expected.append((f"b-{untried}", status(1, need, fitted)))
    if fitted:
        expected.append(("b-0", f"pod group is unschedulable, {status(1, need, fitted)}, {NO_VICTIMS}"))
    assert found == expected
