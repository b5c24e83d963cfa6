"""TaintToleration: a node's ``NoSchedule`` and ``NoExecute`` taints reject pods that do not tolerate them.

Follows kubernetes/kubernetes ``pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go``
and the toleration matching of ``k8s.io/api/core/v1/toleration.go``
(``ToleratesTaint``): an empty toleration effect matches every effect, an
empty key matches every key (meaningful with ``Exists``), ``Equal`` (or no
operator) compares values, ``Exists`` ignores them, and ``Lt``/``Gt``
compare decimal integers (the taint's value below / above the
toleration's). ``PreferNoSchedule`` taints never reject; scoring counts them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from workloadbuilder.placement.k8s.constraints import Taint, Toleration

__all__ = [
    "FILTERED_EFFECTS",
    "NAME",
    "check",
    "intolerable_preferences",
    "reason",
    "tolerated",
    "tolerates",
    "untolerated",
]

NAME = "TaintToleration"
FILTERED_EFFECTS = ("NoSchedule", "NoExecute")
_DECIMAL = re.compile(r"-?(0|[1-9][0-9]*)\Z")


def tolerates(toleration: Toleration, taint: Taint) -> bool:
    """Whether one toleration tolerates one taint."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    if toleration.operator in ("", "Equal"):
        return toleration.value == taint.value
    if toleration.operator == "Exists":
        return True
    if not _DECIMAL.match(toleration.value) or not _DECIMAL.match(taint.value):
        return False
    if toleration.operator == "Lt":
        return int(taint.value) < int(toleration.value)
    return int(taint.value) > int(toleration.value)


def tolerated(taint: Taint, tolerations: Sequence[Toleration]) -> bool:
    """Whether any of ``tolerations`` tolerates ``taint``."""
    return any(tolerates(toleration, taint) for toleration in tolerations)


def untolerated(taints: Sequence[Taint], tolerations: Sequence[Toleration]) -> Taint | None:
    """The first ``NoSchedule``/``NoExecute`` taint no toleration tolerates, in the node's order."""
    for taint in taints:
        if taint.effect in FILTERED_EFFECTS and not tolerated(taint, tolerations):
            return taint
    return None


def reason(taint: Taint) -> str:
    """The plugin's status message for an untolerated taint: ``node(s) had untolerated taint {key: value}``."""
    return f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}"


def check(taints: Sequence[Taint], tolerations: Sequence[Toleration]) -> str | None:
    """The plugin's reason when the node's taints reject a pod with these tolerations, else ``None``."""
    taint = untolerated(taints, tolerations)
    return None if taint is None else reason(taint)


def intolerable_preferences(taints: Sequence[Taint], tolerations: Sequence[Toleration]) -> int:
    """The plugin's raw score: ``PreferNoSchedule`` taints that no toleration with that effect (or none) tolerates."""
    preferring = [t for t in tolerations if t.effect in ("", "PreferNoSchedule")]
    return sum(1 for taint in taints if taint.effect == "PreferNoSchedule" and not tolerated(taint, preferring))
