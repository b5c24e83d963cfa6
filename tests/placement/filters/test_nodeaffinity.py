"""NodeAffinity: ``nodeSelector`` and required node affinity as ``component-helpers/scheduling/corev1/nodeaffinity``.

Every ``nodeSelector`` pair must match; of the ``nodeSelectorTerms`` one must
match (ORed), a term's requirements all hold (ANDed), a term with no
requirement (and an empty term list) matches no node. ``Gt``/``Lt`` parse the
label and the single value as Go's ``strconv.ParseInt(s, 10, 64)``;
``matchFields`` reads ``metadata.name``. Cases follow ``node_affinity_test.go``;
the plugin's raw score adds the weights of the preferred terms a node matches.
"""

from __future__ import annotations

from typing import Any

import pytest

from workloadbuilder.field import ErrorList, FieldPath
from workloadbuilder.placement.filters import nodeaffinity
from workloadbuilder.placement.k8s.constraints import (
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodConstraints,
    read_constraints,
)

REASON = "node(s) didn't match Pod's node affinity/selector"


def req(key: str, operator: str, *values: str) -> NodeSelectorRequirement:
    return NodeSelectorRequirement(key, operator, values)


def term(*expressions: NodeSelectorRequirement, fields: tuple[NodeSelectorRequirement, ...] = ()) -> NodeSelectorTerm:
    return NodeSelectorTerm(expressions, fields)


def required(*terms: NodeSelectorTerm, selector: dict[str, str] | None = None) -> PodConstraints:
    return PodConstraints(node_selector=tuple(sorted((selector or {}).items())), affinity=terms)


def selector(**pairs: str) -> PodConstraints:
    return PodConstraints(node_selector=tuple(sorted(pairs.items())))


CASES: list[tuple[str, PodConstraints, dict[str, str], str, bool]] = [
    ("no selector and no affinity: every node", PodConstraints(), {}, "n1", True),
    ("nodeSelector matches", selector(foo="bar"), {"foo": "bar"}, "n1", True),
    ("nodeSelector with another value", selector(foo="bar"), {"foo": "baz"}, "n1", False),
    ("nodeSelector key missing", selector(foo="bar"), {"baz": "bar"}, "n1", False),
    ("nodeSelector pairs are ANDed", selector(foo="bar", zone="a"), {"foo": "bar", "zone": "b"}, "n1", False),
    ("nodeSelector empty value needs the empty label", selector(foo=""), {"foo": ""}, "n1", True),
    ("empty term list matches no node", required(), {"foo": "bar"}, "n1", False),
    ("a term with no requirement matches no node", required(term()), {"foo": "bar"}, "n1", False),
    ("In matches one of the values", required(term(req("foo", "In", "value1", "bar"))), {"foo": "bar"}, "n1", True),
    ("In with another value", required(term(req("foo", "In", "value1"))), {"foo": "bar"}, "n1", False),
    ("In with the label missing", required(term(req("foo", "In", "bar"))), {}, "n1", False),
    ("NotIn with a listed value", required(term(req("m", "NotIn", "DDR", "DDR2"))), {"m": "DDR"}, "n1", False),
    ("NotIn with another value", required(term(req("m", "NotIn", "DDR", "DDR2"))), {"m": "DDR3"}, "n1", True),
    ("NotIn holds where the label is missing", required(term(req("m", "NotIn", "DDR"))), {}, "n1", True),
    ("Exists", required(term(req("GPU", "Exists"))), {"GPU": "NVIDIA-GRID-K1"}, "n1", True),
    ("Exists with the label missing", required(term(req("GPU", "Exists"))), {}, "n1", False),
    ("DoesNotExist", required(term(req("GPU", "DoesNotExist"))), {}, "n1", True),
    ("DoesNotExist with the label", required(term(req("GPU", "DoesNotExist"))), {"GPU": ""}, "n1", False),
    ("Gt with leading zeros, as ParseInt", required(term(req("kv", "Gt", "0204"))), {"kv": "0206"}, "n1", True),
    ("Gt is strict", required(term(req("kv", "Gt", "204"))), {"kv": "204"}, "n1", False),
    ("Lt", required(term(req("kv", "Lt", "10"))), {"kv": "9"}, "n1", True),
    ("Lt compares numbers, not text", required(term(req("kv", "Lt", "10"))), {"kv": "100"}, "n1", False),
    ("Lt with negative numbers", required(term(req("kv", "Lt", "-1"))), {"kv": "-5"}, "n1", True),
    ("Gt with a label that is no integer", required(term(req("kv", "Gt", "1"))), {"kv": "v2"}, "n1", False),
    ("Gt with a value that is no integer", required(term(req("kv", "Gt", "v1"))), {"kv": "2"}, "n1", False),
    ("Gt with two values", required(term(req("kv", "Gt", "1", "2"))), {"kv": "5"}, "n1", False),
    ("Gt with the label missing", required(term(req("kv", "Gt", "1"))), {}, "n1", False),
    (
        "requirements of a term are ANDed",
        required(term(req("foo", "In", "bar"), req("GPU", "Exists"))),
        {"foo": "bar"},
        "n1",
        False,
    ),
    (
        "terms are ORed",
        required(term(req("foo", "In", "nope")), term(req("GPU", "Exists"))),
        {"GPU": "x"},
        "n1",
        True,
    ),
    (
        "nodeSelector and affinity must both match",
        required(term(req("GPU", "Exists")), selector={"foo": "bar"}),
        {"GPU": "x"},
        "n1",
        False,
    ),
    (
        "nodeSelector and affinity both matching",
        required(term(req("GPU", "Exists")), selector={"foo": "bar"}),
        {"GPU": "x", "foo": "bar"},
        "n1",
        True,
    ),
    ("matchFields metadata.name In", required(term(fields=(req("metadata.name", "In", "n1"),))), {}, "n1", True),
    (
        "matchFields metadata.name In another node",
        required(term(fields=(req("metadata.name", "In", "n2"),))),
        {},
        "n1",
        False,
    ),
    (
        "matchFields metadata.name NotIn",
        required(term(fields=(req("metadata.name", "NotIn", "n1"),))),
        {},
        "n2",
        True,
    ),
    (
        "matchFields and matchExpressions of one term are ANDed",
        required(term(req("foo", "In", "bar"), fields=(req("metadata.name", "In", "n1"),))),
        {"foo": "bar"},
        "n2",
        False,
    ),
    (
        "a term matching by name, another by label: ORed",
        required(term(fields=(req("metadata.name", "In", "n9"),)), term(req("foo", "In", "bar"))),
        {"foo": "bar"},
        "n1",
        True,
    ),
    (
        "matchFields on another field matches nothing",
        required(term(fields=(req("spec.x", "In", "n1"),))),
        {},
        "n1",
        False,
    ),
]


