"""Group resource claims: which devices a claim gets, and where its group's pods may then run.

A group claim is allocated once for all the group's pods; each pod must run
on a node that reaches every allocated device. kube-scheduler allocates a
claim for the first pod that uses it, first fit: the pools reachable from
that pod's node, in the cluster's pool order (``first_fit``). That can pick
node-local devices and so pin the whole group to one node (kubernetes issue
#138765). The complete strategy's exact search instead chooses the pools
of every claim together with where the pods go (``solver``).

Pools are indexed by who reaches them (a node, a domain, everyone) once
per cluster, so finding the pools a node reaches costs what that node's
labels and pools are, not a scan of every pool in the cluster.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.cluster.records import DevicePool
from workloadbuilder.placement.cluster.topology import Domain
from workloadbuilder.placement.framework.outcome import Devices
from workloadbuilder.placement.framework.snapshot import Allocation, Shape, Snapshot
from workloadbuilder.placement.request.model import ClaimRef

__all__ = [
    "CANNOT_ALLOCATE",
    "ClaimPin",
    "allocate",
    "class_devices_free",
    "covers",
    "devices_free",
    "domain_supply",
    "first_fit",
    "first_fit_all",
    "pins",
    "pools_reaching",
    "pools_within",
    "reach_mask",
    "reaching",
    "supplied_within",
]

CANNOT_ALLOCATE = "cannot allocate all claims"
"""The trace note of a candidate where no node could allocate every claim for the group's first pod."""


def devices_free(snap: Snapshot, pool: DevicePool) -> int:
    """Devices of ``pool`` nobody holds yet."""
    return pool.count - pool.allocated - snap.pool_taken.get(pool.name, 0)


def class_devices_free(snap: Snapshot, device_class: str) -> int:
    """``devices_free`` added up over every pool of ``device_class`` in the cluster (a pool in debt counts its debt).

    Costs what the snapshot took devices from, not what the cluster has pools.
    """
    cluster = snap.cluster
    free = _index(cluster).unheld.get(device_class, 0)
    for name, taken in snap.pool_taken.items():
        if cluster.pool(name).device_class == device_class:
            free -= taken
    return free


class _PoolIndex:
    """One cluster's pools by device class and reach: node name, ``(key, value)``, or everyone."""

    def __init__(self, cluster: Cluster) -> None:
        self.order = {pool.name: n for n, pool in enumerate(cluster.pools)}
        self.by_node: dict[tuple[str, str], list[DevicePool]] = {}
        self.by_domain: dict[tuple[str, str, str], list[DevicePool]] = {}
        self.everywhere: dict[str, list[DevicePool]] = {}
        self.keys: dict[str, set[str]] = {}
        self.cache: dict[tuple[str, int], list[DevicePool]] = {}
        self.shared: dict[tuple[str, str | None], _Shared | None] = {}
        for pool in cluster.pools:
            if pool.node is not None:
                self.by_node.setdefault((pool.device_class, pool.node), []).append(pool)
            elif pool.domain is not None:
                key, value = pool.domain
                self.by_domain.setdefault((pool.device_class, key, value), []).append(pool)
                self.keys.setdefault(pool.device_class, set()).add(key)
            else:
                self.everywhere.setdefault(pool.device_class, []).append(pool)
        self.node_local = {device_class for device_class, _ in self.by_node}
        self.unheld: dict[str, int] = {}  # per device class: its pools' devices nobody held when the cluster was read
        for pool in cluster.pools:
            self.unheld[pool.device_class] = self.unheld.get(pool.device_class, 0) + pool.count - pool.allocated

    def reaching(self, cluster: Cluster, device_class: str, i: int) -> list[DevicePool]:
        found = self.cache.get((device_class, i))
        if found is None:
            found = self.cache[(device_class, i)] = self._reaching(cluster, device_class, i)
        return found

    def _reaching(self, cluster: Cluster, device_class: str, i: int) -> list[DevicePool]:
        found = list(self.by_node.get((device_class, cluster.names[i]), ()))
        labels = cluster.labels[i]
        for key in sorted(self.keys.get(device_class, ())):
            value = labels.get(key)
            if value is not None:
                found += self.by_domain.get((device_class, key, value), ())
        found += self.everywhere.get(device_class, ())
        found.sort(key=lambda pool: self.order[pool.name])
        return found

    def within(self, cluster: Cluster, device_classes: set[str], nodes: Sequence[int]) -> list[DevicePool]:
        """The pools of ``device_classes`` some of ``nodes`` reach, in the cluster's pool order."""
        found: dict[str, DevicePool] = {}
        for device_class in sorted(device_classes):
            for pool in self.everywhere.get(device_class, ()):
                found[pool.name] = pool
            if device_class in self.node_local:
                for i in nodes:
                    for pool in self.by_node.get((device_class, cluster.names[i]), ()):
                        found[pool.name] = pool
            for key in sorted(self.keys.get(device_class, ())):
                values = cluster.label_values(key)
                for value in {values[i] for i in nodes} - {None}:
                    for pool in self.by_domain.get((device_class, key, value or ""), ()):
                        found[pool.name] = pool
        return sorted(found.values(), key=lambda pool: self.order[pool.name])

    def shared_by(self, cluster: Cluster, device_class: str, key: str | None) -> _Shared | None:
        """The pools of ``device_class``, when each is everyone's or a whole domain's of ``key`` (else ``None``)."""
        cached = self.shared.get((device_class, key))
        if cached is None and (device_class, key) not in self.shared:
            if any(cls == device_class for cls, _ in self.by_node) or self.keys.get(device_class, set()) - {key}:
                cached = None
            else:
                everywhere = self.everywhere.get(device_class, [])
                pools = [
                    (value, pool)
                    for (cls, k, value), found in self.by_domain.items()
                    for pool in found
                    if cls == device_class and k == key
                ]
                cached = _Shared(cluster, key, everywhere, pools)
            self.shared[(device_class, key)] = cached
        return cached


