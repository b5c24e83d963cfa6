"""kube-scheduler's own words for a pod that fits no node: the ``FitError`` line of its ``FailedScheduling`` event.

Follows ``FitError.Error()`` in kubernetes/kubernetes
``pkg/scheduler/framework/types.go``: ``0/<nodes> nodes are available:``
then, for every reason any node's first failing filter gave, ``<count>
<reason>``, the strings sorted as strings and joined with ``, ``, and a
final ``.``. Each node counts under the first plugin that rejects it, in
the framework's filter order (see ``filters``); NodeResourcesFit gives one
reason per short resource. When NodeAffinity's PreFilter narrows the
nodes (``nodeaffinity.prefilter``), the nodes it leaves out are counted
under the framework's ``node(s) didn't satisfy plugin(s) [NodeAffinity]``
unfiltered, and a PreFilter conflict is the line's only reason.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import numpy.typing as npt

from workloadbuilder.placement.cluster.model import HOST_PORT_PREFIX, is_slot
from workloadbuilder.placement.filters import interpodaffinity, nodeaffinity, nodeports, noderesources
from workloadbuilder.placement.framework.snapshot import Shape, Snapshot
from workloadbuilder.placement.framework.spread import SpreadTracker

__all__ = ["NO_NODE_AVAILABLE", "fit_error", "node_reasons"]

NO_NODE_AVAILABLE = "0/{} nodes are available"


def node_reasons(snap: Snapshot, shape: Shape, i: int) -> tuple[str, ...]:
    """Why node ``i`` cannot take one more pod of ``shape`` now, in its first failing plugin's words (empty: it can)."""
    cluster = snap.cluster
    rejection = cluster.rejection(shape.constraints, i)
    if rejection is not None:
        return rejection.reasons
    free = dict(zip(cluster.resources, snap.free(i), strict=True))
    if any(free.get(r, 0) < q for r, q in shape.requests.items() if r.startswith(HOST_PORT_PREFIX)):
        return (nodeports.REASON,)
    requests = {r: q for r, q in shape.requests.items() if r != "pods" and not is_slot(r)}
    reasons = noderesources.check(requests, free)
    if reasons:
        return tuple(reasons)
    reason = SpreadTracker(cluster).reason(shape.constraints, i) if shape.constraints.spread else None
    reason = reason or cluster.pod_affinity_reason(shape.constraints, i)
    if reason is None and any(free.get(r, 0) < q for r, q in shape.requests.items() if is_slot(r)):
        reason = interpodaffinity.ANTI_AFFINITY_REASON
    return () if reason is None else (reason,)


def fit_error(snap: Snapshot, shape: Shape, placement: npt.NDArray[np.int64] | None = None) -> str | None:
    """The FitError message for one pod of ``shape`` on the snapshot now, or ``None`` when some node takes it.

    ``placement`` (node indexes: one topology domain's) narrows the nodes, as
    kube-scheduler's placement does for a gang with a topology constraint:
    its FitError counts the placement's nodes (``0/4`` for a rack of 4), not
    the cluster's.

    ``node_reasons`` of every node, in columns where that gives the same:
    nodes the pod-and-node filters reject are read one by one (once per
    class of equal taints and cordon, for a pod that selects no nodes by
    name or label); for the
    others, host ports and NodeResourcesFit are checked for all of them at
    once, and only nodes left with no reason by those are read one by one.
    """
    cluster = snap.cluster
    counts: Counter[str] = Counter()
    within = np.ones(len(cluster), dtype=np.bool_)
    if placement is not None:
        within = np.zeros(len(cluster), dtype=np.bool_)
        within[placement] = True
    total = int(within.sum())
    kept = nodeaffinity.prefilter(shape.constraints)
    if kept is not None and not kept:
        return NO_NODE_AVAILABLE.format(total) + f": {nodeaffinity.CONFLICT_REASON}."
    inside = within
    if kept is not None:
        inside = within & np.array([name in kept for name in cluster.names], dtype=np.bool_)
        counts[nodeaffinity.PREFILTERED_REASON] = int((within & ~inside).sum())
    nodes = cluster.root.node_array  # every node, in order
    allowed = inside if shape.allowed_mask is None else inside & shape.allowed_mask
    passing = nodes if allowed.all() else nodes[allowed]  # every node: the root's array, read without copies
    if shape.allowed_mask is not None:
        rejected = nodes[inside & ~shape.allowed_mask]
        if shape.constraints.selects_nodes:
            one_by_one = rejected.tolist()
        else:  # taints and cordons alone: one rejection per class of nodes
            one_by_one = []
            for rejection, group in cluster.class_rejections(shape.constraints, rejected):
                if rejection is None:
                    one_by_one.extend(group.tolist())
                    continue
                for reason in rejection.reasons:
                    counts[reason] += len(group)
        for i in one_by_one:
            reasons = node_reasons(snap, shape, i)
            if not reasons:
                return None
            counts.update(reasons)
    short = np.zeros(len(passing), dtype=np.bool_)
    for resource, amount in shape.requests.items():
        if resource.startswith(HOST_PORT_PREFIX):
            short |= snap.free_at(resource, passing) < amount
    counts[nodeports.REASON] += int(short.sum())
    requests = {r: q for r, q in shape.requests.items() if r != "pods" and not is_slot(r)}
    ports_pass = ~short
    for reason, resource, amount in noderesources.shortfalls(requests):
        lacking = ports_pass & (snap.free_at(resource, passing) < amount)
        counts[reason] += int(lacking.sum())
        short |= lacking
    for i in map(int, passing[~short]):  # one by one: the first node with no reason ends the count
        reasons = node_reasons(snap, shape, i)
        if not reasons:
            return None
        counts.update(reasons)
    counts = +counts  # no reason counted for no node
    message = NO_NODE_AVAILABLE.format(total) + ":"
    histogram = sorted(f"{count} {reason}" for reason, count in counts.items())
    if histogram:
        message += " " + ", ".join(histogram) + "."
    return message
