"""Clusters derived from a cluster: a part of it, more nodes like one node, more running pods.

Each function returns a new ``Cluster`` and leaves its argument alone:
``restrict`` keeps the chosen nodes in cluster order with every per-node
fact, their local pools, every domain pool and their running pods (re-indexed);
``nodes_like`` adds empty, schedulable copies of a node named
``<node>-new-<k>`` with copies of its local pools; ``add_running`` adds pods'
requests to their nodes' usage.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.placement.cluster.derive import (
    NEW_NODE_SUFFIX,
    add_running,
    node_named,
    nodes_like,
    restrict,
    with_usage,
)
from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.cluster.records import DevicePool, RunningGroup, RunningPod
from workloadbuilder.placement.k8s.constraints import Taint

TAINT = Taint("dedicated", "ml", "NoSchedule")


def make() -> Cluster:
    """Three nodes (b cordoned and tainted), a pool on a, one on c, one shared by rack r1; a pod on a, one on c."""
    nodes = [
        {"name": "a", "labels": {"rack": "r1"}, "allocatable": {"cpu": 4000, "pods": 10_000}},
        {
            "name": "b",
            "labels": {"rack": "r1", "gpu": "yes"},
            "allocatable": {"cpu": 8000, "pods": 10_000, "nvidia.com/gpu": 2000},
            "used": {"cpu": 500},
            "schedulable": False,
            "taints": [TAINT],
        },
        {"name": "c", "labels": {"rack": "r2"}, "allocatable": {"cpu": 2000, "pods": 10_000}},
    ]
    pools = [
        DevicePool("a-gpus", "gpu", 4, 1, node="a"),
        DevicePool("b-gpus", "gpu", 2, node="b"),
        DevicePool("r1-nics", "nic", 8, domain=("rack", "r1")),
    ]
    pods = [
        {"name": "on-a", "node": "a", "requests": {"cpu": 1000}, "group": "g"},
        {"name": "on-c", "node": "c", "requests": {"cpu": 500}, "priority": 3},
    ]
    return Cluster.build(nodes, pools, pods, [RunningGroup("g")])


def column(cl: Cluster, resource: str, which: str = "allocatable") -> list[int]:
    return list(getattr(cl, which)[cl.resource_index[resource]])


def test_restrict_keeps_nodes_in_cluster_order_with_their_facts() -> None:
    cl = make()
    part = restrict(cl, [1, 0, 1])
    assert part.names == ["a", "b"]
    assert part.labels == [{"rack": "r1"}, {"rack": "r1", "gpu": "yes"}]
    assert part.taints == [(), (TAINT,)]
    assert part.schedulable == [True, False]
    assert column(part, "cpu") == [4000, 8000]
    assert column(part, "cpu", "used") == [1000, 500]
    assert column(part, "pods", "used") == [1000, 0]
    assert part.resources == cl.resources


def test_restrict_drops_the_local_pools_and_pods_of_dropped_nodes() -> None:
    part = restrict(make(), [2, 1])
    assert part.names == ["b", "c"]
    assert [pool.name for pool in part.pools] == ["b-gpus", "r1-nics"]
    assert [(pod.name, pod.node, pod.priority) for pod in part.running_pods] == [("on-c", 1, 3)]
    assert list(part.running_groups) == ["g"]


def test_restrict_leaves_its_argument_alone() -> None:
    cl = make()
    restrict(cl, [2])
    assert cl.names == ["a", "b", "c"]
    assert [(pod.name, pod.node) for pod in cl.running_pods] == [("on-a", 0), ("on-c", 2)]
    assert len(cl.pools) == 3


def test_nodes_like_adds_empty_schedulable_copies() -> None:
    cl = make()
    more = nodes_like(cl, "b", 2)
    assert more.names == ["a", "b", "c", "b-new-1", "b-new-2"]
    assert more.labels[3:] == [{"rack": "r1", "gpu": "yes"}] * 2
    assert more.labels[3] is not cl.labels[1]
    assert more.taints[3:] == [(TAINT,), (TAINT,)]
    assert more.schedulable == [True, False, True, True, True]
    assert column(more, "cpu") == [4000, 8000, 2000, 8000, 8000]
    assert column(more, "nvidia.com/gpu") == [0, 2000, 0, 2000, 2000]
    assert column(more, "cpu", "used") == [1000, 500, 500, 0, 0]
    assert more.pools[3:] == (
        DevicePool("b-gpus-new-1", "gpu", 2, 0, node="b-new-1"),
        DevicePool("b-gpus-new-2", "gpu", 2, 0, node="b-new-2"),
    )
    assert cl.names == ["a", "b", "c"]


def test_copies_of_a_local_pool_start_unallocated() -> None:
    more = nodes_like(make(), "a", 1)
    assert more.pool("a-gpus") == DevicePool("a-gpus", "gpu", 4, 1, node="a")
    assert more.pool("a-gpus-new-1") == DevicePool("a-gpus-new-1", "gpu", 4, 0, node="a-new-1")
    assert NEW_NODE_SUFFIX == "-new-"


def test_no_new_nodes() -> None:
    assert nodes_like(make(), "c", 0).names == ["a", "b", "c"]


ERRORS = [
    ("unknown node", "z", 1, "no node named 'z' in the cluster"),
    ("negative count", "a", -1, "the number of nodes to add must not be negative, not -1"),
]


@pytest.mark.parametrize(("name", "count", "message"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_nodes_like_refuses(name: str, count: int, message: str) -> None:
    with pytest.raises(InvalidArgumentError) as raised:
        nodes_like(make(), name, count)
    assert str(raised.value) == message


def test_node_named() -> None:
    cl = make()
    assert [node_named(cl, name) for name in ("a", "b", "c")] == [0, 1, 2]
    with pytest.raises(InvalidArgumentError, match=r"^no node named 'x' in the cluster$"):
        node_named(cl, "x")


def test_add_running_adds_requests_to_usage() -> None:
    cl = make()
    width = len(cl.resources)
    cpu, pods = cl.resource_index["cpu"], cl.resource_index["pods"]
    vector = [0] * width
    vector[cpu], vector[pods] = 2000, 1000
    pod = RunningPod("new", 2, tuple(vector), priority=7, group="h")
    more = add_running(cl, [pod, pod], [RunningGroup("h", priority=7)])
    assert column(more, "cpu", "used") == [1000, 500, 4500]
    assert column(more, "pods", "used") == [1000, 0, 3000]
    assert [p.name for p in more.running_pods] == ["on-a", "on-c", "new", "new"]
    assert list(more.running_groups) == ["g", "h"]
    assert column(cl, "cpu", "used") == [1000, 500, 500]


def test_with_usage_takes_the_usage_as_given() -> None:
    cl = make()
    used = [[7] * 3 for _ in cl.resources]
    more = with_usage(cl, used, [])
    assert more.used is used
    assert [p.name for p in more.running_pods] == ["on-a", "on-c"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 2), max_size=5))
def test_restrict_is_idempotent_and_order_free(indexes: list[int]) -> None:
    cl = make()
    part = restrict(cl, indexes)
    keep = sorted(set(indexes))
    assert part.names == [cl.names[i] for i in keep]
    assert restrict(part, range(len(part.names))).names == part.names
    assert restrict(cl, list(reversed(indexes))).names == part.names
