"""The drawing's model before geometry: which levels are drawn, how cells aggregate, what each bar holds."""

from __future__ import annotations

import pytest

from workloadbuilder.placement import Cluster, PlacementRequest, Pods, place
from workloadbuilder.placement.render.tree import (
    build_tree,
    cells_of,
    default_resource,
    levels_to_draw,
    node_usage,
)

ZONE, RACK = "topology.kubernetes.io/zone", "topology.example.com/rack"


def _cluster(cordon: str | None = None) -> Cluster:
    nodes = []
    for zone in ("a", "b"):
        for rack in range(2):
            for host in range(2):
                name = f"{zone}{rack}{host}"
                nodes.append(
                    {
                        "name": name,
                        "labels": {ZONE: zone, RACK: f"{zone}-r{rack}"},
                        "allocatable": {"cpu": "8", "nvidia.com/gpu": "4", "pods": "110"},
                        **({"unschedulable": True} if name == cordon else {}),
                    }
                )
    return Cluster.from_yaml({"nodes": nodes})


def _request(pods: int, gpus: str = "1") -> PlacementRequest:
    group = {"kind": "PodGroup", "metadata": {"name": "w"}, "spec": {"schedulingPolicy": {"gang": {"minCount": pods}}}}
    return PlacementRequest.from_groups([group], {"w": Pods(pods, requests={"cpu": "1", "nvidia.com/gpu": gpus})})


def test_the_levels_are_the_nesting_well_known_keys_coarsest_first() -> None:
    cluster = _cluster()
    request = _request(2)
    assert levels_to_draw(request, cluster, place(request, cluster)) == [ZONE, RACK]


@pytest.mark.parametrize(
    ("max_cells", "cell_labels", "note"),
    [
        (8, ["a00", "a01", "a10", "a11", "b00", "b01", "b10", "b11"], ""),
        (4, ["a-r0", "a-r1", "b-r0", "b-r1"], "; each cell is a rack (4 of them)"),
        (2, ["a", "b"], "; each cell is a zone (2 of them)"),
    ],
    ids=["node-cells", "rack-cells", "zone-cells"],
)
def test_cells_aggregate_at_the_finest_level_that_fits(max_cells: int, cell_labels: list[str], note: str) -> None:
    cluster = _cluster()
    request = _request(2)
    answer = place(request, cluster)
    root, said = build_tree(cluster, [ZONE, RACK], node_usage(request, cluster, answer, "nvidia.com/gpu"), max_cells)
    assert [cell.label for cell in cells_of(root)] == cell_labels
    assert said == note


def test_a_bar_holds_allocatable_and_what_the_gang_takes_and_a_cordoned_node_says_so() -> None:
    cluster = _cluster(cordon="a00")
    request = _request(4, gpus="2")
    answer = place(request, cluster)
    usage = node_usage(request, cluster, answer, "nvidia.com/gpu")
    placed = {pod.node for group in answer.groups for pod in group.pods}
    assert [u.alloc for u in usage] == [4000] * 8
    assert sum(u.placed for u in usage) == 4 * 2000
    assert all(usage[cluster.node_index[name]].placed > 0 for name in placed)
    assert usage[cluster.node_index["a00"]].states == {"cordoned": 1}
    assert default_resource(request, cluster) == "nvidia.com/gpu"
