"""Table tests of the default filter plugins, case by case as the upstream plugin tests state them."""

from __future__ import annotations

from typing import Any

import pytest

from workloadbuilder.field import ErrorList, FieldPath
from workloadbuilder.placement.filters import (
    nodeaffinity,
    nodeports,
    noderesources,
    nodeunschedulable,
    static_rejection,
    tainttoleration,
)
from workloadbuilder.placement.k8s.constraints import HostPort, PodConstraints, Taint, read_constraints, read_taints


def constraints(spec: dict[str, Any]) -> PodConstraints:
    errors = ErrorList()
    out = read_constraints(spec, FieldPath("spec"), errors)
    assert list(errors) == []
    return out


def taints(*raw: dict[str, str]) -> tuple[Taint, ...]:
    errors = ErrorList()
    out = read_taints(list(raw), FieldPath("taints"), errors)
    assert list(errors) == []
    return out


# -- TaintToleration (taint_toleration_test.go, toleration_test.go) -------------------------------

TAINT_CASES = [
    (
        "no tolerations, a NoSchedule taint",
        [],
        [{"key": "dedicated", "value": "user1", "effect": "NoSchedule"}],
        ("dedicated", "user1"),
    ),
    (
        "Equal with the same key, value and effect",
        [{"key": "dedicated", "value": "user1", "effect": "NoSchedule"}],
        [{"key": "dedicated", "value": "user1", "effect": "NoSchedule"}],
        None,
    ),
    (
        "Equal with another value",
        [{"key": "dedicated", "operator": "Equal", "value": "user2", "effect": "NoSchedule"}],
        [{"key": "dedicated", "value": "user1", "effect": "NoSchedule"}],
        ("dedicated", "user1"),
    ),
    (
        "Exists ignores the value",
        [{"key": "foo", "operator": "Exists", "effect": "NoSchedule"}],
        [{"key": "foo", "value": "bar", "effect": "NoSchedule"}],
        None,
    ),
    (
        "Exists with an empty key tolerates every taint",
        [{"operator": "Exists"}],
        [{"key": "a", "value": "1", "effect": "NoSchedule"}, {"key": "b", "effect": "NoExecute"}],
        None,
    ),
    (
        "an empty effect matches NoExecute",
        [{"key": "foo", "operator": "Exists"}],
        [{"key": "foo", "value": "bar", "effect": "NoExecute"}],
        None,
    ),
    (
        "a NoSchedule toleration does not tolerate NoExecute",
        [{"key": "foo", "operator": "Exists", "effect": "NoSchedule"}],
        [{"key": "foo", "value": "bar", "effect": "NoExecute"}],
        ("foo", "bar"),
    ),
    ("PreferNoSchedule never rejects", [], [{"key": "foo", "value": "bar", "effect": "PreferNoSchedule"}], None),
    (
        "the first untolerated taint is the one reported",
        [{"key": "a", "operator": "Exists"}],
        [
            {"key": "a", "effect": "NoSchedule"},
            {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"},
            {"key": "c", "value": "x", "effect": "NoSchedule"},
        ],
        ("node.kubernetes.io/not-ready", ""),
    ),
    (
        "Gt: the taint's value is above the toleration's",
        [{"key": "gen", "operator": "Gt", "value": "3", "effect": "NoSchedule"}],
        [{"key": "gen", "value": "5", "effect": "NoSchedule"}],
        None,
    ),
    (
        "Gt: equal values do not tolerate",
        [{"key": "gen", "operator": "Gt", "value": "5", "effect": "NoSchedule"}],
        [{"key": "gen", "value": "5", "effect": "NoSchedule"}],
        ("gen", "5"),
    ),
    (
        "Lt: the taint's value is below the toleration's",
        [{"key": "gen", "operator": "Lt", "value": "10", "effect": "NoSchedule"}],
        [{"key": "gen", "value": "9", "effect": "NoSchedule"}],
        None,
    ),
    (
        "Lt: a leading zero is not a decimal integer",
        [{"key": "gen", "operator": "Lt", "value": "10", "effect": "NoSchedule"}],
        [{"key": "gen", "value": "09", "effect": "NoSchedule"}],
        ("gen", "09"),
    ),
]


@pytest.mark.parametrize(
    ("tolerations", "node_taints", "expected"), [c[1:] for c in TAINT_CASES], ids=[c[0] for c in TAINT_CASES]
)
def test_taint_toleration(
    tolerations: list[dict[str, str]], node_taints: list[dict[str, str]], expected: tuple[str, str] | None
) -> None:
    """The first untolerated taint is found; the plugin's reason never names it (kubernetes#134740)."""
    pod = constraints({"tolerations": tolerations})
    found = tainttoleration.untolerated(taints(*node_taints), pod.tolerations)
    assert (None if found is None else (found.key, found.value)) == expected
    reason = tainttoleration.check(taints(*node_taints), pod.tolerations)
    assert reason == (None if expected is None else "node(s) had untolerated taint(s)")


# -- NodeUnschedulable (node_unschedulable_test.go) ---------------------------------------------------

UNSCHEDULABLE_CASES = [
    ("a schedulable node", False, [], None),
    ("a cordoned node, no toleration", True, [], "node(s) were unschedulable"),
    (
        "a cordoned node, the unschedulable toleration",
        True,
        [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}],
        None,
    ),
    ("a cordoned node, a toleration of everything", True, [{"operator": "Exists"}], None),
    (
        "a cordoned node, a NoExecute toleration only",
        True,
        [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoExecute"}],
        "node(s) were unschedulable",
    ),
]


@pytest.mark.parametrize(
    ("cordoned", "tolerations", "expected"),
    [c[1:] for c in UNSCHEDULABLE_CASES],
    ids=[c[0] for c in UNSCHEDULABLE_CASES],
)
def test_node_unschedulable(cordoned: bool, tolerations: list[dict[str, str]], expected: str | None) -> None:
    assert nodeunschedulable.check(cordoned, constraints({"tolerations": tolerations}).tolerations) == expected


# -- NodeAffinity (node_affinity_test.go, nodeaffinity_test.go) ------------------------------------------


def required(*terms: dict[str, Any]) -> dict[str, Any]:
    return {
        "affinity": {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}
        }
    }


