"""Snapshot's bulk operations: ``add_many`` is ``add`` in a loop, and ``restore`` is ``revert`` to a mark, at once."""

from __future__ import annotations

from typing import Any

import pytest
from placement_helpers import RACK, cluster, node

from workloadbuilder.placement import Cluster
from workloadbuilder.placement.snapshot import Allocation, Snapshot


@pytest.fixture
def racked() -> Cluster:
    """Three 4-GPU nodes in two racks, with a rack pool of two NICs."""
    return cluster(
        node("n0", 4, rack="r0"),
        node("n1", 4, rack="r0"),
        node("n2", 4, rack="r1"),
        devicePools=[{"name": "nics", "deviceClass": "rdma", "count": 2, "domain": {RACK: "r0"}}],
    )


def _state(snap: Snapshot) -> dict[str, Any]:
    """What a reader of the snapshot can see: every node's free capacity, per-rack changes, pools, claims, log."""
    racks = snap.cluster.domains(RACK)
    return {
        "free": [snap.free(i) for i in range(len(snap.cluster))],
        "changed": {value: list(snap.changed_in(domain)) for value, domain in racks.items()},
        "delta": {i: list(delta) for i, delta in sorted(snap.delta.items())},
        "pools": {name: n for name, n in snap.pool_taken.items() if n},
        "claims": sorted(snap.allocations),
        "log": snap.mark(),
    }


def _vector(snap: Snapshot, gpus: int) -> tuple[int, ...]:
    return tuple(gpus * 1000 if name == "nvidia.com/gpu" else 0 for name in snap.cluster.resources)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ([], [(0, 2, -1), (1, 1, 1)]),
        ([(0, 1, 1)], [(0, 1, -1), (2, 3, 1), (2, 3, -1)]),
        ([(0, 1, 1), (2, 2, 1)], [(1, 4, 1), (0, 1, -1), (0, 1, -1)]),
    ],
    ids=["clean-snapshot", "change-cancelled-after", "changes-kept-before"],
)
def test_restore_is_revert_to_a_mark(
    racked: Cluster, before: list[tuple[int, int, int]], after: list[tuple[int, int, int]]
) -> None:
    one, other = Snapshot(racked), Snapshot(racked)
    for snap in (one, other):
        snap.add_many((i, _vector(snap, gpus), n) for i, gpus, n in before)
        if before:  # else the pool is first taken after the checkpoint
            snap.take_devices("nics", 1)
            snap.allocate(Allocation(("ns", "a"), (("nics", 1),)))
    mark, checkpoint = one.mark(), other.checkpoint()
    expected_before = _state(one)
    for snap in (one, other):
        snap.add_many((i, _vector(snap, gpus), n) for i, gpus, n in after)
        snap.take_devices("nics", 1)
        snap.allocate(Allocation(("ns", "b"), (("nics", 1),)))
        list(snap.changed_in(racked.domains(RACK)["r0"]))  # the per-key index sees the changes
    assert _state(one) == _state(other)
    one.revert(mark)
    other.restore(checkpoint)
    assert _state(one) == _state(other) == expected_before


def test_add_many_is_add_in_order(racked: Cluster) -> None:
    """Nodes changed for the first time, again, back to nothing; with the per-rack index of changes already built."""
    one, other = Snapshot(racked), Snapshot(racked)
    for snap in (one, other):
        snap.add(1, _vector(snap, 1))
        assert list(snap.changed_in(racked.domains(RACK)["r0"])) == [1]
    changes = [(0, _vector(one, 2), -1), (0, _vector(one, 2), 1), (2, _vector(one, 1), 3), (1, _vector(one, 1), -1)]
    one.add_many(changes)
    for i, vector, n in changes:
        other.add(i, vector, n)
    assert _state(one) == _state(other)
    assert one.ops_since(1) == other.ops_since(1)
    assert _state(one)["delta"] == {2: list(_vector(one, 3))}
    assert _state(one)["changed"] == {"r0": [], "r1": [2]}
