"""kube-scheduler's scores: per node for one pod, and per placement for a whole group.

* A pod goes to the node with the highest ``NodeResourcesFit`` (default
  strategy ``LeastAllocated``) plus ``NodeResourcesBalancedAllocation`` score
  over CPU and memory, both weight 1, as in the default profile
  (BalancedAllocation skipped for a pod that requests neither), plus
  ``TaintToleration`` (``PreferNoSchedule``, weight 3) and ``NodeAffinity``
  (preferred terms, weight 2), normalized over the nodes that fit when the
  pods start, ``ImageLocality`` (weight 1), and ``PodTopologySpread``
  (``ScheduleAnyway`` constraints) and ``InterPodAffinity`` (preferred pod
  terms, and running or assumed pods' own terms), weight 2 each, normalized
  over the nodes that fit each pod (``pod_scores``). The system default
  spread constraints are not modelled. Upstream breaks ties at random; here
  the node listed first wins.
* A placement (a topology domain) is scored with ``MostAllocated`` over the
  domain's summed CPU and memory after the group's pods are added: the
  tighter the fit, the higher.

Containers that request no CPU or memory count as 100m and 200Mi in
LeastAllocated, as the scheduler's non-zero defaults do: running pods,
the pod scored, and the pods of the same pass assumed before it.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from workloadbuilder.placement.cluster.arrays import IntArray, exact
from workloadbuilder.placement.cluster.model import SCORE_RESOURCES, Cluster
from workloadbuilder.placement.cluster.records import RunningPod
from workloadbuilder.placement.filters import nodeaffinity, tainttoleration
from workloadbuilder.placement.filters.tainttoleration import intolerable_preferences
from workloadbuilder.placement.framework.snapshot import HOSTNAME_KEY, Shape, Snapshot
from workloadbuilder.placement.k8s.constraints import LabelSelector, PodAffinity, PodConstraints, SpreadConstraint
from workloadbuilder.placement.k8s.resources import NONZERO_DEFAULTS

__all__ = [
    "Assumed",
    "ScoreInputs",
    "affinity_scores",
    "image_scores",
    "key_node",
    "most_allocated",
    "most_allocated_many",
    "node_score",
    "node_scores",
    "pod_scored",
    "pod_scores",
    "preference_array",
    "preference_scores",
    "prefers",
    "rank_keys",
    "raw_preferences",
    "score_inputs",
    "scores_after",
    "spread_scores",
]

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


def most_allocated_many(requested: Sequence[IntArray], allocatable: Sequence[IntArray]) -> npt.NDArray[np.int64]:
    """``most_allocated`` of many domains at once: one array per scored resource, one entry per domain."""
    total: IntArray = np.zeros(len(requested[0]), dtype=np.int64)
    weights: IntArray = np.zeros(len(requested[0]), dtype=np.int64)
    for (_, weight), req, alloc in zip(SCORE_RESOURCES, requested, allocatable):
        alloc = exact(alloc, _MAX_SCORE)
        offered = alloc > 0
        divisor = np.where(offered, alloc, 1)
        share = np.minimum(req, divisor) * _MAX_SCORE // divisor
        total = total + np.where(offered, share * weight, 0)
        weights = weights + np.where(offered, weight, 0)
    return np.where(weights > 0, total // np.maximum(weights, 1), 0).astype(np.int64)


def node_score(snap: Snapshot, i: int, shape: Shape, landed: int = 0) -> int:
    """The default profile's resource score of node ``i`` for one more pod of ``shape`` (0-200).

    ``landed``: how many pods of ``shape`` among what the snapshot holds on
    ``i`` were assumed by the same pass; LeastAllocated counts each with
    its non-zero defaults (``Shape.score_request``), as the scheduler's
    cache counts an assumed pod.

    ``NodeResourcesFit`` (``LeastAllocated``) plus
    ``NodeResourcesBalancedAllocation`` over CPU and memory, each weight 1,
    as kube-scheduler 1.37 scores them:

    * LeastAllocated counts what is given out with the non-zero defaults of
      containers that leave CPU or memory unset (the running pods'
      ``Cluster.unset_array`` and the pod's ``Shape.score_request``);
    * BalancedAllocation counts actual requests, and scores the *change* in
      balance the pod makes, ``50 + (50 + with - without) // 2``, where
      ``with`` and ``without`` are ``int((1 - |f_cpu - f_memory| / 2) * 100)``
      of the fractions given out (at most 1) with and without the pod; it
      is skipped (0) for a pod that requests neither resource.

    A resource the node does not offer is left out of both (with fewer
    than two fractions the balance is 100 either way).
    """
    cluster = snap.cluster
    change = snap.change_at(i)
    least = weights = 0
    with_pod: list[float] = []
    without_pod: list[float] = []
    for c, (r, request) in enumerate(zip(cluster.score_index, shape.score_request, strict=True)):
        alloc = cluster.allocatable[r][i]
        if alloc <= 0:
            continue
        used = cluster.used[r][i] + (change[r] if change is not None else 0)
        requested = used + int(cluster.unset_array(c)[i]) + request + landed * (request - shape.vector[r])
        least += (alloc - requested) * _MAX_SCORE // alloc if requested <= alloc else 0
        weights += 1
        with_pod.append(min((used + shape.vector[r]) / alloc, 1.0))
        without_pod.append(min(used / alloc, 1.0))
    fit = least // weights if weights else 0
    if not any(shape.requests.get(name, 0) > 0 for name, _ in SCORE_RESOURCES):
        return fit  # BalancedAllocation skips pods that request neither CPU nor memory
    return fit + _balance_change(_balance(with_pod), _balance(without_pod))


def _balance(fractions: Sequence[float]) -> int:
    """BalancedAllocation's balance of two fractions, ``int((1 - |f0 - f1| / 2) * 100)``; 100 with fewer."""
    if len(fractions) != 2:
        return _MAX_SCORE
    return int((1 - abs((fractions[0] - fractions[1]) / 2)) * _MAX_SCORE)


def _balance_change(with_pod: int, without_pod: int) -> int:
    """BalancedAllocation's score from the balance with and without the pod (both 50-100): 50 to 100."""
    return _MAX_SCORE // 2 + (_MAX_SCORE // 2 + with_pod - without_pod) // 2


def rank_keys(scores: IntArray, nodes: IntArray, cluster_size: int) -> IntArray:
    """One integer per (score, node), higher for a higher score and then for a lower node index.

    This is the order nodes are chosen in (upstream breaks ties at random;
    here the node listed first wins); ``key_node`` reads the node back.
    Every key of a score of 0 or more is positive, so -1 can mark a node
    that is no candidate.
    """
    keys: IntArray = scores * (cluster_size + 1) + (cluster_size - nodes)
    return keys


def key_node(key: int, cluster_size: int) -> int:
    """The node of a ``rank_keys`` key."""
    return int(cluster_size - key % (cluster_size + 1))


def node_scores(snap: Snapshot, shape: Shape, nodes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``node_score`` of each of ``nodes`` in one pass (the same integer and float steps, elementwise).

    Amounts of 2**53 and more are not exact as floats: then the nodes are
    scored one by one with ``node_score``.
    """
    scores = scores_after(shape, score_inputs(snap, nodes), 0)
    if scores is None:
        return np.array([node_score(snap, i, shape) for i in nodes.tolist()], dtype=np.int64)
    return scores


class ScoreInputs:
    """What scoring reads of some nodes, per scored resource: their allocatable and what is given out there now.

    ``floats`` are ``(allocatable, used)`` as floats (exact where the facts
    below say so), ``resources`` the resource index of each; ``ints(c)``
    gives column ``c``'s two amounts as exact integers, for the few steps
    that need them. The facts the float steps depend on come with them:
    whether every node offers every scored resource, whether the
    allocatable amounts are exact as floats, bounds on the used and the
    allocatable amounts, and a common divisor of each column's amounts
    (``Snapshot.grain``). A subset of the nodes (``take``) keeps them, and
    picks its integers only when they are read.
    """

    __slots__ = (
        "_ints",
        "_order",
        "alloc_bounds",
        "exact",
        "floats",
        "grains",
        "offered",
        "resources",
        "unset",
        "used_bounds",
    )

    def __init__(
        self,
        ints: list[tuple[IntArray, IntArray]],
        floats: list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]],
        resources: list[int],
        facts: tuple[bool, bool, list[tuple[int, int]], list[tuple[int, int]], list[int]],
        unset: list[tuple[IntArray, int] | None],
        order: npt.NDArray[np.int64] | None = None,
    ) -> None:
        self._ints, self._order = ints, order
        self.floats, self.resources = floats, resources
        self.offered, self.exact, self.used_bounds, self.alloc_bounds, self.grains = facts
        # per scored resource, what LeastAllocated adds for running containers that leave it unset, and its
        # largest amount (``None``: nothing on any of these nodes); already in ``order``
        self.unset = unset

    def ints(self, c: int) -> tuple[IntArray, IntArray]:
        """Column ``c``'s allocatable and used amounts as exact integers."""
        alloc, used = self._ints[c]
        return (alloc, used) if self._order is None else (alloc[self._order], used[self._order])

    def take(self, order: npt.NDArray[np.int64]) -> ScoreInputs:
        """The inputs of the nodes at ``order``."""
        floats = [(alloc[order], used[order]) for alloc, used in self.floats]
        facts = (self.offered, self.exact, self.used_bounds, self.alloc_bounds, self.grains)
        ints = [self.ints(c) for c in range(len(self._ints))] if self._order is not None else self._ints
        unset = [None if entry is None else (entry[0][order], entry[1]) for entry in self.unset]
        return ScoreInputs(ints, floats, self.resources, facts, unset, order)


def score_inputs(snap: Snapshot, nodes: npt.NDArray[np.int64]) -> ScoreInputs:
    """The score inputs of ``nodes`` now (for the cluster's own ``root.node_array``, with nothing copied)."""
    cluster = snap.cluster
    everyone = nodes is cluster.root.node_array
    unchanged = everyone and not snap.changed_count
    ints, floats = [], []
    for r in cluster.score_index:
        alloc, alloc_floats, used = cluster.allocatable_array(r), cluster.allocatable_floats(r), snap.used_at(r, nodes)
        if not everyone:
            alloc, alloc_floats = alloc[nodes], alloc_floats[nodes]
        ints.append((alloc, used))
        floats.append((alloc_floats, cluster.used_floats(r) if unchanged else used.astype(np.float64)))
    if unchanged:
        used_bounds = [cluster.used_range(r) for r in cluster.score_index]
    else:
        used_bounds = [(int(used.min()), int(used.max())) if len(used) else (0, 0) for _, used in ints]
    ranges = [cluster.allocatable_range(r) for r in cluster.score_index]  # what holds for every node's holds for these
    grains = [snap.grain(r) for r in cluster.score_index]
    if all(low > 0 and high < 2**53 for low, high in ranges):
        offered = exact = True
    else:
        offered = all(_all_positive(alloc) for alloc, _ in ints)
        exact = all(_float_exact(alloc) for alloc, _ in ints)
    unset: list[tuple[IntArray, int] | None] = []
    for c in range(len(cluster.score_index)):
        column = cluster.unset_array(c)
        column = column if everyone else column[nodes]
        most = int(column.max()) if len(column) else 0
        unset.append((column, most) if most > 0 else None)
    facts = (offered, exact, used_bounds, ranges, grains)
    return ScoreInputs(ints, floats, list(cluster.score_index), facts, unset)


def scores_after(
    shape: Shape, inputs: ScoreInputs, landed: npt.NDArray[np.int64] | int, most: int | None = None
) -> npt.NDArray[np.int64] | None:
    """``node_score`` of each node of ``inputs`` once ``landed`` more pods of ``shape`` are on it.

    The arrays broadcast: a row of nodes against a column of ``landed``
    counts gives one score per count and node; ``most`` is the largest of
    ``landed`` (``landed`` itself when it is a number). ``None`` when an
    amount is too large to convert to a float exactly.

    The steps are ``node_score``'s, elementwise, in floats where every
    amount is exact as one: LeastAllocated's integer division is read off
    the float quotient of what it counts (``_free_share``), nothing is
    clipped where the bounds show that every node has room for what is
    requested, and BalancedAllocation's fractions are the quotients Go
    computes. LeastAllocated counts each landed pod with its non-zero
    defaults (``Shape.score_request``), BalancedAllocation with its actual
    requests, as the scheduler's cache counts assumed pods.
    """
    most = most if most is not None else int(landed) if isinstance(landed, int) else int(np.max(landed, initial=0))
    if not inputs.exact:
        return None
    least: npt.NDArray[np.float64] | None = None
    weights: IntArray | int = 0
    balancing = any(shape.requests.get(name, 0) > 0 for name, _ in SCORE_RESOURCES)  # else BalancedAllocation skips
    # With one count, or a column of consecutive counts, the fraction with the pod at count k is the one
    # without it at k + 1: each resource's fractions are computed once, for one more row.
    chained = isinstance(landed, int) or (
        landed.ndim == 2 and landed.shape[1] == 1 and bool((np.diff(landed[:, 0]) == 1).all())
    )
    fractions: list[npt.NDArray[np.float64]] = []  # chained: per resource, a row per count and one more
    with_pod: list[npt.NDArray[np.float64]] = []  # not chained: per resource, with the pod and without it
    without_pod: list[npt.NDArray[np.float64]] = []
    everywhere = inputs.offered  # every node offers both: no masks needed
    for c, ((alloc_floats, used_floats), r, (low, high), (alloc_low, alloc_high), grain, request, unset) in enumerate(
        zip(
            inputs.floats,
            inputs.resources,
            inputs.used_bounds,
            inputs.alloc_bounds,
            inputs.grains,
            shape.score_request,
            inputs.unset,
            strict=True,
        )
    ):
        top = high + (unset[1] if unset is not None else 0) + (most + 1) * max(shape.vector[r], request) + request
        if not (low > -(2**53) and top < 2**53):
            return None
        taken = landed * shape.vector[r]
        # LeastAllocated counts the landed pods as the scheduler's cache counts assumed ones: with non-zero defaults
        counted = taken if request == shape.vector[r] else landed * request
        more = counted + request
        offered = True if everywhere else alloc_floats > 0
        divisor = alloc_floats if everywhere else np.where(offered, alloc_floats, 1.0)

        def exact_amounts(
            c: int = c, more: IntArray | int = more, offered: Any = offered, unset: Any = unset
        ) -> tuple[IntArray, IntArray]:
            """The amounts LeastAllocated counts and their divisors in integers, for the few steps that need them."""
            alloc, used = inputs.ints(c)
            counted = used + more if unset is None else used + unset[0] + more
            return counted, np.where(offered, alloc, 1)

        given: npt.NDArray[np.float64] = np.add(used_floats, taken, dtype=np.float64)  # exact: below 2**53
        least_given = given if counted is taken else np.add(used_floats, counted, dtype=np.float64)
        share = least_given + request if unset is None else least_given + (unset[0] + request)
        share /= divisor
        room = everywhere and top <= alloc_low  # no node's request passes its allocatable: nothing to clip
        if low < 0:
            free_share = _exact_free_share(*exact_amounts())
        else:
            unit = math.gcd(grain, shape.vector[r], request)  # divides every allocatable and requested amount here
            if unset is not None:
                unit = math.gcd(unit, NONZERO_DEFAULTS[SCORE_RESOURCES[c][0]])  # the running pods' defaults too
            coarse = alloc_high <= _COARSE * max(unit, 1)
            free_share = _free_share(exact_amounts, share, coarse, clip=not room)
        if not everywhere:
            free_share = np.where(offered, free_share, 0)
        least = free_share if least is None else np.add(least, free_share, out=least)
        weights = weights + offered
        if not balancing:
            continue
        # BalancedAllocation's fractions of actual requests, capped at 1
        if chained:
            rows = given if given.ndim == 2 else given[None, :]  # one row per count (one row for a single count)
            extended = np.concatenate((rows, rows[-1:] + shape.vector[r]))
            extended /= divisor
            fractions.append(np.minimum(extended, 1.0, out=extended))
        else:
            without = given / divisor
            with_pod.append(np.minimum((given + shape.vector[r]) / divisor, 1.0))
            without_pod.append(np.minimum(without, 1.0, out=without))
    assert least is not None
    if everywhere:
        least *= 0.5
        fit = least.astype(np.int64)  # least is a whole number of 0 or more: this is least // 2
    else:
        fit = np.where(weights > 0, least // np.maximum(weights, 1), 0).astype(np.int64)
    if not balancing:
        return fit  # BalancedAllocation skips pods that request neither CPU nor memory
    if chained:
        balances = _balances(fractions)
        change = balances[1:] - balances[:-1]
        if fit.ndim == 1:
            change = change[0]
    else:
        change = _balances(with_pod) - _balances(without_pod)
    change += _MAX_SCORE // 2
    change //= 2
    change += _MAX_SCORE // 2
    if not everywhere:  # fewer than two fractions: the balance is 100 with and without the pod
        change = np.where(weights == 2, change, _MAX_SCORE // 2 + _MAX_SCORE // 4)
    total: IntArray = np.add(fit, change, out=fit)
    return total


def _balances(fractions: list[npt.NDArray[np.float64]]) -> IntArray:
    """``_balance`` elementwise: ``int((1 - |f0 - f1| / 2) * 100)``, truncated as Go converts to int64."""
    spread = fractions[0] - fractions[1]
    spread /= 2
    np.abs(spread, out=spread)
    np.subtract(1, spread, out=spread)
    spread *= _MAX_SCORE
    balance: IntArray = spread.astype(np.int64)
    return balance


_NEAR = 2.0**-43
"""More than the float error of ``100 - 100 * share`` (below 2**-44 + 2**-47 where the true share is at most 1.28)."""

_COARSE = 2**42
"""Allocatable amounts at most this (in units of a common divisor of the amounts) keep every
``100 - 100 * requested / alloc`` that is not whole more than ``2 * _NEAR`` from a whole number
(its distance is at least ``1 / alloc``)."""


def _free_share(
    exact_amounts: Callable[[], tuple[IntArray, IntArray]], share: npt.NDArray[np.float64], coarse: bool, clip: bool
) -> npt.NDArray[np.float64]:
    """LeastAllocated's ``max(alloc - requested, 0) * 100 // alloc``, elementwise, as whole floats.

    ``share`` is the float ``requested / alloc``, ``exact_amounts()`` the
    two in integers (``requested`` of 0 or more, both below 2**53; called
    only where the floats cannot decide).
    The result is ``floor(100 - 100 * requested / alloc)``, at least 0
    (``clip=False``: no ``requested`` passes its ``alloc``, so it is).
    Its float estimate from ``share`` is within
    ``_NEAR`` of the true value where the share is at most 1.28 (past 1 the
    result is 0 either way). ``coarse``: every ``alloc`` is at most
    ``_COARSE`` units of a divisor of every amount, so a true value that is
    not whole lies farther than ``2 * _NEAR`` from a whole number, and the
    floor of the estimate plus ``_NEAR`` is exact. Otherwise estimates
    within ``1e-9`` of a whole number are divided in integers.
    """
    free = np.multiply(share, -_MAX_SCORE)
    doubtful = None
    if coarse:
        free += _MAX_SCORE + _NEAR
        np.floor(free, out=free)
    else:
        free += _MAX_SCORE
        low = np.floor(free)
        gap = np.subtract(free, low, out=free)  # in [0, 1): near 0 or 1 the floor may be off by one
        gap -= 0.5
        np.abs(gap, out=gap)
        doubtful = gap > 0.5 - 1e-9
        free = low
    if clip:
        np.maximum(free, 0, out=free)
    if doubtful is not None and doubtful.any():
        requested, alloc = exact_amounts()
        a = np.broadcast_to(alloc, free.shape)[doubtful]
        free[doubtful] = np.maximum(a - np.broadcast_to(requested, free.shape)[doubtful], 0) * _MAX_SCORE // a
    return free


def _exact_free_share(requested: IntArray, alloc: IntArray) -> npt.NDArray[np.float64]:
    """``max(alloc - requested, 0) * 100 // alloc`` in integers, as floats (for any signed ``requested``)."""
    share: npt.NDArray[np.float64] = (np.maximum(alloc - requested, 0) * _MAX_SCORE // alloc).astype(float)
    return share


def _float_exact(values: IntArray) -> bool:
    """Whether every one of ``values`` converts to a float without rounding."""
    return len(values) == 0 or max(-int(values.min()), int(values.max())) < 2**53


def _all_positive(values: IntArray) -> bool:
    """Whether every one of ``values`` is above 0."""
    return len(values) == 0 or bool((values > 0).all())


def preference_scores(snap: Snapshot, shape: Shape, nodes: Sequence[int]) -> dict[int, int]:
    """The scores of ``nodes`` that placing pods does not change, weighted as the default profile weighs them.

    TaintToleration (weight 3) counts untolerated ``PreferNoSchedule``
    taints and is reversed (fewest is 100); NodeAffinity (weight 2) adds the
    weights of the preferred terms a node matches (the most is 100); both
    are normalized over ``nodes`` as upstream, and 0 for every node when no
    node differs. ImageLocality (weight 1, ``image_scores``) needs no
    normalizing. ``preference_array`` gives the same as an array.
    """
    order = np.fromiter(nodes, dtype=np.int64, count=len(nodes))
    return dict(zip(order.tolist(), preference_array(snap, shape, order).tolist(), strict=True))


def preference_array(snap: Snapshot, shape: Shape, nodes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``preference_scores`` of ``nodes`` as an array in their order, each raw score decided once per class of nodes.

    The ``PreferNoSchedule`` count is computed once per class of equal
    taints (``Cluster.taint_classes``) and a preferred term once per
    distinct value of each label it reads (``Cluster.term_mask``); numpy
    spreads both over the nodes and normalizes them.
    """
    counts, affinity = raw_preferences(snap.cluster, shape.constraints, nodes)
    most_taints = int(counts.max(initial=0))
    if most_taints:
        taint = _MAX_SCORE - counts * _MAX_SCORE // most_taints
    else:
        taint = np.full(len(nodes), _MAX_SCORE, dtype=np.int64)
    out: npt.NDArray[np.int64] = 3 * taint
    if affinity is not None:
        most_affinity = int(affinity.max(initial=0))
        if most_affinity:
            out += 2 * (affinity * _MAX_SCORE // most_affinity)
    if _lists_images(snap.cluster, shape.constraints):
        out += image_scores(snap.cluster, shape.constraints, nodes)
    return out


_MB = 1024 * 1024
_IMAGE_FLOOR = 23 * _MB
"""ImageLocality's ``minThreshold``: image bytes below it on a node score 0."""
_IMAGE_CEILING = 1000 * _MB
"""ImageLocality's ``maxContainerThreshold``: per image of the pod, the bytes that score 100."""


def image_scores(cluster: Cluster, pod: PodConstraints, nodes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """ImageLocality's score (0-100) of ``nodes`` for ``pod``, as kube-scheduler 1.37 computes it.

    For each of the pod's images (``PodConstraints.images``) that a node
    lists, the image's size there scaled by the share of the cluster's
    nodes that list it, ``int(size * (nodes with it / all nodes))``; the
    sum, clamped between 23 MiB and 1000 MiB per image of the pod, maps
    linearly onto 0-100 (integer division). The share counts every node of
    the cluster, usable or not, as the scheduler's snapshot does.
    """
    total = np.zeros(len(cluster), dtype=np.int64)
    index = cluster.images
    for name in pod.images:
        found = index.get(name)
        if found is None:
            continue
        holders, sizes = found
        spread = len(holders) / len(cluster)
        total[holders] += (sizes.astype(np.float64) * spread).astype(np.int64)
    ceiling = _IMAGE_CEILING * len(pod.images)
    clamped = np.clip(total[nodes], _IMAGE_FLOOR, max(ceiling, _IMAGE_FLOOR))
    if ceiling <= _IMAGE_FLOOR:  # cannot happen with one image or more; upstream's formula gives 0
        return np.zeros(len(nodes), dtype=np.int64)
    scores: npt.NDArray[np.int64] = _MAX_SCORE * (clamped - _IMAGE_FLOOR) // (ceiling - _IMAGE_FLOOR)
    return scores


def raw_preferences(
    cluster: Cluster, pod: PodConstraints, nodes: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64] | None]:
    """The plugins' raw scores of ``nodes`` for ``pod``: untolerated ``PreferNoSchedule`` taints, preferred weights.

    The same integers ``tainttoleration.intolerable_preferences`` and
    ``nodeaffinity.preferred_score`` give node by node; the second is
    ``None`` when the pod has no preferred terms.
    """
    codes, classes = cluster.taint_classes()
    if cluster.has_preferences:
        per_class = np.fromiter(
            (intolerable_preferences(taints, pod.tolerations) for taints in classes), dtype=np.int64, count=len(classes)
        )
        counts = per_class[codes[nodes]]
    else:  # no PreferNoSchedule taint anywhere: every count is 0
        counts = np.zeros(len(nodes), dtype=np.int64)
    if not pod.preferred:
        return counts, None
    affinity = np.zeros(len(nodes), dtype=np.int64)
    for weight, term in pod.preferred:
        affinity += np.where(cluster.term_mask(term)[nodes], weight, 0)
    return counts, affinity


def prefers(snap: Snapshot, shape: Shape) -> bool:
    """Whether the preference scores can tell nodes apart (PreferNoSchedule taints, preferred terms, images)."""
    cluster = snap.cluster
    return bool(shape.constraints.preferred) or cluster.has_preferences or _lists_images(cluster, shape.constraints)


def _lists_images(cluster: Cluster, pod: PodConstraints) -> bool:
    """Whether some node lists one of the pod's images (else ImageLocality scores 0 on every node)."""
    return cluster.has_images and any(cluster.images.get(name) is not None for name in pod.images)


# -- PodTopologySpread and InterPodAffinity ------------------------------------------------------------------------

_SPREAD_WEIGHT = 2
"""PodTopologySpread's weight in the default profile."""
_AFFINITY_WEIGHT = 2
"""InterPodAffinity's weight in the default profile."""
_HARD_AFFINITY_WEIGHT = 1
"""``InterPodAffinityArgs.hardPodAffinityWeight``'s default: what an existing pod's required affinity term that
selects the incoming pod adds."""

Assumed = Mapping[PodConstraints, IntArray]
"""Pods a cycle has assumed, by kind: per kind of pod, how many sit on each node of the cluster."""

_CACHES: weakref.WeakKeyDictionary[Cluster, dict[Any, Any]] = weakref.WeakKeyDictionary()


def _cache(cluster: Cluster) -> dict[Any, Any]:
    """What the pod scores read of ``cluster`` once (a cluster never changes)."""
    found = _CACHES.get(cluster)
    if found is None:
        found = _CACHES[cluster] = {}
    return found


def _label_codes(cluster: Cluster, key: str) -> tuple[IntArray, int]:
    """Each node's value of label ``key`` as a code (-1: the node has no such label), and how many values there are."""
    cache = _cache(cluster)
    found: tuple[IntArray, int] | None = cache.get(("codes", key))
    if found is None:
        values: dict[str, int] = {}
        codes = np.fromiter(
            (values.setdefault(labels[key], len(values)) if key in labels else -1 for labels in cluster.labels),
            dtype=np.int64,
            count=len(cluster),
        )
        found = cache[("codes", key)] = (codes, len(values))
    return found


def _running_matches(cluster: Cluster, namespaces: tuple[str, ...] | None, selector: LabelSelector) -> IntArray:
    """How many running pods of ``namespaces`` (``None``: any) that ``selector`` selects sit on each node."""
    cache = _cache(cluster)
    found: IntArray | None = cache.get(("pods", namespaces, selector))
    if found is None:
        nodes = [
            pod.node
            for pod in cluster.running_pods
            if (namespaces is None or pod.namespace in namespaces) and selector.matches(pod.labels)
        ]
        found = cache[("pods", namespaces, selector)] = np.bincount(
            np.asarray(nodes, dtype=np.int64), minlength=len(cluster)
        ).astype(np.int64)
    return found


def _with_affinity(cluster: Cluster) -> tuple[RunningPod, ...]:
    """The running pods with pod (anti-)affinity terms of their own, on nodes with labels."""
    cache = _cache(cluster)
    found: tuple[RunningPod, ...] | None = cache.get("with-affinity")
    if found is None:
        found = cache["with-affinity"] = tuple(
            pod for pod in cluster.running_pods if pod.affinity and cluster.labels[pod.node]
        )
    return found


def pod_scored(cluster: Cluster, pod: PodConstraints) -> bool:
    """Whether PodTopologySpread or InterPodAffinity scores ``pod`` (else both add 0 on every node).

    PodTopologySpread scores a pod with ``ScheduleAnyway`` constraints;
    InterPodAffinity one with preferred pod (anti-)affinity terms, or one
    that a running pod's own terms may select (the system default spread
    constraints are not modelled: the cluster holds no Services or
    controllers that select pods).
    """
    if pod.soft_spread or pod.preferred_pod_affinity or pod.preferred_pod_anti_affinity:
        return True
    running = _with_affinity(cluster)
    if not running and not pod.pod_affinity:
        return False
    labels = pod.label_map
    if any(term.matches(pod.namespace, labels) for term in pod.pod_affinity):
        return True  # its assumed copies' required affinity selects it
    return any(
        term.matches(pod.namespace, labels)
        for other in running
        for term in (
            *other.affinity.required,
            *(t for _, t in other.affinity.preferred),
            *(t for _, t in other.affinity.preferred_anti),
        )
    )


def pod_scores(
    cluster: Cluster, pod: PodConstraints, nodes: npt.NDArray[np.int64], assumed: Assumed | None = None
) -> IntArray:
    """PodTopologySpread and InterPodAffinity's weighted scores (2 each) of ``nodes``, the pod's feasible nodes.

    Both count the running pods and the ones a cycle has ``assumed``; each
    is normalized over ``nodes`` as kube-scheduler 1.37.2 normalizes it
    (``spread_scores``, ``affinity_scores``).
    """
    assumed = assumed or {}
    out: IntArray = _SPREAD_WEIGHT * spread_scores(cluster, pod, nodes, assumed)
    out += _AFFINITY_WEIGHT * affinity_scores(cluster, pod, nodes, assumed)
    return out


def _matching(
    cluster: Cluster, namespaces: tuple[str, ...] | None, selector: LabelSelector, assumed: Assumed
) -> IntArray:
    """``_running_matches`` plus the assumed pods ``selector`` selects in ``namespaces``."""
    counts = _running_matches(cluster, namespaces, selector)
    extra = [
        placed
        for kind, placed in assumed.items()
        if (namespaces is None or kind.namespace in namespaces) and selector.matches(kind.label_map)
    ]
    return counts + sum(extra) if extra else counts


def spread_scores(cluster: Cluster, pod: PodConstraints, nodes: npt.NDArray[np.int64], assumed: Assumed) -> IntArray:
    """PodTopologySpread's normalized score (0-100) of ``nodes`` for ``pod``'s ``ScheduleAnyway`` constraints.

    As ``podtopologyspread/scoring.go`` of 1.37.2: a node of ``nodes``
    without every constraint's key is ignored (0). Per constraint, a
    domain's count is the matching pods (the pod's namespace, the
    constraint's selector; an empty selector counts none) on every node of
    the cluster that has all the keys, passes the constraint's node
    inclusion policies and whose value some scored node has; for the
    hostname key, the node's own pods. A node's raw score is the sum of
    ``count * log(domains + 2) + maxSkew - 1`` over the constraints, rounded
    (``domains``: the scored nodes' values, or the scored nodes for the
    hostname key); normalized, ``100 * (max + min - raw) // max`` over the
    scored nodes, 100 for all when the highest is 0. 0 everywhere for a
    pod without such constraints.
    """
    constraints = pod.soft_spread
    if not constraints or len(nodes) == 0:
        return np.zeros(len(nodes), dtype=np.int64)
    codes = [_label_codes(cluster, c.topology_key)[0] for c in constraints]
    everywhere = np.ones(len(cluster), dtype=np.bool_)
    for column in codes:
        everywhere &= column >= 0
    scored = everywhere[nodes]
    raw = np.zeros(len(nodes), dtype=np.float64)
    for constraint, column in zip(constraints, codes, strict=True):
        selector = constraint.selector
        if selector.match_labels or selector.match_expressions:
            per_node = _matching(cluster, (pod.namespace,), selector, assumed)
        else:  # an empty selector counts no pod (countPodsMatchSelector)
            per_node = np.zeros(len(cluster), dtype=np.int64)
        if constraint.topology_key == HOSTNAME_KEY:
            size = int(np.count_nonzero(scored))
            count = per_node[nodes]
        else:
            width = _label_codes(cluster, constraint.topology_key)[1]
            present = np.zeros(width + 1, dtype=np.bool_)
            present[column[nodes[scored]]] = True
            size = int(np.count_nonzero(present))
            counted = everywhere & present[column] & _included(cluster, pod, constraint)
            per_value = np.bincount(column[counted], weights=per_node[counted], minlength=width + 1)
            count = per_value[np.maximum(column[nodes], 0)].astype(np.int64)
        weight = math.log(size + 2)
        raw += count * weight + float(constraint.max_skew - 1)
    floor = np.floor(raw)
    rounded = np.where(raw - floor >= 0.5, floor + 1, floor).astype(np.int64)  # Go's math.Round, for raw >= 0
    out = np.zeros(len(nodes), dtype=np.int64)
    if not scored.any():
        return out
    low, high = int(rounded[scored].min()), int(rounded[scored].max())
    if high == 0:
        out[scored] = _MAX_SCORE
    else:
        out[scored] = _MAX_SCORE * (high + low - rounded[scored]) // high
    return out


def _included(cluster: Cluster, pod: PodConstraints, constraint: SpreadConstraint) -> npt.NDArray[np.bool_]:
    """The nodes a spread constraint's node inclusion policies count for ``pod`` (node affinity, taints)."""
    cache = _cache(cluster)
    key = (
        "included",
        pod.node_selector,
        pod.affinity,
        pod.tolerations,
        constraint.honor_affinity,
        constraint.honor_taints,
    )
    found: npt.NDArray[np.bool_] | None = cache.get(key)
    if found is None:
        found = np.ones(len(cluster), dtype=np.bool_)
        for i in range(len(cluster)):
            if (constraint.honor_affinity and not nodeaffinity.matches(pod, cluster.labels[i], cluster.names[i])) or (
                constraint.honor_taints and tainttoleration.check(cluster.taints[i], pod.tolerations) is not None
            ):
                found[i] = False
        cache[key] = found
    return found


def affinity_scores(cluster: Cluster, pod: PodConstraints, nodes: npt.NDArray[np.int64], assumed: Assumed) -> IntArray:
    """InterPodAffinity's normalized score (0-100) of ``nodes`` for ``pod``, as 1.37.2's ``scoring.go`` computes it.

    Every existing pod (running or assumed) on a node with labels adds, to
    every node sharing that node's value of a term's topology key: the
    weight of each of the incoming pod's preferred affinity terms that
    selects it (minus, for anti-affinity), ``hardPodAffinityWeight`` (1)
    for each of its own required affinity terms that selects the incoming
    pod, and the weight of each of its own preferred affinity (minus:
    anti-affinity) terms that does. Normalized over ``nodes``:
    ``int(100 * (raw - min) / (max - min))``, 0 for all when they are equal.
    """
    if len(nodes) == 0:
        return np.zeros(0, dtype=np.int64)
    labelled = np.fromiter((bool(labels) for labels in cluster.labels), dtype=np.bool_, count=len(cluster))
    by_key: dict[str, IntArray] = {}  # per topology key, the weights added per node holding pods

    def add(key: str, per_node: IntArray, weight: int) -> None:
        if not weight or not per_node.any():
            return
        if key not in by_key:
            by_key[key] = np.zeros(len(cluster), dtype=np.int64)
        by_key[key] += per_node * weight

    for sign, terms in ((1, pod.preferred_pod_affinity), (-1, pod.preferred_pod_anti_affinity)):
        for weight, term in terms:
            add(term.topology_key, _matching(cluster, term.namespaces, term.selector, assumed), sign * weight)
    labels = pod.label_map
    for running in _with_affinity(cluster):
        one = np.zeros(len(cluster), dtype=np.int64)
        one[running.node] = 1
        for key, weight in _symmetric(running.affinity, pod.namespace, labels):
            add(key, one, weight)
    for kind, placed in assumed.items():
        for key, weight in _symmetric(kind.pod_affinity_terms, pod.namespace, labels):
            add(key, placed, weight)
    raw = np.zeros(len(nodes), dtype=np.int64)
    for key, weights in by_key.items():
        codes, width = _label_codes(cluster, key)
        holders = labelled & (codes >= 0)
        per_value = np.bincount(codes[holders], weights=weights[holders], minlength=width + 1).astype(np.int64)
        found = codes[nodes]
        raw += np.where(found >= 0, per_value[np.maximum(found, 0)], 0)
    low, high = int(raw.min()), int(raw.max())
    if high == low:
        return np.zeros(len(nodes), dtype=np.int64)
    scores: IntArray = (float(_MAX_SCORE) * ((raw - low).astype(np.float64) / float(high - low))).astype(np.int64)
    return scores


def _symmetric(terms: PodAffinity, namespace: str, labels: Mapping[str, str]) -> list[tuple[str, int]]:
    """An existing pod's own terms that select the incoming pod: (topology key, weight) of each."""
    out = [(term.topology_key, _HARD_AFFINITY_WEIGHT) for term in terms.required if term.matches(namespace, labels)]
    for sign, weighted in ((1, terms.preferred), (-1, terms.preferred_anti)):
        out.extend((term.topology_key, sign * weight) for weight, term in weighted if term.matches(namespace, labels))
    return out