def expr(key: str, operator: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": operator, "values": list(values)}


LABELS = {"zone": "a", "gpu": "h100", "gen": "5"}
AFFINITY_CASES = [
    ("no selector matches every node", {}, True),
    ("a matching nodeSelector", {"nodeSelector": {"zone": "a"}}, True),
    ("a nodeSelector value that differs", {"nodeSelector": {"zone": "b"}}, False),
    ("a nodeSelector key the node lacks", {"nodeSelector": {"rack": "r1"}}, False),
    ("In", required({"matchExpressions": [expr("gpu", "In", "a100", "h100")]}), True),
    ("In with no matching value", required({"matchExpressions": [expr("gpu", "In", "a100")]}), False),
    (
        "NotIn holds where the label has another value",
        required({"matchExpressions": [expr("gpu", "NotIn", "a100")]}),
        True,
    ),
    ("NotIn holds where the label is missing", required({"matchExpressions": [expr("rack", "NotIn", "r1")]}), True),
    ("Exists", required({"matchExpressions": [expr("gpu", "Exists")]}), True),
    ("DoesNotExist on a present label", required({"matchExpressions": [expr("gpu", "DoesNotExist")]}), False),
    ("Gt", required({"matchExpressions": [expr("gen", "Gt", "4")]}), True),
    ("Gt on equal numbers", required({"matchExpressions": [expr("gen", "Gt", "5")]}), False),
    ("Lt", required({"matchExpressions": [expr("gen", "Lt", "6")]}), True),
    ("Gt on a label that is not a number", required({"matchExpressions": [expr("zone", "Gt", "1")]}), False),
    (
        "expressions of one term are ANDed",
        required({"matchExpressions": [expr("gpu", "Exists"), expr("zone", "In", "b")]}),
        False,
    ),
    (
        "terms are ORed",
        required({"matchExpressions": [expr("zone", "In", "b")]}, {"matchExpressions": [expr("gpu", "Exists")]}),
        True,
    ),
    ("an empty term matches nothing", required({}), False),
    ("no terms match nothing", required(), False),
    ("matchFields on metadata.name", required({"matchFields": [expr("metadata.name", "In", "n1")]}), True),
    ("matchFields on another name", required({"matchFields": [expr("metadata.name", "In", "n2")]}), False),
    (
        "nodeSelector and affinity must both hold",
        {**required({"matchExpressions": [expr("gpu", "Exists")]}), "nodeSelector": {"zone": "b"}},
        False,
    ),
]


@pytest.mark.parametrize(("spec", "expected"), [c[1:] for c in AFFINITY_CASES], ids=[c[0] for c in AFFINITY_CASES])
def test_node_affinity(spec: dict[str, Any], expected: bool) -> None:
    reason = nodeaffinity.check(constraints(spec), LABELS, "n1")
    assert reason == (None if expected else "node(s) didn't match Pod's node affinity/selector")


# -- NodePorts (node_ports_test.go) ----------------------------------------------------------------------

PORT_CASES = [
    ("nothing used", [HostPort(8080)], [], None),
    (
        "the same TCP port",
        [HostPort(8080)],
        [HostPort(8080)],
        "node(s) didn't have free ports for the requested pod ports",
    ),
    ("another protocol", [HostPort(8080, "UDP")], [HostPort(8080)], None),
    ("two specific addresses", [HostPort(8080, "TCP", "127.0.0.1")], [HostPort(8080, "TCP", "10.0.0.1")], None),
    (
        "a wildcard against a specific address",
        [HostPort(8080)],
        [HostPort(8080, "TCP", "10.0.0.1")],
        "node(s) didn't have free ports for the requested pod ports",
    ),
    (
        "the same specific address",
        [HostPort(9000, "TCP", "10.0.0.1")],
        [HostPort(9000, "TCP", "10.0.0.1")],
        "node(s) didn't have free ports for the requested pod ports",
    ),
]


@pytest.mark.parametrize(("wanted", "used", "expected"), [c[1:] for c in PORT_CASES], ids=[c[0] for c in PORT_CASES])
def test_node_ports(wanted: list[HostPort], used: list[HostPort], expected: str | None) -> None:
    assert nodeports.check(wanted, used) == expected


def test_host_ports_are_read_from_regular_containers_only() -> None:
    spec = {
        "initContainers": [{"name": "i", "ports": [{"containerPort": 1, "hostPort": 7000}]}],
        "containers": [
            {"name": "c", "ports": [{"containerPort": 80, "hostPort": 8080, "protocol": "UDP"}, {"containerPort": 81}]}
        ],
    }
    assert constraints(spec).host_ports == (HostPort(8080, "UDP"),)


# -- NodeResourcesFit (fit_test.go) ---------------------------------------------------------------------

G = 1000
FIT_CASES = [
    ("fits", {"cpu": 1 * G}, {"cpu": 2 * G, "pods": 3 * G}, []),
    ("no pod slot left, even for a pod without requests", {}, {"cpu": 2 * G, "pods": 0}, ["Too many pods"]),
    (
        "every short resource is a reason",
        {"cpu": 3 * G, "memory": 5 * G, "nvidia.com/gpu": 2 * G},
        {"cpu": 2 * G, "memory": 4 * G, "nvidia.com/gpu": 1 * G, "pods": 0},
        ["Too many pods", "Insufficient cpu", "Insufficient memory", "Insufficient nvidia.com/gpu"],
    ),
    ("an extended resource the node lacks", {"example.com/foo": 1 * G}, {"pods": G}, ["Insufficient example.com/foo"]),
    (
        "hugepages and ephemeral storage",
        {"hugepages-2Mi": 4 * G, "ephemeral-storage": 9 * G},
        {"hugepages-2Mi": 2 * G, "ephemeral-storage": 10 * G, "pods": G},
        ["Insufficient hugepages-2Mi"],
    ),
    ("an over-committed node has a debt, not room", {"cpu": 1}, {"cpu": -500, "pods": G}, ["Insufficient cpu"]),
    ("a name the scheduler does not track is ignored", {"foo": 5 * G}, {"pods": G}, []),
]


@pytest.mark.parametrize(("requests", "free", "expected"), [c[1:] for c in FIT_CASES], ids=[c[0] for c in FIT_CASES])
def test_node_resources_fit(requests: dict[str, int], free: dict[str, int], expected: list[str]) -> None:
    assert noderesources.check(requests, free) == expected


# -- the framework's order --------------------------------------------------------------------------

ORDER_CASES = [
    (
        "NodeUnschedulable runs before TaintToleration",
        True,
        [{"key": "x", "effect": "NoSchedule"}],
        {},
        "n1",
        ("NodeUnschedulable", ("node(s) were unschedulable",)),
    ),
    (
        "NodeName runs before TaintToleration",
        False,
        [{"key": "x", "effect": "NoSchedule"}],
        {"nodeName": "n2"},
        "n1",
        ("NodeName", ("node(s) didn't match the requested node name",)),
    ),
    (
        "TaintToleration runs before NodeAffinity",
        False,
        [{"key": "x", "effect": "NoSchedule"}],
        {"nodeSelector": {"zone": "b"}},
        "n1",
        ("TaintToleration", ("node(s) had untolerated taint(s)",)),
    ),
    ("every filter passes", False, [], {"nodeName": "n1"}, "n1", None),
]


@pytest.mark.parametrize(
    ("cordoned", "node_taints", "spec", "name", "expected"),
    [c[1:] for c in ORDER_CASES],
    ids=[c[0] for c in ORDER_CASES],
)
def test_the_first_failing_plugin_is_the_one_reported(
    cordoned: bool,
    node_taints: list[dict[str, str]],
    spec: dict[str, Any],
    name: str,
    expected: tuple[str, tuple[str, ...]] | None,
) -> None:
    rejection = static_rejection(constraints(spec), name, LABELS, taints(*node_taints), cordoned)
    assert (None if rejection is None else (rejection.plugin, rejection.reasons)) == expected


BAD_SPECS = [
    (
        "an unknown toleration operator",
        {"tolerations": [{"key": "a", "operator": "Has"}]},
        ['spec.tolerations[0].operator: Unsupported value: "Has": supported values: "Equal", "Exists", "Lt", "Gt"'],
    ),
    (
        "an unknown selector operator",
        required({"matchExpressions": [expr("a", "Near")]}),
        [
            (
                "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                "nodeSelectorTerms[0].matchExpressions[0].operator: "
                'Unsupported value: "Near": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"'
            )
        ],
    ),
    (
        "a nodeSelector value that is not a string",
        {"nodeSelector": {"zone": 3}},
        ["spec.nodeSelector[zone]: Invalid value: 3: must be of type string"],
    ),
]


@pytest.mark.parametrize(("spec", "expected"), [c[1:] for c in BAD_SPECS], ids=[c[0] for c in BAD_SPECS])
def test_malformed_filter_inputs_are_field_errors(spec: dict[str, Any], expected: list[str]) -> None:
    errors = ErrorList()
    read_constraints(spec, FieldPath("spec"), errors)
    assert [str(e) for e in errors] == expected
