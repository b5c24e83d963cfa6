"""Snapshot's bulk operations: ``add_block`` is ``add`` in a loop, and ``restore`` is ``revert`` to a mark, at once."""

from __future__ import annotations

from typing import Any

import pytest
from placement_helpers import RACK, cluster, node

from workloadbuilder.placement import Cluster
from workloadbuilder.placement.framework.snapshot import Allocation, Block, Snapshot


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
        "changes": {i: snap.change_at(i) for i in range(len(snap.cluster)) if snap.is_changed(i)},
        "pools": {name: n for name, n in snap.pool_taken.items() if n},
        "claims": sorted(snap.allocations),
        "log": snap.mark(),
    }


def _vector(snap: Snapshot, gpus: int) -> tuple[int, ...]:
    return tuple(gpus * 1000 if name == "nvidia.com/gpu" else 0 for name in snap.cluster.resources)


def _block(snap: Snapshot, changes: list[tuple[int, int, int]]) -> Block:
    """``(node, gpus, n)`` changes, added up per node, as one block."""
    per_node: dict[int, list[int]] = {}
    for i, gpus, n in changes:
        row = per_node.setdefault(i, [0] * len(snap.cluster.resources))
        per_node[i] = [a + n * b for a, b in zip(row, _vector(snap, gpus), strict=True)]
    return Block.of(per_node, 1, len(snap.cluster.resources))


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
        snap.add_block(_block(snap, before))
        if before:  # else the pool is first taken after the checkpoint
            snap.take_devices("nics", 1)
            snap.allocate(Allocation(("ns", "a"), (("nics", 1),)))
    mark, checkpoint = one.mark(), other.checkpoint()
    expected_before = _state(one)
    for snap in (one, other):
        snap.add_block(_block(snap, after))
        snap.take_devices("nics", 1)
        snap.allocate(Allocation(("ns", "b"), (("nics", 1),)))
        list(snap.changed_in(racked.domains(RACK)["r0"]))  # the per-key index sees the changes
    assert _state(one) == _state(other)
    one.revert(mark)
    other.restore(checkpoint)
    assert _state(one) == _state(other) == expected_before


@pytest.mark.parametrize(
    "changes",
    [
        [(0, 2, -1), (0, 2, 1), (2, 1, 3), (1, 1, -1)],
        [(1, 1, -1)],
        [(0, 1, 2), (2, 4, -1)],
    ],
    ids=["back-to-nothing-and-new", "cancels-the-earlier-add", "two-new-nodes"],
)
def test_add_block_is_add_in_order(racked: Cluster, changes: list[tuple[int, int, int]]) -> None:
    """Nodes changed for the first time, again, back to nothing; after an earlier single add; then reverted."""
    one, other = Snapshot(racked), Snapshot(racked)
    for snap in (one, other):
        snap.add(1, _vector(snap, 1))
        assert list(snap.changed_in(racked.domains(RACK)["r0"])) == [1]
    start = _state(one)
    one.add_block(_block(one, changes))
    for i, gpus, n in changes:
        other.add(i, _vector(other, gpus), n)
    assert {k: v for k, v in _state(one).items() if k != "log"} == {
        k: v for k, v in _state(other).items() if k != "log"
    }
    one.revert(1)
    assert _state(one) == start


def test_block_of_huge_amounts_is_exact(racked: Cluster) -> None:
    """Rows past what int64 holds become Python integers, and the node's free capacity stays exact."""
    snap = Snapshot(racked)
    width = len(racked.resources)
    huge = [2**70 if r == 0 else 0 for r in range(width)]
    snap.add_block(Block.of({2: huge}, -1, width))
    assert snap.free(2)[0] == racked.free(2)[0] + 2**70
    assert snap.change_at(2) == tuple(-v for v in huge)


@pytest.mark.parametrize(
    "amounts",
    [[2**62 - 1] * 3, [2**62 - 1, -(2**62 - 1), 2**62 - 1, 2**62 - 1, 2**62 - 1], [3, 2**62 - 5, 2**62 - 1, 2**62 - 1]],
    ids=["three-int64-blocks-pass-2**63", "back-and-past", "small-then-past"],
)
def test_blocks_that_add_up_past_int64_stay_exact(racked: Cluster, amounts: list[int]) -> None:
    """Each block fits int64 on its own; their sum on one node does not, and the rows turn to Python integers."""
    snap = Snapshot(racked)
    width = len(racked.resources)
    mark = snap.mark()
    checkpoint = snap.checkpoint()
    for amount in amounts:
        snap.add_block(Block.of({0: [amount] + [0] * (width - 1), 2: [1] + [0] * (width - 1)}, 1, width))
    assert snap.change_at(0) == (sum(amounts), *([0] * (width - 1)))
    assert snap.change_at(2) == (len(amounts), *([0] * (width - 1)))
    snap.revert(mark)
    assert snap.change_at(0) is None
    snap.add_block(Block.of({0: [amounts[0]] + [0] * (width - 1)}, 1, width))
    snap.restore(checkpoint)
    assert [snap.free(i) for i in range(3)] == [racked.free(i) for i in range(3)]
