"""The plain records a cluster is made of: pools, running pods and groups, node columns, and what a reader found.

``NodeColumns.from_records`` turns node records into one list per field,
with the defaults of a bare node (no labels, nothing used, schedulable, no
taints) and one amount column per resource any node has, 0 where a node
has none, resources sorted.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from workloadbuilder.placement.cluster.records import ClusterParts, DevicePool, NodeColumns, RunningGroup, RunningPod
from workloadbuilder.placement.k8s.constraints import Taint


def test_device_pool_defaults() -> None:
    pool = DevicePool("p", "gpu.example.com", 8)
    assert (pool.allocated, pool.node, pool.domain) == (0, None, None)


def test_running_pod_defaults_and_labels_out_of_equality() -> None:
    pod = RunningPod("p", 0, (1000, 0, 1000))
    assert (pod.priority, pod.group, pod.start, pod.namespace, pod.labels, pod.host_ports) == (
        0,
        None,
        "",
        "default",
        {},
        (),
    )
    labelled = RunningPod("p", 0, (1000, 0, 1000), labels={"app": "x"})
    assert labelled == pod
    assert hash(labelled) == hash(pod)


def test_running_group_defaults() -> None:
    assert RunningGroup("g") == RunningGroup("g", "PodGroup", 0, "single", None, "")


def test_node_columns_from_records() -> None:
    taint = Taint("dedicated", "x", "NoSchedule")
    columns = NodeColumns.from_records(
        [
            {"name": "a", "allocatable": {"cpu": 4000, "pods": 110_000}},
            {
                "name": "b",
                "labels": {"zone": "z1"},
                "allocatable": {"nvidia.com/gpu": 8000, "cpu": 8000},
                "used": {"cpu": 1000},
                "schedulable": False,
                "taints": [taint],
            },
        ]
    )
    assert columns.names == ["a", "b"]
    assert columns.labels == [{}, {"zone": "z1"}]
    assert columns.allocatable == {"cpu": [4000, 8000], "nvidia.com/gpu": [0, 8000], "pods": [110_000, 0]}
    assert list(columns.allocatable) == ["cpu", "nvidia.com/gpu", "pods"]
    assert columns.used == {"cpu": [0, 1000]}
    assert columns.schedulable == [True, False]
    assert columns.taints == [(), (taint,)]


def test_used_none_is_nothing_used() -> None:
    columns = NodeColumns.from_records([{"name": "a", "allocatable": {"cpu": 1}, "used": None}])
    assert columns.used == {}


def test_no_nodes_no_columns() -> None:
    columns = NodeColumns.from_records([])
    assert (columns.names, columns.allocatable, columns.used) == ([], {}, {})


def test_cluster_parts_defaults_are_empty_and_not_shared() -> None:
    a, b = ClusterParts(), ClusterParts()
    a.warnings.append("x")
    assert (b.nodes, b.pools, b.pods, b.groups, b.priority_classes, b.disruption_budgets, b.warnings) == (
        [],
        [],
        [],
        [],
        [],
        [],
        [],
    )


amounts = st.dictionaries(st.sampled_from(["cpu", "memory", "pods", "x.io/y"]), st.integers(0, 10**6), max_size=4)


@settings(max_examples=60, deadline=None)
@given(st.lists(amounts, max_size=5))
def test_columns_hold_every_nodes_amounts(rows: list[dict[str, int]]) -> None:
    """Reading a column back at node ``i`` gives node ``i``'s amount, 0 where it has none."""
    nodes = [{"name": f"n{i}", "allocatable": row} for i, row in enumerate(rows)]
    columns = NodeColumns.from_records(nodes)
    assert sorted(columns.allocatable) == sorted(set().union(*rows))
    for i, row in enumerate(rows):
        assert {r: column[i] for r, column in columns.allocatable.items() if r in row} == row
        assert all(column[i] == 0 for r, column in columns.allocatable.items() if r not in row)
