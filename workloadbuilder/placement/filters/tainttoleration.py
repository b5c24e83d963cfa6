"""TaintToleration: a node's ``NoSchedule`` and ``NoExecute`` taints reject pods that do not tolerate them.

Follows kubernetes/kubernetes ``pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go``
and the toleration matching of ``k8s.io/api/core/v1/toleration.go``
(``ToleratesTaint``): an empty toleration effect matches every effect, an
empty key matches every key (meaningful with ``Exists``), ``Equal`` (or no
operator) compares values, ``Exists`` ignores them, and ``Lt``/``Gt``
compare decimal integers (the taint's value below / above the
toleration's; a value that is not a decimal ``int64`` matches nothing).
``PreferNoSchedule`` taints never reject; scoring counts them.

Since 1.35 (kubernetes#134740, also in 1.34) the plugin's status names no
taint: every rejected node gives the one reason ``node(s) had untolerated
taint(s)``, so ``FitError`` counts all of them under one entry. Which taint
it was stays available to explanations through ``untolerated``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from workloadbuilder.placement.k8s.constraints import Taint, Toleration

__all__ = [
    "FILTERED_EFFECTS",
    "NAME",
    "REASON",
    "check",
    "intolerable_preferences",
    "tolerated",
    "tolerates",
    "untolerated",
]

NAME = "TaintToleration"
REASON = "node(s) had untolerated taint(s)"
"""The plugin's status message for a node with a taint the pod does not tolerate, whatever the taint."""
FILTERED_EFFECTS = ("NoSchedule", "NoExecute")
_DECIMAL = re.compile(r"-?(0|[1-9][0-9]*)\Z")
_INT64 = range(-(2**63), 2**63)


def _int64(text: str) -> int | None:
    """``text`` as a decimal ``int64`` (no sign but ``-``, no leading zero), else ``None``."""
    if not _DECIMAL.match(text):
        return None
    value = int(text)
    return value if value in _INT64 else None


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
    if toleration.operator not in ("Lt", "Gt"):
        return False
    bound, have = _int64(toleration.value), _int64(taint.value)
    if bound is None or have is None:
        return False
    return have < bound if toleration.operator == "Lt" else have > bound


def tolerated(taint: Taint, tolerations: Sequence[Toleration]) -> bool:
    """Whether any of ``tolerations`` tolerates ``taint``."""
    return any(tolerates(toleration, taint) for toleration in tolerations)


def untolerated(taints: Sequence[Taint], tolerations: Sequence[Toleration]) -> Taint | None:
    """The first ``NoSchedule``/``NoExecute`` taint no toleration tolerates, in the node's order."""
    for taint in taints:
        if taint.effect in FILTERED_EFFECTS and not tolerated(taint, tolerations):
            return taint
    return None


def check(taints: Sequence[Taint], tolerations: Sequence[Toleration]) -> str | None:
    """The plugin's reason when the node's taints reject a pod with these tolerations, else ``None``."""
    return None if untolerated(taints, tolerations) is None else REASON


def intolerable_preferences(taints: Sequence[Taint], tolerations: Sequence[Toleration]) -> int:
    """The plugin's raw score: ``PreferNoSchedule`` taints that no toleration with that effect (or none) tolerates."""
    preferring = [t for t in tolerations if t.effect in ("", "PreferNoSchedule")]
    return sum(1 for taint in taints if taint.effect == "PreferNoSchedule" and not tolerated(taint, preferring))
