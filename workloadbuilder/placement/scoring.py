"""kube-scheduler's resource scores: per node for one pod, and per placement for a whole group.

* A pod goes to the node with the highest ``NodeResourcesFit`` (default
  strategy ``LeastAllocated``) plus ``NodeResourcesBalancedAllocation`` score
  over CPU and memory, both weight 1, as in the default profile. Other
  default score plugins give every node the same score in this model (no
  images, taints, affinity or spread constraints). Upstream breaks ties at
  random; here the node listed first wins.
* A placement (a topology domain) is scored with ``MostAllocated`` over the
  domain's summed CPU and memory after the group's pods are added: the
  tighter the fit, the higher.

Pods that request no CPU or memory count as 100m and 200Mi, as the
scheduler's non-zero defaults do.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence

from workloadbuilder.placement.cluster import SCORE_RESOURCES
from workloadbuilder.placement.snapshot import Shape, Snapshot

__all__ = ["assign_pods", "most_allocated", "node_score"]

_MAX_SCORE = 100


def most_allocated(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """``MostAllocated`` (0-100) over the scored resources: the share already given out, weighted."""
    total = weights = 0
    for (_, weight), req, alloc in zip(SCORE_RESOURCES, requested, allocatable):
        if alloc <= 0:
            continue
        total += (min(req, alloc) * _MAX_SCORE // alloc) * weight
        weights += weight
    return total // weights if weights else 0


def node_score(snap: Snapshot, i: int, shape: Shape) -> int:
    """The default profile's resource score of node ``i`` for one more pod of ``shape`` (0-200).

    ``LeastAllocated`` and ``BalancedAllocation`` over CPU and memory, each
    weight 1; a resource the node does not offer is left out of both.
    """
    cluster = snap.cluster
    cpu, memory = cluster.score_index
    delta = snap.delta.get(i)
    least = weights = 0
    fractions = []
    for r, request in ((cpu, shape.score_request[0]), (memory, shape.score_request[1])):
        alloc = cluster.allocatable[r][i]
        if alloc <= 0:
            continue
        requested = cluster.used[r][i] + request + (delta[r] if delta is not None else 0)
        least += (alloc - requested) * _MAX_SCORE // alloc if requested <= alloc else 0
        weights += 1
        fractions.append(requested / alloc if requested < alloc else 1.0)
    if weights == 2:
        return least // 2 + int((1 - abs(fractions[0] - fractions[1]) / 2) * _MAX_SCORE)
    return least + _MAX_SCORE if weights else _MAX_SCORE


def assign_pods(snap: Snapshot, shape: Shape, nodes: Iterable[int], count: int) -> list[int]:
    """Place up to ``count`` pods of ``shape`` one by one on the best-scoring node of ``nodes``, assuming each.

    Returns the chosen node of each placed pod, in placement order; fewer
    than ``count`` when the nodes run out of room.
    """
    if count <= 0:
        return []
    node_fit = snap.node_fit
    heap = [(-node_score(snap, i, shape), i) for i in nodes if node_fit(shape, i) > 0]
    heapq.heapify(heap)
    placed: list[int] = []
    vector = shape.vector
    while heap and len(placed) < count:
        _, i = heapq.heappop(heap)
        snap.add(i, vector)
        placed.append(i)
        if node_fit(shape, i) > 0:
            heapq.heappush(heap, (-node_score(snap, i, shape), i))
    return placed
