"""Group resource claims: which devices a claim gets, and where its group's pods may then run.

A group claim is allocated once for all the group's pods; each pod must run
on a node that reaches every allocated device. kube-scheduler allocates a
claim for the first pod that uses it, first fit: the pools reachable from
that pod's node, in the cluster's pool order (``first_fit``). That can pick
node-local devices and so pin the whole group to one node (kubernetes issue
#138765). The complete strategy instead chooses the claim's *reach* first
(``anchors``) and then any devices that reach it.

Pool reach is assumed laminar (node pools inside domain pools, domain pools
nested or disjoint), as it is for a node → rack → block → zone hierarchy.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from workloadbuilder.placement.cluster import Cluster, DevicePool
from workloadbuilder.placement.request import ClaimRef
from workloadbuilder.placement.snapshot import Allocation, Snapshot

__all__ = ["allocate", "anchors", "devices_free", "first_fit", "reaching", "usable_pools"]


def devices_free(snap: Snapshot, pool: DevicePool) -> int:
    """Devices of ``pool`` nobody holds yet."""
    return pool.count - pool.allocated - snap.pool_taken.get(pool.name, 0)


def first_fit(snap: Snapshot, claim: ClaimRef, node: int) -> tuple[tuple[str, int], ...] | None:
    """kube-scheduler's choice: the claim's devices from pools reachable from ``node``, in pool order."""
    cluster = snap.cluster
    need = claim.device.count
    taken = []
    for pool in cluster.pools:
        if pool.device_class != claim.device.device_class or not cluster.reaches(pool, node):
            continue
        free = devices_free(snap, pool)
        if free > 0:
            n = min(free, need)
            taken.append((pool.name, n))
            need -= n
            if need == 0:
                return tuple(taken)
    return None


def allocate(snap: Snapshot, claim: ClaimRef, devices: Sequence[tuple[str, int]]) -> Allocation:
    """Take ``devices`` for ``claim`` in the snapshot and record the allocation."""
    for pool, n in devices:
        snap.take_devices(pool, n)
    allocation = Allocation(claim.identity, tuple(devices))
    snap.allocate(allocation)
    return allocation


def reaching(cluster: Cluster, allocations: Iterable[Allocation], nodes: Iterable[int]) -> list[int]:
    """The nodes of ``nodes`` that reach every device of every allocation."""
    pools = [cluster.pool(name) for allocation in allocations for name, _ in allocation.devices]
    if not pools:
        return list(nodes)
    return [i for i in nodes if all(cluster.reaches(pool, i) for pool in pools)]


def _reach(cluster: Cluster, pool: DevicePool) -> frozenset[int]:
    if pool.node is not None:
        return frozenset([cluster.node_index[pool.node]]) if pool.node in cluster.node_index else frozenset()
    if pool.domain is not None:
        key, value = pool.domain
        domain = cluster.domains(key).get(value)
        return frozenset(domain.nodes) if domain is not None else frozenset()
    return frozenset(range(len(cluster)))


def usable_pools(cluster: Cluster, device_class: str, reach: frozenset[int]) -> list[DevicePool]:
    """Pools of a class whose devices every node of ``reach`` can use."""
    return [pool for pool in cluster.pools if pool.device_class == device_class and reach <= _reach(cluster, pool)]


def anchors(snap: Snapshot, claim: ClaimRef, nodes: Sequence[int]) -> list[frozenset[int]]:
    """The distinct node sets a claim's allocation can leave its pods, widest first, within ``nodes``.

    Each is one pool's reach; devices for it may come from any pool that
    reaches all of it. Sets without enough free devices are left out.
    """
    cluster = snap.cluster
    allowed = frozenset(nodes)
    seen: dict[frozenset[int], None] = {}
    for pool in cluster.pools:
        if pool.device_class != claim.device.device_class:
            continue
        reach = _reach(cluster, pool) & allowed
        if not reach or reach in seen:
            continue
        supply = sum(devices_free(snap, usable) for usable in usable_pools(cluster, pool.device_class, reach))
        if supply >= claim.device.count:
            seen[reach] = None
    return sorted(seen, key=lambda reach: (-len(reach), min(reach)))