class _Shared:
    """Pools every node of a domain reaches alike: everyone's, and each domain's own, by label value.

    ``positions`` holds each domain pool's domain in the key's ``DomainSet``
    (-1 when no node carries its value), ``capacity`` what the pool offers
    before anyone takes devices, ``slot`` each domain pool's index.
    """

    def __init__(
        self, cluster: Cluster, key: str | None, everywhere: list[DevicePool], pools: list[tuple[str, DevicePool]]
    ) -> None:
        self.everywhere = everywhere
        self.by_value = pools
        domains = cluster.domains(key) if key is not None else {}
        self.family = next(iter(domains.values())).family if domains else None
        self.positions = np.array([domains[v].position if v in domains else -1 for v, _ in pools], dtype=np.int64)
        self.capacity = np.array([pool.count - pool.allocated for _, pool in pools], dtype=np.int64)
        self.slot = {pool.name: j for j, (_, pool) in enumerate(pools)}


_INDEXES: weakref.WeakKeyDictionary[Cluster, _PoolIndex] = weakref.WeakKeyDictionary()


def _index(cluster: Cluster) -> _PoolIndex:
    index = _INDEXES.get(cluster)
    if index is None:
        index = _INDEXES[cluster] = _PoolIndex(cluster)
    return index


def pools_within(cluster: Cluster, device_classes: set[str], nodes: Sequence[int]) -> list[DevicePool]:
    """The pools of ``device_classes`` that some of ``nodes`` reach (everyone's included), in pool order."""
    return _index(cluster).within(cluster, device_classes, nodes)


def supplied_within(snap: Snapshot, claims: Sequence[ClaimRef], domain: Domain) -> bool:
    """Whether the pools ``domain``'s nodes reach have, per device class, the devices ``claims`` need together.

    A necessary condition for allocating them to pods in ``domain``, cheap
    to check: it ignores which node reaches which pool.
    """
    needs = _needs_by_class(claims)
    pools = pools_within(snap.cluster, set(needs), domain.nodes)
    for device_class, need in needs.items():
        if sum(max(0, devices_free(snap, pool)) for pool in pools if pool.device_class == device_class) < need:
            return False
    return True


def _needs_by_class(claims: Sequence[ClaimRef]) -> dict[str, int]:
    """How many devices ``claims`` need together, per device class."""
    needs: dict[str, int] = {}
    for claim in claims:
        needs[claim.device.device_class] = needs.get(claim.device.device_class, 0) + claim.device.count
    return needs


def pools_reaching(cluster: Cluster, device_class: str, i: int) -> list[DevicePool]:
    """The pools of ``device_class`` whose devices pods on node ``i`` can use, in the cluster's pool order."""
    return _index(cluster).reaching(cluster, device_class, i)


def domain_supply(
    snap: Snapshot, claims: Sequence[ClaimRef], domains: Sequence[Domain]
) -> npt.NDArray[np.bool_] | None:
    """Whether first fit allocates every one of ``claims`` in turn at any node of each domain (one key's domains).

    Answered without trying a node when every pool of the claims' device
    classes is everyone's or a whole domain's of the domains' key: then
    every node of a domain reaches the same pools, which reach all of the
    domain, and first fit succeeds exactly when, per device class, the
    devices free there add up to what the claims of that class need.
    ``None`` when some pool is a node's or another key's.
    """
    index = _index(snap.cluster)
    key = domains[0].key if domains else None
    needs = _needs_by_class(claims)
    ok = np.ones(len(domains), dtype=np.bool_)
    for device_class, need in needs.items():
        shared = index.shared_by(snap.cluster, device_class, key)
        if shared is None:
            return None
        base = sum(max(0, devices_free(snap, pool)) for pool in shared.everywhere)
        free = shared.capacity.copy()
        for name, n in snap.pool_taken.items():
            if name in shared.slot:
                free[shared.slot[name]] -= n
        free = np.maximum(free, 0)
        positions = shared.family.positions(domains) if shared.family is not None and domains else None
        if positions is not None and shared.family is not None:
            known = shared.positions >= 0
            per_domain = np.bincount(shared.positions[known], weights=free[known], minlength=len(shared.family))
            ok &= base + per_domain[positions] >= need
        else:
            per_value: dict[str, int] = {}
            for (value, _), amount in zip(shared.by_value, free.tolist(), strict=True):
                per_value[value] = per_value.get(value, 0) + amount
            ok &= np.array([base + per_value.get(d.value or "", 0) >= need for d in domains], dtype=np.bool_)
    return ok


