"""capacity(): copies that fit one after another, per domain, stranded capacity and nodes to add, on clusters
small enough to check every figure by hand."""

from __future__ import annotations

import pytest
from placement_helpers import RACK, cluster, node, pod_group, request

from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.placement.planning.capacity import Capacity, NodesToAdd, capacity, count_copies


def _two_racks():
    # rack-a: two 8-GPU nodes; rack-b: one 4-GPU node.
    return cluster(
        node("a1", 8, cpu="8", rack="rack-a"),
        node("a2", 8, cpu="8", rack="rack-a"),
        node("b1", 4, cpu="8", rack="rack-b"),
    )


def _gang(n: int, gpus: int, key: str | None = RACK, cpu: str = "1"):
    return request([pod_group("w", n, key=key)], {"w": (n, {"nvidia.com/gpu": str(gpus), "cpu": cpu})})


CASES = [
    pytest.param(
        # rack-a holds 16 GPUs: two copies of 2x4; rack-b's 4 GPUs cannot hold a copy; adding 4-GPU nodes to
        # rack-b: 3 more copies need 24 GPUs there, it has 4, so 5 nodes.
        _two_racks,
        lambda: _gang(2, 4),
        {"add_nodes_like": "b1", "target": 5},
        Capacity(
            copies=2,
            per_domain={RACK: {"rack-a": 2, "rack-b": 0}},
            stranded={"cpu": "20", "nvidia.com/gpu": "4", "pods": "326"},
            to_add=NodesToAdd("b1", 5, 5),
        ),
        id="rack-gang-with-nodes-to-add",
    ),
    pytest.param(
        # No topology: 20 GPUs in all, 6 per copy (3x2): three copies, 2 GPUs stranded on b1 (4 - 2).
        _two_racks,
        lambda: _gang(3, 2, key=None),
        {},
        Capacity(copies=3, per_domain={}, stranded={"cpu": "15", "nvidia.com/gpu": "2", "pods": "321"}),
        id="keyless-gang-strands-a-remainder",
    ),
    pytest.param(
        # A 9-GPU pod fits no 8-GPU node: nothing fits, and no number of such nodes changes that.
        _two_racks,
        lambda: _gang(1, 9),
        {"add_nodes_like": "a1"},
        Capacity(
            copies=0,
            per_domain={RACK: {"rack-a": 0, "rack-b": 0}},
            stranded={"cpu": "24", "nvidia.com/gpu": "20", "pods": "330"},
            to_add=NodesToAdd("a1", None, 1),
        ),
        id="never-fits",
    ),
    pytest.param(
        # Default target: one more than fit now (2 + 1); one more 8-GPU node in rack-a holds the third copy.
        _two_racks,
        lambda: _gang(2, 4),
        {"add_nodes_like": "a2"},
        Capacity(
            copies=2,
            per_domain={RACK: {"rack-a": 2, "rack-b": 0}},
            stranded={"cpu": "20", "nvidia.com/gpu": "4", "pods": "326"},
            to_add=NodesToAdd("a2", 1, 3),
        ),
        id="default-target-one-more",
    ),
    pytest.param(
        # A cordoned node neither holds copies nor counts as stranded; used capacity is not free.
        lambda: cluster(
            {**node("c1", 8, cpu="8"), "unschedulable": True},
            node("c2", 8, cpu="8", used={"nvidia.com/gpu": "6"}),
            node("c3", 8, cpu="8"),
        ),
        lambda: _gang(1, 4, key=None),
        {},
        Capacity(
            copies=2,
            per_domain={},
            stranded={"cpu": "14", "nvidia.com/gpu": "2", "pods": "218"},
            unusable={
                "nodes": 1,
                "reasons": {"cordoned": 1},
                "free": {"cpu": "8", "nvidia.com/gpu": "8", "pods": "110"},
            },
        ),
        id="cordoned-and-used-nodes",
    ),
]


@pytest.mark.parametrize(("make_cluster", "make_request", "options", "expected"), CASES)
def test_capacity(make_cluster, make_request, options, expected):
    assert capacity(make_request(), make_cluster(), **options) == expected


def test_capacity_json_shape():
    answer = capacity(_gang(2, 4), _two_racks(), add_nodes_like="b1", target=5)
    assert answer.to_dict() == {
        "copies": 2,
        "undecided": False,
        "perDomain": {RACK: {"rack-a": 2, "rack-b": 0}},
        "stranded": {"cpu": "20", "nvidia.com/gpu": "4", "pods": "326"},
        "unusable": {"nodes": 0, "reasons": {}, "free": {}},
        "toAdd": {"like": "b1", "count": 5, "target": 5, "undecided": False},
    }
    assert answer.text.splitlines() == [
        "copies that fit: 2",
        f"per {RACK} (each alone):",
        "  rack-a  2",
        "  rack-b  0",
        "stranded after those copies:",
        "  cpu             20",
        "  nvidia.com/gpu  4",
        "  pods            326",
        "to fit 5 copies: add 5 nodes like b1",
    ]


