"""The engine (``placement.engine``): ``place``'s arguments, ``cycles`` and ``Session`` called directly.

``test_engine_properties.py`` checks ``place``'s answers on random instances against a brute force; here
are the engine's own contracts: its argument errors, the queue order of cycles, that ``cycles`` lands where
``place`` does, and a session's snapshot across cycles.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from placement_helpers import RACK, cluster, node, pod_group, request, where

from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.placement.engine import STRATEGIES, Cycle, Session, cycles, place
from workloadbuilder.placement.framework.outcome import Outcome
from workloadbuilder.placement.framework.queue import resolve_request
from workloadbuilder.placement.request.model import PlacementRequest

GPU = {"nvidia.com/gpu": "1"}
TWO_RACKS = cluster(node("n1", 8, rack="r1"), node("n2", 8, rack="r2"))


def gangs(*sizes: tuple[str, int], priority: dict[str, int] | None = None) -> PlacementRequest:
    groups = [pod_group(name, n, key=RACK, priority=(priority or {}).get(name)) for name, n in sizes]
    return request(groups, {name: (n, GPU) for name, n in sizes})


def nodes_of(cycle: Cycle) -> dict[str, list[int]]:
    return {name: list(result.nodes) for name, result in cycle.outcome.results.items()}


def test_the_strategies() -> None:
    assert STRATEGIES == ("kube-scheduler", "complete")


ARGUMENT_ERRORS = {
    "request": ({"request": {}}, TypeError, "place(): request must be a PlacementRequest, not dict"),
    "cluster": ({"cluster": []}, TypeError, "place(): cluster must be a Cluster, not list"),
    "strategy-type": ({"strategy": 1}, TypeError, "place(): strategy must be a str, not int"),
    "preempt": ({"preempt": 1}, TypeError, "place(): preempt must be a bool, not int"),
    "timeout-bool": ({"timeout": True}, TypeError, "place(): timeout must be a number of seconds, not bool"),
    "timeout-str": ({"timeout": "1"}, TypeError, "place(): timeout must be a number of seconds, not str"),
    "unknown-strategy": (
        {"strategy": "best"},
        InvalidArgumentError,
        "unknown strategy 'best': use one of kube-scheduler, complete",
    ),
    "zero-timeout": (
        {"timeout": 0},
        InvalidArgumentError,
        "timeout must be a positive number of seconds up to 86400, got 0",
    ),
    "nan-timeout": (
        {"timeout": math.nan},
        InvalidArgumentError,
        "timeout must be a positive number of seconds up to 86400, got NaN",
    ),
    "past-max-timeout": (
        {"timeout": 86_401},
        InvalidArgumentError,
        "timeout must be a positive number of seconds up to 86400, got 86401",
    ),
}


@pytest.mark.parametrize(("change", "error", "message"), ARGUMENT_ERRORS.values(), ids=ARGUMENT_ERRORS.keys())
@pytest.mark.parametrize("function", [place, cycles], ids=["place", "cycles"])
def test_argument_errors_come_before_any_work(
    function: Any, change: dict[str, Any], error: type[Exception], message: str
) -> None:
    arguments: dict[str, Any] = {"request": gangs(("a", 2)), "cluster": TWO_RACKS, **change}
    with pytest.raises(error) as caught:
        function(**arguments)
    assert str(caught.value) == message


def test_score_all_nodes_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match=r"^place\(\): score_all_nodes must be a bool, not int$"):
        place(gangs(("a", 2)), TWO_RACKS, score_all_nodes=1)  # type: ignore[arg-type]


def test_a_session_refuses_an_unknown_strategy() -> None:
    with pytest.raises(InvalidArgumentError, match=r"^unknown strategy 'x': use one of kube-scheduler, complete$"):
        Session(TWO_RACKS, "x")


def test_cycles_run_in_queue_order_each_seeing_the_earlier_ones() -> None:
    req = gangs(("a", 6), ("b", 6), ("c", 6), priority={"c": 100})
    ran = cycles(req, TWO_RACKS)
    assert [(c.root.name, c.placed, nodes_of(c)) for c in ran] == [
        ("c", True, {"c": [0] * 6}),
        ("a", True, {"a": [1] * 6}),
        ("b", False, {}),
    ]
    assert [(c.victims, c.timed_out) for c in ran] == [(None, False)] * 3


def test_stop_ends_the_run_after_the_cycle_it_is_called_with() -> None:
    seen: list[tuple[int, str]] = []

    def stop(position: int, cycle: Cycle) -> bool:
        seen.append((position, cycle.root.name))
        return position == 1

    ran = cycles(gangs(("a", 2), ("b", 2), ("c", 2)), TWO_RACKS, stop=stop)
    assert [c.root.name for c in ran] == ["a", "b"]
    assert seen == [(0, "a"), (1, "b")]


def test_place_lists_roots_in_request_order_and_leaves_the_cluster_as_it_was() -> None:
    before = TWO_RACKS.free(0), TWO_RACKS.free(1)
    answer = place(gangs(("a", 6), ("b", 6), ("c", 6), priority={"c": 100}), TWO_RACKS)
    assert [g.name for g in answer.groups] == ["a", "b", "c"]
    assert where(answer) == {"c": ({"rack": "r1"}, ["n1"] * 6), "a": ({"rack": "r2"}, ["n2"] * 6)}
    assert (TWO_RACKS.free(0), TWO_RACKS.free(1)) == before


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 9), st.integers(0, 2)), min_size=1, max_size=4))
def test_cycles_land_where_place_does(roots: list[tuple[int, int]]) -> None:
    sizes = [(f"g{i}", n) for i, (n, _) in enumerate(roots)]
    priority = {f"g{i}": p for i, (_, p) in enumerate(roots)}
    names = {0: "n1", 1: "n2"}
    by_cycles = {
        name: [names[i] for i in result.nodes]
        for cycle in cycles(gangs(*sizes, priority=priority), TWO_RACKS)
        for name, result in cycle.outcome.results.items()
        if result.nodes
    }
    by_place = {name: pods for name, (_, pods) in where(place(gangs(*sizes, priority=priority), TWO_RACKS)).items()}
    assert by_cycles == by_place


def resolved(req: PlacementRequest) -> PlacementRequest:
    resolve_request(req, TWO_RACKS.priority_classes)
    return req


def test_a_session_keeps_placed_roots_assumed_until_reverted() -> None:
    session = Session(TWO_RACKS)
    (root,) = resolved(gangs(("a", 6))).roots
    mark = session.mark()
    assert nodes_of(session.cycle(root)) == {"a": [0] * 6}
    assert nodes_of(session.cycle(root)) == {"a": [1] * 6}
    third = session.cycle(root)
    assert (third.placed, nodes_of(third)) == (False, {})
    session.revert(mark)
    assert nodes_of(session.cycle(root)) == {"a": [0] * 6}


def test_take_adds_or_removes_running_usage_between_cycles() -> None:
    session = Session(TWO_RACKS)
    (root,) = resolved(gangs(("a", 6))).roots
    gpu = TWO_RACKS.resources.index("nvidia.com/gpu")
    taken = [0] * len(TWO_RACKS.resources)
    taken[gpu] = 3000  # three GPUs, in millis
    session.take({0: taken})
    assert nodes_of(session.cycle(root)) == {"a": [1] * 6}
    session.take({0: taken}, sign=-1)
    assert nodes_of(session.cycle(root)) == {"a": [0] * 6}
    session.take({})  # nothing to take: no block


def test_a_root_short_of_its_quorum_is_not_tried() -> None:
    req = resolved(request([pod_group("a", 6, key=RACK)], {"a": (4, GPU)}))
    cycle = Session(TWO_RACKS).cycle(req.roots[0])
    assert cycle == Cycle(req.roots[0], Outcome(False))
    assert cycle.placed is False


def test_a_cycle_placed_means_success_with_some_pod_placed() -> None:
    (root,) = gangs(("a", 1)).roots
    assert Cycle(root, Outcome(True)).placed is False
    assert Cycle(root, Outcome(False)).placed is False
