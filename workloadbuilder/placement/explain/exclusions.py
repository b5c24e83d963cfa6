"""Node by node, what a candidate domain offers a PodGroup that fits nowhere: the filters that exclude nodes.

A level that says ``rack r1 fits 5 of 8 pods`` hides why the other nodes
of the rack take none. For the best domains of such a level, each node is
counted once: under the first filter that rejects it (in kube-scheduler's
filter order, as ``fiterror.node_reasons`` reads it), said the short way
(``not ready``, ``untolerated taint``, ``Insufficient nvidia.com/gpu``), or,
when no filter rejects it, by how many of the group's pods it holds on its
own::

    rack r1: 8 nodes; 1 not ready, 1 untolerated taint, 1 Insufficient nvidia.com/gpu; 5 fit 1 pod each

The pods counted are of the group's first pod shape, and pod-to-pod
constraints (topology spread, pod affinity) are counted only where they
rule a node out whatever is placed, as the pod-and-node filters do.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from workloadbuilder.placement.cluster.model import HOST_PORT_PREFIX, is_slot
from workloadbuilder.placement.explain.fiterror import node_reasons
from workloadbuilder.placement.explain.wording import count_of, reason_count
from workloadbuilder.placement.filters import nodename, nodeports, noderesources, nodeunschedulable, tainttoleration
from workloadbuilder.placement.framework.snapshot import Shape, Snapshot

__all__ = ["EXCLUSION_DOMAINS", "NOT_READY", "PORT_TAKEN", "UNREACHABLE", "Exclusions", "exclusions"]

EXCLUSION_DOMAINS = 3
"""How many of a level's best domains are counted node by node."""
NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
PORT_TAKEN = "host port in use"
"""What a node whose requested host port is taken is counted as."""

# The rank of each kind of exclusion in the text: kube-scheduler's filter order.
_RANKS = {
    "cordoned": 0,
    "another nodeName": 1,
    "not ready": 2,
    "unreachable": 3,
    "untolerated taint": 4,
    "node affinity/selector mismatch": 5,
    PORT_TAKEN: 6,
}
_RESOURCE_RANK = 7
_OTHER_RANK = 8


@dataclass(frozen=True)
class Exclusions:
    """One domain's nodes, counted: how many each filter excludes, and how many take how many pods.

    ``excluded`` is ordered by filter (cordons, node names, taints, node
    affinity, host ports, resources, the rest), ``fit`` by pods per node,
    most first.
    """

    nodes: int
    excluded: tuple[tuple[str, int], ...]
    fit: tuple[tuple[int, int], ...]

    def text(self, where: str) -> str:
        """``rack r1: 8 nodes; 1 not ready, 1 Insufficient nvidia.com/gpu; 5 fit 1 pod each``."""
        parts = [count_of(self.nodes, "node")]
        parts.append(
            ", ".join(reason_count(n, reason) for reason, n in self.excluded) if self.excluded else "none excluded"
        )
        if self.fit:
            parts.append(", ".join(_fit_text(pods, n) for pods, n in self.fit))
        else:
            parts.append("none takes a pod")
        return f"{where}: " + "; ".join(parts)


def _fit_text(pods: int, nodes: int) -> str:
    """``5 fit 1 pod each``, ``1 fits 3 pods``."""
    if nodes == 1:
        return f"1 fits {count_of(pods, 'pod')}"
    return f"{nodes} fit {count_of(pods, 'pod')} each"