def test_capacity_text_says_quantities_as_place_does_and_counts_in_words():
    """Issue 37 item 7: the text's amounts in place's human form, the JSON's exact; singular and plural counts."""
    answer = Capacity(
        copies=17,
        per_domain={RACK: {f"rack-{i:02}": 1 if i else 0 for i in range(17)}},
        stranded={"cpu": "696500m", "memory": "417759Gi", "pods": "326"},
        to_add=NodesToAdd("b1", 1, 18),
        unusable={
            "nodes": 3,
            "reasons": {"untolerated taint dedicated=infra:NoSchedule": 2, "cordoned": 1},
            "free": {"memory": "8086772000Ki"},
        },
    )
    assert answer.text.splitlines() == [
        "copies that fit: 17",
        f"per {RACK} (each alone):",
        "  16 domains hold 1",
        "  1 domain holds 0",
        "stranded after those copies:",
        "  cpu     696.5",
        "  memory  408Ti",
        "  pods    326",
        "not usable by its pods (not in stranded): 3 nodes "
        "(2 untolerated taints dedicated=infra:NoSchedule, 1 cordoned)",
        "  memory  7.5Ti",
        "to fit 18 copies: add 1 node like b1",
    ]
    assert answer.to_dict()["stranded"] == {"cpu": "696500m", "memory": "417759Gi", "pods": "326"}
    assert answer.to_dict()["unusable"]["free"] == {"memory": "8086772000Ki"}


@pytest.mark.parametrize(
    ("limit", "expected"),
    [(1, 1), (3, 3), (100, 10)],
    ids=["limit-1", "limit-3", "all-ten"],
)
def test_count_copies_stops_at_the_limit(limit, expected):
    # 10 nodes of 8 GPUs, one 8-GPU pod per copy: ten copies at most.
    many = cluster(*(node(f"n{i}", 8) for i in range(10)))
    assert count_copies(_gang(1, 8, key=None), many, limit=limit) == expected


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"add_nodes_like": "nope"}, "no node named 'nope' in the cluster"),
        ({"target": 0}, "the target must be from 1 to 100000 copies, not 0"),
    ],
    ids=["unknown-node", "target-zero"],
)
def test_bad_arguments(options, message):
    with pytest.raises(InvalidArgumentError, match=message):
        capacity(_gang(2, 4), _two_racks(), **options)


def test_the_cluster_is_not_changed():
    given = _two_racks()
    before = [list(column) for column in given.used]
    capacity(_gang(2, 4), given, add_nodes_like="b1")
    assert given.used == before
    assert len(given) == 3


def test_derived_clusters_keep_taints():
    # b1 is tainted: a CPU pod that does not tolerate it fits only a1 (8 CPUs: 4 copies of 2); nodes added
    # like b1 carry the taint too, so they never help, while nodes like a1 do.
    tainted = cluster(
        node("a1", 0, cpu="8", rack="rack-a"),
        {
            **node("b1", 0, cpu="8", rack="rack-b"),
            "taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}],
        },
    )
    cpu_pod = request([pod_group("w", 1)], {"w": (1, {"cpu": "2"})})
    assert capacity(cpu_pod, tainted, add_nodes_like="b1", target=5).to_dict()["toAdd"] == {
        "like": "b1", "count": None, "target": 5, "undecided": False,
    }  # fmt: skip
    assert capacity(cpu_pod, tainted, add_nodes_like="a1", target=5).to_add == NodesToAdd("a1", 1, 5)
    assert capacity(cpu_pod, tainted).copies == 4


def test_mixed_shapes_count_each_pod_with_its_own_requests():
    # One PodGroup of a CPU leader (4 CPUs, no GPU) and two GPU workers (1 CPU, 8 GPUs): on three 8-GPU,
    # 8-CPU nodes one copy fits (the workers take two nodes, the leader the third or beside a worker);
    # what stays free is 24 - 6 = 18 CPUs and 24 - 16 = 8 GPUs.
    three = cluster(*(node(f"n{i}", 8, cpu="8") for i in range(3)))
    group = pod_group("lws", 3)
    pods = {
        "lws": [{"count": 1, "requests": {"cpu": "4"}}, {"count": 2, "requests": {"cpu": "1", "nvidia.com/gpu": "8"}}]
    }
    answer = capacity(request([group], pods), three)
    assert (answer.copies, answer.stranded) == (1, {"cpu": "18", "nvidia.com/gpu": "8", "pods": "327"})


def test_a_basic_group_fits_as_a_copy_only_with_all_its_pods():
    # A basic (non-gang) PodGroup of 4 pods of 6 CPUs on six 8-CPU nodes: its pods are scheduled one by one,
    # so a second copy would get 2 of its 4 pods; only the first copy fits whole, and 2 nodes stay free.
    six = cluster(*(node(f"n{i}", 0, cpu="8") for i in range(6)))
    answer = capacity(request([pod_group("w")], {"w": (4, {"cpu": "6"})}), six)
    assert (answer.copies, answer.stranded["cpu"]) == (1, "24")