@pytest.mark.parametrize(("pod", "labels", "name", "fits"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_matches_and_check(pod: PodConstraints, labels: dict[str, str], name: str, fits: bool) -> None:
    assert nodeaffinity.matches(pod, labels, name) is fits
    assert nodeaffinity.check(pod, labels, name) == (None if fits else REASON)


@pytest.mark.parametrize(
    ("operator", "bound", "label", "holds"),
    [
        ("Gt", "5", "1_0", False),
        ("Gt", "5", "99999999999999999999", False),
        ("Lt", "1_000", "20", False),
        ("Gt", "5", " 10", False),
        ("Gt", "5", "\u0661\u0660", False),
        ("Gt", "5", "+10", True),
        ("Gt", "5", "010", True),
        ("Lt", "-3", "-9223372036854775808", True),
        ("Gt", "5", "9223372036854775807", True),
        ("Gt", "5", "9223372036854775808", False),
    ],
    ids=[
        "underscore-digits-label",
        "label-beyond-int64",
        "underscore-digits-value",
        "leading-space",
        "arabic-indic-digits",
        "plus-sign",
        "leading-zero",
        "int64-min",
        "int64-max",
        "one-past-int64-max",
    ],
)
def test_gt_lt_parse_as_go_parseint(operator: str, bound: str, label: str, holds: bool) -> None:
    """Both sides are read as ``strconv.ParseInt(s, 10, 64)``; an unparsable one makes the requirement fail."""
    pod = required(term(req("kv", operator, bound)))
    assert nodeaffinity.matches(pod, {"kv": label}, "n1") is holds


def read(spec: dict[str, Any]) -> PodConstraints:
    errors = ErrorList()
    out = read_constraints(spec, FieldPath("spec"), errors)
    assert list(errors) == []
    return out


def test_a_pod_spec_read_from_json() -> None:
    pod = read(
        {
            "nodeSelector": {"disk": "ssd"},
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]},
                            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["special"]}]},
                        ]
                    }
                }
            },
        }
    )
    assert [
        nodeaffinity.check(pod, labels, name)
        for labels, name in [
            ({"disk": "ssd", "zone": "b"}, "n1"),
            ({"disk": "ssd", "zone": "c"}, "n1"),
            ({"disk": "ssd", "zone": "c"}, "special"),
            ({"zone": "a"}, "special"),
        ]
    ] == [None, REASON, None, REASON]


PREFERRED = PodConstraints(
    preferred=(
        (5, term(req("zone", "In", "a"))),
        (3, term(req("gpu", "Exists"))),
        (7, term()),  # an empty preference matches nothing (NewPreferredSchedulingTerms skips it)
        (2, term(fields=(req("metadata.name", "In", "n1"),))),
    )
)


@pytest.mark.parametrize(
    ("labels", "name", "score"),
    [
        ({}, "n2", 0),
        ({"zone": "a"}, "n2", 5),
        ({"zone": "a", "gpu": "1"}, "n2", 8),
        ({"zone": "a", "gpu": ""}, "n1", 10),
    ],
    ids=["none", "zone", "zone-and-gpu", "all-three"],
)
def test_preferred_score_adds_the_weights_of_matching_terms(labels: dict[str, str], name: str, score: int) -> None:
    assert nodeaffinity.preferred_score(PREFERRED, labels, name) == score


def test_name_and_reason_are_upstreams() -> None:
    assert (nodeaffinity.NAME, nodeaffinity.REASON) == ("NodeAffinity", REASON)
