"""Pod and node constraints read from Kubernetes JSON: taints, tolerations, selectors, affinity, ports, spread.

Each reader gives small frozen records with the API's defaults (an empty
toleration operator is ``Equal``, a host port's protocol ``TCP`` and address
``0.0.0.0``, a spread constraint's policies ``Honor``/``Ignore`` and
``minDomains`` 1) and reports every malformed field as one ``FieldError``
at its path, leaving the entry out.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workloadbuilder.field import ErrorList, FieldPath
from workloadbuilder.placement.k8s.constraints import (
    AffinityTerm,
    HostPort,
    LabelSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodConstraints,
    SpreadConstraint,
    Taint,
    Toleration,
    read_constraints,
    read_host_ports,
    read_taints,
)


def read(spec: dict[str, Any], metadata: dict[str, Any] | None = None) -> tuple[PodConstraints, list[str]]:
    errors = ErrorList()
    out = read_constraints(spec, FieldPath("spec"), errors, metadata)
    return out, [str(error) for error in errors]


def test_taints_keep_the_nodes_order_and_drop_unknown_effects() -> None:
    errors = ErrorList()
    raw = [
        {"key": "a", "effect": "NoSchedule"},
        {"key": "b", "value": "v", "effect": "Sometimes"},
        {"key": "c", "value": "w", "effect": "NoExecute"},
        {"key": "d", "effect": "PreferNoSchedule"},
    ]
    assert read_taints(raw, FieldPath("spec", "taints"), errors) == (
        Taint("a", "", "NoSchedule"),
        Taint("c", "w", "NoExecute"),
        Taint("d", "", "PreferNoSchedule"),
    )
    assert [str(e) for e in errors] == [
        'spec.taints[1].effect: Unsupported value: "Sometimes": supported values: '
        '"NoSchedule", "PreferNoSchedule", "NoExecute"'
    ]


def test_no_taints_is_an_empty_tuple() -> None:
    errors = ErrorList()
    assert read_taints(None, FieldPath("taints"), errors) == ()
    assert list(errors) == []


def test_tolerations_are_read_with_their_defaults() -> None:
    pod, errors = read(
        {
            "tolerations": [
                {"key": "a", "value": "x"},
                {"operator": "Exists"},
                {"key": "b", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30},
                {"key": "c", "operator": "Gt", "value": "5", "effect": "NoSchedule"},
            ]
        }
    )
    assert errors == []
    assert pod.tolerations == (
        Toleration("a", "", "x", ""),
        Toleration("", "Exists", "", ""),
        Toleration("b", "Exists", "", "NoExecute"),
        Toleration("c", "Gt", "5", "NoSchedule"),
    )


BAD_TOLERATIONS = [
    (
        "unknown operator",
        {"key": "a", "operator": "In"},
        'spec.tolerations[0].operator: Unsupported value: "In": supported values: "Equal", "Exists", "Lt", "Gt"',
    ),
    (
        "unknown effect",
        {"key": "a", "effect": "Never"},
        'spec.tolerations[0].effect: Unsupported value: "Never": supported values: '
        '"NoSchedule", "PreferNoSchedule", "NoExecute"',
    ),
]


@pytest.mark.parametrize(("entry", "error"), [c[1:] for c in BAD_TOLERATIONS], ids=[c[0] for c in BAD_TOLERATIONS])
def test_a_bad_toleration_is_one_error_and_left_out(entry: dict[str, str], error: str) -> None:
    pod, errors = read({"tolerations": [entry, {"key": "ok", "operator": "Exists"}]})
    assert errors == [error]
    assert pod.tolerations == (Toleration("ok", "Exists"),)


def test_host_ports_defaults_and_what_is_skipped() -> None:
    errors = ErrorList()
    spec = {
        "initContainers": [{"name": "init", "ports": [{"containerPort": 1, "hostPort": 1}]}],
        "containers": [
            {"name": "a", "ports": [{"containerPort": 80}, {"containerPort": 80, "hostPort": 0}]},
            {
                "name": "b",
                "ports": [
                    {"containerPort": 8080, "hostPort": 8080},
                    {"containerPort": 53, "hostPort": 5353, "protocol": "UDP", "hostIP": "10.0.0.1"},
                ],
            },
        ],
    }
    assert read_host_ports(spec, FieldPath("spec"), errors) == (
        HostPort(8080, "TCP", "0.0.0.0"),
        HostPort(5353, "UDP", "10.0.0.1"),
    )
    assert list(errors) == []


BAD_PORTS = [
    (
        "above 65535",
        {"hostPort": 65536},
        "spec.containers[0].ports[0].hostPort: Invalid value: 65536: must be a port number",
    ),
    ("negative", {"hostPort": -1}, "spec.containers[0].ports[0].hostPort: Invalid value: -1: must be a port number"),
    (
        "a boolean",
        {"hostPort": True},
        "spec.containers[0].ports[0].hostPort: Invalid value: true: must be a port number",
    ),
    (
        "unknown protocol",
        {"hostPort": 80, "protocol": "HTTP"},
        'spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "TCP", "UDP", "SCTP"',
    ),
]


@pytest.mark.parametrize(("port", "error"), [c[1:] for c in BAD_PORTS], ids=[c[0] for c in BAD_PORTS])
def test_a_bad_host_port_is_one_error(port: dict[str, Any], error: str) -> None:
    errors = ErrorList()
    assert read_host_ports({"containers": [{"ports": [port]}]}, FieldPath("spec"), errors) == ()
    assert [str(e) for e in errors] == [error]


CONFLICTS = [
    ("same address", HostPort(80, "TCP", "10.0.0.1"), HostPort(80, "TCP", "10.0.0.1"), True),
    ("wildcard on one side", HostPort(80, "TCP", "0.0.0.0"), HostPort(80, "TCP", "10.0.0.1"), True),
    ("two addresses", HostPort(80, "TCP", "10.0.0.1"), HostPort(80, "TCP", "10.0.0.2"), False),
    ("another protocol", HostPort(80, "TCP"), HostPort(80, "UDP"), False),
    ("another port", HostPort(80), HostPort(81), False),
]


@pytest.mark.parametrize(("a", "b", "expected"), [c[1:] for c in CONFLICTS], ids=[c[0] for c in CONFLICTS])
def test_host_port_conflicts(a: HostPort, b: HostPort, expected: bool) -> None:
    assert (a.conflicts(b), b.conflicts(a)) == (expected, expected)


SELECTOR = LabelSelector(
    (("app", "web"),),
    (
        NodeSelectorRequirement("tier", "In", ("front", "edge")),
        NodeSelectorRequirement("canary", "DoesNotExist"),
        NodeSelectorRequirement("team", "Exists"),
        NodeSelectorRequirement("env", "NotIn", ("prod",)),
    ),
)
MATCHES = [
    ("every requirement holds", {"app": "web", "tier": "edge", "team": "x"}, True),
    ("NotIn with another value", {"app": "web", "tier": "edge", "team": "x", "env": "dev"}, True),
    ("matchLabels differs", {"app": "db", "tier": "edge", "team": "x"}, False),
    ("In with another value", {"app": "web", "tier": "back", "team": "x"}, False),
    ("DoesNotExist with the label", {"app": "web", "tier": "edge", "team": "x", "canary": ""}, False),
    ("Exists without the label", {"app": "web", "tier": "edge"}, False),
    ("NotIn with the value", {"app": "web", "tier": "edge", "team": "x", "env": "prod"}, False),
]


@pytest.mark.parametrize(("labels", "expected"), [c[1:] for c in MATCHES], ids=[c[0] for c in MATCHES])
def test_label_selector(labels: dict[str, str], expected: bool) -> None:
    assert SELECTOR.matches(labels) is expected


def test_an_empty_label_selector_selects_every_pod() -> None:
    assert (LabelSelector().matches({}), LabelSelector().matches({"a": "b"})) == (True, True)


def pod_affinity(term: dict[str, Any], namespace: str = "team-a") -> tuple[AffinityTerm, ...]:
    pod, errors = read(
        {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}},
        {"namespace": namespace},
    )
    assert errors == []
    return pod.pod_affinity


NAMESPACES = [
    ("no namespaces: the pod's own", {}, ("team-a",)),
    ("listed namespaces", {"namespaces": ["x", "y"]}, ("x", "y")),
    ("an empty namespaceSelector: every namespace", {"namespaceSelector": {}}, None),
    ("listed and an empty selector: every namespace", {"namespaces": ["x"], "namespaceSelector": {}}, None),
]


@pytest.mark.parametrize(("extra", "namespaces"), [c[1:] for c in NAMESPACES], ids=[c[0] for c in NAMESPACES])
def test_affinity_term_namespaces(extra: dict[str, Any], namespaces: tuple[str, ...] | None) -> None:
    term = {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "db"}}, **extra}
    assert pod_affinity(term) == (AffinityTerm("zone", LabelSelector((("app", "db"),)), namespaces),)


def test_a_term_without_label_selector_counts_nothing_and_is_dropped() -> None:
    assert pod_affinity({"topologyKey": "zone"}) == ()


def test_affinity_term_matches_namespace_and_labels() -> None:
    term = AffinityTerm("zone", LabelSelector((("app", "db"),)), ("a",))
    everywhere = AffinityTerm("zone", LabelSelector((("app", "db"),)), None)
    assert [term.matches("a", {"app": "db"}), term.matches("b", {"app": "db"}), term.matches("a", {})] == [
        True,
        False,
        False,
    ]
    assert everywhere.matches("b", {"app": "db"}) is True


def test_spread_constraints_defaults_policies_and_match_label_keys() -> None:
    pod, errors = read(
        {
            "topologySpreadConstraints": [
                {"maxSkew": 1, "topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "w"}}},
                {"maxSkew": 2, "topologyKey": "rack", "whenUnsatisfiable": "ScheduleAnyway"},
                {
                    "maxSkew": 3,
                    "topologyKey": "host",
                    "minDomains": 4,
                    "whenUnsatisfiable": "DoNotSchedule",
                    "nodeAffinityPolicy": "Ignore",
                    "nodeTaintsPolicy": "Honor",
                    "labelSelector": {"matchLabels": {"app": "w"}},
                    "matchLabelKeys": ["pod-template-hash", "absent"],
                },
            ]
        },
        {"labels": {"app": "w", "pod-template-hash": "abc"}},
    )
    assert errors == []
    assert pod.spread == (
        SpreadConstraint(1, "zone", LabelSelector((("app", "w"),)), 1, True, False),
        SpreadConstraint(3, "host", LabelSelector((("app", "w"), ("pod-template-hash", "abc"))), 4, False, True),
    )


BAD_SPREAD = [
    (
        "maxSkew 0",
        {"maxSkew": 0},
        "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be an integer of at least 1",
    ),
    (
        "maxSkew missing",
        {},
        "spec.topologySpreadConstraints[0].maxSkew: Invalid value: null: must be an integer of at least 1",
    ),
    (
        "minDomains a string",
        {"maxSkew": 1, "minDomains": "2"},
        'spec.topologySpreadConstraints[0].minDomains: Invalid value: "2": must be of type integer',
    ),
]


@pytest.mark.parametrize(("entry", "error"), [c[1:] for c in BAD_SPREAD], ids=[c[0] for c in BAD_SPREAD])
def test_a_bad_spread_constraint_is_one_error(entry: dict[str, Any], error: str) -> None:
    pod, errors = read({"topologySpreadConstraints": [{"topologyKey": "zone", **entry}]})
    assert (pod.spread, errors) == ((), [error])


def test_node_selector_affinity_and_preferences_are_read() -> None:
    pod, errors = read(
        {
            "nodeName": "n7",
            "nodeSelector": {"z": "1", "a": "2"},
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [{"key": "gpu", "operator": "Exists"}],
                                "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n7"]}],
                            }
                        ]
                    },
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 10,
                            "preference": {"matchExpressions": [{"key": "z", "operator": "In", "values": ["1"]}]},
                        }
                    ],
                }
            },
        }
    )
    assert errors == []
    assert pod.node_name == "n7"
    assert pod.node_selector == (("a", "2"), ("z", "1"))
    assert pod.affinity == (
        NodeSelectorTerm(
            (NodeSelectorRequirement("gpu", "Exists"),), (NodeSelectorRequirement("metadata.name", "In", ("n7",)),)
        ),
    )
    assert pod.preferred == ((10, NodeSelectorTerm((NodeSelectorRequirement("z", "In", ("1",)),))),)


def test_affinity_absent_is_none_and_required_without_terms_is_empty() -> None:
    absent, _ = read({"affinity": {"nodeAffinity": {}}})
    empty, errors = read({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {}}}})
    assert (absent.affinity, empty.affinity, errors) == (None, (), [])


def test_a_node_selector_operator_outside_the_api_is_an_error() -> None:
    pod, errors = read(
        {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Equals"}]}]
                    }
                }
            }
        }
    )
    assert pod.affinity == (NodeSelectorTerm(),)
    assert errors == [
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
        '.matchExpressions[0].operator: Unsupported value: "Equals": supported values: '
        '"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"'
    ]


def test_metadata_gives_namespace_and_sorted_labels() -> None:
    pod, _ = read({}, {"namespace": "ml", "labels": {"b": "2", "a": "1"}})
    default, _ = read({})
    assert (pod.namespace, pod.labels, pod.label_map) == ("ml", (("a", "1"), ("b", "2")), {"a": "1", "b": "2"})
    assert (default.namespace, default.labels) == ("default", ())


SELECTS = [
    ("nothing", PodConstraints(), False),
    (
        "tolerations and ports alone",
        PodConstraints(tolerations=(Toleration("", "Exists"),), host_ports=(HostPort(1),)),
        False,
    ),
    ("a nodeSelector", PodConstraints(node_selector=(("a", "b"),)), True),
    ("required affinity, even empty", PodConstraints(affinity=()), True),
    ("a nodeName", PodConstraints(node_name="n"), True),
    ("pod anti-affinity", PodConstraints(pod_anti_affinity=(AffinityTerm("h", LabelSelector(), None),)), True),
    ("a spread constraint", PodConstraints(spread=(SpreadConstraint(1, "z", LabelSelector()),)), True),
]


@pytest.mark.parametrize(("pod", "expected"), [c[1:] for c in SELECTS], ids=[c[0] for c in SELECTS])
def test_selects_nodes(pod: PodConstraints, expected: bool) -> None:
    assert pod.selects_nodes is expected


@settings(max_examples=50, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "b", "c"]), st.sampled_from(["x", "y"]), max_size=3))
def test_equal_specs_give_equal_hashable_constraints(selector: dict[str, str]) -> None:
    """Pods of one kind share one ``PodConstraints``: the selector is sorted, so key order does not matter."""
    first, _ = read({"nodeSelector": selector})
    second, _ = read({"nodeSelector": dict(reversed(list(selector.items())))})
    assert first == second
    assert hash(first) == hash(second)
    assert first.node_selector == tuple(sorted(selector.items()))
