"""NodeAffinity: ``nodeSelector`` and required node affinity decide which nodes a pod may use.

Follows kubernetes/kubernetes ``pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go``
and ``k8s.io/component-helpers/scheduling/corev1/nodeaffinity``: every
``nodeSelector`` pair must match; of the required ``nodeSelectorTerms`` one
must match (terms are ORed), a term's requirements all hold (ANDed), and a
term with no requirement matches no node. ``In``/``NotIn`` compare values
(``NotIn`` and ``DoesNotExist`` hold where the label is missing), ``Gt``/``Lt``
compare the label as an integer with the single value. ``matchFields``
reads ``metadata.name`` only.
"""

from __future__ import annotations

from collections.abc import Mapping

from workloadbuilder.placement.k8s.constraints import NodeSelectorRequirement, NodeSelectorTerm, PodConstraints

__all__ = ["NAME", "REASON", "check", "matches", "preferred_score"]

NAME = "NodeAffinity"
REASON = "node(s) didn't match Pod's node affinity/selector"


def _integer(text: str) -> int | None:
    try:
        return int(text, 10)
    except ValueError:
        return None


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


def _term_matches(term: NodeSelectorTerm, labels: Mapping[str, str], name: str) -> bool:
    if not term.expressions and not term.fields:
        return False
    if not all(_holds(requirement, labels) for requirement in term.expressions):
        return False
    for requirement in term.fields:
        if requirement.key != "metadata.name" or requirement.operator not in ("In", "NotIn"):
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


def preferred_score(pod: PodConstraints, labels: Mapping[str, str], name: str) -> int:
    """The plugin's raw score: the weights of the preferred terms the node matches, added up."""
    return sum(weight for weight, term in pod.preferred if _term_matches(term, labels, name))
