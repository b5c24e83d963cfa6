"""Priorities as Priority admission resolves them, and kube-scheduler's queue order between roots."""

from __future__ import annotations

from typing import Any

import pytest
from placement_helpers import checked, cluster, node, pod_group, request, where

from workloadbuilder.field import AggregateError, ErrorList
from workloadbuilder.placement import Cluster, place
from workloadbuilder.placement.framework.queue import queue_order
from workloadbuilder.placement.k8s.priorities import (
    PriorityClass,
    PriorityClasses,
    PriorityError,
    PrioritySpec,
    read_priority_classes,
)


def _class(name: str, value: int, **extra: Any) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        **extra,
    }


CLASSES = PriorityClasses(
    [
        PriorityClass("batch", 100),
        PriorityClass("urgent", 1000, preemption_policy="Never"),
        PriorityClass("default-a", 50, global_default=True),
        PriorityClass("default-b", 20, global_default=True),
    ]
)


@pytest.mark.parametrize(
    ("spec", "want"),
    [
        (PrioritySpec("batch"), (100, "PreemptLowerPriority")),
        (PrioritySpec("urgent"), (1000, "Never")),
        (PrioritySpec("system-cluster-critical"), (2000000000, "PreemptLowerPriority")),
        (PrioritySpec("system-node-critical"), (2000001000, "PreemptLowerPriority")),
        # two classes claim globalDefault: admission takes the lowest value
        (PrioritySpec(), (20, "PreemptLowerPriority")),
        # an already admitted object keeps its priority
        (PrioritySpec(None, 7), (7, "PreemptLowerPriority")),
        (PrioritySpec("batch", 100), (100, "PreemptLowerPriority")),
        (PrioritySpec("batch", None, "Never"), (100, "Never")),
    ],
    ids=[
        "user-class",
        "class-with-never",
        "system-cluster-critical",
        "system-node-critical",
        "lowest-global-default",
        "explicit-priority",
        "priority-matching-its-class",
        "explicit-policy-wins",
    ],
)
def test_effective_priority(spec: PrioritySpec, want: tuple[int, str]) -> None:
    assert CLASSES.effective(spec, "pods", "p") == want


def test_no_default_class_means_priority_zero() -> None:
    assert PriorityClasses().resolve(None, "pods", "p") == (0, "PreemptLowerPriority")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            PrioritySpec("gold"),
            'podgroups.scheduling.k8s.io "w" is forbidden: no PriorityClass with name gold was found',
        ),
        (
            PrioritySpec("batch", 5),
            (
                'podgroups.scheduling.k8s.io "w" is forbidden: the integer value of priority (5) must not be provided '
                "in pod spec; priority admission controller computed 100 from the given PriorityClass name"
            ),
        ),
    ],
    ids=["unknown-class", "priority-contradicts-class"],
)
def test_admission_rejections(spec: PrioritySpec, message: str) -> None:
    with pytest.raises(PriorityError) as caught:
        CLASSES.effective(spec, "podgroups.scheduling.k8s.io", "w")
    assert (str(caught.value), caught.value.obj) == (message, "w")


@pytest.mark.parametrize(
    ("obj", "want"),
    [
        (
            _class("huge", 1000000001),
            ["priorityClasses[0].value: Forbidden: maximum allowed value of a user defined priority is 1000000000"],
        ),
        (
            _class("system-node-critical", 5),
            [
                (
                    "priorityClasses[0].metadata.name: Forbidden: the name of the priority class is a reserved name "
                    "for system use only: system-node-critical"
                )
            ],
        ),
        ({"kind": "PriorityClass", "metadata": {"name": "x"}}, ["priorityClasses[0].value: Required value"]),
        (_class("x", "high"), ['priorityClasses[0].value: Invalid value: "high": must be of type integer']),
        (
            _class("x", 1, preemptionPolicy="Sometimes"),
            [
                (
                    'priorityClasses[0].preemptionPolicy: Unsupported value: "Sometimes": supported values: '
                    '"PreemptLowerPriority", "Never"'
                )
            ],
        ),
        # a kubectl dump lists the system classes themselves: accepted
        (_class("system-cluster-critical", 2000000000), []),
    ],
    ids=["above-user-maximum", "reserved-name", "no-value", "value-not-integer", "unknown-policy", "system-class-dump"],
)
def test_reading_priority_classes(obj: dict[str, Any], want: list[str]) -> None:
    errors = ErrorList()
    read_priority_classes([obj], "priorityClasses", errors)
    assert [str(error) for error in errors] == want


def _full(priority: int, name: str = "busy") -> Cluster:
    """One 4-GPU node taken by a pod of the given priority."""
    return cluster(
        node("n1", 4),
        running=[
            {"name": name, "kind": "Pod", "priority": priority, "node": "n1", "requests": {"nvidia.com/gpu": "4"}}
        ],
    )


def _named(name: str, class_name: str | None, **spec: Any) -> dict[str, Any]:
    group = pod_group(name, 4)
    if class_name is not None:
        group["spec"]["priorityClassName"] = class_name
    group["spec"].update(spec)
    return group


def test_a_group_class_resolves_from_the_objects_given_to_place() -> None:
    req = request([_named("w", "batch")], {"w": (4, {"nvidia.com/gpu": "1"})})
    cl = _full(10)
    answer = checked(req, cl, place(req, cl, preempt=True, priority_classes=[_class("batch", 100)]))
    assert (req.roots[0].priority, [v.name for v in answer.victims]) == (100, ["busy"])


