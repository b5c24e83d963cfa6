"""PodTopologySpread: a pod may not widen the gap between the fullest and the emptiest domain beyond ``maxSkew``.

Follows kubernetes/kubernetes ``pkg/scheduler/framework/plugins/podtopologyspread/filtering.go``
for ``whenUnsatisfiable: DoNotSchedule``: the domains are the values of the
key on the nodes that count (those the pod's node affinity accepts, by
default); a node without the key is rejected; placing the pod on a node
of domain ``d`` must keep ``count(d) + self - min(count) <= maxSkew``, the
minimum taken as 0 while fewer than ``minDomains`` domains exist.
"""

from __future__ import annotations

from collections.abc import Mapping

from workloadbuilder.placement.k8s.constraints import SpreadConstraint

__all__ = ["MISSING_LABEL_REASON", "NAME", "REASON", "check"]

NAME = "PodTopologySpread"
REASON = "node(s) didn't match pod topology spread constraints"
MISSING_LABEL_REASON = "node(s) didn't match pod topology spread constraints (missing required label)"


def check(constraint: SpreadConstraint, value: str | None, counts: Mapping[str, int], self_match: bool) -> str | None:
    """The plugin's reason for a node whose domain is ``value``, given each domain's count of matching pods."""
    if value is None:
        return MISSING_LABEL_REASON
    lowest = min(counts.values(), default=0) if len(counts) >= constraint.min_domains else 0
    if counts.get(value, 0) + int(self_match) - lowest > constraint.max_skew:
        return REASON
    return None
