"""Random clusters and pod shapes for the tests comparing a columnar pass with its scalar rule, and the reference heap.

The clusters carry what real ones do: over-committed nodes, nodes that
offer no CPU or memory, cordons, PreferNoSchedule taints, amounts too large
for 64-bit integers, running pods whose containers leave CPU or memory
unset.
"""

from __future__ import annotations

import heapq
from typing import Any

from hypothesis import strategies as st

from workloadbuilder.placement import Cluster
from workloadbuilder.placement.framework.scoring import node_score, preference_scores
from workloadbuilder.placement.framework.snapshot import Snapshot
from workloadbuilder.placement.k8s.constraints import Taint

GI = 1024**3 * 1000
HUGE = 2**70

amounts = st.one_of(st.integers(0, 64_000), st.sampled_from([0, 100, 250, 999, 1000, 64_000]))
memory = st.one_of(st.integers(0, 8).map(lambda k: k * GI), st.integers(0, 512 * GI))


@st.composite
def clusters(draw: Any, huge: bool = False) -> Cluster:
    """2-40 nodes in racks, with random allocatable and used (sometimes more than allocatable), cordons and taints."""
    count = draw(st.integers(2, 40))
    nodes = []
    for i in range(count):
        cpu, mem = draw(amounts), draw(memory)
        if huge and draw(st.booleans()):
            mem = draw(st.integers(2**62, HUGE))
        nodes.append(
            {
                "name": f"n{i:02d}",
                "labels": {"rack": f"r{draw(st.integers(0, 4))}", "block": f"b{draw(st.integers(0, 1))}"},
                "allocatable": {"cpu": cpu, "memory": mem, "pods": draw(st.integers(0, 8)) * 1000},
                "used": {"cpu": draw(st.integers(0, cpu + 2000)), "memory": draw(st.integers(0, mem + GI))},
                "schedulable": draw(st.integers(0, 9)) > 0,
                "taints": (Taint("spot", "true", draw(st.sampled_from(["PreferNoSchedule", "NoSchedule"]))),)
                if draw(st.integers(0, 4)) == 0
                else (),
            }
        )
    # running pods whose containers leave CPU or memory unset: NodeResourcesFit counts their defaults
    running = [
        {"name": f"p{k}", "node": f"n{draw(st.integers(0, count - 1)):02d}", "requests": {}, "unset": unset}
        for k, unset in enumerate(
            draw(st.lists(st.sampled_from([(100, 0), (0, 200 * GI // 1024), (300, 0)]), max_size=4))
        )
    ]
    return Cluster.build(nodes, running_pods=running)


shapes = st.fixed_dictionaries(
    {"cpu": st.sampled_from([0, 100, 250, 1000, 3000]), "memory": st.sampled_from([0, GI // 4, GI, 3 * GI])}
)


def assumed(cluster: Cluster, shape_requests: dict[str, int], picks: list[int]) -> Snapshot:
    """A snapshot with one pod of the shape already assumed on each picked node."""
    snap = Snapshot(cluster)
    shape = snap.shape(shape_requests)
    for i in picks:
        snap.add(i % len(cluster), shape.vector)
    return snap


def reference_assign(snap: Snapshot, requests: dict[str, int], nodes: list[int], count: int) -> list[int]:
    """One heap of every fitting node, re-scored after each pod: the rule as kube-scheduler states it.

    An assumed pod counts its non-zero defaults in LeastAllocated, as the scheduler's cache counts it.
    """
    shape = snap.shape(requests)
    landed: dict[int, int] = {}
    fitting = [i for i in nodes if snap.node_fit(shape, i) > 0]
    prefers = snap.cluster.has_preferences
    extra = preference_scores(snap, shape, fitting) if prefers else dict.fromkeys(fitting, 0)
    heap = [(-node_score(snap, i, shape) - extra[i], i) for i in fitting]
    heapq.heapify(heap)
    placed: list[int] = []
    while heap and len(placed) < count:
        _, i = heapq.heappop(heap)
        snap.add(i, shape.vector)
        placed.append(i)
        landed[i] = landed.get(i, 0) + 1
        if snap.node_fit(shape, i) > 0:
            heapq.heappush(heap, (-node_score(snap, i, shape, landed[i]) - extra[i], i))
    return placed
