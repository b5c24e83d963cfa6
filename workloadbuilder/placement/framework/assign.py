"""How kube-scheduler's one-pod-at-a-time choice places a run of equal pods: each on the best-scoring node, assumed.

``assign_pods`` gives, for ``count`` pods of one shape, the node each lands
on, in order, as a loop that scores every node for each pod, takes the
best (higher score, then lower index) and assumes the pod there would. The
scores themselves are ``framework.scoring``'s; this module is the
algorithm that finds the same answer without that loop: a node's score
changes only when a pod lands on it, so pods land in the order of per-node
running minimums, computed a row of k-th pods at a time
(``_landing_order``), or, with spread constraints, from a heap.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.framework.scoring import (
    ScoreInputs,
    node_score,
    node_scores,
    pod_scored,
    pod_scores,
    preference_array,
    prefers,
    rank_keys,
    score_inputs,
    scores_after,
)
from workloadbuilder.placement.framework.snapshot import Block, Shape, Snapshot
from workloadbuilder.placement.framework.spread import SpreadTracker
from workloadbuilder.placement.k8s.constraints import PodConstraints

__all__ = ["assign_pods"]

_BLOCK = 8192
"""How many (node, k-th pod) scores ``_landing_order`` computes in one pass, at most."""
_SMALL_BLOCK = 1024
"""So few (node, k-th pod) scores that computing them all at once beats growing the block."""


def assign_pods(
    snap: Snapshot, shape: Shape, nodes: Iterable[int], count: int, spread: SpreadTracker | None = None
) -> list[int]:
    """Place up to ``count`` pods of ``shape`` one by one on the best-scoring node of ``nodes``, assuming each.

    The best node has the highest score, then the lowest index. With
    ``spread``, a node the pod's spread constraints reject now is passed
    over (and tried again after the next pod is placed), and every placed
    pod is counted in it.

    Returns the chosen node of each placed pod, in placement order; fewer
    than ``count`` when the nodes run out of room.

    A node's score changes only when a pod lands on it, so only the best
    ``count`` nodes with room can ever be chosen, and the order pods land in
    is computed a row of k-th pods at a time (``_assign_by_landing``). With
    spread constraints (a node's turn depends on where the others went) or
    amounts too large to score in one pass, the nodes wait in a heap with
    their new scores instead (``_assign_by_heap``). Both give exactly what
    one heap of every node gives.
    """
    if count <= 0:
        return []
    candidates = nodes if isinstance(nodes, np.ndarray) else np.fromiter(nodes, dtype=np.int64)
    tracker = spread if spread is not None and shape.constraints.spread else None
    if pod_scored(snap.cluster, shape.constraints):
        return _assign_one_by_one(snap, shape, candidates, count, spread)
    if tracker is None:
        placed = _assign_by_landing(snap, shape, candidates, count)
        if placed is not None:
            return placed
    return _assign_by_heap(snap, shape, candidates, count, tracker)


def _assign_by_landing(snap: Snapshot, shape: Shape, candidates: npt.NDArray[np.int64], count: int) -> list[int] | None:
    """``assign_pods`` without spread constraints, from the landing order of the best ``count`` nodes with room.

    Without preference scores (normalized over every candidate with room),
    every candidate is scored and only the best are asked how many pods
    they hold (``_best_with_room``). ``None`` when amounts are too large to
    score in one pass.
    """
    cluster = snap.cluster
    extras: npt.NDArray[np.int64] | None = None  # the preference scores, when some node's differ
    preferring = prefers(snap, shape)
    if len(candidates) > count and not preferring:
        nodes, inputs = candidates, score_inputs(snap, candidates)
        first = scores_after(shape, inputs, 0)
        if first is None:
            return None
        best, fits = _best_with_room(snap, shape, nodes, first, count)
    else:  # every candidate's room is read: each may take a pod, or the preference scores need it
        nodes, fits = _with_room(snap, shape, candidates)
        inputs = score_inputs(snap, nodes)
        if preferring:
            extras = preference_array(snap, shape, nodes)
        if len(nodes) <= count:  # every one may take a pod: the first scores come with the others
            landing = _landing_order(snap, shape, inputs, nodes, fits, None, extras, count)
            return None if landing is None else _land(snap, shape, nodes, landing)
        first = scores_after(shape, inputs, 0)
        if first is None:
            return None
        if extras is not None:
            first += extras
        best = _best_positions(first, nodes, count, cluster)
        fits, extras = fits[best], None if extras is None else extras[best]
    chosen = nodes[best]
    landing = _landing_order(snap, shape, inputs.take(best), chosen, fits, first[best], extras, count)
    return None if landing is None else _land(snap, shape, chosen, landing)


def _with_room(
    snap: Snapshot, shape: Shape, candidates: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The candidates a pod of ``shape`` fits on now and how many each holds (all of them as they are, when all do)."""
    fits = snap.node_fits_now(shape, candidates)
    room = fits > 0
    return (candidates, fits) if room.all() else (candidates[room], fits[room])


def _best_with_room(
    snap: Snapshot, shape: Shape, candidates: npt.NDArray[np.int64], scores: npt.NDArray[np.int64], count: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The positions of the best ``count`` candidates with room (fewer when fewer have room), ascending, and their room.

    Room is read for a few more than ``count`` of the best (higher score,
    then lower index) first: when ``count`` of them have room, they are the
    answer, since every candidate past them ranks lower; otherwise the
    window grows.
    """
    cluster = snap.cluster
    wanted = min(len(candidates), count + max(64, count // 16))
    while True:
        best = _best_positions(scores, candidates, wanted, cluster)
        fits = snap.fits_at(shape, candidates[best])
        room = fits > 0
        if int(np.count_nonzero(room)) >= count or wanted == len(candidates):
            break
        wanted = min(len(candidates), 4 * wanted)  # many of the best have no room: look further
    best, fits = best[room], fits[room]
    if len(best) > count:
        pick = _best_positions(scores[best], candidates[best], count, cluster)
        best, fits = best[pick], fits[pick]
    return best, fits


def _assign_by_heap(
    snap: Snapshot, shape: Shape, candidates: npt.NDArray[np.int64], count: int, tracker: SpreadTracker | None
) -> list[int]:
    """``assign_pods`` pod by pod: the nodes chosen so far wait in a heap with their new scores.

    Each pod takes the better of the heap's front and the best untouched
    node; with ``tracker``, every node waits in the heap and the ones its
    spread constraints reject now are passed over.
    """
    nodes, _ = _with_room(snap, shape, candidates)
    preferring = prefers(snap, shape)
    extras = preference_array(snap, shape, nodes) if preferring else None
    extra = dict(zip(nodes.tolist(), extras.tolist(), strict=True)) if extras is not None else {}
    scores = node_scores(snap, shape, nodes)
    if extras is not None:
        scores = scores + extras
    pod = shape.constraints
    # Untouched nodes, best first: higher score, then lower index.
    order = np.lexsort((nodes, -scores))
    untouched = list(zip((-scores[order]).tolist(), nodes[order].tolist(), strict=True))
    heap: list[tuple[int, int]] = []
    if tracker is not None:
        heap, untouched = untouched, []
    placed: list[int] = []
    vector = shape.vector
    next_untouched = 0
    node_fit = snap.node_fit
    landed: dict[int, int] = {}  # pods of this pass per node, which LeastAllocated counts with non-zero defaults
    while len(placed) < count:
        passed_over = []
        while heap and tracker is not None and tracker.reason(pod, heap[0][1]) is not None:
            passed_over.append(heapq.heappop(heap))
        if heap and (next_untouched == len(untouched) or heap[0] < untouched[next_untouched]):
            _, i = heapq.heappop(heap)
        elif next_untouched < len(untouched):
            i = untouched[next_untouched][1]
            next_untouched += 1
        else:
            break
        snap.add(i, vector)
        placed.append(i)
        if tracker is not None:
            tracker.add(i, pod)
        for entry in passed_over:
            heapq.heappush(heap, entry)
        landed[i] = landed.get(i, 0) + 1
        if node_fit(shape, i) > 0:
            heapq.heappush(heap, (-node_score(snap, i, shape, landed[i]) - extra.get(i, 0), i))
    return placed


def _assign_one_by_one(
    snap: Snapshot, shape: Shape, candidates: npt.NDArray[np.int64], count: int, spread: SpreadTracker | None
) -> list[int]:
    """``assign_pods`` for a pod that PodTopologySpread or InterPodAffinity scores: every pod scores every node.

    Those scores count the pods placed before (the pass's own, and those
    ``spread`` holds) and are normalized over the nodes that fit each pod,
    so no node's score stays put while others take pods: each pod is
    scored on every candidate with room (and that its ``DoNotSchedule``
    constraints let in), with the preference scores normalized over those
    nodes too, as each of kube-scheduler's cycles does.
    """
    cluster = snap.cluster
    nodes, fits = _with_room(snap, shape, candidates)
    pod = shape.constraints
    tracker = spread if spread is not None and pod.spread else None
    inputs = score_inputs(snap, nodes)  # before this pass: ``scores_after`` adds what it lands
    landed = np.zeros(len(nodes), dtype=np.int64)
    mine = np.zeros(len(cluster), dtype=np.int64)  # this pass's pods per node of the cluster
    assumed: dict[PodConstraints, npt.NDArray[np.int64]] = {}
    for j, other in spread.placed if spread is not None else ():
        counts = assumed.setdefault(other, np.zeros(len(cluster), dtype=np.int64))
        counts[j] += 1
    if pod in assumed:
        mine += assumed[pod]
    assumed[pod] = mine
    preferring = prefers(snap, shape)
    placed: list[int] = []
    while len(placed) < count:
        open_ = np.flatnonzero(landed < fits)
        if tracker is not None:
            open_ = open_[[tracker.reason(pod, int(i)) is None for i in nodes[open_].tolist()]]
        if len(open_) == 0:
            break
        here = nodes[open_]
        scores = scores_after(shape, inputs.take(open_), landed[open_])
        if scores is None:  # amounts too large for one pass: node by node, with this pass's pods on the snapshot
            scores = np.array(
                [node_score(snap, int(i), shape, int(k)) for i, k in zip(here, landed[open_], strict=True)],
                dtype=np.int64,
            )
        if preferring:
            scores = scores + preference_array(snap, shape, here)
        scores = scores + pod_scores(cluster, pod, here, assumed)
        top = np.flatnonzero(scores == scores.max())
        best = int(open_[top[np.argmin(here[top])]])  # the best score, then the lowest node index
        i = int(nodes[best])
        snap.add(i, shape.vector)
        landed[best] += 1
        mine[i] += 1
        placed.append(i)
        if spread is not None:
            spread.add(i, pod)
    return placed


def _land(snap: Snapshot, shape: Shape, nodes: npt.NDArray[np.int64], landing: npt.NDArray[np.int64]) -> list[int]:
    """Assume the pods of ``landing`` (positions in ``nodes``, in order) as one block; their nodes, in order."""
    times = np.bincount(landing, minlength=len(nodes))
    took = times > 0
    snap.add_block(Block.counts(nodes[took], times[took], shape.vector))
    placed: list[int] = nodes[landing].tolist()
    return placed


def _best_positions(
    scores: npt.NDArray[np.int64], nodes: npt.NDArray[np.int64], count: int, cluster: Cluster
) -> npt.NDArray[np.int64]:
    """The positions of the ``count`` best of ``nodes`` (higher score, then lower index), ascending.

    ``count`` is at most the number of nodes. Often ``count`` nodes or more
    share the best score (empty nodes of one size): the ones with the
    lowest indexes among them are the answer, with no partition of every
    node's rank key.
    """
    at_top = np.flatnonzero(scores == scores.max())
    if len(at_top) >= count:
        if nodes is cluster.root.node_array:  # positions are nodes
            return at_top[:count]
        named = nodes[at_top]
        if bool((named[1:] > named[:-1]).all()):
            return at_top[:count]
        return np.sort(at_top[np.argsort(named, kind="stable")[:count]])
    return np.sort(np.argpartition(-rank_keys(scores, nodes, len(cluster)), count - 1)[:count])


def _landing_order(
    snap: Snapshot,
    shape: Shape,
    inputs: ScoreInputs,
    nodes: npt.NDArray[np.int64],
    fits: npt.NDArray[np.int64],
    first: npt.NDArray[np.int64] | None,
    extras: npt.NDArray[np.int64] | None,
    count: int,
) -> npt.NDArray[np.int64] | None:
    """Where the next ``count`` pods land, in order (positions in ``nodes``), as one heap of every node would choose.

    ``nodes`` are the candidates (in any order) with their score inputs
    (``score_inputs``), room (``fits``), preference scores (``extras``; ``None``: all 0) and
    first score with them (``None``: computed here, with the others).
    The k-th pod on a node scores what ``node_score`` gives with k - 1 of
    them assumed there. A heap that always takes the best front of these
    per-node sequences takes the k-th pod of a node in the order of the
    lowest score among that node's first k (its *key*): a node's later,
    higher score waits behind its lower one. So every (node, k) entry is
    ranked by key, then node, then k; rows of k are computed until no
    key of the next one can beat the ``count``-th best so far (keys never
    rise along a node). ``None`` when amounts are too large to score in one
    pass: then the caller's heap decides.
    """
    if len(nodes) == 0:
        return nodes
    size = len(snap.cluster)
    keys: list[npt.NDArray[np.int64]] = []
    owners: list[npt.NDArray[np.int64]] = []
    turns: list[npt.NDArray[np.int64]] = []
    key = first  # each node's running minimum so far
    key_ranks: npt.NDArray[np.int64] | None = None  # their rank keys, when known
    if first is not None:
        positions = np.arange(len(nodes))
        keys, owners, turns = [rank_keys(first, nodes, size)], [positions], [np.zeros(len(nodes), dtype=np.int64)]
        key_ranks = keys[0]
    last = min(count, int(fits.max(initial=0)))
    start = k = 0 if first is None else 1
    # as many rows as an even spread would take (a small block whole), then twice as many each time
    step = max(-(-count // len(nodes)) + 1, _SMALL_BLOCK // len(nodes))
    while k < last:
        if k > start and key is not None:  # rows computed here may end it (the first scores alone never do)
            threshold = _kth_largest(np.concatenate(keys), count)
            ranks = key_ranks if key_ranks is not None else rank_keys(key, nodes, size)
            if threshold is not None and int(ranks.max()) < threshold:
                break  # no later entry can beat the count-th best: keys never rise along a node
        height = min(last - k, max(1, _BLOCK // len(nodes)), step)
        step *= 2
        landed = np.arange(k, k + height)[:, None]  # one row per k, one column per node
        scores = scores_after(shape, inputs, landed, k + height - 1)
        if scores is None:
            return None
        if extras is not None:
            scores += extras
        running = _running_minimum(scores, key)
        if int(fits.min()) >= k + height:  # every (k, node) pair fits
            block_ranks = rank_keys(running, nodes, size)
            keys.append(block_ranks.ravel())
            owners.append(np.arange(height * len(nodes)) % len(nodes))  # each row's nodes (np.tile is far slower)
            turns.append(np.arange(k, k + height).repeat(len(nodes)))
            key_ranks = block_ranks[-1]
        else:
            key_ranks = None
            entries = np.flatnonzero(landed < fits)  # the (k, node) pairs that fit, row by row
            if len(entries) == 0:
                break
            ks, columns = np.divmod(entries, len(nodes))
            keys.append(rank_keys(running.ravel()[entries], nodes[columns], size))
            owners.append(columns)
            turns.append(ks + k)
        key = running[-1]
        k += height
    if len(keys) == 1:
        ranked = np.lexsort((turns[0], -keys[0]))[:count]
        return owners[0][ranked]
    ranked = np.lexsort((np.concatenate(turns), -np.concatenate(keys)))[:count]
    return np.concatenate(owners)[ranked]


def _running_minimum(rows: npt.NDArray[np.int64], start: npt.NDArray[np.int64] | None) -> npt.NDArray[np.int64]:
    """Each column's running minimum down ``rows`` (from ``start``, when given), in place.

    numpy accumulates along a short axis slowly: a few rows are folded one by one.
    """
    if start is not None:
        np.minimum(rows[0], start, out=rows[0])
    if len(rows) > 64:
        return np.minimum.accumulate(rows, axis=0, out=rows)
    for i in range(1, len(rows)):
        np.minimum(rows[i], rows[i - 1], out=rows[i])
    return rows


def _kth_largest(keys: npt.NDArray[np.int64], k: int) -> int | None:
    """The ``k``-th largest of ``keys`` (``None`` when there are fewer)."""
    if len(keys) < k:
        return None
    return int(np.partition(keys, len(keys) - k)[len(keys) - k])