def exclusions(snap: Snapshot, shape: Shape, nodes: npt.NDArray[np.int64]) -> Exclusions:
    """Count ``nodes`` (a domain's) for one pod of ``shape`` on the snapshot now.

    Nodes the pod-and-node filters reject are read one by one; the others
    are checked in columns: host ports, then NodeResourcesFit (a node short
    of several resources counts once, under all of them), then how many pods
    fit on each of the rest.
    """
    excluded: Counter[str] = Counter()
    if shape.missing:  # a resource no node has: every node is short of it
        excluded[_insufficient(tuple(f"Insufficient {r}" for r in sorted(shape.missing)))] = len(nodes)
        return _counted(len(nodes), excluded, Counter())
    passing = nodes
    if shape.allowed_mask is not None:
        allowed = shape.allowed_mask[nodes]
        for i in nodes[~allowed].tolist():
            excluded[_words(snap, shape, i)] += 1
        passing = nodes[allowed]
    ports = np.zeros(len(passing), dtype=np.bool_)
    for resource, amount in shape.requests.items():
        if resource.startswith(HOST_PORT_PREFIX):
            ports |= snap.free_at(resource, passing) < amount
    excluded[PORT_TAKEN] += int(ports.sum())
    requests = {r: q for r, q in shape.requests.items() if r != "pods" and not is_slot(r)}
    checks = noderesources.shortfalls(requests)
    bits = np.zeros(len(passing), dtype=np.int64)
    for j, (_, resource, amount) in enumerate(checks):
        bits |= (snap.free_at(resource, passing) < amount).astype(np.int64) << j
    bits[ports] = 0
    values, counts = np.unique(bits[bits != 0], return_counts=True)
    for value, count in zip(values.tolist(), counts.tolist(), strict=True):
        excluded[_insufficient(tuple(reason for j, (reason, _, _) in enumerate(checks) if value >> j & 1))] += count
    left = passing[(bits == 0) & ~ports]
    per_node = np.full(len(left), np.iinfo(np.int64).max, dtype=np.int64)
    for resource, amount in shape.requests.items():
        if amount > 0:
            per_node = np.minimum(per_node, (snap.free_at(resource, left) // amount).astype(np.int64))
    fit: Counter[int] = Counter(per_node.tolist())
    return _counted(len(nodes), excluded, fit)


def _counted(total: int, excluded: Counter[str], fit: Counter[int]) -> Exclusions:
    kept = [(reason, n) for reason, n in excluded.items() if n > 0]
    kept.sort(key=lambda item: (_rank(item[0]), -item[1], item[0]))
    return Exclusions(total, tuple(kept), tuple(sorted(((p, n) for p, n in fit.items() if n > 0), reverse=True)))


def _rank(reason: str) -> int:
    if reason in _RANKS:
        return _RANKS[reason]
    return _RESOURCE_RANK if reason.startswith(("Insufficient ", noderesources.TOO_MANY_PODS)) else _OTHER_RANK


def _insufficient(reasons: Sequence[str]) -> str:
    """NodeResourcesFit's reasons for one node as one phrase: ``Insufficient cpu and memory``."""
    names = [reason.removeprefix("Insufficient ") for reason in reasons if reason.startswith("Insufficient ")]
    words = [noderesources.TOO_MANY_PODS] if noderesources.TOO_MANY_PODS in reasons else []
    if names:
        words.append("Insufficient " + " and ".join(names))
    return " and ".join(words)


def _words(snap: Snapshot, shape: Shape, i: int) -> str:
    """Why node ``i`` takes no pod of ``shape``, the short way, from the first filter that rejects it."""
    cluster = snap.cluster
    rejection = cluster.rejection(shape.constraints, i)
    if rejection is None:
        reasons = node_reasons(snap, shape, i)
        if not reasons:  # the mask's last check: the node lacks a label a spread constraint counts by
            return "missing a topology spread label"
        if reasons[0] == nodeports.REASON:
            return PORT_TAKEN
        if reasons[0].startswith(("Insufficient ", noderesources.TOO_MANY_PODS)):
            return _insufficient(reasons)
        return reasons[0]
    if rejection.plugin == nodeunschedulable.NAME:
        return "cordoned"
    if rejection.plugin == nodename.NAME:
        return "another nodeName"
    if rejection.plugin == tainttoleration.NAME:
        taint = tainttoleration.untolerated(cluster.taints[i], shape.constraints.tolerations)
        key = taint.key if taint is not None else ""
        return "not ready" if key == NOT_READY else "unreachable" if key == UNREACHABLE else "untolerated taint"
    return "node affinity/selector mismatch"
