"""The hypothesis strategies: generated trees validate and compile, generated clusters load and place."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from workloadbuilder import Builder
from workloadbuilder.placement import Cluster
from workloadbuilder.testing import make_options
from workloadbuilder.testing.strategies import (
    RACK_KEY,
    ZONE_KEY,
    building_blocks,
    cluster_descriptions,
    clusters,
    workload_item_trees,
)


@settings(max_examples=40, deadline=None)
@given(workload_item_trees())
def test_generated_trees_validate_and_compile(tree):
    builder = Builder(tree, make_options())
    assert builder.validate() == []
    workload = builder.build_workload()
    templates = workload.spec.pod_group_templates or workload.spec.composite_pod_group_templates
    assert templates[0].name == tree.name


def _depth(item) -> int:
    return 1 + max((_depth(child) for child in item.children), default=0)


def _names(item) -> list[str]:
    return [item.name, *(name for child in item.children for name in _names(child))]


@settings(max_examples=40, deadline=None)
@given(workload_item_trees(max_depth=3, max_children=3))
def test_generated_trees_keep_their_bounds_and_unique_names(tree):
    assert _depth(tree) <= 3
    names = _names(tree)
    assert len(names) == len(set(names))
    stack = [tree]
    while stack:
        item = stack.pop()
        assert len(item.children) <= 3
        stack.extend(item.children)


@settings(max_examples=60, deadline=None)
@given(st.booleans().flatmap(lambda composite: st.tuples(st.just(composite), building_blocks(composite))))
def test_building_blocks_pair_all_only_with_gang_and_count_at_the_right_field(drawn):
    composite, blocks = drawn
    policy = blocks["policy"]
    if blocks["disruption_mode"] == {"all": {}}:
        assert policy is not None
        assert "gang" in policy
    if policy is not None and "gang" in policy:
        assert list(policy["gang"]) == ["minGroupCount" if composite else "minCount"]
    assert ("resource_claims" in blocks) is not composite


@settings(max_examples=30, deadline=None)
@given(cluster_descriptions(max_nodes=8))
def test_generated_cluster_descriptions_load_and_place_a_single_pod(description):
    from workloadbuilder.placement import PlacementRequest, place, verify

    cluster = Cluster.from_yaml(description)
    assert len(cluster) == len(description["nodes"])
    group = {"kind": "PodGroup", "metadata": {"name": "one"}, "spec": {"schedulingPolicy": {"basic": {}}}}
    request = PlacementRequest.from_groups([group], {"one": (1, {"cpu": "100m"})})
    answer = place(request, cluster)
    assert verify(request, cluster, answer) == []


@settings(max_examples=30, deadline=None)
@given(cluster_descriptions(max_nodes=5, gpus=False))
def test_a_description_without_gpus_labels_each_node_with_its_zone_and_rack(description):
    nodes = description["nodes"]
    assert [node["name"] for node in nodes] == [f"node-{i:03d}" for i in range(len(nodes))]
    for node in nodes:
        assert "nvidia.com/gpu" not in node["allocatable"]
        zone = node["labels"][ZONE_KEY]
        assert node["labels"][RACK_KEY].startswith(f"rack-{zone.removeprefix('zone-')}-")


@settings(max_examples=20, deadline=None)
@given(clusters(max_nodes=4))
def test_clusters_are_clusters_of_at_most_max_nodes(cluster):
    assert isinstance(cluster, Cluster)
    assert 1 <= len(cluster) <= 4
