"""Properties on random small instances: every answer verifies, and `complete` is complete against a brute force.

Instances have at most 12 nodes (two zones, up to four racks), a root that is
a PodGroup or a CompositePodGroup with up to three PodGroup children (two
levels), pods of up to two shapes, and sometimes a group claim on node or
rack device pools. The brute force below shares nothing with the engine: it
tries every domain for every group, every set of children, every way to
take a claim's devices, and then every count of pods per node.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from placement_helpers import RACK, ZONE, cluster, composite, node, pod_group, request

from workloadbuilder.placement import Cluster, PlacementRequest, place, verify
from workloadbuilder.placement.request.model import GroupRequest

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
KEYS = {"zone": ZONE, "rack": RACK}


@st.composite
def instances(draw: st.DrawFn, running: bool = False) -> tuple[Cluster, PlacementRequest]:
    """A small cluster and request; with ``running``, lower-priority work runs on the nodes."""
    racks = draw(st.integers(1, 4))
    nodes = []
    for i in range(draw(st.integers(1, 12))):
        rack = draw(st.integers(0, racks - 1))
        gpus, cpus = draw(st.integers(0, 4)), draw(st.integers(1, 6))
        nodes.append(node(f"n{i:02d}", gpus, cpu=str(cpus), zone=f"z{rack % 2}", rack=f"r{rack}"))
    pools = []
    if draw(st.booleans()):
        for p in range(draw(st.integers(1, 3))):
            if draw(st.booleans()):
                where: dict[str, Any] = {"node": draw(st.sampled_from(nodes))["name"]}
            else:
                where = {"domain": {RACK: f"r{draw(st.integers(0, racks - 1))}"}}
            pools.append({"name": f"pool-{p}", "deviceClass": "nic", "count": draw(st.integers(1, 3)), **where})
    work = []
    if running:
        for g in range(draw(st.integers(1, 3))):
            members = [
                {"name": f"run-{g}-{j}", "node": entry["name"], "requests": {"cpu": "1"}}
                for j, entry in enumerate(nodes[g::3])
            ]
            work.append(
                {
                    "name": f"run-{g}",
                    "priority": g,
                    "disruptionMode": draw(st.sampled_from(["all", "single"])),
                    "pods": members,
                }
            )
    priority = 5 if running else None
    shapes = [{"nvidia.com/gpu": str(draw(st.integers(0, 2))), "cpu": str(draw(st.integers(0, 3)))} for _ in range(2)]

    def leaf(name: str, parent: str | None) -> tuple[dict[str, Any], tuple[int, dict[str, str]]]:
        count = draw(st.integers(1, 4))
        minimum = draw(st.integers(1, count)) if draw(st.integers(0, 4)) else None
        key = KEYS.get(draw(st.sampled_from(["rack", "zone", "none"])))
        claims = [{"name": "nic", "resourceClaimTemplateName": "nic"}] if pools and draw(st.booleans()) else None
        group = pod_group(name, minimum, key=key, parent=parent, claims=claims, priority=priority)
        return group, (count, draw(st.sampled_from(shapes)))

    cl = cluster(*nodes, devicePools=pools, running=work)
    claims = {"nic": {"deviceClass": "nic", "count": draw(st.integers(1, 2))}}
    if draw(st.booleans()):
        group, pods = leaf("solo", None)
        return cl, request([group], {"solo": pods}, claims)
    children = draw(st.integers(1, 3))
    key = draw(st.sampled_from([None, ZONE]))
    need = draw(st.integers(1, children)) if draw(st.integers(0, 4)) else None
    groups = [composite("root", need, key=key, priority=priority)]
    pod_map = {}
    for c in range(children):
        group, pods = leaf(f"c{c}", "root")
        groups.append(group)
        pod_map[f"c{c}"] = pods
    return cl, request(groups, pod_map, claims)


# -- the brute force -------------------------------------------------------------------


def brute_force(req: PlacementRequest, cl: Cluster) -> bool:
    """Whether the single root of ``req`` has any placement at all."""
    (root,) = req.roots
    return any(_packs(cl, demands) for demands in _choices(root, cl, {}))


def _need(group: GroupRequest) -> int:
    return group.minimum if group.gang else 1


def _choices(group: GroupRequest, cl: Cluster, fixed: dict[str, str]) -> Any:
    """Every (leaf, allowed nodes, pods) list satisfying ``group``'s gang, for every domain choice."""
    values = (
        sorted({labels[group.topology_key] for labels in cl.labels if group.topology_key in labels})
        if group.topology_key
        else [None]
    )
    for value in values:
        here = dict(fixed)
        if value is not None:
            if group.topology_key in here and here[group.topology_key] != value:
                continue
            here[group.topology_key] = value
        nodes = [i for i, labels in enumerate(cl.labels) if all(labels.get(k) == v for k, v in here.items())]
        if group.is_leaf:
            if group.count >= _need(group):
                yield [(group, nodes, _need(group))]
            continue
        for size in range(_need(group), len(group.children) + 1):
            for subset in itertools.combinations(group.children, size):
                for parts in itertools.product(*[list(_choices(child, cl, here)) for child in subset]):
                    yield [demand for part in parts for demand in part]


