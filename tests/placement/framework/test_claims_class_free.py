"""``claims.class_devices_free``: ``devices_free`` added up over every pool of one device class, as taken now.

The cluster's own allocations and the snapshot's takes both count; a take
undone by ``revert`` gives its devices back.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from placement_helpers import COLUMNAR_SETTINGS, RACK, cluster, node

from workloadbuilder.placement.cluster.records import DevicePool
from workloadbuilder.placement.framework.claims import class_devices_free, devices_free
from workloadbuilder.placement.framework.snapshot import Snapshot

BASE = cluster(node("n0", 4, rack="r0"), node("n1", 4, rack="r1"))
POOLS = [
    DevicePool("nics-r0", "rdma", 4, allocated=1, domain=(RACK, "r0")),
    DevicePool("nics-r1", "rdma", 2, domain=(RACK, "r1")),
    DevicePool("n0-nics", "rdma", 2, allocated=2, node="n0"),
    DevicePool("fpgas", "fpga", 3),
]
CLUSTER = BASE.replace(pools=POOLS)


def _summed(snap: Snapshot, device_class: str) -> int:
    return sum(devices_free(snap, pool) for pool in snap.cluster.pools if pool.device_class == device_class)


@COLUMNAR_SETTINGS
@given(st.lists(st.tuples(st.sampled_from([pool.name for pool in POOLS]), st.integers(0, 4)), max_size=5))
def test_the_sum_of_every_pool_of_the_class(takes: list[tuple[str, int]]) -> None:
    snap = Snapshot(CLUSTER)
    mark = snap.mark()
    for pool, n in takes:
        snap.take_devices(pool, n)
    for device_class in ("rdma", "fpga", "none such"):
        assert class_devices_free(snap, device_class) == _summed(snap, device_class)
    snap.revert(mark)
    assert (class_devices_free(snap, "rdma"), class_devices_free(snap, "fpga")) == (5, 3)
