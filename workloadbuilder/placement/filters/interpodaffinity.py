"""InterPodAffinity: required pod affinity and anti-affinity, per topology domain, against the pods already placed.

Follows kubernetes/kubernetes ``pkg/scheduler/framework/plugins/interpodaffinity/filtering.go``:
a node passes the pod's affinity terms when it has every term's topology
label and its domain holds a pod each term matches, or when no pod
anywhere matches any term and the pod matches all its own terms (the first
pod of a series); it fails the anti-affinity terms when its domain holds a
pod a term matches (a node without the term's label passes). Affinity
failures are unresolvable, anti-affinity failures are not (evicting the
matching pods helps).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from workloadbuilder.placement.k8s.constraints import AffinityTerm, PodConstraints

__all__ = ["AFFINITY_REASON", "ANTI_AFFINITY_REASON", "NAME", "check", "first_of_series", "self_matching"]

NAME = "InterPodAffinity"
AFFINITY_REASON = "node(s) didn't match pod affinity rules"
ANTI_AFFINITY_REASON = "node(s) didn't match pod anti-affinity rules"


def self_matching(term: AffinityTerm, pod: PodConstraints) -> bool:
    """Whether a term of ``pod`` counts pods like ``pod`` itself (the one-pod-per-domain pattern)."""
    return term.matches(pod.namespace, pod.label_map)


def first_of_series(pod: PodConstraints, affinity_domains: Sequence[frozenset[str]]) -> bool:
    """Whether no pod anywhere matches the pod's affinity terms and the pod matches them all itself.

    The first pod of a series then passes the affinity terms on every node
    that has their topology labels.
    """
    return not any(affinity_domains) and all(self_matching(term, pod) for term in pod.pod_affinity)


def check(
    pod: PodConstraints,
    node_labels: Mapping[str, str],
    affinity_domains: Sequence[frozenset[str]],
    anti_domains: Sequence[frozenset[str]],
) -> str | None:
    """The plugin's reason for a node, given per term the topology values where matching pods run.

    ``affinity_domains[k]`` / ``anti_domains[k]`` hold the values of term
    ``k``'s topology key that have at least one pod the term matches.
    """
    if pod.pod_affinity:
        if any(term.topology_key not in node_labels for term in pod.pod_affinity):
            return AFFINITY_REASON
        present = all(
            node_labels[term.topology_key] in domains
            for term, domains in zip(pod.pod_affinity, affinity_domains, strict=True)
        )
        if not present and not first_of_series(pod, affinity_domains):
            return AFFINITY_REASON
    for term, domains in zip(pod.pod_anti_affinity, anti_domains, strict=True):
        value = node_labels.get(term.topology_key)
        if value is not None and value in domains:
            return ANTI_AFFINITY_REASON
    return None
