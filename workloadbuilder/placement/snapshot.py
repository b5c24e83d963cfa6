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
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from operator import sub
from typing import Any

import numpy as np
import numpy.typing as npt

from workloadbuilder.placement.arrays import FIT_CAP, IntArray, exact, exact_sum, group_sums, headroom
from workloadbuilder.placement.cluster import (
    ANTI_AFFINITY_PREFIX,
    SCORE_RESOURCES,
    Cluster,
    Domain,
    DomainSet,
    host_port_resource,
)
from workloadbuilder.placement.constraints import NO_CONSTRAINTS, PodConstraints
from workloadbuilder.placement.filters import interpodaffinity
from workloadbuilder.placement.filters.noderesources import is_scheduled_resource
from workloadbuilder.placement.resources import POD_MILLIS

__all__ = ["HOSTNAME_KEY", "NONZERO_DEFAULTS", "Allocation", "Checkpoint", "Shape", "Snapshot", "slots_of"]

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


NONZERO_DEFAULTS = {"cpu": 100, "memory": 200 * 1024 * 1024 * 1000}
"""What scoring counts for a pod that requests no CPU or memory (100m, 200Mi), as kube-scheduler does."""


class Shape:
    """One kind of pod: its requests as a vector over the cluster's resources, its filters, what scoring reads.

    Resources the cluster has never heard of make the shape fit nowhere
    (``missing``); requests the scheduler does not check (a name that is
    neither native nor scalar) are dropped; the ``pods`` resource always
    counts one, and each host port one slot of its port resource.
    ``allowed`` marks the nodes the pod-and-node filters let the pod use
    (``None``: all of them).
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
        self, uid: int, cluster: Cluster, requests: dict[str, int], constraints: PodConstraints = NO_CONSTRAINTS
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
        self.score_request = tuple(self.requests.get(name, 0) or NONZERO_DEFAULTS[name] for name, _ in SCORE_RESOURCES)

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


class Snapshot:
    """Assumptions on top of a cluster for one query, with an undo log.

    ``add(i, vector, n)`` takes ``n`` times ``vector`` more on node ``i``
    (negative ``n`` frees it, as preemption does); ``mark()`` and
    ``revert(mark)`` undo everything after the mark; ``ops_since(mark)`` and
    ``replay(ops)`` re-apply a reverted evaluation without redoing it.
    """

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.delta: dict[int, list[int]] = {}
        self.pool_taken: dict[str, int] = {}
        self.allocations: dict[tuple[str, ...], Allocation] = {}
        self._log: list[tuple[Any, ...]] = []
        self._by_key: dict[str, dict[str, set[int]]] = {}
        self._vector_fits: dict[int, npt.NDArray[np.int64]] = {}
        self._node_fits: dict[int, npt.NDArray[np.int64]] = {}
        self._family_fits: dict[tuple[int, int], npt.NDArray[np.int64]] = {}
        self._shapes: dict[tuple[tuple[int, ...], tuple[str, ...], PodConstraints], Shape] = {}
        self._rows: IntArray | None = None
        self._stale: set[int] = set()
        self._changed: tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]] | None = None

    # -- shapes ----------------------------------------------------------------

    def shape(self, requests: dict[str, int], constraints: PodConstraints = NO_CONSTRAINTS) -> Shape:
        """The shape for a request map and filter inputs, shared by every group that asks for the same."""
        probe = Shape(len(self._shapes), self.cluster, requests, constraints)
        key = (probe.vector, probe.missing, constraints)
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
            elif op[0] == "pool":
                self.take_devices(op[1], op[2])
            else:
                self.allocate(op[1])

    def _change(self, i: int, vector: Sequence[int], n: int) -> None:
        self._touched(i)
        delta = self.delta.get(i)
        if delta is None:
            delta = self.delta[i] = [0] * len(vector)
            labels = self.cluster.labels[i]
            for key, members in self._by_key.items():
                value = labels.get(key)
                if value is not None:
                    members.setdefault(value, set()).add(i)
        for r, amount in enumerate(vector):
            if amount:
                delta[r] += n * amount
        if not any(delta):
            del self.delta[i]
            labels = self.cluster.labels[i]
            for key, members in self._by_key.items():
                value = labels.get(key)
                if value is not None:
                    members[value].discard(i)

    # -- reading ---------------------------------------------------------------

    def free(self, i: int) -> tuple[int, ...]:
        """Node ``i``'s free capacity now."""
        base = self.cluster.vectors[self.cluster.vector_of[i]]
        delta = self.delta.get(i)
        if delta is None:
            return base
        return tuple(map(sub, base, delta))

    def changed_in(self, domain: Domain) -> Iterator[int]:
        """The nodes of ``domain`` this query has changed."""
        if domain.key is None:
            return iter(list(self.delta))
        members = self._by_key.get(domain.key)
        if members is None:
            members = self._by_key[domain.key] = {}
            for i in self.delta:
                value = self.cluster.labels[i].get(domain.key)
                if value is not None:
                    members.setdefault(value, set()).add(i)
        changed = members.get(domain.value or "")
        if not changed:
            return iter(())
        if self.cluster.domains(domain.key).get(domain.value or "") is domain:
            return iter(sorted(changed))
        nodes = set(domain.nodes)
        return iter(sorted(i for i in changed if i in nodes))

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
            fits = self.vector_fits(shape)[self.cluster.vector_index]
            if shape.allowed_mask is not None:
                fits = np.where(shape.allowed_mask, fits, 0)
            self._node_fits[shape.uid] = fits
        return fits

    def _base_fits(self, shape: Shape, family: DomainSet) -> npt.NDArray[np.int64]:
        """Pods of ``shape`` that fit in each domain of ``family`` before this query's changes."""
        fits = self._family_fits.get((shape.uid, family.uid))
        if fits is None:
            fits = group_sums(family.codes, self.node_fits(shape), len(family), FIT_CAP)
            self._family_fits[(shape.uid, family.uid)] = fits
        return fits

    def fit(self, shape: Shape, domain: Domain) -> int:
        """How many pods of ``shape`` fit in ``domain`` now, each pod anywhere in it the filters allow."""
        assert domain.family is not None
        base = int(self._base_fits(shape, domain.family)[domain.position])
        if not self.delta:
            return base
        changed = list(self.changed_in(domain))
        if changed:
            base += int((self._changed_fits(shape, changed) - self.node_fits(shape)[changed]).sum())
        return base

    def fits_in(self, shape: Shape, domains: Sequence[Domain]) -> npt.NDArray[np.int64]:
        """``fit(shape, d)`` for each of ``domains``, in one pass when they belong to one ``DomainSet``."""
        family = domains[0].family if domains else None
        positions = family.positions(domains) if family is not None else None
        if family is None or positions is None:
            return np.array([self.fit(shape, domain) for domain in domains], dtype=np.int64)
        out = self._base_fits(shape, family)[positions].copy()
        if self.delta:
            changed, owners = self._changed_among(family, positions)
            if len(changed):
                np.add.at(out, owners, self._changed_fits(shape, changed) - self.node_fits(shape)[changed])
        return out

    def _changed_among(
        self, family: DomainSet, positions: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The changed nodes in the domains of ``family`` at ``positions``, and where in ``positions`` each one's is."""
        changed = self._changed_nodes()[0]
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
        delta = self.delta.get(i)
        if delta is None:
            return int(self.node_fits(shape)[i])
        if shape.missing or (shape.allowed is not None and not shape.allowed[i]):
            return 0
        base = self.cluster.vectors[self.cluster.vector_of[i]]
        k = min([(base[r] - delta[r]) // q for r, q in shape.terms])
        return min(max(0, k), FIT_CAP)

    def node_fits_now(self, shape: Shape, nodes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """``node_fit(shape, i)`` for each of ``nodes``."""
        out = self.node_fits(shape)[nodes]
        if self.delta:
            hits = np.flatnonzero(self._changed_nodes()[1][nodes])
            if len(hits):
                out[hits] = self._changed_fits(shape, nodes[hits])
        return out

    def _changed_fits(self, shape: Shape, nodes: npt.NDArray[np.int64] | list[int]) -> npt.NDArray[np.int64]:
        """``node_fit(shape, i)`` for each of ``nodes``, all of them changed by this query, in one pass."""
        cluster = self.cluster
        vectors = cluster.vector_index[nodes]
        deltas = self._delta_rows()[nodes]
        columns = cluster.free_columns()
        fits = _pods_fitting(shape, lambda r: columns[r][vectors] - deltas[:, r], len(nodes))
        if shape.allowed_mask is not None:
            fits = np.where(shape.allowed_mask[nodes], fits, 0)
        return fits

    def _touched(self, i: int) -> None:
        """Node ``i``'s change is about to change: the columns of changes are stale there."""
        if self._rows is not None:
            self._stale.add(i)
        self._changed = None

    def _delta_rows(self) -> IntArray:
        """This query's changes as one row per node (zero where unchanged), exact; kept up to date lazily."""
        rows = self._rows
        width = len(self.cluster.resources)
        if rows is None:
            rows = np.zeros((len(self.cluster), width), dtype=np.int64)
            stale: Iterable[int] = self.delta
        else:
            stale = self._stale
        nodes = list(stale)
        if nodes:
            zero = [0] * width
            values = [self.delta.get(i) or zero for i in nodes]
            try:
                flat = np.fromiter(itertools.chain.from_iterable(values), dtype=np.int64, count=len(nodes) * width)
            except OverflowError:
                flat = np.array(list(itertools.chain.from_iterable(values)), dtype=object)
            block = flat.reshape(len(nodes), width)
            if block.dtype == object or not headroom(block, 2**4):
                rows = rows.astype(object)
            rows[nodes] = block
        self._rows, self._stale = rows, set()
        return rows

    def _changed_nodes(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
        """The nodes this query has changed, and the same as a mask over every node."""
        if self._changed is None:
            changed = np.fromiter(self.delta, dtype=np.int64, count=len(self.delta))
            mask = np.zeros(len(self.cluster), dtype=np.bool_)
            mask[changed] = True
            self._changed = (changed, mask)
        return self._changed

    def used_sum(self, domain: Domain) -> tuple[int, ...]:
        """The scored resources given out in ``domain`` now."""
        if not self.delta:
            return domain.used_sum
        sums = list(domain.used_sum)
        score_index = self.cluster.score_index
        for i in self.changed_in(domain):
            delta = self.delta[i]
            for s, r in enumerate(score_index):
                sums[s] += delta[r]
        return tuple(sums)

    def used_at(self, r: int, nodes: npt.NDArray[np.int64]) -> IntArray:
        """What is given out of resource ``r`` on each of ``nodes`` now (running pods and this query's changes)."""
        return exact(self._with_changes(self.cluster.used_array(r)[nodes], r, nodes, 1), 100)

    def free_at(self, resource: str, nodes: npt.NDArray[np.int64]) -> IntArray:
        """The free amount of ``resource`` on each of ``nodes`` now (signed; 0 for a resource the cluster lacks)."""
        cluster = self.cluster
        r = cluster.resource_index.get(resource)
        if r is None:
            return np.zeros(len(nodes), dtype=np.int64)
        return self._with_changes(cluster.free_columns()[r][cluster.vector_index[nodes]], r, nodes, -1)

    def _with_changes(self, base: IntArray, r: int, nodes: npt.NDArray[np.int64], sign: int) -> IntArray:
        """``base`` (one amount of resource ``r`` per node of ``nodes``) plus ``sign`` times this query's changes."""
        if not self.delta:
            return base
        hits = np.flatnonzero(self._changed_nodes()[1][nodes])
        if len(hits) == 0:
            return base
        changes = self._delta_rows()[nodes[hits], r]
        out = base.astype(object) if changes.dtype == object or not headroom(base, 200) else base.copy()
        out[hits] += sign * changes
        return out

    def used_sums(self, domains: Sequence[Domain]) -> list[IntArray]:
        """``used_sum`` of each of ``domains`` (one ``DomainSet``), as one exact array per scored resource."""
        family = domains[0].family
        assert family is not None
        positions = family.positions(domains)
        assert positions is not None, "the domains belong to one DomainSet"
        columns = [column[positions] for column in family.used_columns]
        if not self.delta:
            return columns
        changed, owners = self._changed_among(family, positions)
        if len(changed) == 0:
            return columns
        rows = self._delta_rows()
        out = []
        for column, r in zip(columns, self.cluster.score_index, strict=True):
            add = rows[changed, r]
            if column.dtype == object or add.dtype == object or not headroom(column) or not headroom(add, len(add)):
                column, add = column.astype(object), add.astype(object)
            else:
                column = column.copy()
            np.add.at(column, owners, add)
            out.append(exact(column))
        return out

    def free_sum(self, domain: Domain) -> tuple[int, ...]:
        """``domain``'s free capacity now, per resource, added over its nodes (a node's debt counts as 0)."""
        cluster = self.cluster
        nodes = domain.node_array
        vectors = cluster.vector_index[nodes]
        changed = nodes[self._changed_nodes()[1][nodes]] if self.delta else nodes[:0]
        deltas = self._delta_rows()[changed] if len(changed) else None
        before = cluster.vector_index[changed] if len(changed) else None
        sums = []
        for r, column in enumerate(cluster.free_columns()):
            total = exact_sum(np.maximum(column[vectors], 0))
            if deltas is not None and before is not None:
                base = column[before]
                total += exact_sum(np.maximum(base - deltas[:, r], 0)) - exact_sum(np.maximum(base, 0))
            sums.append(total)
        return tuple(sums)

    # -- bulk changes ------------------------------------------------------------

    def add_many(self, changes: Iterable[tuple[int, Sequence[int], int]]) -> None:
        """``add(i, vector, n)`` for each ``(i, vector, n)`` of ``changes``, in order (one undo entry each).

        Preemption evicts a node's pods at once this way.
        """
        deltas, log, by_key = self.delta, self._log, self._by_key
        for i, vector, n in changes:
            if i in deltas or not any(vector):
                self._change(i, vector, n)
            else:  # a node's first change is the vector itself; ``changed_in`` rebuilds the per-key index
                by_key.clear()
                self._touched(i)
                deltas[i] = list(vector) if n == 1 else [n * amount for amount in vector]
            log.append(("node", i, vector, n))

    def checkpoint(self) -> Checkpoint:
        """The snapshot as it is now, for ``restore``: costs what the snapshot holds, not what comes after."""
        return Checkpoint(
            len(self._log),
            {i: list(delta) for i, delta in self.delta.items()},
            dict(self.pool_taken),
            dict(self.allocations),
        )

    def restore(self, checkpoint: Checkpoint) -> None:
        """Back to the state and undo log of ``checkpoint`` at once, however much changed since.

        What ``revert`` to a mark taken then does, in time proportional to
        what the snapshot held then; marks taken since are void.
        """
        del self._log[checkpoint.log :]
        self.delta.clear()
        self.delta.update((i, list(delta)) for i, delta in checkpoint.delta.items())
        self.pool_taken.clear()
        self.pool_taken.update(checkpoint.pool_taken)
        self.allocations.clear()
        self.allocations.update(checkpoint.allocations)
        self._by_key.clear()  # rebuilt from ``delta`` key by key as ``changed_in`` asks
        self._rows, self._changed = None, None


@dataclass(frozen=True)
class Checkpoint:
    """A snapshot's state at one point (``Snapshot.checkpoint``): its log length and copies of what it had changed."""

    log: int
    delta: dict[int, list[int]]
    pool_taken: dict[str, int]
    allocations: dict[tuple[str, ...], Allocation]


def _fits_per_vector(cluster: Cluster, shape: Shape) -> npt.NDArray[np.int64]:
    """``shape.fits`` for every free vector, a column at a time (the vectors are many, the resources few)."""
    columns = cluster.free_columns()
    return _pods_fitting(shape, columns.__getitem__, len(cluster.vectors))


def _pods_fitting(shape: Shape, free: Callable[[int], IntArray], count: int) -> npt.NDArray[np.int64]:
    """How many pods of ``shape`` fit in each of ``count`` free amounts, ``free(r)`` giving resource ``r``'s."""
    if shape.missing:
        return np.zeros(count, dtype=np.int64)
    fits: IntArray | None = None
    for r, q in shape.terms:
        quotient = free(r) // q
        fits = quotient if fits is None else np.minimum(fits, quotient)
    assert fits is not None
    # Free capacity is negative where a node is over-committed: no pod fits there.
    return np.minimum(np.maximum(fits, 0), FIT_CAP).astype(np.int64)
