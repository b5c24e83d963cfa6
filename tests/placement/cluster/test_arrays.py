"""The columnar (numpy) passes give exactly what the one-node-at-a-time rules give.

Each vectorized step of the engine (fits per domain, node scores, the
domain score, pod assignment) is compared with its scalar rule, or with a
straightforward reference, on random clusters that carry what real ones
do: over-committed nodes, nodes that offer no CPU or memory, cordons,
PreferNoSchedule taints, amounts too large for 64-bit integers, and
assumptions already made in the snapshot.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest
from columnar_cases import GI, amounts, assumed, clusters, reference_assign, shapes
from hypothesis import given
from hypothesis import strategies as st
from placement_helpers import COLUMNAR_SETTINGS

from workloadbuilder.placement import Cluster, DevicePool
from workloadbuilder.placement.cluster.arrays import exact, exact_sum, group_sums, plus
from workloadbuilder.placement.explain.fiterror import fit_error, node_reasons
from workloadbuilder.placement.framework.assign import assign_pods
from workloadbuilder.placement.framework.claims import covers, domain_supply, first_fit_all
from workloadbuilder.placement.framework.scoring import (
    _exact_free_share,
    _free_share,
    most_allocated,
    most_allocated_many,
    node_score,
    node_scores,
    score_inputs,
    scores_after,
)
from workloadbuilder.placement.framework.snapshot import Snapshot
from workloadbuilder.placement.k8s.constraints import NO_CONSTRAINTS, PodConstraints, Toleration
from workloadbuilder.placement.request.model import ClaimRef, DeviceRequest


@COLUMNAR_SETTINGS
@given(clusters(), shapes, st.lists(st.integers(0, 100), max_size=6))
def test_node_scores_equal_node_score(cluster: Cluster, requests: dict[str, int], picks: list[int]) -> None:
    snap = assumed(cluster, requests, picks)
    shape = snap.shape(requests)
    nodes = np.arange(len(cluster))
    assert node_scores(snap, shape, nodes).tolist() == [node_score(snap, i, shape) for i in range(len(cluster))]


@COLUMNAR_SETTINGS
@given(clusters(huge=True), shapes)
def test_node_scores_of_huge_amounts_equal_node_score(cluster: Cluster, requests: dict[str, int]) -> None:
    snap = Snapshot(cluster)
    shape = snap.shape(requests)
    nodes = np.arange(len(cluster))
    assert node_scores(snap, shape, nodes).tolist() == [node_score(snap, i, shape) for i in range(len(cluster))]


@COLUMNAR_SETTINGS
@given(clusters(), shapes, st.lists(st.integers(0, 100), max_size=6))
def test_node_scores_of_the_root_domain_equal_node_score(
    cluster: Cluster, requests: dict[str, int], picks: list[int]
) -> None:
    snap = assumed(cluster, requests, picks)
    shape = snap.shape(requests)
    nodes = cluster.root.node_array  # read in place, with no copy
    assert node_scores(snap, shape, nodes).tolist() == [node_score(snap, i, shape) for i in range(len(cluster))]


@st.composite
def share_cases(draw: st.DrawFn) -> tuple[int, int]:
    """An allocatable amount and a requested one, often exactly at or one off a whole percent of it."""
    alloc = draw(
        st.one_of(
            st.integers(1, 10**6),
            st.integers(1, 2**53 - 1),
            st.integers(1, 2**53 // 100).map(lambda k: 100 * k),  # whole percents are whole amounts
            st.sampled_from([64_000, 512 * GI]),
        )
    )
    percent = draw(st.integers(0, 101))
    near = percent * alloc // 100 + draw(st.integers(-1, 1))
    requested = draw(st.one_of(st.just(near), st.integers(0, 2 * alloc)))
    return alloc, max(0, min(requested, 2**53 - 1))


@COLUMNAR_SETTINGS
@given(st.lists(share_cases(), min_size=1, max_size=40))
def test_the_free_share_read_off_floats_is_the_integer_division(cases: list[tuple[int, int]]) -> None:
    alloc = np.array([a for a, _ in cases], dtype=np.int64)
    requested = np.array([r for _, r in cases], dtype=np.int64)
    expected = [max(a - r, 0) * 100 // a for a, r in cases]
    share = requested / alloc
    coarse = int(alloc.max()) <= 2**42  # the floor read off the estimate where amounts allow, else checked
    assert _free_share(lambda: (requested, alloc), share.copy(), coarse, clip=True).tolist() == expected
    assert _free_share(lambda: (requested, alloc), share.copy(), False, clip=True).tolist() == expected
    assert _exact_free_share(requested, alloc).tolist() == expected
    if (requested <= alloc).all():
        assert _free_share(lambda: (requested, alloc), share.copy(), coarse, clip=False).tolist() == expected


@pytest.mark.parametrize(
    ("alloc", "requested", "share"),
    [
        (64_000, 0, 100),  # an estimate of exactly 0: divided exactly
        (64_000, 640, 99),  # exactly 1 percent
        (64_000, 641, 98),
        (64_000, 64_000, 0),  # exactly full
        (64_000, 70_000, 0),  # over-committed
        (3, 1, 66),  # 33.33...: the float estimate alone is right
        (2**53 - 1, 2**53 - 2, 0),
        (20, 11, 45),  # 100 - 100 * fl(0.55) is 44.99999999999999: the margin keeps the floor at 45
        (64_000, 35_200, 45),
        (25, 14, 44),
        (100, 57, 43),  # 100 * fl(0.57) is 56.99999999999999
        (512 * GI, 55 * 512 * GI // 100, 45),
    ],
    ids=[
        "empty",
        "one-percent",
        "just-past-one-percent",
        "full",
        "over-committed",
        "thirds",
        "near-2**53",
        "fifty-five-percent",
        "fifty-five-percent-of-64-cpus",
        "fifty-six-percent",
        "fifty-seven-percent",
        "fifty-five-percent-of-512Gi",
    ],
)
def test_free_share_at_whole_percents(alloc: int, requested: int, share: int) -> None:
    a, r = np.array([alloc]), np.array([requested])
    assert _free_share(lambda: (r, a), r / a, alloc <= 2**42, clip=True).tolist() == [share]
    assert _free_share(lambda: (r, a), r / a, False, clip=True).tolist() == [share]


UNIT = 1024 * 1000  # one KiB in millis: what every amount of a real node's memory is a multiple of


@st.composite
def grained_clusters(draw: Any) -> Cluster:
    """Nodes whose memory (past 2**42 millis) is in whole KiB; a pod of 1Gi uses a whole percent or a KiB off."""
    nodes = []
    for i in range(draw(st.integers(1, 12))):
        alloc = draw(st.integers(2**42 // UNIT // 100, 2**52 // UNIT // 100)) * 100 * UNIT
        percent = draw(st.integers(0, 100))
        used = max(0, percent * alloc // 100 + draw(st.sampled_from([-UNIT, 0, UNIT])) - GI)
        cpu = draw(amounts)
        nodes.append(
            {
                "name": f"n{i:02d}",
                "allocatable": {"cpu": cpu, "memory": alloc, "pods": 8000},
                "used": {"cpu": draw(st.integers(0, cpu)), "memory": used},
            }
        )
    return Cluster.build(nodes)


@COLUMNAR_SETTINGS
@given(grained_clusters(), shapes, st.lists(st.integers(0, 100), max_size=6), st.integers(1, 30))
def test_scores_of_whole_kib_memory_equal_node_score(
    cluster: Cluster, requests: dict[str, int], picks: list[int], count: int
) -> None:
    snap = assumed(cluster, requests, picks)
    shape = snap.shape(requests)
    assert snap.grain(cluster.resource_index["memory"]) % UNIT == 0  # the float steps may rely on it
    expected = [node_score(snap, i, shape) for i in range(len(cluster))]
    assert node_scores(snap, shape, cluster.root.node_array).tolist() == expected
    slow = assumed(cluster, requests, picks)
    nodes = list(range(len(cluster)))
    assert assign_pods(snap, shape, nodes, count) == reference_assign(slow, requests, nodes, count)


def test_scores_of_picked_nodes_read_their_own_integers_near_whole_percents() -> None:
    """Fine-grained memory past 2**42 millis, a pod of 1% of it: the estimates sit on whole percents, in integers."""
    alloc = 100 * 2**43
    nodes = [
        {"name": f"n{i}", "allocatable": {"cpu": 64_000, "memory": alloc, "pods": 110_000}, "used": {"memory": used}}
        for i, used in enumerate([1, 0, 3 * alloc // 100, 0, 7 * alloc // 100])
    ]
    cluster = Cluster.build(nodes)
    snap = Snapshot(cluster)
    shape = snap.shape({"cpu": 250, "memory": alloc // 100})
    order = np.array([4, 1, 2])
    picked = score_inputs(snap, cluster.root.node_array).take(order)
    for landed in (0, 1, 2):
        scores = scores_after(shape, picked, landed)
        assert scores is not None
        expected = []
        for i in order.tolist():
            for _ in range(landed):
                snap.add(i, shape.vector)
            expected.append(node_score(snap, i, shape))
            for _ in range(landed):
                snap.add(i, shape.vector, -1)
        assert scores.tolist() == expected


def test_a_snapshot_grain_divides_every_change() -> None:
    cluster = Cluster.build([{"name": "a", "allocatable": {"cpu": 64_000, "memory": 8 * GI}, "used": {"cpu": 4000}}])
    snap = Snapshot(cluster)
    cpu, memory = cluster.resource_index["cpu"], cluster.resource_index["memory"]
    assert (snap.grain(cpu), snap.grain(memory)) == (4000, 8 * GI)
    mark = snap.mark()
    snap.add(0, snap.shape({"cpu": 250, "memory": 3 * GI}).vector)
    assert (snap.grain(cpu), snap.grain(memory)) == (250, GI)
    snap.revert(mark)  # a grain only ever shrinks: what it divides now, it divided before
    assert (snap.grain(cpu), snap.grain(memory)) == (250, GI)


@COLUMNAR_SETTINGS
@given(clusters(huge=True), shapes, st.lists(st.integers(0, 100), max_size=6), st.data())
def test_fits_at_some_nodes_equal_node_fits_now(
    cluster: Cluster, requests: dict[str, int], picks: list[int], data: st.DataObject
) -> None:
    snap = assumed(cluster, requests, picks)
    nodes = np.array(data.draw(st.lists(st.integers(0, len(cluster) - 1), max_size=12)), dtype=np.int64)
    fits = snap.fits_at(snap.shape(requests), nodes).tolist()  # before any pass over every node
    assert fits == snap.node_fits_now(snap.shape(requests), nodes).tolist()
    assert fits == [snap.node_fit(snap.shape(requests), i) for i in nodes.tolist()]


@COLUMNAR_SETTINGS
@given(clusters(huge=True), shapes, st.lists(st.integers(0, 100), max_size=6), st.sampled_from(["rack", "block"]))
def test_fits_in_a_domain_set_equal_node_fits_added_up(
    cluster: Cluster, requests: dict[str, int], picks: list[int], key: str
) -> None:
    snap = assumed(cluster, requests, picks)
    shape = snap.shape(requests)
    domains = list(cluster.domains(key).values())
    expected = [sum(snap.node_fit(shape, i) for i in domain.nodes) for domain in domains]
    assert snap.fits_in(shape, domains).tolist() == expected
    assert [snap.fit(shape, domain) for domain in domains] == expected
    # A subset, in another order, as a parent's subdomains are.
    subset = domains[::-2]
    assert snap.fits_in(shape, subset).tolist() == [expected[domains.index(d)] for d in subset]


@COLUMNAR_SETTINGS
@given(clusters(huge=True), shapes, st.lists(st.integers(0, 100), max_size=6), st.integers(0, 64))
def test_domain_scores_equal_most_allocated(
    cluster: Cluster, requests: dict[str, int], picks: list[int], pods: int
) -> None:
    snap = assumed(cluster, requests, picks)
    shape = snap.shape(requests)
    domains = list(cluster.domains("rack").values())
    used = snap.used_sums(domains)
    assert [tuple(int(column[k]) for column in used) for k in range(len(domains))] == [
        snap.used_sum(domain) for domain in domains
    ]
    requested = [plus(column, pods * q) for column, q in zip(used, shape.score_request, strict=True)]
    allocatable = [exact([domain.alloc_sum[s] for domain in domains]) for s in range(2)]
    expected = [
        most_allocated([u + pods * q for u, q in zip(snap.used_sum(d), shape.score_request, strict=True)], d.alloc_sum)
        for d in domains
    ]
    assert most_allocated_many(requested, allocatable).tolist() == expected


GROUP_SUMS = [
    ("small values, float weights", [1, 2, 3, 4], [0, 1, -1, 0], [5, 2]),
    ("above 2**53, int64", [2**54, 1, 2**54, 3], [0, 0, 1, 1], [2**54 + 1, 2**54 + 3]),
    ("above 2**63 in total, Python integers", [2**62, 2**62, 2**62], [0, 0, 1], [2**63, 2**62]),
    ("no members", [7, 8], [-1, -1], [0, 0]),
]


@pytest.mark.parametrize(("values", "codes", "expected"), [c[1:] for c in GROUP_SUMS], ids=[c[0] for c in GROUP_SUMS])
def test_group_sums_are_exact(values: list[int], codes: list[int], expected: list[int]) -> None:
    sums = group_sums(np.asarray(codes, dtype=np.int64), exact(values), len(expected))
    assert [int(v) for v in sums] == expected


@COLUMNAR_SETTINGS
@given(st.lists(st.integers(1, 4), min_size=1, max_size=12), st.integers(0, 2**31), st.data())
def test_group_sums_of_runs_add_up_as_by_code(sizes: list[int], bound: int, data: st.DataObject) -> None:
    """Codes that come group by group are summed run by run, to the same sums as by code."""
    codes = np.repeat(np.arange(len(sizes)), sizes)
    values = np.asarray(data.draw(st.lists(st.integers(0, bound), min_size=len(codes), max_size=len(codes))))
    runs = np.flatnonzero(np.diff(codes, prepend=-1))
    by_runs = group_sums(codes, values, len(sizes), bound, True, runs)
    assert by_runs.tolist() == group_sums(codes, values, len(sizes)).tolist()
    assert by_runs.tolist() == [int(values[codes == k].sum()) for k in range(len(sizes))]


def test_a_domain_set_in_node_order_has_runs() -> None:
    nodes = [
        {"name": f"n{i}", "labels": {"rack": rack}, "allocatable": {"cpu": 1000}} for i, rack in enumerate("aabbb")
    ]
    cluster = Cluster.build(nodes, [])
    assert cluster.domains("rack")["a"].family.runs.tolist() == [0, 2]
    shuffled = Cluster.build([nodes[0], nodes[2], nodes[1]], [])
    assert shuffled.domains("rack")["a"].family.runs is None


@COLUMNAR_SETTINGS
@given(
    clusters(huge=True),
    shapes,
    st.lists(st.integers(0, 100), max_size=6),
    st.lists(st.integers(0, 100), max_size=3),
    st.sampled_from(["rack", None]),
)
def test_free_sums_are_exact(
    cluster: Cluster, requests: dict[str, int], picks: list[int], freed: list[int], key: str | None
) -> None:
    snap = assumed(cluster, requests, picks)
    for i in freed:  # given back, as an eviction does
        snap.add(i % len(cluster), snap.shape(requests).vector, -1)
    domains = [cluster.root] if key is None else list(cluster.domains(key).values())
    for domain in domains:
        expected = tuple(sum(max(0, snap.free(i)[r]) for i in domain.nodes) for r in range(len(cluster.resources)))
        assert snap.free_sum(domain) == expected


def test_free_sum_of_fifty_thousand_large_nodes_does_not_wrap_around() -> None:
    """512 GiB of memory in millis on each of 50,000 nodes adds up past 2**63."""
    allocatable = {"cpu": 64_000, "memory": 512 * GI, "pods": 110_000}
    nodes = [{"name": f"n{i}", "allocatable": allocatable} for i in range(50_000)]
    cluster = Cluster.build(nodes)
    memory = cluster.resource_index["memory"]
    assert Snapshot(cluster).free_sum(cluster.root)[memory] == 50_000 * 512 * GI


@st.composite
def pooled(draw: Any) -> tuple[Cluster, list[ClaimRef], dict[str, int]]:
    """A racked cluster with everyone's and racks' pools of two classes, claims on them and devices already taken."""
    count = draw(st.integers(1, 12))
    nodes = [
        {"name": f"n{i}", "labels": {"rack": f"r{draw(st.integers(0, 3))}"}, "allocatable": {"cpu": 1000}}
        for i in range(count)
    ]
    pools = []
    for p in range(draw(st.integers(0, 6))):
        device_class = draw(st.sampled_from(["nic", "fabric"]))
        rack = draw(st.sampled_from([None, "r0", "r1", "r2", "r3"]))
        domain = None if rack is None else ("rack", rack)
        size = draw(st.integers(1, 3))
        pools.append(DevicePool(f"p{p}", device_class, size, draw(st.integers(0, 1)), domain=domain))
    claims = []
    for c in range(draw(st.integers(1, 3))):
        device = DeviceRequest(draw(st.sampled_from(["nic", "fabric"])), draw(st.integers(1, 3)))
        claims.append(ClaimRef(f"c{c}", (f"c{c}",), "template", device))
    taken = {pool.name: draw(st.integers(0, 1)) for pool in pools}
    return Cluster.build(nodes, pools), claims, taken


@COLUMNAR_SETTINGS
@given(pooled())
def test_domain_supply_is_first_fit_at_every_node(instance: tuple[Cluster, list[ClaimRef], dict[str, int]]) -> None:
    cluster, claims, taken = instance
    snap = Snapshot(cluster)
    for pool, n in taken.items():
        snap.take_devices(pool, n)
    domains = list(cluster.domains("rack").values())
    supply = domain_supply(snap, claims, domains)
    assert supply is not None
    for domain, supplied in zip(domains, supply, strict=True):
        assert [first_fit_all(snap, claims, i) is not None for i in domain.nodes] == [supplied] * len(domain.nodes)
    # ... and the pools reach all of the domain: everyone's, and the domain's own
    for domain in domains:
        own = [pool.name for pool in cluster.pools if pool.domain in (None, ("rack", domain.value))]
        assert covers(cluster, own, domain)


def test_domain_supply_declines_node_pools_and_other_keys() -> None:
    nodes = [{"name": "n0", "labels": {"rack": "r0", "block": "b0"}, "allocatable": {"cpu": 1000}}]
    claim = ClaimRef("c", ("c",), "template", DeviceRequest("nic", 1))
    for pool in (DevicePool("local", "nic", 2, node="n0"), DevicePool("block", "nic", 2, domain=("block", "b0"))):
        cluster = Cluster.build(nodes, [pool])
        assert domain_supply(Snapshot(cluster), [claim], list(cluster.domains("rack").values())) is None


EXACT_SUMS = [
    ("past 2**63", [2**62] * 8),
    ("negative and large", [-5, 3, -(2**62)]),
    ("cancelling", [2**62, -(2**62) + 1]),
    ("small", [1, 2, 3]),
    ("empty", []),
]


@pytest.mark.parametrize("values", [c[1] for c in EXACT_SUMS], ids=[c[0] for c in EXACT_SUMS])
def test_exact_sum_is_python_sum(values: list[int]) -> None:
    assert exact_sum(np.asarray(values, dtype=np.int64)) == sum(values)


def reference_fit_error(snap: Snapshot, requests: dict[str, int], constraints: PodConstraints) -> str | None:
    """kube-scheduler's FitError line, node by node: the first node with no reason ends it."""
    shape = snap.shape(requests, constraints)
    counts: Counter[str] = Counter()
    for i in range(len(snap.cluster)):
        reasons = node_reasons(snap, shape, i)
        if not reasons:
            return None
        counts.update(reasons)
    histogram = ", ".join(sorted(f"{count} {reason}" for reason, count in counts.items()))
    return f"0/{len(snap.cluster)} nodes are available: {histogram}."


TOLERATING = PodConstraints(tolerations=(Toleration(key="spot", operator="Exists"),))


@COLUMNAR_SETTINGS
@given(
    clusters(huge=True),
    st.fixed_dictionaries(
        {
            "cpu": st.sampled_from([0, 1000, 64_000, 70_000]),
            "memory": st.sampled_from([0, GI, 600 * GI]),
            "nvidia.com/gpu": st.sampled_from([0, 1000]),
        }
    ),
    st.lists(st.integers(0, 100), max_size=6),
    st.sampled_from([NO_CONSTRAINTS, TOLERATING]),
)
def test_fit_error_equals_node_by_node(
    cluster: Cluster, requests: dict[str, int], picks: list[int], constraints: PodConstraints
) -> None:
    snap = assumed(cluster, {"cpu": 100, "memory": GI // 4}, picks)
    assert fit_error(snap, snap.shape(requests, constraints)) == reference_fit_error(snap, requests, constraints)
