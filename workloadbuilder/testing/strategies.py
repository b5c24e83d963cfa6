"""Hypothesis strategies for WorkloadItem trees and clusters (requires hypothesis, the ``test`` extra).

The generated trees are valid for a controller that allows every policy and
mode (see ``factories.make_options``): unique DNS-label names, depth and
fan-out within the API's limits, building blocks given as dicts in
Kubernetes JSON spelling, each at a distinct path. The generated clusters
are small zone → rack → host topologies in the compact YAML format of
``workloadbuilder.placement.Cluster.from_yaml``, some nodes partly used.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from workloadbuilder.field import FieldPath
from workloadbuilder.placement import Cluster
from workloadbuilder.types import (
    ConstraintsInput,
    DisruptionModeInput,
    PolicyInput,
    ResourceClaimsInput,
    WorkloadInput,
    WorkloadItem,
)

__all__ = ["building_blocks", "cluster_descriptions", "clusters", "workload_item_trees"]

TOPOLOGY_KEYS = ("topology.kubernetes.io/zone", "topology.kubernetes.io/region", "kubernetes.io/hostname")
_NAMES = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=6)


@st.composite
def building_blocks(draw: st.DrawFn, composite: bool) -> dict[str, Any]:
    """Valid building blocks for one item: ``policy``, ``constraints``, ``disruption_mode``, ``resource_claims``.

    Gang policies always carry a count, and ``all`` comes only with gang, so
    every draw passes validation and compiles.
    """
    count = "minGroupCount" if composite else "minCount"
    gang = draw(st.booleans())
    blocks: dict[str, Any] = {
        "policy": {"gang": {count: draw(st.integers(1, 64))}} if gang else draw(st.sampled_from([None, {"basic": {}}])),
        "constraints": draw(st.sampled_from([None, *({"topology": [{"key": key}]} for key in TOPOLOGY_KEYS)])),
        "disruption_mode": draw(
            st.sampled_from([None, {"single": {}}, {"all": {}}] if gang else [None, {"single": {}}])
        ),
    }
    if not composite:
        names = draw(st.lists(st.sampled_from(["gpu", "nic", "scratch"]), max_size=2, unique=True))
        blocks["resource_claims"] = [{"name": name, "resourceClaimTemplateName": f"{name}-template"} for name in names]
    return blocks


def _item(name: str, path: FieldPath, blocks: dict[str, Any], children: list[WorkloadItem]) -> WorkloadItem:
    key = "composite_pod_group_data" if children else "pod_group_data"
    given = WorkloadInput(
        policy=PolicyInput(path_elements=["schedulingPolicy"], **{key: blocks["policy"]}),
        constraints=ConstraintsInput(path_elements=["schedulingConstraints"], **{key: blocks["constraints"]}),
        disruption_mode=DisruptionModeInput(path_elements=["disruptionMode"], **{key: blocks["disruption_mode"]}),
        resource_claims=ResourceClaimsInput(
            path_elements=["resourceClaims"], pod_group_data=blocks.get("resource_claims") or []
        ),
    )
    return WorkloadItem(name=name, path=path, input=given, children=children)


@st.composite
def workload_item_trees(draw: st.DrawFn, max_depth: int = 4, max_children: int = 8) -> WorkloadItem:
    """A valid tree of at most ``max_depth`` levels and ``max_children`` children per composite."""
    names = iter(draw(st.lists(_NAMES, min_size=64, max_size=64, unique=True)))

    def node(path: FieldPath, depth: int) -> WorkloadItem:
        width = draw(st.integers(0, max_children if depth < max_depth else 0))
        width = min(width, 2) if depth >= 2 else width  # keep whole trees small enough to shrink well
        children = [node(path.child("groups").index(i), depth + 1) for i in range(width)]
        return _item(next(names), path, draw(building_blocks(bool(children))), children)

    return node(FieldPath("spec", "scheduling"), 1)


ZONE_KEY = "topology.kubernetes.io/zone"
RACK_KEY = "topology.kubernetes.io/rack"


@st.composite
def cluster_descriptions(draw: st.DrawFn, max_nodes: int = 12, gpus: bool = True) -> dict[str, Any]:
    """A compact cluster description: ``{"nodes": [{name, labels, allocatable, used}]}``.

    Nodes are spread over up to 2 zones of up to 3 racks each (labelled with
    ``topology.kubernetes.io/zone`` and ``topology.kubernetes.io/rack``); each
    has 8-64 CPUs, 32-512 GiB and, with ``gpus``, 0-8 ``nvidia.com/gpu``; some
    already run something.
    """
    count = draw(st.integers(1, max_nodes))
    nodes = []
    for i in range(count):
        zone = draw(st.integers(0, 1))
        rack = draw(st.integers(0, 2))
        cpus = draw(st.sampled_from([8, 16, 32, 64]))
        allocatable = {"cpu": str(cpus), "memory": f"{draw(st.sampled_from([32, 128, 512]))}Gi", "pods": "110"}
        if gpus:
            allocatable["nvidia.com/gpu"] = str(draw(st.sampled_from([0, 4, 8])))
        node: dict[str, Any] = {
            "name": f"node-{i:03d}",
            "labels": {ZONE_KEY: f"zone-{zone}", RACK_KEY: f"rack-{zone}-{rack}"},
            "allocatable": allocatable,
        }
        used_cpus = draw(st.integers(0, cpus))
        if used_cpus:
            node["used"] = {"cpu": str(used_cpus)}
        nodes.append(node)
    return {"nodes": nodes}


def clusters(max_nodes: int = 12, gpus: bool = True) -> st.SearchStrategy[Cluster]:
    """A ``Cluster`` built from ``cluster_descriptions`` (for placement tests)."""
    return cluster_descriptions(max_nodes=max_nodes, gpus=gpus).map(Cluster.from_yaml)
