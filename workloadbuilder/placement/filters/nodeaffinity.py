"""NodeAffinity: ``nodeSelector`` and required node affinity decide which nodes a pod may use.

Follows kubernetes/kubernetes ``pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go``
and ``k8s.io/component-helpers/scheduling/corev1/nodeaffinity``: every
``nodeSelector`` pair must match; of the required ``nodeSelectorTerms`` one
must match (terms are ORed), a term's requirements all hold (ANDed), and a
term with no requirement matches no node. ``In``/``NotIn`` compare values
(``NotIn`` and ``DoesNotExist`` hold where the label is missing), ``Gt``/``Lt``
compare the label as an integer with the single value. ``matchFields``
reads ``metadata.name`` only.

The plugin's PreFilter narrows the nodes before any filter runs when every
required term names nodes (``matchFields`` ``metadata.name`` ``In``; a
term's names are intersected, the terms' names united): the framework
never filters the other nodes and counts them under ``node(s) didn't
satisfy plugin(s) [NodeAffinity]``; when the union is empty, PreFilter
fails with ``pod affinity terms conflict``, which ``FitError`` prints alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from workloadbuilder.placement.k8s.constraints import NodeSelectorRequirement, NodeSelectorTerm, PodConstraints

__all__ = [
    "CONFLICT_REASON",
    "NAME",
    "PREFILTERED_REASON",
    "REASON",
    "check",
    "matches",
    "preferred_score",
    "prefilter",
    "value_verdicts",
]

NAME = "NodeAffinity"
REASON = "node(s) didn't match Pod's node affinity/selector"
CONFLICT_REASON = "pod affinity terms conflict"
"""PreFilter's status when the required terms' node names have nothing in common."""
PREFILTERED_REASON = f"node(s) didn't satisfy plugin(s) [{NAME}]"
"""The framework's status for the nodes PreFilter left out (the plugins that narrowed the nodes, sorted)."""


_PARSE_INT = re.compile(r"[+-]?[0-9]+")
_INT64 = range(-(2**63), 2**63)


def _integer(text: str) -> int | None:
    """``text`` as Go's ``strconv.ParseInt(text, 10, 64)`` reads it (a sign, ASCII digits, int64), else ``None``.

    Python's ``int`` would also take underscores, surrounding spaces, other
    scripts' digits and any size, none of which a Gt/Lt requirement accepts.
    """
    if not _PARSE_INT.fullmatch(text):
        return None
    value = int(text)
    return value if value in _INT64 else None


def _holds(requirement: NodeSelectorRequirement, labels: Mapping[str, str]) -> bool:
    operator, values = requirement.operator, requirement.values
    present = requirement.key in labels
    value = labels.get(requirement.key, "")
    if operator == "In":
        return present and value in values
    if operator == "NotIn":
        return not present or value not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if not present or len(values) != 1:
        return False
    have, bound = _integer(value), _integer(values[0])
    if have is None or bound is None:
        return False
    return have > bound if operator == "Gt" else have < bound


def value_verdicts(requirement: NodeSelectorRequirement, values: Sequence[str]) -> list[bool]:
    """Whether ``requirement`` holds for a node whose label ``requirement.key`` is each of ``values``.

    One entry per value, in order, and one more last: the verdict for a
    node without the label. Nodes that share a value share the verdict, so
    a requirement is decided once per distinct value rather than per node.
    """
    operator = requirement.operator
    if operator in ("In", "NotIn"):
        wanted = frozenset(requirement.values)
        inside = operator == "In"
        return [(value in wanted) is inside for value in values] + [not inside]
    if operator in ("Exists", "DoesNotExist"):
        present = operator == "Exists"
        return [present] * len(values) + [not present]
    key = requirement.key
    return [_holds(requirement, {key: value}) for value in values] + [_holds(requirement, {})]


def _term_matches(term: NodeSelectorTerm, labels: Mapping[str, str], name: str) -> bool:
    if not term.expressions and not term.fields:
        return False
    if not all(_holds(requirement, labels) for requirement in term.expressions):
        return False
    for requirement in term.fields:
        if requirement.key != "metadata.name" or requirement.operator not in ("In", "NotIn"):
            return False
        if len(requirement.values) != 1:  # a field selector takes one value
            return False
        if not _holds(requirement, {"metadata.name": name}):
            return False
    return True


def matches(pod: PodConstraints, labels: Mapping[str, str], name: str) -> bool:
    """Whether a node with these labels and name satisfies the pod's required node affinity and selector."""
    for key, value in pod.node_selector:
        if labels.get(key) != value:
            return False
    if pod.affinity is None:
        return True
    return any(_term_matches(term, labels, name) for term in pod.affinity)


def check(pod: PodConstraints, labels: Mapping[str, str], name: str) -> str | None:
    """The plugin's reason when the node does not match, else ``None``."""
    return None if matches(pod, labels, name) else REASON


def prefilter(pod: PodConstraints) -> frozenset[str] | None:
    """The node names PreFilter keeps for ``pod``: ``None`` for every node, empty for a conflict."""
    if not pod.affinity:
        return None
    names: set[str] = set()
    for term in pod.affinity:
        kept: set[str] | None = None
        for requirement in term.fields:
            if requirement.key == "metadata.name" and requirement.operator == "In":
                kept = set(requirement.values) if kept is None else kept & set(requirement.values)
        if kept is None:
            return None
        names |= kept
    return frozenset(names)


def preferred_score(pod: PodConstraints, labels: Mapping[str, str], name: str) -> int:
    """The plugin's raw score: the weights of the preferred terms the node matches, added up."""
    return sum(weight for weight, term in pod.preferred if _term_matches(term, labels, name))
