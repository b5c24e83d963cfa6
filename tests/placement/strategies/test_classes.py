"""Node classes for the exact search: nodes no constraint of the root can tell apart, in the order of their first node.

Nodes share a class when they carry the same values of the root's keys
(and of its domain pools' keys), reach the same node-local pools and hold
the same number of the root's pods: for one pod shape, the pods a node
holds capped at the root's pod count; for several shapes, the free vector
capped at the root's demand. Nodes where no pod of the root fits (or whose
filters reject every shape) are left out.
"""

from __future__ import annotations

from placement_helpers import RACK, ZONE, cluster, node

from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.cluster.records import DevicePool
from workloadbuilder.placement.framework.snapshot import Shape, Snapshot
from workloadbuilder.placement.strategies.classes import NodeClass, node_classes

GPU = "nvidia.com/gpu"


def demand(cl: Cluster, shapes: list[tuple[Shape, int]]) -> dict[int, int]:
    """What the solver passes: per resource index, every shape's pods times its request."""
    total: dict[int, int] = {}
    for shape, count in shapes:
        for r, q in shape.terms:
            total[r] = total.get(r, 0) + count * q
    return total


def summary(classes: list[NodeClass]) -> list[tuple[dict[str, str], str | None, list[int], list[int]]]:
    return [(c.labels, c.pool_node, c.nodes, sorted(c.fits.values())) for c in classes]


def six_nodes() -> Cluster:
    return cluster(
        node("n1", 8, rack="r1"),
        node("n2", 8, rack="r1"),
        node("n3", 8, rack="r2"),
        node("n4", 2, rack="r1"),
        node("n5", 0, rack="r1"),
        node("n6", 6, rack="r1"),
    )


def test_one_shape_counts_pods_up_to_the_roots_pod_count() -> None:
    cl = six_nodes()
    snap = Snapshot(cl)
    shape = snap.shape({GPU: 1000})
    classes = node_classes(snap, range(6), [shape], [RACK], [], demand(cl, [(shape, 4)]), 4)
    # n6 (6 GPUs) holds as many of 4 pods as n1; n5 holds none; n3 differs by rack, n4 by room
    assert summary(classes) == [
        ({RACK: "r1"}, None, [0, 1, 5], [4]),
        ({RACK: "r2"}, None, [2], [4]),
        ({RACK: "r1"}, None, [3], [2]),
    ]
    assert [c.size for c in classes] == [3, 1, 1]


def test_a_larger_root_tells_the_roomier_nodes_apart() -> None:
    cl = six_nodes()
    snap = Snapshot(cl)
    shape = snap.shape({GPU: 1000})
    classes = node_classes(snap, range(6), [shape], [RACK], [], demand(cl, [(shape, 8)]), 8)
    assert summary(classes) == [
        ({RACK: "r1"}, None, [0, 1], [8]),
        ({RACK: "r2"}, None, [2], [8]),
        ({RACK: "r1"}, None, [3], [2]),
        ({RACK: "r1"}, None, [5], [6]),
    ]


def test_only_the_nodes_given_and_only_the_keys_given() -> None:
    cl = six_nodes()
    snap = Snapshot(cl)
    shape = snap.shape({GPU: 1000})
    classes = node_classes(snap, [0, 2, 3], [shape], [], [], demand(cl, [(shape, 2)]), 2)
    assert summary(classes) == [({}, None, [0, 2, 3], [2])]  # without the rack key, r1 and r2 are alike


def test_filters_leave_rejected_nodes_out() -> None:
    cl = cluster(
        node("n1", 8, rack="r1"), {**node("n2", 8, rack="r1"), "unschedulable": True}, node("n3", 8, rack="r1")
    )
    snap = Snapshot(cl)
    shape = snap.shape({GPU: 1000})
    classes = node_classes(snap, range(3), [shape], [RACK], [], demand(cl, [(shape, 2)]), 2)
    assert summary(classes) == [({RACK: "r1"}, None, [0, 2], [2])]


def test_local_pools_and_domain_pool_keys_split_classes() -> None:
    cl = cluster(node("n1", 8, zone="z1"), node("n2", 8, zone="z1"), node("n3", 8, zone="z2"))
    snap = Snapshot(cl)
    shape = snap.shape({GPU: 1000})
    pools = [DevicePool("n2-nics", "nic", 2, node="n2"), DevicePool("z1-nics", "nic", 4, domain=(ZONE, "z1"))]
    classes = node_classes(snap, range(3), [shape], [], pools, demand(cl, [(shape, 1)]), 1)
    assert summary(classes) == [
        ({ZONE: "z1"}, None, [0], [1]),
        ({ZONE: "z1"}, "n2", [1], [1]),
        ({ZONE: "z2"}, None, [2], [1]),
    ]


def test_several_shapes_compare_capped_free_vectors() -> None:
    cl = cluster(node("n1", 8, cpu="64"), node("n2", 6, cpu="32"), node("n3", 1, cpu="64"))
    snap = Snapshot(cl)
    gpu, cpu = snap.shape({GPU: 1000}), snap.shape({"cpu": 4000})
    wanted = demand(cl, [(gpu, 2), (cpu, 2)])  # 2 GPUs, 8 CPUs, 4 pod slots
    classes = node_classes(snap, range(3), [gpu, cpu], [], [], wanted, 4)
    g, c, p = cl.resource_index[GPU], cl.resource_index["cpu"], cl.resource_index["pods"]
    assert [(k.nodes, k.fits[gpu.uid], k.fits[cpu.uid], k.free[g], k.free[c], k.free[p]) for k in classes] == [
        ([0, 1], 2, 2, 2000, 8000, 4000),
        ([2], 1, 2, 1000, 8000, 4000),
    ]


def test_node_class_reaches_and_values() -> None:
    local = NodeClass({RACK: "r1"}, "n1", (0,), {0: 1}, [0])
    plain = NodeClass({RACK: "r2"}, None, (0,), {0: 1}, [1, 2])
    pools = [
        DevicePool("on-n1", "gpu", 1, node="n1"),
        DevicePool("in-r1", "nic", 1, domain=(RACK, "r1")),
        DevicePool("everywhere", "fpga", 1),
    ]
    assert [local.reaches(pool) for pool in pools] == [True, True, True]
    assert [plain.reaches(pool) for pool in pools] == [False, False, True]
    assert (plain.value(RACK), plain.value(ZONE), plain.size) == ("r2", None, 2)
