"""Per-query state of a simulation: what has been assumed on top of the cluster, and how to undo it.

kube-scheduler assumes a candidate placement in its node snapshot, evaluates
it and reverts; a ``Snapshot`` does the same on top of an immutable
``Cluster``. It stores only the difference (extra usage per changed node,
devices taken from pools, claim allocations) in an undo log, so marking,
reverting and replaying an evaluation costs what the evaluation changed.

Fits are computed per *pod shape* (one request vector), in columns: how
many pods fit on each node before this query's changes is one numpy pass,
and how many fit in every domain of a ``DomainSet`` one more; only the
nodes this query changed are corrected, all in one pass too.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from operator import sub
from typing import Any

import numpy as np
import numpy.typing as npt

from workloadbuilder.placement.cluster.arrays import (
    FIT_CAP,
    INT64_SAFE,
    IntArray,
    column_gcds,
    exact,
    exact_sum,
    group_sums,
    headroom,
)
from workloadbuilder.placement.cluster.model import ANTI_AFFINITY_PREFIX, SCORE_RESOURCES, Cluster, host_port_resource
from workloadbuilder.placement.cluster.topology import Domain, DomainSet
from workloadbuilder.placement.filters import interpodaffinity
from workloadbuilder.placement.filters.noderesources import is_scheduled_resource
from workloadbuilder.placement.k8s.constraints import NO_CONSTRAINTS, PodConstraints
from workloadbuilder.placement.k8s.resources import NONZERO_DEFAULTS, POD_MILLIS

__all__ = ["HOSTNAME_KEY", "Allocation", "Block", "Checkpoint", "Shape", "Snapshot", "slots_of"]

HOSTNAME_KEY = "kubernetes.io/hostname"
"""The topology key whose domains are single nodes: anti-affinity over it among the pods placed is a per-node slot."""


def slots_of(pod: PodConstraints) -> list[str]:
    """The one-slot resources a pod holds: its host ports, and each per-node anti-affinity term that matches itself."""
    slots = [host_port_resource(port) for port in pod.host_ports]
    for term in pod.pod_anti_affinity:
        if term.topology_key == HOSTNAME_KEY and interpodaffinity.self_matching(term, pod):
            digest = hashlib.sha1(repr(term).encode(), usedforsecurity=False).hexdigest()[:12]
            slots.append(f"{ANTI_AFFINITY_PREFIX}{digest}")
    return slots


class Shape:
    """One kind of pod: its requests as a vector over the cluster's resources, its filters, what scoring reads.

    Resources the cluster has never heard of make the shape fit nowhere
    (``missing``); requests the scheduler does not check (a name that is
    neither native nor scalar) are dropped; the ``pods`` resource always
    counts one, and each host port one slot of its port resource.
    ``allowed`` marks the nodes the pod-and-node filters let the pod use
    (``None``: all of them). ``score_request`` is the CPU and memory
    ``NodeResourcesFit`` scores the pod by: ``score_requests`` when given
    (``pod_score_requests`` of its template), else each of ``requests``
    with ``NONZERO_DEFAULTS`` for one left unset.
    """

    __slots__ = (
        "allowed",
        "allowed_mask",
        "constraints",
        "missing",
        "requests",
        "score_request",
        "terms",
        "uid",
        "vector",
    )

    def __init__(
        self,
        uid: int,
        cluster: Cluster,
        requests: dict[str, int],
        constraints: PodConstraints = NO_CONSTRAINTS,
        score_requests: tuple[int, int] | None = None,
    ) -> None:
        self.uid = uid
        self.constraints = constraints
        self.allowed = cluster.allowed(constraints)
        self.allowed_mask = cluster.allowed_mask(constraints)
        self.requests = {name: amount for name, amount in requests.items() if is_scheduled_resource(name)}
        self.requests["pods"] = self.requests.get("pods", 0) + POD_MILLIS
        for slot in slots_of(constraints):
            self.requests[slot] = POD_MILLIS
        self.missing = tuple(sorted(r for r, q in self.requests.items() if q > 0 and r not in cluster.resource_index))
        self.vector = tuple(self.requests.get(r, 0) for r in cluster.resources)
        self.terms = tuple((r, q) for r, q in enumerate(self.vector) if q > 0)
        self.score_request = score_requests or tuple(
            self.requests.get(name, 0) or NONZERO_DEFAULTS[name] for name, _ in SCORE_RESOURCES
        )

    def fits(self, free: Sequence[int]) -> int:
        """How many of these pods fit in ``free``."""
        if self.missing:
            return 0
        k = min([free[r] // q for r, q in self.terms])
        return min(max(0, k), FIT_CAP)


@dataclass(frozen=True)
class Allocation:
    """Devices allocated to one claim: ``(pool name, count)`` pairs, and the pools' node reach."""

    identity: tuple[str, ...]
    devices: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Block:
    """A change to many nodes at once: ``change[k]`` more taken on node ``nodes[k]`` (distinct; ``of`` sorts them).

    ``change`` is an exact (``int64`` or ``object``) array of one row per
    node and one column per cluster resource; negative entries give back.
    ``largest`` is the largest magnitude in it, and ``grains`` a common
    divisor of each column (both found when not given); ``full`` says that
    every row has an entry that is not 0 (``False``: not known).
    """

    # Frozen: a Block is made once and only read, by ``Snapshot.add_block`` and by ``revert`` to undo it.
    nodes: npt.NDArray[np.int64]  # the node indices the block changes, distinct
    change: IntArray  # one row per node of ``nodes``, one column per cluster resource
    largest: int = -1  # the largest magnitude in ``change`` (-1 given: computed at construction)
    grains: tuple[int, ...] = ()  # a common divisor of each column (empty given: computed at construction)
    full: bool = False  # every row has a nonzero entry (False: not known)

    def __post_init__(self) -> None:
        if self.largest < 0:
            object.__setattr__(self, "largest", _largest(self.change))
        if not self.grains:
            object.__setattr__(self, "grains", column_gcds(self.change))

    @classmethod
    def of(cls, per_node: Mapping[int, Sequence[int]], sign: int = 1, width: int = 0) -> Block:
        """The block taking ``sign`` times ``per_node[i]`` on each node ``i`` (rows of ``width`` resources)."""
        nodes = sorted(per_node)
        rows = [[sign * amount for amount in per_node[i]] for i in nodes]
        largest = max((abs(amount) for row in rows for amount in row), default=0)
        return cls(np.asarray(nodes, dtype=np.int64), _exact_rows(rows, width), largest)

    @classmethod
    def counts(cls, nodes: npt.NDArray[np.int64], counts: npt.NDArray[np.int64], vector: Sequence[int]) -> Block:
        """``counts[k]`` pods of ``vector`` on each node ``nodes[k]`` (distinct)."""
        largest = max((abs(amount) for amount in vector), default=0) * int(counts.max(initial=0))
        if largest < INT64_SAFE:
            change: IntArray = np.zeros((len(nodes), len(vector)), dtype=np.int64)
            for r, amount in enumerate(vector):  # column by column: numpy broadcasts over a short axis slowly
                if amount:
                    np.multiply(counts, amount, out=change[:, r])
        else:
            change = np.asarray(counts, dtype=object)[:, None] * np.array([int(v) for v in vector], dtype=object)
        full = any(vector) and bool((counts != 0).all())
        return cls(nodes, change, largest, tuple(abs(amount) for amount in vector), full)

    def __len__(self) -> int:
        return len(self.nodes)


