"""kube-scheduler's default filter plugins, one module each, and the order the framework runs them in.

A node is rejected by the first plugin that fails, as
``RunFilterPlugins`` stops at the first non-success status; the reasons of
that one status are what ``FitError`` counts. The plugins that read only
the pod and the node (``NodeUnschedulable``, ``NodeName``,
``TaintToleration``, ``NodeAffinity``) run in ``static_rejection``; the
ones that read what is already on the node (``NodePorts``,
``NodeResourcesFit``) are asked by the caller with the node's state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from workloadbuilder.placement.filters import (
    nodeaffinity,
    nodename,
    nodeports,
    noderesources,
    nodeunschedulable,
    tainttoleration,
)
from workloadbuilder.placement.k8s.constraints import PodConstraints, Taint

__all__ = ["ORDER", "Rejection", "static_rejection"]

ORDER = (
    nodeunschedulable.NAME,
    nodename.NAME,
    tainttoleration.NAME,
    nodeaffinity.NAME,
    nodeports.NAME,
    noderesources.NAME,
)
"""The default profile's filter plugins that this model runs, in the framework's order."""


@dataclass(frozen=True)
class Rejection:
    """Why one node cannot take one pod: the plugin and its status reasons.

    ``resolvable`` is ``False`` for ``UnschedulableAndUnresolvable`` statuses
    (preemption cannot help: taints, selectors, cordons, node names) and
    ``True`` for ``Unschedulable`` ones (resources and ports, which evicting
    pods may free).
    """

    plugin: str
    reasons: tuple[str, ...]
    resolvable: bool = False


def static_rejection(
    pod: PodConstraints,
    name: str,
    labels: Mapping[str, str],
    taints: Sequence[Taint],
    unschedulable: bool,
) -> Rejection | None:
    """The first of the pod-and-node filters that rejects the node, or ``None`` when all pass."""
    reason = nodeunschedulable.check(unschedulable, pod.tolerations)
    if reason is not None:
        return Rejection(nodeunschedulable.NAME, (reason,))
    reason = nodename.check(pod.node_name, name)
    if reason is not None:
        return Rejection(nodename.NAME, (reason,))
    reason = tainttoleration.check(taints, pod.tolerations)
    if reason is not None:
        return Rejection(tainttoleration.NAME, (reason,))
    reason = nodeaffinity.check(pod, labels, name)
    if reason is not None:
        return Rejection(nodeaffinity.NAME, (reason,))
    return None
