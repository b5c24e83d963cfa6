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

import functools

import numpy as np
import numpy.typing as npt

from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.placement.framework.scoring import node_scores, preference_array, prefers
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
    strictly higher, so the root is the first highest score met in a
    pre-order walk of the heap's tree (the node, then its left subtree, then
    its right).
    """
    best = np.flatnonzero(scores == scores.max())
    if len(best) == 1:
        return int(best[0])
    return int(best[np.argmin(_preorder_rank(len(scores))[best])])


@functools.lru_cache(maxsize=64)
def _preorder_rank(size: int) -> npt.NDArray[np.int64]:
    """Each position's rank in a pre-order walk of the heap tree of ``size`` positions (children ``2i+1``, ``2i+2``)."""
    rank = np.empty(size, dtype=np.int64)
    stack, seen = [0], 0
    while stack:
        i = stack.pop()
        rank[i] = seen
        seen += 1
        # the left child is walked first: pushed last
        stack.extend(child for child in (2 * i + 2, 2 * i + 1) if child < size)
    rank.flags.writeable = False
    return rank


class NodeSampling:
    """One scheduler's sampling state: the rotating start index, carried from pod to pod.

    ``percentage`` is the profile's ``percentageOfNodesToScore`` (0:
    adaptive, the default). A new scheduler starts at index 0; the real
    one's start depends on every pod it scheduled before.

    Raises:
        TypeError: ``percentage`` is not an int.
        InvalidArgumentError: it is not from 0 to 100.
    """

    def __init__(self, percentage: int = 0) -> None:
        if isinstance(percentage, bool) or not isinstance(percentage, int):
            raise TypeError(f"NodeSampling(): percentage must be an int, not {type(percentage).__name__}")
        if not 0 <= percentage <= 100:
            raise InvalidArgumentError(f"percentageOfNodesToScore must be an integer from 0 to 100, not {percentage!r}")
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
        """Up to ``count`` pods of ``shape`` placed one by one as kube-scheduler's cycles place them, assumed.

        ``nodes`` are the placement's nodes (any order). Each pod is
        filtered over them in the scheduler's node order from the rotating
        start, scored on the first ``nodes_to_find`` feasible ones (every
        feasible one below ``MIN_FEASIBLE_NODES`` nodes), and takes the node
        kube-scheduler's heap puts first among the best (``heap_winner``,
        over the nodes in the order they were found). Returns the chosen
        node of each placed pod, in order; fewer when the nodes run out.
        """
        if count <= 0 or len(nodes) == 0:
            return []
        ordered = nodes[np.argsort(snap.cluster.scheduling_rank[nodes], kind="stable")]
        total = len(ordered)
        wanted = nodes_to_find(total, self.percentage)
        fits = snap.node_fits_now(shape, ordered).copy()  # kept up to date at each chosen node
        pod = shape.constraints
        spreading = spread is not None and bool(pod.spread)
        preferring = prefers(snap, shape)
        placed: list[int] = []
        while len(placed) < count:
            start = self.start % total
            found = np.flatnonzero(fits > 0)
            if spreading:
                assert spread is not None
                found = found[[spread.reason(pod, int(ordered[k])) is None for k in found.tolist()]]
            split = int(np.searchsorted(found, start))
            found = np.concatenate((found[split:], found[:split]))  # in the order the search meets them
            # the search stops at the first feasible node past the wanted ones, which it does not count
            examined = (int(found[wanted]) - start) % total if len(found) > wanted else total
            self.start = (start + examined) % total
            if len(found) == 0:
                break
            window = ordered[found[:wanted]]
            scores = node_scores(snap, shape, window)
            if preferring:
                scores = scores + preference_array(snap, shape, window)
            position = int(found[heap_winner(scores)])
            node = int(ordered[position])
            snap.add(node, shape.vector)
            if spread is not None:
                spread.add(node, pod)
            fits[position] = snap.node_fit(shape, node)
            placed.append(node)
        return placed
