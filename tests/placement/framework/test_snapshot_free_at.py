"""``Snapshot.free_at``: every node's free amount of one resource now, as ``free`` reads it node by node.

The same whether the cluster has a free vector per node or nodes share
one, for every node (the root domain's array, which may be handed out as
the cluster's own column) or some of them, before and after changes.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from placement_helpers import COLUMNAR_SETTINGS, cluster, node

from workloadbuilder.placement import Cluster
from workloadbuilder.placement.framework.snapshot import Snapshot

DISTINCT = cluster(node("n0", 4), node("n1", 2), node("n2", 8, cpu="8"))
SHARED = cluster(node("n0", 4), node("n1", 4), node("n2", 8, cpu="8"), node("n3", 4))


def _expected(snap: Snapshot, resource: str, nodes: list[int]) -> list[int]:
    r = snap.cluster.resource_index[resource]
    return [snap.free(i)[r] for i in nodes]


@COLUMNAR_SETTINGS
@given(
    st.sampled_from([DISTINCT, SHARED]),
    st.lists(st.tuples(st.integers(0, 2), st.integers(-3, 5)), max_size=4),
    st.lists(st.integers(0, 2), max_size=3, unique=True),
)
def test_free_at_is_free_node_by_node(cl: Cluster, changes: list[tuple[int, int]], some: list[int]) -> None:
    assert cl.vector_per_node == (cl is DISTINCT)
    snap = Snapshot(cl)
    gpu = cl.resource_index["nvidia.com/gpu"]
    for i, gpus in changes:
        snap.add(i, tuple(1000 if r == gpu else 0 for r in range(len(cl.resources))), gpus)
    every = list(range(len(cl)))
    for resource in ("nvidia.com/gpu", "cpu"):
        assert snap.free_at(resource, cl.root.node_array).tolist() == _expected(snap, resource, every)
        assert snap.free_at(resource, np.asarray(sorted(some), dtype=np.int64)).tolist() == _expected(
            snap, resource, sorted(some)
        )


def test_a_resource_the_cluster_lacks_is_none_free() -> None:
    snap = Snapshot(DISTINCT)
    assert snap.free_at("example.com/fpga", DISTINCT.root.node_array).tolist() == [0, 0, 0]