def _exact_rows(rows: list[list[int]], width: int) -> IntArray:
    """``rows`` as a (rows × ``width``) exact array: ``int64`` when every entry leaves room, else ``object``."""
    if not rows:
        return np.zeros((0, width), dtype=np.int64)
    if max(abs(amount) for row in rows for amount in row) < INT64_SAFE:
        return np.asarray(rows, dtype=np.int64)
    out = np.empty((len(rows), len(rows[0])), dtype=object)
    out[:, :] = rows
    return out


class Snapshot:
    """Assumptions on top of a cluster for one query, with an undo log.

    ``add(i, vector, n)`` takes ``n`` times ``vector`` more on node ``i``
    (negative ``n`` frees it, as preemption does), ``add_block`` changes many
    nodes at once; ``mark()`` and ``revert(mark)`` undo everything after the
    mark; ``ops_since(mark)`` and ``replay(ops)`` re-apply a reverted
    evaluation without redoing it; ``checkpoint()`` and ``restore`` jump back
    at once, however much changed in between.

    The changes are one row per node (columns: the cluster's resources), made
    at the first change; a node is *changed* while its row is not all zero.
    """

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster  # the cluster the assumptions sit on; never changed
        self.pool_taken: dict[str, int] = {}  # devices taken per pool by the assumptions (changed, and undone)
        self.allocations: dict[tuple[str, ...], Allocation] = {}  # claims allocated so far, by identity
        # the undo log: one entry per add, add_block, take_devices and allocate, popped by revert
        self._log: list[tuple[Any, ...]] = []
        # node i's change per resource (made at the first change; meaningful only where ``_mask`` is set)
        self._rows: IntArray = np.zeros((0, len(cluster.resources)), dtype=np.int64)
        self._mask: npt.NDArray[np.bool_] = np.zeros(0, dtype=np.bool_)  # node i's row is not all zero
        self._count = 0  # how many nodes are changed (``_mask`` set)
        self._bound = 0  # at least the largest magnitude in ``_rows`` (which stays int64 while below INT64_SAFE)
        self._grains = [0] * len(cluster.resources)  # a common divisor of every change made to each resource
        # the changed nodes in index order, or None when a change made it stale (rebuilt from ``_mask`` on read)
        self._changed: npt.NDArray[np.int64] | None = np.zeros(0, dtype=np.int64)
        # Pods that fit as the cluster is, with no assumption: they depend on the cluster alone, so they stay
        # valid across every change and revert. Shape uid -> pods per free vector ...
        self._vector_fits: dict[int, npt.NDArray[np.int64]] = {}
        # ... shape uid -> pods per node ...
        self._node_fits: dict[int, npt.NDArray[np.int64]] = {}
        # ... and (shape uid, DomainSet uid) -> pods per domain of that set, summed over its nodes.
        self._family_fits: dict[tuple[int, int], npt.NDArray[np.int64]] = {}
        # every shape asked for, by its vector, missing resources and constraints, so equal asks share one
        self._shapes: dict[tuple[tuple[int, ...], tuple[str, ...], PodConstraints, tuple[int, ...]], Shape] = {}

    # -- shapes ----------------------------------------------------------------

    def shape(
        self,
        requests: dict[str, int],
        constraints: PodConstraints = NO_CONSTRAINTS,
        score_requests: tuple[int, int] | None = None,
    ) -> Shape:
        """The shape for a request map, filter inputs and score requests, shared by every group that asks the same."""
        probe = Shape(len(self._shapes), self.cluster, requests, constraints, score_requests)
        key = (probe.vector, probe.missing, constraints, probe.score_request)
        shape = self._shapes.get(key)
        if shape is None:
            shape = self._shapes[key] = probe
        return shape

    # -- changes ---------------------------------------------------------------

    def mark(self) -> int:
        """A point to revert to."""
        return len(self._log)

    def add(self, i: int, vector: Sequence[int], n: int = 1) -> None:
        """Take ``n`` times ``vector`` more on node ``i`` (``n < 0`` gives it back)."""
        self._change(i, vector, n)
        self._log.append(("node", i, vector, n))

    def add_block(self, block: Block) -> None:
        """Take ``block.change`` more on ``block.nodes``, in one pass and as one undo entry."""
        self._change_block(block, 1)
        self._log.append(("block", block))

    def take_devices(self, pool: str, n: int) -> None:
        """Take ``n`` devices of ``pool``."""
        self.pool_taken[pool] = self.pool_taken.get(pool, 0) + n
        self._log.append(("pool", pool, n))

    def allocate(self, allocation: Allocation) -> None:
        """Record a claim's allocation (its devices must already be taken)."""
        self.allocations[allocation.identity] = allocation
        self._log.append(("claim", allocation))

    def revert(self, mark: int) -> None:
        """Undo everything after ``mark``, newest first."""
        log = self._log
        while len(log) > mark:
            op = log.pop()
            if op[0] == "node":
                self._change(op[1], op[2], -op[3])
            elif op[0] == "block":
                self._change_block(op[1], -1)
            elif op[0] == "pool":
                self.pool_taken[op[1]] -= op[2]
            else:
                del self.allocations[op[1].identity]

    def ops_since(self, mark: int) -> list[tuple[Any, ...]]:
        """The changes made after ``mark``, to ``replay`` later."""
        return self._log[mark:]

    def replay(self, ops: Iterable[tuple[Any, ...]]) -> None:
        """Apply changes captured by ``ops_since``."""
        for op in ops:
            if op[0] == "node":
                self.add(op[1], op[2], op[3])
            elif op[0] == "block":
                self.add_block(op[1])
            elif op[0] == "pool":
                self.take_devices(op[1], op[2])
            else:
                self.allocate(op[1])

    def _writable_rows(self) -> IntArray:
        """The rows of changes, made at the first change.

        Only the rows of changed nodes (``_mask``) hold anything: the rest are
        not even zeroed (a node's row is cleared when it is first changed).
        """
        if len(self._mask) == 0 and len(self.cluster):
            self._rows = np.empty((len(self.cluster), len(self.cluster.resources)), dtype=np.int64)
            self._mask = np.zeros(len(self.cluster), dtype=np.bool_)
        return self._rows

    def _change(self, i: int, vector: Sequence[int], n: int) -> None:
        rows = self._writable_rows()
        row = rows[i]
        if not self._mask[i]:
            row[:] = 0
        for r, amount in enumerate(vector):
            if amount:
                value = int(row[r]) + n * amount
                if rows.dtype != object and not -INT64_SAFE < value < INT64_SAFE:
                    rows = self._rows = rows.astype(object)
                    row = rows[i]
                row[r] = value
                self._bound = max(self._bound, abs(value))
                self._grains[r] = math.gcd(self._grains[r], amount)
        now = any(row.tolist())
        if now != self._mask[i]:
            self._mask[i] = now
            self._count += 1 if now else -1
            self._changed = None

    def _change_block(self, block: Block, sign: int) -> None:
        if len(block) == 0:
            return
        rows = self._writable_rows()
        nodes, change = block.nodes, block.change
        was = self._mask[nodes] if self._count else None  # None: nothing changed yet
        current = None if was is None else self._current_rows(rows, nodes, was)
        if rows.dtype != object and self._bound + block.largest >= INT64_SAFE:
            self._bound = _largest(rows.take(self._changed_nodes(), axis=0))  # the bound ran past: find the true one
            if (0 if current is None else _largest(current)) + block.largest >= INT64_SAFE:
                rows = self._rows = rows.astype(object)
                current = None if was is None else self._current_rows(rows, nodes, was)
        self._bound += block.largest
        self._grains = [math.gcd(had, grain) for had, grain in zip(self._grains, block.grains, strict=True)]
        if current is None or was is None:  # nothing changed yet: the block is the change, its nonzero rows the changed
            updated = change if sign > 0 else -change
            _put_rows(rows, nodes, updated)
            changed = nodes if block.full else nodes[_nonzero_rows(updated)]
            self._mask[changed] = True
            self._count = len(changed)
            self._changed = changed if bool((changed[1:] > changed[:-1]).all()) else None  # kept when in order
            return
        updated = current + change if sign > 0 else current - change
        _put_rows(rows, nodes, updated)
        now = _nonzero_rows(updated)
        if int(np.count_nonzero(now != was)):
            self._mask[nodes] = now
            self._count += int(np.count_nonzero(now)) - int(np.count_nonzero(was))
            self._changed = None

    def _current_rows(self, rows: IntArray, nodes: npt.NDArray[np.int64], changed: npt.NDArray[np.bool_]) -> IntArray:
        """The rows of ``nodes`` (``changed``: which of them are), zero for the unchanged ones."""
        current = rows.take(nodes, axis=0)  # take: far faster than indexing rows of a 2-D array
        if not changed.all():
            current[~changed] = 0
        return current

    # -- reading ---------------------------------------------------------------

    def grain(self, r: int) -> int:
        """A common divisor of every amount of resource ``r`` the snapshot holds: allocatable, used and changes."""
        return math.gcd(self.cluster.grain(r), self._grains[r])

    @property
    def changed_count(self) -> int:
        """How many nodes this query has changed."""
        return self._count

    def is_changed(self, i: int) -> bool:
        """Whether this query has changed what node ``i`` gives out."""
        return bool(self._count) and bool(self._mask[i])

    def change_at(self, i: int) -> tuple[int, ...] | None:
        """What this query takes more on node ``i`` per resource (``None`` where it changed nothing)."""
        if not self.is_changed(i):
            return None
        return tuple(self._rows[i].tolist())

    def free(self, i: int) -> tuple[int, ...]:
        """Node ``i``'s free capacity now."""
        base = self.cluster.vectors[self.cluster.vector_of[i]]
        change = self.change_at(i)
        if change is None:
            return base
        return tuple(map(sub, base, change))

    def changed_in(self, domain: Domain) -> Iterator[int]:
        """The nodes of ``domain`` this query has changed, in order."""
        return iter(self._changed_of(domain.node_array).tolist())

    def _changed_of(self, nodes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The changed nodes among ``nodes`` (a domain's: distinct and ascending), in their order."""
        if not self._count:
            return nodes[:0]
        if len(nodes) == len(self.cluster):  # every node: the cached list
            return self._changed_nodes()
        return nodes[self._mask[nodes]]

    def vector_fits(self, shape: Shape) -> npt.NDArray[np.int64]:
        """How many pods of ``shape`` fit in each of the cluster's free vectors (computed once per shape)."""
        fits = self._vector_fits.get(shape.uid)
        if fits is None:
            fits = self._vector_fits[shape.uid] = _fits_per_vector(self.cluster, shape)
        return fits

    def node_fits(self, shape: Shape) -> npt.NDArray[np.int64]:
        """How many pods of ``shape`` fit on each node before this query's changes (0 where a filter rejects it)."""
        fits = self._node_fits.get(shape.uid)
        if fits is None:
            fits = self.vector_fits(shape)
            if not self.cluster.vector_per_node:
                fits = fits[self.cluster.vector_index]
            if shape.allowed_mask is not None:
                fits = np.where(shape.allowed_mask, fits, 0)
            self._node_fits[shape.uid] = fits
        return fits

    def _base_fits(self, shape: Shape, family: DomainSet) -> npt.NDArray[np.int64]:
        """Pods of ``shape`` that fit in each domain of ``family`` before this query's changes."""
        fits = self._family_fits.get((shape.uid, family.uid))
        if fits is None:
            fits = group_sums(family.codes, self.node_fits(shape), len(family), FIT_CAP, family.complete, family.runs)
            self._family_fits[(shape.uid, family.uid)] = fits
        return fits

    def fit(self, shape: Shape, domain: Domain) -> int:
        """How many pods of ``shape`` fit in ``domain`` now, each pod anywhere in it the filters allow."""
        assert domain.family is not None
        base = int(self._base_fits(shape, domain.family)[domain.position])
        changed = self._changed_of(domain.node_array)
        if len(changed):
            base += int((self._changed_fits(shape, changed) - self.node_fits(shape)[changed]).sum())
        return base

    def fits_in(self, shape: Shape, domains: Sequence[Domain]) -> npt.NDArray[np.int64]:
        """``fit(shape, d)`` for each of ``domains``, in one pass when they belong to one ``DomainSet``."""
        family = domains[0].family if domains else None
        positions = family.positions(domains) if family is not None else None
        if family is None or positions is None:
            return np.array([self.fit(shape, domain) for domain in domains], dtype=np.int64)
        out = self._base_fits(shape, family)[positions].copy()
        if self._count:
            changed, owners = self._changed_among(family, positions, domains)
            if len(changed):
                corrections = self._changed_fits(shape, changed) - self.node_fits(shape)[changed]
                out += group_sums(owners, corrections, len(out), FIT_CAP, complete=True)
        return out

    def _changed_among(
        self, family: DomainSet, positions: npt.NDArray[np.int64], domains: Sequence[Domain]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The changed nodes in ``domains`` (of ``family``, at ``positions``), and which of the domains each is in.

        Few domains are read node by node; many, through the list of every
        changed node.
        """
        if len(domains) < len(family) and sum(len(domain.nodes) for domain in domains) * 8 < len(self.cluster):
            nodes, offsets = family.members(domains)
            inside = self._mask[nodes]
            owners = np.repeat(np.arange(len(domains)), np.diff(offsets))
            return nodes[inside], owners[inside]
        changed = self._changed_nodes()
        where = np.full(len(family) + 1, -1, dtype=np.int64)  # code -1 (in no domain) reads the last entry
        where[positions] = np.arange(len(positions))
        owners = where[family.codes[changed]]
        inside = owners >= 0
        return changed[inside], owners[inside]

    def allowed_nodes(self, shape: Shape, nodes: Iterable[int]) -> list[int]:
        """The nodes of ``nodes`` that the pod-and-node filters let ``shape`` use, in order."""
        allowed = shape.allowed
        return list(nodes) if allowed is None else [i for i in nodes if allowed[i]]

    def node_fit(self, shape: Shape, i: int) -> int:
        """How many pods of ``shape`` fit on node ``i`` now (0 where a filter rejects it)."""
        change = self.change_at(i)
        if change is None:
            return int(self.node_fits(shape)[i])
        if shape.missing or (shape.allowed is not None and not shape.allowed[i]):
            return 0
        base = self.cluster.vectors[self.cluster.vector_of[i]]
        k = min([(base[r] - change[r]) // q for r, q in shape.terms])
        return min(max(0, k), FIT_CAP)

    def node_fits_now(self, shape: Shape, nodes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """``node_fit(shape, i)`` for each of ``nodes``.

        For the cluster's ``root.node_array`` with no change made yet, this is
        the kept ``node_fits`` array, not a copy: read it, do not change it.
        """
        fits = self.node_fits(shape)
        if nodes is self.cluster.root.node_array:
            if not self._count:
                return fits
            out = fits.copy()
        else:
            out = fits[nodes]
        if self._count:
            hits = np.flatnonzero(self._mask[nodes])
            if len(hits):
                out[hits] = self._changed_fits(shape, nodes[hits])
        return out

    def fits_at(self, shape: Shape, nodes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """``node_fits_now(shape, nodes)``, worked out for ``nodes`` alone (no pass over every node's free vector)."""
        if shape.uid in self._node_fits:
            return self.node_fits_now(shape, nodes)
        deltas = None
        if self._count:
            changed = self._mask[nodes]
            if changed.any():
                deltas = self._current_rows(self._rows, nodes, changed)
        return self._fits_with(shape, nodes, deltas)

    def _changed_fits(self, shape: Shape, nodes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """``node_fit(shape, i)`` for each of ``nodes``, all of them changed by this query, in one pass."""
        return self._fits_with(shape, nodes, self._rows.take(nodes, axis=0))

    def _fits_with(self, shape: Shape, nodes: npt.NDArray[np.int64], deltas: IntArray | None) -> npt.NDArray[np.int64]:
        """Pods of ``shape`` that fit on each of ``nodes``, ``deltas`` (their rows of changes; ``None``: none) taken."""
        cluster = self.cluster
        vectors = nodes if cluster.vector_per_node else cluster.vector_index[nodes]
        columns = cluster.free_columns()
        if deltas is None:
            fits = _pods_fitting(shape, lambda r: columns[r][vectors], len(nodes))
        else:
            fits = _pods_fitting(shape, lambda r: columns[r][vectors] - deltas[:, r], len(nodes))
        if shape.allowed_mask is not None:
            fits = np.where(shape.allowed_mask[nodes], fits, 0)
        return fits

    def _changed_nodes(self) -> npt.NDArray[np.int64]:
        """The nodes this query has changed, ascending (``_mask`` is the same over every node)."""
        if self._changed is None:
            self._changed = np.flatnonzero(self._mask)
        return self._changed

    def used_sum(self, domain: Domain) -> tuple[int, ...]:
        """The scored resources given out in ``domain`` now."""
        changed = self._changed_of(domain.node_array)
        if len(changed) == 0:
            return domain.used_sum
        block = self._rows.take(changed, axis=0)
        return tuple(s + exact_sum(block[:, r]) for s, r in zip(domain.used_sum, self.cluster.score_index))

    def used_at(self, r: int, nodes: npt.NDArray[np.int64]) -> IntArray:
        """What is given out of resource ``r`` on each of ``nodes`` now (running pods and this query's changes).

        For the cluster's ``root.node_array`` with no change among them, this
        is the cluster's own column, not a copy: read it, do not change it.
        """
        column = self.cluster.used_array(r)
        return self._with_changes(column if nodes is self.cluster.root.node_array else column[nodes], r, nodes, 1)

    def free_at(self, resource: str, nodes: npt.NDArray[np.int64]) -> IntArray:
        """The free amount of ``resource`` on each of ``nodes`` now (signed; 0 for a resource the cluster lacks).

        For the cluster's ``root.node_array``, with a free vector per node and
        no change among them, this is the cluster's own column, not a copy:
        read it, do not change it.
        """
        cluster = self.cluster
        r = cluster.resource_index.get(resource)
        if r is None:
            return np.zeros(len(nodes), dtype=np.int64)
        column = cluster.free_columns()[r]  # one amount per free vector
        if not cluster.vector_per_node:
            column = column[cluster.vector_index[nodes]]
        elif nodes is not cluster.root.node_array:
            column = column[nodes]
        return self._with_changes(column, r, nodes, -1)

    def _with_changes(self, base: IntArray, r: int, nodes: npt.NDArray[np.int64], sign: int) -> IntArray:
        """``base`` (one amount of resource ``r`` per node of ``nodes``) plus ``sign`` times this query's changes."""
        if not self._count:
            return base
        hits = np.flatnonzero(self._mask[nodes])
        if len(hits) == 0:
            return base
        changes = self._rows[nodes[hits], r]
        # The cluster's int64 columns stay below 2**61 and int64 changes below 2**62: their sum fits.
        out = base.astype(object) if changes.dtype == object or base.dtype == object else base.copy()
        out[hits] += sign * changes
        return out

    def used_sums(self, domains: Sequence[Domain]) -> list[IntArray]:
        """``used_sum`` of each of ``domains`` (one ``DomainSet``), as one exact array per scored resource."""
        family = domains[0].family
        assert family is not None
        positions = family.positions(domains)
        assert positions is not None, "the domains belong to one DomainSet"
        columns = [column[positions] for column in family.used_columns]
        if not self._count:
            return columns
        changed, owners = self._changed_among(family, positions, domains)
        if len(changed) == 0:
            return columns
        rows = self._rows
        out = []
        for column, r in zip(columns, self.cluster.score_index, strict=True):
            added = group_sums(owners, rows[changed, r], len(column), complete=True)
            if column.dtype == object or added.dtype == object or not headroom(column) or not headroom(added):
                out.append(exact([int(a) + int(b) for a, b in zip(column, added, strict=True)]))
            else:
                out.append(exact(column + added))
        return out

    def free_sum(self, domain: Domain) -> tuple[int, ...]:
        """``domain``'s free capacity now, per resource, added over its nodes (a node's debt counts as 0)."""
        cluster = self.cluster
        sums = cluster.free_sum(domain)
        changed = self._changed_of(domain.node_array)
        if len(changed) == 0:
            return sums
        deltas = self._rows.take(changed, axis=0)
        before = cluster.vector_index[changed]
        out = []
        for r, (total, column) in enumerate(zip(sums, cluster.free_columns(), strict=True)):
            if self._grains[r]:  # some change to resource r was made (a grain of 0: every change was 0)
                delta, base = deltas[:, r], column[before]
                # each term lies between -|delta| and |delta|, so within the bound on every change
                if cluster.free_range(r)[0] >= 0:  # no node in debt: max(base - delta, 0) - base is -min(delta, base)
                    total -= exact_sum(np.minimum(delta, base), self._bound)
                else:
                    total += exact_sum(np.maximum(base - delta, 0) - np.maximum(base, 0), self._bound)
            out.append(total)
        return tuple(out)

    # -- jumping back ----------------------------------------------------------------

    def checkpoint(self) -> Checkpoint:
        """The snapshot as it is now, for ``restore``: costs what the snapshot holds, not what comes after."""
        changed = self._changed_nodes()
        rows = self._rows.take(changed, axis=0)
        return Checkpoint(len(self._log), changed.copy(), rows, dict(self.pool_taken), dict(self.allocations))

    def restore(self, checkpoint: Checkpoint) -> None:
        """Back to the state and undo log of ``checkpoint`` at once, however much changed since.

        What ``revert`` to a mark taken then does, in one pass over what
        changed; marks taken since are void.
        """
        del self._log[checkpoint.log :]
        if self._count:
            self._mask[self._changed_nodes()] = False
        if len(checkpoint.nodes):
            rows = self._writable_rows()
            if rows.dtype != object and checkpoint.rows.dtype == object:
                rows = self._rows = rows.astype(object)
            _put_rows(rows, checkpoint.nodes, checkpoint.rows)
            self._mask[checkpoint.nodes] = True
            self._bound = max(self._bound, _largest(checkpoint.rows))
        self._count, self._changed = len(checkpoint.nodes), checkpoint.nodes.copy()
        self.pool_taken.clear()
        self.pool_taken.update(checkpoint.pool_taken)
        self.allocations.clear()
        self.allocations.update(checkpoint.allocations)


@dataclass(frozen=True)
class Checkpoint:
    """A snapshot's state at one point (``Snapshot.checkpoint``): log length, changed nodes and rows, pools, claims."""

    log: int
    nodes: npt.NDArray[np.int64]
    rows: IntArray
    pool_taken: dict[str, int]
    allocations: dict[tuple[str, ...], Allocation]


def _put_rows(rows: IntArray, nodes: npt.NDArray[np.int64], values: IntArray) -> None:
    """``rows[nodes] = values``; ``int64`` rows are written each as one item of its bytes (numpy writes rows slowly)."""
    plain = rows.dtype == values.dtype == np.int64 and rows.flags.c_contiguous and values.flags.c_contiguous
    if plain and rows.shape[1]:
        whole = np.dtype((np.void, rows.itemsize * rows.shape[1]))
        rows.view(whole).reshape(len(rows))[nodes] = values.view(whole).reshape(len(values))
    else:
        rows[nodes] = values


def _nonzero_rows(rows: IntArray) -> npt.NDArray[np.bool_]:
    """Whether each row of ``rows`` has an entry that is not 0 (column by column: numpy reduces short axes slowly)."""
    out = np.zeros(len(rows), dtype=np.bool_)
    for r in range(rows.shape[1]):
        out |= rows[:, r] != 0
    return out


def _largest(values: IntArray) -> int:
    """The largest magnitude in ``values`` (0 when empty)."""
    if values.size == 0:
        return 0
    if values.dtype == object:
        return max(abs(int(v)) for v in values.flat)
    return int(np.abs(values).max())


def _fits_per_vector(cluster: Cluster, shape: Shape) -> npt.NDArray[np.int64]:
    """``shape.fits`` for every free vector, a column at a time (the vectors are many, the resources few).

    Where no free amount is negative and no quotient passes ``FIT_CAP``
    (the cluster's ranges tell), the quotients need no clipping.
    """
    columns = cluster.free_columns()
    plain = all(
        columns[r].dtype != object and cluster.free_range(r)[0] >= 0 and cluster.free_range(r)[1] // q <= FIT_CAP
        for r, q in shape.terms
    )
    return _pods_fitting(shape, columns.__getitem__, len(cluster.vectors), clip=not plain)


def _pods_fitting(
    shape: Shape, free: Callable[[int], IntArray], count: int, clip: bool = True
) -> npt.NDArray[np.int64]:
    """How many pods of ``shape`` fit in each of ``count`` free amounts, ``free(r)`` giving resource ``r``'s.

    ``clip=False`` when no amount is negative and no quotient passes ``FIT_CAP`` (nothing to clip).
    """
    if shape.missing:
        return np.zeros(count, dtype=np.int64)
    fits: IntArray | None = None
    for r, q in shape.terms:
        quotient = free(r) // q
        fits = quotient if fits is None else np.minimum(fits, quotient)
    assert fits is not None
    if not clip:
        return fits
    # Free capacity is negative where a node is over-committed: no pod fits there.
    return np.minimum(np.maximum(fits, 0), FIT_CAP).astype(np.int64)