def test_a_group_class_resolves_from_the_cluster() -> None:
    cl = Cluster.from_yaml(
        {
            "nodes": [node("n1", 4)],
            "priorityClasses": [_class("batch", 100, globalDefault=True)],
            "running": [
                {"name": "busy", "kind": "Pod", "priority": 10, "node": "n1", "requests": {"nvidia.com/gpu": "4"}}
            ],
        }
    )
    req = request([_named("w", None)], {"w": (4, {"nvidia.com/gpu": "1"})})
    answer = checked(req, cl, place(req, cl, preempt=True))
    # no class named: the globalDefault one applies
    assert (req.roots[0].priority, [v.name for v in answer.victims]) == (100, ["busy"])


def test_an_unknown_class_is_rejected_as_admission_would() -> None:
    req = request([_named("w", "gold")], {"w": (4, {"nvidia.com/gpu": "1"})})
    with pytest.raises(
        PriorityError,
        match=r'podgroups\.scheduling\.k8s\.io "w" is forbidden: no PriorityClass with name gold was found',
    ):
        place(req, _full(0))


def test_a_malformed_class_given_to_place_is_a_field_error() -> None:
    req = request([_named("w", None)], {"w": (4, {"nvidia.com/gpu": "1"})})
    with pytest.raises(AggregateError, match=r"priorityClasses\[0\]\.value: Required value"):
        place(req, _full(0), priority_classes=[{"kind": "PriorityClass", "metadata": {"name": "x"}}])


def test_a_pod_template_class_gives_the_group_its_priority() -> None:
    template = {
        "spec": {
            "priorityClassName": "batch",
            "containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": "1"}}}],
        }
    }
    req = request([_named("w", None)], {"w": {"count": 4, "template": template}})
    place(req, _full(0), priority_classes=[PriorityClass("batch", 100)])
    assert req.roots[0].priority == 100


def test_preemption_policy_never_is_honoured() -> None:
    req = request([_named("w", "urgent")], {"w": (4, {"nvidia.com/gpu": "1"})})
    cl = _full(10)
    answer = place(req, cl, preempt=True, priority_classes=[PriorityClass("urgent", 1000, preemption_policy="Never")])
    preemption = answer.explanation["roots"][0]["preemption"]
    assert (answer.feasible, answer.victims, preemption["eligible"], preemption["status"], preemption["text"]) == (
        False,
        [],
        False,
        "pod group preemption: not eligible due to preemptionPolicy=Never.",
        (
            "preemption cannot help: the preemptor's preemptionPolicy is Never "
            "(pod group preemption: not eligible due to preemptionPolicy=Never.)"
        ),
    )


def test_a_never_policy_on_the_group_spec_is_honoured() -> None:
    req = request([_named("w", None, priority=100, preemptionPolicy="Never")], {"w": (4, {"nvidia.com/gpu": "1"})})
    answer = place(req, _full(10), preempt=True)
    assert (answer.feasible, answer.victims) == (False, [])


def test_roots_are_placed_in_queue_order_not_input_order() -> None:
    """Room for one gang: the higher-priority one, listed second, gets it."""
    cl = cluster(node("n1", 4))
    groups = [_named("low", None, priority=10), _named("high", None, priority=100)]
    req = request(groups, {"low": (4, {"nvidia.com/gpu": "1"}), "high": (4, {"nvidia.com/gpu": "1"})})
    answer = checked(req, cl, place(req, cl))
    assert [g.name for g in answer.groups] == ["low", "high"]  # the answer keeps request order
    assert where(answer) == {"high": ({}, ["n1"] * 4)}


def test_queue_order_breaks_priority_ties_by_creation() -> None:
    groups = [_named(name, None, priority=p) for name, p in (("a", 5), ("b", 9), ("c", 5))]
    for group, stamp in zip(
        groups, ("2026-01-03T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-01T00:00:00Z"), strict=True
    ):
        group["metadata"]["creationTimestamp"] = stamp
    req = request(groups, {name: (1, {"cpu": "1"}) for name in "abc"})
    assert [root.name for root in queue_order(req.roots)] == ["b", "c", "a"]


def _kubectl_pod(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "ml"},
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}], **spec},
        "status": {"phase": "Running"},
    }


_NODES = [{"metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}}]


def test_running_pods_priority_from_spec_class_or_zero() -> None:
    pods = [
        _kubectl_pod("given", priority=42, priorityClassName="batch"),
        _kubectl_pod("from-class", priorityClassName="batch"),
        _kubectl_pod("none"),
    ]
    cl = Cluster.from_kubectl(_NODES, pods, None, [_class("batch", 100, globalDefault=True)])
    assert [(pod.name, pod.priority) for pod in cl.running_pods] == [
        ("ml/given", 42),
        ("ml/from-class", 100),
        ("ml/none", 0),
    ]


def test_a_running_pod_naming_an_unknown_class_is_a_field_error() -> None:
    with pytest.raises(AggregateError) as caught:
        Cluster.from_kubectl(_NODES, [_kubectl_pod("p", priorityClassName="gold")])
    assert [str(e) for e in caught.value.field_errors] == [
        (
            'pods[0].spec.priorityClassName: Invalid value: "gold": pods "p" is forbidden: '
            "no PriorityClass with name gold was found"
        )
    ]


def test_running_groups_take_their_class_value() -> None:
    groups = [
        {
            "apiVersion": "scheduling.k8s.io/v1beta1",
            "kind": "PodGroup",
            "metadata": {"name": "etl", "namespace": "ml"},
            "spec": {"priorityClassName": "batch", "disruptionMode": {"all": {}}},
        }
    ]
    pods = [_kubectl_pod("etl-0", schedulingGroup={"podGroupName": "etl"})]
    cl = Cluster.from_kubectl(_NODES, pods, groups, [_class("batch", 100)])
    assert (cl.running_groups["ml/etl"].priority, cl.running_groups["ml/etl"].disruption_mode) == (100, "all")