def first_fit(
    snap: Snapshot, claim: ClaimRef, node: int, taken: Mapping[str, int] | None = None
) -> tuple[tuple[str, int], ...] | None:
    """kube-scheduler's choice: the claim's devices from pools reachable from ``node``, in pool order.

    ``taken`` counts devices more claims took that the snapshot does not
    hold yet (to try several claims in a row without assuming them).
    """
    need = claim.device.count
    chosen = []
    for pool in pools_reaching(snap.cluster, claim.device.device_class, node):
        free = devices_free(snap, pool) - (taken.get(pool.name, 0) if taken else 0)
        if free > 0:
            n = min(free, need)
            chosen.append((pool.name, n))
            need -= n
            if need == 0:
                return tuple(chosen)
    return None


def first_fit_all(
    snap: Snapshot, claims: Sequence[ClaimRef], node: int
) -> dict[str, tuple[tuple[str, int], ...]] | None:
    """``first_fit`` of each claim in turn, each seeing the devices the earlier ones took (``None``: one fails).

    Nothing is assumed in the snapshot.
    """
    taken: dict[str, int] = {}
    out = {}
    for claim in claims:
        devices = first_fit(snap, claim, node, taken)
        if devices is None:
            return None
        for pool, n in devices:
            taken[pool] = taken.get(pool, 0) + n
        out[claim.name] = devices
    return out


def allocate(snap: Snapshot, claim: ClaimRef, devices: Sequence[tuple[str, int]]) -> Allocation:
    """Take ``devices`` for ``claim`` in the snapshot and record the allocation."""
    for pool, n in devices:
        snap.take_devices(pool, n)
    allocation = Allocation(claim.identity, tuple(devices))
    snap.allocate(allocation)
    return allocation


def reaching(cluster: Cluster, allocations: Iterable[Allocation], nodes: Iterable[int]) -> list[int]:
    """The nodes of ``nodes`` that reach every device of every allocation."""
    pools = [name for allocation in allocations for name, _ in allocation.devices]
    if not pools:
        return list(nodes)
    candidates = np.fromiter(nodes, dtype=np.int64)
    kept: list[int] = candidates[reach_mask(cluster, pools, candidates)].tolist()
    return kept


def reach_mask(cluster: Cluster, pools: Iterable[str], nodes: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """Which of ``nodes`` reach every one of ``pools`` (by name)."""
    mask = np.ones(len(nodes), dtype=np.bool_)
    for name in pools:
        mask &= cluster.reach(cluster.pool(name), nodes)
    return mask


def covers(cluster: Cluster, pools: Iterable[str], domain: Domain) -> bool:
    """Whether every node of ``domain`` reaches every one of ``pools``."""
    return all(cluster.reaches_all(cluster.pool(name), domain) for name in pools)


@dataclass(frozen=True)
class ClaimPin:
    """A group claim whose devices keep a candidate's pods off nodes that have room for them.

    ``pools`` are the devices' pools, ``reach`` says who reaches them all
    (``node n1``, ``rack r1``), and ``earlier`` is true when the claim was
    allocated before the group was tried (a ``resourceClaimName`` claim that
    another group holds), false when kube-scheduler took the devices
    first-fit for the group's first pod.
    """

    claim: str
    pools: tuple[str, ...]
    reach: str
    earlier: bool


def pins(
    snap: Snapshot, shape: Shape, nodes: Iterable[int], held: Mapping[str, Devices], taken: Mapping[str, Devices]
) -> tuple[ClaimPin, ...]:
    """The claims (by name) whose devices do not reach every node of ``nodes`` that has room for ``shape``.

    ``held`` are the devices of the claims allocated before the group was
    tried, ``taken`` those taken for its first pod (``GroupTrace.claim_devices``).
    Empty when the devices reach every node with room: they are then not
    what keeps the pods out.
    """
    cluster = snap.cluster
    roomy = [i for i in snap.allowed_nodes(shape, nodes) if shape.fits(snap.free(i)) > 0]
    out = []
    for name, devices in sorted({**held, **taken}.items()):
        pools = [cluster.pool(pool) for pool, _ in devices]
        if all(all(cluster.reaches(pool, i) for pool in pools) for i in roomy):
            continue
        reach = " and ".join(dict.fromkeys(_reach(pool) for pool in pools))
        out.append(ClaimPin(name, tuple(pool.name for pool in pools), reach, name in held))
    return tuple(out)


def _reach(pool: DevicePool) -> str:
    """Who reaches ``pool``, for prose: ``node n1``, ``rack r1`` (the key's last segment), ``every node``."""
    if pool.node is not None:
        return f"node {pool.node}"
    if pool.domain is not None:
        key, value = pool.domain
        return f"{key.rsplit('/', 1)[-1]} {value}"
    return "every node"
