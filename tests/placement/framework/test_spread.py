"""Pod topology spread (DoNotSchedule): the gang's pods spread one by one as kube-scheduler's cycle spreads them."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from placement_helpers import checked, cluster, node, pod_group, request, where

from workloadbuilder.placement import Pods, place

ZONE = "topology.kubernetes.io/zone"


def spread_pod(skew: int = 1, **extra: Any) -> dict[str, Any]:
    constraint = {
        "maxSkew": skew,
        "topologyKey": ZONE,
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "w"}},
        **extra,
    }
    return {
        "metadata": {"labels": {"app": "w"}},
        "spec": {
            "topologySpreadConstraints": [constraint],
            "containers": [{"name": "m", "resources": {"limits": {"nvidia.com/gpu": "1"}}}],
        },
    }


def zones(**gpus: tuple[str, int]) -> list[dict[str, Any]]:
    return [node(name, count, **{ZONE: zone}) for name, (zone, count) in gpus.items()]


CASES = [
    (
        "four pods over two zones, two each",
        zones(a=("z1", 8), b=("z1", 8), c=("z2", 8)),
        1,
        4,
        [],
        True,
        {"z1": 2, "z2": 2},
    ),
    (
        "a running pod counts in its zone",
        zones(a=("z1", 8), c=("z2", 8)),
        1,
        3,
        [{"name": "w-0", "kind": "Pod", "node": "a", "requests": {"cpu": "1"}, "labels": {"app": "w"}}],
        True,
        {"z1": 1, "z2": 2},
    ),
    ("a full zone caps the other one", zones(a=("z1", 8), c=("z2", 1)), 1, 4, [], False, {}),
    ("a larger skew allows more", zones(a=("z1", 8), c=("z2", 1)), 2, 4, [], True, {"z1": 3, "z2": 1}),
]


@pytest.mark.parametrize(
    ("nodes", "skew", "count", "running", "feasible", "per_zone"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_spread_constraints_spread_the_gang(
    nodes: list[dict[str, Any]],
    skew: int,
    count: int,
    running: list[dict[str, Any]],
    feasible: bool,
    per_zone: dict[str, int],
) -> None:
    cl = cluster(*nodes, running=running)
    req = request([pod_group("pg", count)], {"pg": Pods(count, template=spread_pod(skew))})
    answer = checked(req, cl, place(req, cl))
    assert answer.feasible is feasible
    if feasible:
        zone_of = {name: cl.labels[i][ZONE] for i, name in enumerate(cl.names)}
        assert Counter(zone_of[n] for n in where(answer)["pg"][1]) == per_zone


def test_a_node_without_the_key_is_rejected_with_the_plugins_words() -> None:
    cl = cluster(node("a", 1))
    req = request([pod_group("pg", 1)], {"pg": Pods(1, template=spread_pod())})
    (root,) = place(req, cl).explanation["roots"]
    assert root["fitErrors"][0]["message"] == (
        "0/1 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label)."
    )
