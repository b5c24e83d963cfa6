"""Verdict tiers on small clusters whose every figure can be checked by hand.

Every node has 8 nvidia.com/gpu (and 64 cpu, 110 pods); a pod ``running``
on a node takes the GPUs it says, at the priority it says. The request is
one PodGroup ``w`` of ``count`` pods of ``gpus`` GPUs each, a gang of
``count`` unless said otherwise.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any
from unittest import mock

import pytest
from framework.test_preemption_property import PREEMPTOR
from framework.test_preemption_property import instances as preemption_instances
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from placement_helpers import pod_group
from placement_helpers import request as gang_request
from running_units import GPU

from workloadbuilder.field import AggregateError
from workloadbuilder.placement import Cluster, PlacementRequest, PriorityClass, place
from workloadbuilder.placement.verdict import TIERS, Verdict, verdict

CLASSES = [PriorityClass("high", 1000), PriorityClass("low", 0)]


def cluster(nodes: int, running: list[tuple[str, int, int]] = (), labels: dict[str, str] | None = None) -> Cluster:
    """``nodes`` 8-GPU nodes n0.. and ``running`` pods ``(node, gpus, priority)``."""
    return Cluster.build(
        [
            {
                "name": f"n{i}",
                "labels": {"kubernetes.io/hostname": f"n{i}", **(labels or {})},
                "allocatable": {"cpu": 64000, "pods": 110000, "nvidia.com/gpu": 8000},
            }
            for i in range(nodes)
        ],
        running_pods=[
            {"name": f"default/run-{k}", "node": node, "requests": {"nvidia.com/gpu": gpus * 1000}, "priority": prio}
            for k, (node, gpus, prio) in enumerate(running)
        ],
        priority_classes=CLASSES,
    )


def request(count: int, gpus: int, priority_class: str = "low", topology: str | None = None) -> PlacementRequest:
    spec: dict[str, Any] = {"schedulingPolicy": {"gang": {"minCount": count}}, "priorityClassName": priority_class}
    if topology:
        spec["schedulingConstraints"] = {"topology": [{"key": topology}]}
    group = {"kind": "PodGroup", "metadata": {"name": "w"}, "spec": spec}
    return PlacementRequest.from_groups([group], {"w": (count, {"nvidia.com/gpu": str(gpus)})})


# id -> (cluster, request, expected verdict)
CASES = {
    "fits-now": (cluster(1), request(2, 4), Verdict("placeable")),
    "evicts-lower-priority": (
        cluster(1, [("n0", 8, 0)]),
        request(2, 4, "high"),
        Verdict("placeable-after-preemption", ("default/run-0",)),
    ),
    "equal-priority-work-must-finish": (cluster(1, [("n0", 8, 0)]), request(2, 4), Verdict("waiting-for-capacity")),
    "higher-priority-work-must-finish": (
        cluster(1, [("n0", 8, 1000)]),
        request(1, 8),
        Verdict("waiting-for-capacity"),
    ),
    "pod-larger-than-any-node": (
        cluster(2),
        request(1, 9),
        Verdict("never", cause="a pod of 'w' requests 9 nvidia.com/gpu; the largest node has 8"),
    ),
    "topology-key-no-node-carries": (
        cluster(2),
        request(2, 1, topology="topology.kubernetes.io/rack"),
        Verdict("never", cause="no node carries the topology key topology.kubernetes.io/rack that 'w' requires"),
    ),
    "gang-larger-than-the-cluster": (
        cluster(2, [("n0", 8, 1000)]),
        request(3, 8, "high"),
        Verdict("never", cause="even with no pod running: `w`: the cluster fits 2 of 3 pods"),
    ),
}


@pytest.mark.parametrize(("given", "asked", "expected"), CASES.values(), ids=CASES.keys())
def test_verdict_tiers(given: Cluster, asked: PlacementRequest, expected: Verdict):
    answer = place(asked, given)
    assert verdict(asked, given, answer) == expected


def test_invalid_request_is_the_invalid_tier():
    with pytest.raises(AggregateError) as refused:
        PlacementRequest.from_groups([{"kind": "PodGroup", "metadata": {"name": "w"}, "spec": {}}], {})
    got = Verdict.invalid(refused.value)
    assert (got.tier, got.exit_code, got.text) == (
        "invalid",
        1,
        ("verdict: invalid: pods[w]: Required value: how many pods PodGroup 'w' has and what each requests"),
    )


TEXTS = {
    "placeable": (Verdict("placeable"), 0, "verdict: placeable"),
    "preemption": (
        Verdict("placeable-after-preemption", ("default/a", "default/b")),
        1,
        "verdict: placeable-after-preemption (evicting default/a, default/b)",
    ),
    "never": (Verdict("never", cause="x"), 1, "verdict: never: x"),
}


@pytest.mark.parametrize(("given", "code", "text"), TEXTS.values(), ids=TEXTS.keys())
def test_text_json_and_exit_code(given: Verdict, code: int, text: str):
    assert (given.exit_code, given.text, given.to_dict()["tier"]) == (code, text, given.tier)
    assert given.tier in TIERS


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(preemption_instances(), st.sampled_from(["kube-scheduler", "complete"]), st.booleans())
def test_the_answers_own_preemption_report_gives_the_tier_placing_again_gives(
    inst: dict[str, Any], strategy: str, preempt: bool
) -> None:
    """One root: the tier read from the answer's preemption report is the one ``place(preempt=True)`` again gives."""
    cl = Cluster.from_yaml(
        {"nodes": inst["nodes"], "running": inst["running"], "podDisruptionBudgets": inst["budgets"]}
    )
    req = gang_request([pod_group("w", inst["gang"], priority=PREEMPTOR)], {"w": (inst["gang"], {GPU: "1"})})
    answer = place(req, cl, strategy, preempt=preempt)
    read = verdict(req, cl, answer)
    verdict_module = import_module("workloadbuilder.placement.verdict")  # the package face names the function
    with mock.patch.object(verdict_module, "_probed_victims", return_value=None):
        placed_again = verdict(req, cl, answer)
    assert read == placed_again
