"""NodeUnschedulable: a cordoned node takes only pods that tolerate its ``unschedulable`` taint.

Follows kubernetes/kubernetes ``pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go``:
``spec.unschedulable`` rejects the pod unless one of its tolerations
tolerates ``node.kubernetes.io/unschedulable:NoSchedule``.
"""

from __future__ import annotations

from collections.abc import Sequence

from workloadbuilder.placement.filters.tainttoleration import tolerated
from workloadbuilder.placement.k8s.constraints import Taint, Toleration

__all__ = ["NAME", "REASON", "UNSCHEDULABLE_TAINT", "check"]

NAME = "NodeUnschedulable"
REASON = "node(s) were unschedulable"
UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")
"""The taint a cordoned node behaves as if it had (the node lifecycle controller also adds it)."""


def check(unschedulable: bool, tolerations: Sequence[Toleration]) -> str | None:
    """The plugin's reason when a cordoned node rejects a pod with these tolerations, else ``None``."""
    if unschedulable and not tolerated(UNSCHEDULABLE_TAINT, tolerations):
        return REASON
    return None
