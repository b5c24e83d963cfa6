"""Sibling PodGroups of one shape are placed in one pass: the answer is the one placing them one by one gives.

The reference is the same engine with every run cut to one sibling
(``KubeScheduler._run`` patched), so each is placed on its own; the
answers, explanations included, must be the same.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st
from placement_helpers import COLUMNAR_SETTINGS, RACK, checked, cluster, composite, node, pod_group, request

from workloadbuilder.placement import Cluster, PlacementRequest, Pods, place
from workloadbuilder.placement.request.model import GroupRequest
from workloadbuilder.placement.strategies.kube_scheduler import KubeScheduler


@st.composite
def instances(draw: st.DrawFn) -> tuple[Cluster, PlacementRequest]:
    """Two racks of 1-4 nodes, partly used; a rack composite over 2-4 siblings of one shape (and maybe another)."""
    nodes = []
    for r in range(2):
        for n in range(draw(st.integers(1, 4))):
            cpu = draw(st.integers(2, 16))
            used = {"cpu": str(draw(st.integers(0, cpu - 1)))} if draw(st.booleans()) else None
            nodes.append(node(f"r{r}-n{n}", draw(st.integers(0, 4)), cpu=str(cpu), used=used, rack=f"r{r}"))
    shape = {"cpu": str(draw(st.integers(1, 3)))}
    if draw(st.booleans()):
        shape["nvidia.com/gpu"] = "1"
    other = {"cpu": "1"}  # a sibling of another shape splits the run
    counts = draw(st.lists(st.integers(1, 6), min_size=2, max_size=5))
    groups: list[dict[str, Any]] = [composite("c", draw(st.integers(1, len(counts))), key=RACK)]
    pods = {}
    for k, count in enumerate(counts):
        groups.append(pod_group(f"g{k}", draw(st.integers(1, count)), parent="c"))
        pods[f"g{k}"] = Pods(count, requests=other if draw(st.integers(0, 4)) == 0 else shape)
    return cluster(*nodes), request(groups, pods)


def _one_by_one(self: KubeScheduler, children: list[GroupRequest], k: int) -> list[GroupRequest]:
    return [children[k]]


@COLUMNAR_SETTINGS
@given(instances())
def test_siblings_of_one_shape_land_where_one_by_one_puts_them(instance: tuple[Cluster, PlacementRequest]) -> None:
    cl, req = instance
    together = checked(req, cl, place(req, cl))
    with mock.patch.object(KubeScheduler, "_run", _one_by_one):
        alone = place(req, cl)
    assert together.to_dict() == alone.to_dict()
