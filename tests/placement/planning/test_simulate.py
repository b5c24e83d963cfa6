"""simulate(): a queue of gangs over time, in kube-scheduler's queue order, with preemption and re-queue,
on clusters small enough to follow every event by hand."""

from __future__ import annotations

import pytest
from placement_helpers import cluster, node, pod_group, request

from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.placement.k8s.priorities import PriorityClass
from workloadbuilder.placement.planning.simulate import QueueEntry, simulate


def _two_nodes():
    return cluster(node("a1", 8, cpu="8"), node("a2", 8, cpu="8"))


def _gang(n: int, gpus: int, name: str = "w"):
    return request([pod_group(name, n)], {name: (n, {"nvidia.com/gpu": str(gpus), "cpu": "1"})})


def _runs(simulation):
    return [
        (run["name"], run["arrival"], run["start"], run["end"], run["wait"], run["preempted"])
        for run in simulation.to_dict()["workloads"]
    ]


CASES = [
    pytest.param(
        # big takes all 16 GPUs at 0; urgent (priority 1000) preempts it at 20 and runs to 30; at 30 big
        # (arrived before the smalls) starts again and runs 100 s; the three 4-GPU smalls start together at 130.
        [
            QueueEntry("big", _gang(2, 8), 0, 100),
            QueueEntry("small", _gang(1, 4), 10, 50, count=3),
            QueueEntry("urgent", _gang(2, 8), 20, 10, priority=1000),
        ],
        [
            ("big", 0, 30, 130, 30, 1),
            ("small-1", 10, 130, 180, 120, 0),
            ("small-2", 10, 130, 180, 120, 0),
            ("small-3", 10, 130, 180, 120, 0),
            ("urgent", 20, 20, 30, 0, 0),
        ],
        180,
        id="preemption-and-requeue",
    ),
    pytest.param(
        # half (8 GPUs) runs 0-100; wide needs all 16 and waits; late (4 GPUs) arrives at 5 and starts at
        # once beside half: no head-of-line blocking. wide starts when both are gone (100).
        [
            QueueEntry("half", _gang(1, 8), 0, 100),
            QueueEntry("wide", _gang(2, 8), 1, 10),
            QueueEntry("late", _gang(1, 4), 5, 20),
        ],
        [("half", 0, 0, 100, 0, 0), ("wide", 1, 100, 110, 99, 0), ("late", 5, 5, 25, 0, 0)],
        110,
        id="no-head-of-line-blocking",
    ),
    pytest.param(
        # A 9-GPU pod never fits: it never starts, and there is no makespan.
        [QueueEntry("ok", _gang(1, 8), 0, 10), QueueEntry("huge", _gang(1, 9), 0, 10)],
        [("ok", 0, 0, 10, 0, 0), ("huge", 0, None, None, None, 0)],
        None,
        id="never-placed",
    ),
    pytest.param(
        # Equal priority, same arrival, one slot each time: the copies run one after another.
        [QueueEntry("job", _gang(2, 8), 0, 30, count=2)],
        [("job-1", 0, 0, 30, 0, 0), ("job-2", 0, 30, 60, 30, 0)],
        60,
        id="copies-one-after-another",
    ),
]


@pytest.mark.parametrize(("workloads", "runs", "makespan"), CASES)
def test_simulate(workloads, runs, makespan):
    result = simulate(workloads, _two_nodes())
    assert _runs(result) == runs
    assert result.makespan == makespan


def test_utilization_over_time():
    result = simulate([QueueEntry("a", _gang(1, 8), 0, 10), QueueEntry("b", _gang(1, 4), 5, 10)], _two_nodes())
    assert result.to_dict()["utilization"] == {
        "cpu": [[0, 0.0625], [5, 0.125], [10, 0.0625], [15, 0.0]],
        "nvidia.com/gpu": [[0, 0.5], [5, 0.75], [10, 0.25], [15, 0.0]],
        "pods": [[0, 0.004545], [5, 0.009091], [10, 0.004545], [15, 0.0]],
    }


def test_text():
    result = simulate([QueueEntry("a", _gang(1, 8), 0, 10), QueueEntry("x", _gang(1, 9), 0, 10)], _two_nodes())
    assert result.text.splitlines() == [
        "a: arrived 0s, started 0s, ended 10s (waited 0s)",
        "x: arrived 0s, never placed (never: a pod of 'w' requests 9 nvidia.com/gpu; the largest node has 8)",
        "makespan: never (some copies never ran)",
    ]


def test_ties_follow_the_seed():
    # Two single-slot gangs arrive together with equal priority: which one goes first is the seed's choice,
    # the same for the same seed, and both orders occur.
    one_node = cluster(node("n", 8))
    queue = [QueueEntry("p", _gang(1, 8), 0, 10), QueueEntry("q", _gang(1, 8), 0, 10)]
    firsts = set()
    for seed in range(12):
        result = simulate(queue, one_node, seed=seed)
        assert _runs(result) == _runs(simulate(queue, one_node, seed=seed))
        firsts.add(next(run.name for run in result.workloads if run.start == 0))
    assert firsts == {"p", "q"}


def test_priority_classes_by_name():
    # "batch" (100) outranks the default 0: it preempts "base"; an unknown class is refused naming the entry.
    queue = [
        QueueEntry("base", _gang(2, 8), 0, 100),
        QueueEntry("batch", _gang(2, 8), 10, 10, priority_class_name="batch"),
    ]
    result = simulate(queue, _two_nodes(), priority_classes=[PriorityClass("batch", 100)])
    assert _runs(result) == [("base", 0, 20, 120, 20, 1), ("batch", 10, 10, 20, 0, 0)]
    with pytest.raises(InvalidArgumentError, match=r"workloads\[1\] \(batch\): .* no PriorityClass with name batch"):
        simulate(queue, _two_nodes())


@pytest.mark.parametrize(
    "workload",
    [
        QueueEntry("w", _gang(1, 1), -1, 10),
        QueueEntry("w", _gang(1, 1), 0, -5),
        QueueEntry("w", _gang(1, 1), 0, 1, count=0),
    ],
    ids=["negative-arrival", "negative-duration", "count-zero"],
)
def test_bad_entries(workload):
    with pytest.raises(InvalidArgumentError, match=r"workloads\[0\] \(w\)"):
        simulate([workload], _two_nodes())
