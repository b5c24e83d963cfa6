"""kube-scheduler's node sampling: each pod is scored on the first feasible nodes found from a rotating start.

In a cluster (or a placement's domain) of 100 nodes or more, kube-scheduler
1.37 stops filtering once it has found ``numFeasibleNodesToFind`` feasible
nodes and scores only those (``schedule_one.go``):

* the number is ``percentageOfNodesToScore`` percent of the nodes, at least
  100; the default percentage (0 in the configuration) is adaptive,
  ``50 - nodes / 125``, at least 5;
* the nodes are examined in the scheduler's node order, which interleaves
  the zones (``Cluster.scheduling_order``: one node of each zone in turn,
  zones in order of first appearance, nodes by name as the informer lists
  them), from ``nextStartNodeIndex``;
* after each pod the start moves on by the number of nodes examined (the
  search goes on past the last wanted node up to the next feasible one,
  which it does not count), modulo the number of nodes, so the next pod
  looks further on.

With the default profile every pod is its own cycle: PodTopologySpread's
system default constraints make every pod unsignable, so the
OpportunisticBatching gate never reuses a previous pod's scores. The
filters run one node after the other here, as with ``parallelism: 1``;
with 16 workers the real scheduler may examine a few nodes more before it
stops, and keep others, so its start moves on by a little more.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from workloadbuilder.placement.framework.scoring import assign_pods, node_scores, preference_array, prefers
from workloadbuilder.placement.framework.snapshot import Shape, Snapshot
from workloadbuilder.placement.framework.spread import SpreadTracker

__all__ = ["MIN_FEASIBLE_NODES", "MIN_PERCENTAGE", "NodeSampling", "heap_winner", "nodes_to_find"]

MIN_FEASIBLE_NODES = 100
"""``minFeasibleNodesToFind``: below this many nodes every node is scored, and never fewer are."""

MIN_PERCENTAGE = 5
"""``minFeasibleNodesPercentageToFind``: the adaptive percentage's floor."""


def nodes_to_find(nodes: int, percentage: int = 0) -> int:
    """``numFeasibleNodesToFind``: how many feasible nodes of ``nodes`` are scored (0 percent: adaptive)."""
    if nodes < MIN_FEASIBLE_NODES:
        return nodes
    if percentage == 0:
        percentage = max(50 - nodes // 125, MIN_PERCENTAGE)
    return max(nodes * percentage // 100, MIN_FEASIBLE_NODES)


def heap_winner(scores: npt.NDArray[np.int64]) -> int:
    """The position of the node kube-scheduler takes among scored nodes listed in ``scores``' order.

    Without extenders every node's ``Randomizer`` is 0, so the choice is the
    root of Go's ``container/heap`` built over the list (``NewSortedScoredNodes``
    then ``Pop``): a highest score, and among equal ones the one heapify
    leaves on top. Heapify keeps a parent unless a child's subtree holds a
    strictly higher score, and prefers the left child unless the right is
    strictly higher, so the root is the winner of this tournament, worked
    out level by level from the leaves.
    """
    count = len(scores)
    winner = np.arange(count, dtype=np.int64)
    last_parent = count // 2 - 1
    level_start = 1
    while level_start * 2 - 1 <= last_parent:
        level_start *= 2
    start = level_start - 1  # the first index of the deepest level with a child
    while start >= 0:
        parents = np.arange(start, min(2 * start + 1, last_parent + 1), dtype=np.int64)
        left = winner[2 * parents + 1]
        right_index = 2 * parents + 2
        has_right = right_index < count
        right = winner[np.minimum(right_index, count - 1)]
        best = np.where(has_right & (scores[right] > scores[left]), right, left)
        winner[parents] = np.where(scores[parents] >= scores[best], parents, best)
        start = (start - 1) // 2 if start else -1
    return int(winner[0])


class NodeSampling:
    """One scheduler's sampling state: the rotating start index, carried from pod to pod.

    ``percentage`` is the profile's ``percentageOfNodesToScore`` (0:
    adaptive, the default). A new scheduler starts at index 0; the real
    one's start depends on every pod it scheduled before.
    """

    def __init__(self, percentage: int = 0) -> None:
        if isinstance(percentage, bool) or not isinstance(percentage, int) or not 0 <= percentage <= 100:
            raise ValueError(f"percentageOfNodesToScore must be an integer from 0 to 100, not {percentage!r}")
        self.percentage = percentage
        self.start = 0  # ``nextStartNodeIndex``: where the next pod's search starts in the node order

    def assign(
        self,
        snap: Snapshot,
        shape: Shape,
        nodes: npt.NDArray[np.int64],
        count: int,
        spread: SpreadTracker | None = None,
    ) -> list[int]:
        """``assign_pods`` with each pod scored on the nodes this scheduler's sampling finds for it.

        ``nodes`` are the placement's nodes (any order); fewer than
        ``MIN_FEASIBLE_NODES`` are all scored, as upstream scores them.
        Among equal scores a pod takes the node kube-scheduler's heap puts
        first (``heap_winner``) over the nodes in the order they were found.
        Returns the chosen node of each placed pod, in order.
        """
        if count <= 0:
            return []
        if len(nodes) < MIN_FEASIBLE_NODES:
            return assign_pods(snap, shape, nodes, count, spread)
        rank = snap.cluster.scheduling_rank
        ordered = nodes[np.argsort(rank[nodes], kind="stable")]
        total = len(ordered)
        wanted = nodes_to_find(total, self.percentage)
        placed: list[int] = []
        while len(placed) < count:
            start = self.start % total
            rotated = np.concatenate((ordered[start:], ordered[:start]))
            feasible = np.flatnonzero(snap.node_fits_now(shape, rotated) > 0)
            if spread is not None and shape.constraints.spread and len(feasible):
                pod = shape.constraints
                feasible = np.asarray(
                    [k for k in feasible.tolist() if spread.reason(pod, int(rotated[k])) is None], dtype=np.int64
                )
            taken = feasible[:wanted]
            # the search stops at the first feasible node past the wanted ones, which it does not count
            examined = int(feasible[wanted]) if len(feasible) > wanted else total
            self.start = (start + examined) % total
            if len(taken) == 0:
                break
            window = rotated[taken]
            scores = node_scores(snap, shape, window)
            if prefers(snap, shape):
                scores = scores + preference_array(snap, shape, window)
            node = int(window[heap_winner(scores)])
            snap.add(node, shape.vector)
            if spread is not None:
                spread.add(node, shape.constraints)
            placed.append(node)
        return placed
