"""Node scores as the default profile weighs them: preferences, ImageLocality, the 1.37 BalancedAllocation.

PreferNoSchedule taints and preferred node affinity choose among fitting
nodes; ImageLocality equals its definition written node by node on seeded
clusters; BalancedAllocation scores the change in balance a pod makes.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from placement_helpers import checked, cluster, node, pod_group, request, where

from workloadbuilder.placement import Cluster, Pods, place
from workloadbuilder.placement.framework.scoring import _balance_change, image_scores
from workloadbuilder.placement.k8s.constraints import PodConstraints, normalized_image


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


# -- ImageLocality and the 1.37 resource scores -------------------------------------------------

MB = 2**20


def _image_reference(items: list[dict[str, Any]], images: tuple[str, ...], i: int) -> int:
    """ImageLocality of node ``i``, written from its definition node by node from the items (no index, no numpy)."""

    def listed(item: dict[str, Any]) -> dict[str, int]:
        return {name: image["sizeBytes"] for image in item["status"]["images"] for name in image["names"]}

    total = 0
    for name in images:
        mine = listed(items[i])
        if name in mine:
            holders = sum(1 for item in items if name in listed(item))
            total += int(float(mine[name]) * (holders / len(items)))
    ceiling = 1000 * MB * len(images)
    total = min(max(total, 23 * MB), ceiling)
    return 100 * (total - 23 * MB) // (ceiling - 23 * MB)


@pytest.mark.parametrize("seed", range(60), ids=[f"seed-{seed}" for seed in range(60)])
def test_image_scores_are_image_locality_s(seed: int) -> None:
    rng = random.Random(seed)
    names = [f"registry.example.com/team/app-{k}:v1" for k in range(8)]
    items = []
    for n in range(rng.randint(1, 12)):
        images = [
            {"names": [name, name.replace(":v1", "@sha256:0")], "sizeBytes": rng.randint(1, 3000) * MB}
            for name in rng.sample(names, rng.randint(0, 6))
        ]
        items.append({"metadata": {"name": f"n{n}"}, "status": {"allocatable": {"cpu": "8"}, "images": images}})
    built = Cluster.from_kubectl(items)
    images = tuple(rng.choice([*names, "busybox:latest"]) for _ in range(rng.randint(1, 4)))
    pod = PodConstraints(images=images)
    nodes = np.arange(len(items), dtype=np.int64)
    assert image_scores(built, pod, nodes).tolist() == [_image_reference(items, images, i) for i in nodes.tolist()]


IMAGES = [
    ("a name without a tag gets latest", "busybox", "busybox:latest"),
    ("a tag is kept", "busybox:1.36", "busybox:1.36"),
    ("a registry port is no tag", "registry:5000/app", "registry:5000/app:latest"),
    ("a registry port with a tag", "registry:5000/app:v2", "registry:5000/app:v2"),
    ("a digest counts as a tag", "app@sha256:abc", "app@sha256:abc"),
    ("an empty image", "", ":latest"),
]


@pytest.mark.parametrize(("given", "expected"), [c[1:] for c in IMAGES], ids=[c[0] for c in IMAGES])
def test_image_names_are_normalized_as_image_locality_reads_them(given: str, expected: str) -> None:
    assert normalized_image(given) == expected


BALANCES = [
    ("no change keeps 75", 80, 80, 75),
    ("the best improvement is 100", 100, 50, 100),
    ("the worst is 50", 50, 100, 50),
    ("an odd difference rounds down", 81, 80, 75),
    ("a small loss", 79, 80, 74),
]


@pytest.mark.parametrize(("with_pod", "without", "expected"), [c[1:] for c in BALANCES], ids=[c[0] for c in BALANCES])
def test_balanced_allocation_scores_the_change_in_balance(with_pod: int, without: int, expected: int) -> None:
    assert _balance_change(with_pod, without) == expected


def test_a_pod_that_improves_a_node_s_balance_goes_there() -> None:
    # a: 6 of 8 CPUs and 2 of 32Gi given out; b: 2 and 8Gi, even. A memory-heavy pod evens a out:
    # a scores 33 (LeastAllocated) + 87 (balance 65 -> 90), b 49 + 62 (balance 100 -> 75). Scoring only the
    # balance with the pod, as before 1.37, would give a 33 + 90 = 123 and b 49 + 75 = 124.
    nodes = [
        node("a", cpu="8", memory="32Gi", used={"cpu": "6", "memory": "2Gi"}),
        node("b", cpu="8", memory="32Gi", used={"cpu": "2", "memory": "8Gi"}),
    ]
    spec = {"containers": [{"name": "m", "resources": {"requests": {"cpu": "100m", "memory": "16Gi"}}}]}
    cl = cluster(*nodes)
    req = request([pod_group("g", 1)], {"g": Pods(1, template={"spec": spec})})
    assert where(checked(req, cl, place(req, cl)))["g"][1] == ["a"]
