"""Node scores beyond resources: PreferNoSchedule taints and preferred node affinity, weighed as the default profile."""

from __future__ import annotations

from typing import Any

import pytest
from placement_helpers import checked, cluster, node, pod_group, request, where

from workloadbuilder.placement import Pods, place


def soft_tainted(name: str) -> dict[str, Any]:
    return {**node(name), "taints": [{"key": "spot", "value": "true", "effect": "PreferNoSchedule"}]}


def pod(**spec: Any) -> dict[str, Any]:
    return {"spec": {"containers": [{"name": "m", "resources": {"requests": {"cpu": "1"}}}], **spec}}


PREFERRED = {
    "nodeAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 10, "preference": {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}}
        ]
    }
}
CASES = [
    ("a PreferNoSchedule taint pushes the pod away", [soft_tainted("a"), node("b")], pod(), ["b"]),
    (
        "a toleration of it brings the pod back to the first node",
        [soft_tainted("a"), node("b")],
        pod(tolerations=[{"key": "spot", "operator": "Exists", "effect": "PreferNoSchedule"}]),
        ["a"],
    ),
    (
        "a preferred node affinity term wins over an equal node",
        [node("a"), node("b", disk="ssd")],
        pod(affinity=PREFERRED),
        ["b"],
    ),
    ("without preferences the first equal node wins", [node("a"), node("b", disk="ssd")], pod(), ["a"]),
]


@pytest.mark.parametrize(("nodes", "spec", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_preferences_choose_among_fitting_nodes(
    nodes: list[dict[str, Any]], spec: dict[str, Any], expected: list[str]
) -> None:
    cl = cluster(*nodes)
    req = request([pod_group("pg", 1)], {"pg": Pods(1, template=spec)})
    assert where(checked(req, cl, place(req, cl)))["pg"][1] == expected


def test_a_soft_taint_is_used_when_nothing_else_fits() -> None:
    cl = cluster(soft_tainted("a"), node("b", 1))
    req = request(
        [pod_group("pg", 2)],
        {
            "pg": Pods(
                2, template={"spec": {"containers": [{"name": "m", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}
            )
        },
    )
    assert sorted(where(checked(req, cl, place(req, cl)))["pg"][1]) == ["a", "b"]