def _packs(cl: Cluster, demands: list[tuple[GroupRequest, list[int], int]]) -> bool:
    """Whether the leaves fit together, trying every way to take each claim's devices."""
    claimed = [d for d in demands if d[0].claims]
    for takes in itertools.product(*[_device_takes(cl, d[0].claims[0].device.count) for d in claimed]):
        used: dict[str, int] = {}
        for take in takes:
            for pool, n in take:
                used[pool] = used.get(pool, 0) + n
        if any(n > cl.pool(pool).count - cl.pool(pool).allocated for pool, n in used.items()):
            continue
        reach = {d[0].name: take for d, take in zip(claimed, takes, strict=True)}
        allowed = [
            [i for i in nodes if all(cl.reaches(cl.pool(pool), i) for pool, _ in reach.get(group.name, ()))]
            for group, nodes, _ in demands
        ]
        if _fill(cl, tuple(demands), tuple(map(tuple, allowed))):
            return True
    return False


def _device_takes(cl: Cluster, count: int) -> list[tuple[tuple[str, int], ...]]:
    pools = [pool for pool in cl.pools if pool.device_class == "nic"]
    return [
        tuple((pool.name, n) for pool, n in zip(pools, amounts, strict=True) if n)
        for amounts in itertools.product(*[range(pool.count - pool.allocated + 1) for pool in pools])
        if sum(amounts) == count
    ]


def _fill(cl: Cluster, demands: tuple[Any, ...], allowed: tuple[tuple[int, ...], ...]) -> bool:
    """Every count of pods per node, node by node (remembering dead ends)."""
    vectors = [{**group.requests, "pods": group.requests.get("pods", 0) + 1000} for group, _, _ in demands]

    @functools.cache
    def search(position: int, remaining: tuple[int, ...]) -> bool:
        if not any(remaining):
            return True
        if position == len(cl):
            return False
        free = dict(zip(cl.resources, cl.free(position), strict=True))
        ranges = [range(r + 1) if position in allowed[d] else range(1) for d, r in enumerate(remaining)]
        for counts in itertools.product(*ranges):
            load: dict[str, int] = {}
            for vector, n in zip(vectors, counts, strict=True):
                for resource, amount in vector.items():
                    load[resource] = load.get(resource, 0) + n * amount
            fits = all(amount <= free.get(resource, 0) for resource, amount in load.items() if amount)
            if fits and search(position + 1, tuple(r - n for r, n in zip(remaining, counts, strict=True))):
                return True
        return False

    return search(0, tuple(need for _, _, need in demands))


# -- the properties --------------------------------------------------------------------


@SETTINGS
@given(instances())
def test_every_answer_verifies_and_complete_is_complete(instance: tuple[Cluster, PlacementRequest]) -> None:
    cl, req = instance
    greedy = place(req, cl)
    found = place(req, cl, strategy="complete")
    assert [str(p) for p in verify(req, cl, greedy)] == []
    assert [str(p) for p in verify(req, cl, found)] == []
    exists = brute_force(req, cl)
    assert not found.explanation["roots"][0]["search"] or not found.explanation["roots"][0]["search"]["timedOut"]
    assert found.feasible == exists
    assert not greedy.feasible or found.feasible


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(instances())
def test_answers_are_deterministic(instance: tuple[Cluster, PlacementRequest]) -> None:
    cl, req = instance
    for strategy in ("kube-scheduler", "complete"):
        assert place(req, cl, strategy=strategy).to_json() == place(req, cl, strategy=strategy).to_json()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(instances(running=True))
def test_preemption_answers_verify(instance: tuple[Cluster, PlacementRequest]) -> None:
    cl, req = instance
    for strategy in ("kube-scheduler", "complete"):
        answer = place(req, cl, strategy=strategy, preempt=True)
        assert [str(p) for p in verify(req, cl, answer)] == []
