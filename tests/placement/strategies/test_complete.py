"""The complete strategy finds a placement whenever one exists, and says why kube-scheduler's greedy order misses it."""

from __future__ import annotations

import sys
from unittest import mock

import pytest
from placement_helpers import BLOCK, RACK, checked, cluster, composite, node, pod_group, request, where

from workloadbuilder.errors import InvalidArgumentError, MissingDependencyError
from workloadbuilder.placement import Cluster, PlacementRequest, place
from workloadbuilder.placement.strategies import complete

GPU = {"nvidia.com/gpu": "1"}


def _one_block() -> tuple[Cluster, PlacementRequest]:
    """Resource stealing: workers-0 (5 pods needed, 7 wanted) greedily takes the 7-GPU rack workers-1 needs."""
    cl = cluster(node("a1", 5, block="A", rack="rack-A1"), node("a2", 7, block="A", rack="rack-A2"))
    req = request(
        [
            composite("root", 2, key=BLOCK),
            pod_group("workers-0", 5, key=RACK, parent="root"),
            pod_group("workers-1", 7, key=RACK, parent="root"),
        ],
        {"workers-0": (7, GPU), "workers-1": (7, GPU)},
    )
    return cl, req


def test_a_placement_kube_scheduler_misses() -> None:
    cl, req = _one_block()
    greedy = checked(req, cl, place(req, cl, strategy="kube-scheduler"))
    found = checked(req, cl, place(req, cl, strategy="complete"))
    assert (greedy.feasible, found.feasible) == (False, True)
    assert where(found) == {
        "root": ({"block": "A"}, []),
        "workers-0": ({"block": "A", "rack": "rack-A1"}, ["a1"] * 5),
        "workers-1": ({"block": "A", "rack": "rack-A2"}, ["a2"] * 7),
    }
    (root,) = found.explanation["roots"]
    assert root["greedyGap"] == (
        "a placement exists but kube-scheduler's greedy order will not find it, "
        "because `workers-0` takes rack `rack-A2` first"
    )
    assert root["search"] == {"greedy": False, "timeout": 5.0, "timedOut": False}


def test_complete_keeps_kube_schedulers_answer_when_it_has_one(
    kep_cluster: Cluster, kep_request: PlacementRequest
) -> None:
    greedy = place(kep_request, kep_cluster)
    found = checked(kep_request, kep_cluster, place(kep_request, kep_cluster, strategy="complete"))
    assert where(found) == where(greedy)
    assert found.explanation["roots"][0]["search"]["greedy"] is True


def test_it_picks_which_children_make_the_gang() -> None:
    cl = cluster(node("n1", 6))
    req = request(
        [
            composite("root", 2),
            pod_group("a", 4, parent="root"),
            pod_group("b", 3, parent="root"),
            pod_group("c", 3, parent="root"),
        ],
        {"a": (4, GPU), "b": (3, GPU), "c": (3, GPU)},
    )
    assert not place(req, cl).feasible
    found = checked(req, cl, place(req, cl, strategy="complete"))
    assert where(found) == {"b": ({}, ["n1"] * 3), "c": ({}, ["n1"] * 3)}
    assert found.explanation["roots"][0]["greedyGap"] == (
        "a placement exists but kube-scheduler's greedy order will not find it, "
        "because `a` is placed first and leaves `b` no room (the gang fits without `a`)"
    )


def test_identical_siblings_are_counted_not_permuted() -> None:
    racks = [node(f"n{i}", 4, block="A", rack=f"r{i}") for i in range(5)]
    cl = cluster(*racks)
    leaves = [pod_group(f"w{i}", 4, key=RACK, parent="root") for i in range(6)]
    req = request([composite("root", 6, key=BLOCK), *leaves], {f"w{i}": (4, GPU) for i in range(6)})
    answer = checked(req, cl, place(req, cl, strategy="complete"))
    assert not answer.feasible
    # six identical gangs, five racks that each hold one: proved impossible
    assert answer.explanation["roots"][0]["search"] == {"greedy": False, "timeout": 5.0, "timedOut": False}
    assert "- no placement exists (proved by the complete search)" in answer.text


def test_a_search_cut_short_by_its_time_bound_says_so() -> None:
    cl, req = _one_block()
    # the bound has passed before kube-scheduler's cycle ends, so the exact search never starts
    answer = checked(req, cl, place(req, cl, strategy="complete", timeout=1e-9))
    assert not answer.feasible
    assert answer.explanation["roots"][0]["search"] == {"greedy": False, "timeout": 1e-9, "timedOut": True}
    assert "the complete search reached its time bound (1e-09 s): no placement found, none ruled out" in answer.text
    assert "no placement exists" not in answer.text


def test_pods_beyond_the_minimum_come_after_every_gang_is_placed() -> None:
    cl = cluster(node("n1", 12))
    req = request(
        [composite("root", 2), pod_group("a", 4, parent="root"), pod_group("b", 4, parent="root")],
        {"a": (10, GPU), "b": (4, GPU)},
    )
    # greedily, `a` takes 10 GPUs and `b` no longer fits
    assert not place(req, cl).feasible
    found = checked(req, cl, place(req, cl, strategy="complete"))
    # the minimum of a and b first (8 GPUs), then a's extra pods in what is left
    assert {g.name: len(g.pods) for g in found.groups} == {"root": 0, "a": 8, "b": 4}


def test_without_or_tools_complete_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, kep_cluster: Cluster, kep_request: PlacementRequest
) -> None:
    monkeypatch.setitem(sys.modules, "ortools.sat.python", None)  # import fails, as without the extra
    # kube-scheduler's answer needs no solver
    assert place(kep_request, kep_cluster, strategy="complete").feasible
    cl, req = _one_block()
    with pytest.raises(MissingDependencyError) as raised:
        place(req, cl, strategy="complete")
    assert str(raised.value) == (
        "the complete strategy's exact search needs OR-tools: pip install 'workloadbuilder[solver]'"
    )


def test_a_timeout_must_be_positive() -> None:
    cl, req = _one_block()
    with pytest.raises(InvalidArgumentError) as raised:
        place(req, cl, strategy="complete", timeout=0)
    assert str(raised.value) == "timeout must be a positive number of seconds up to 86400, got 0"


ROOM_FOR_MINIMUMS = [
    # a rack of 8 GPUs, three one-GPU PodGroups of minCount 3 under a rack composite needing `need` of them
    ("three minimums need 9 of 8 GPUs: no search", 3, False, 0),
    ("two minimums need 6 of 8 GPUs", 2, True, None),
]


@pytest.mark.parametrize(
    ("need", "feasible", "searches"),
    [c[1:] for c in ROOM_FOR_MINIMUMS],
    ids=[c[0] for c in ROOM_FOR_MINIMUMS],
)
def test_siblings_of_one_shape_must_fit_their_minimums_together(
    need: int, feasible: bool, searches: int | None
) -> None:
    """Each child fits the rack alone; the exact search is skipped only when their minimums cannot fit together."""
    cl = cluster(node("n1", 4, rack="r1"), node("n2", 4, rack="r1"), node("n3", 1, rack="r2"))
    groups = [composite("c", need, key=RACK)] + [pod_group(f"g{k}", 3, parent="c") for k in range(3)]
    req = request(groups, {f"g{k}": (3, GPU) for k in range(3)})
    with mock.patch.object(complete, "solve", wraps=complete.solve) as search:
        answer = checked(req, cl, place(req, cl, strategy="complete"))
    assert answer.feasible is feasible
    if searches is not None:
        assert search.call_count == searches
