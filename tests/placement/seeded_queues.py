"""Seeded simulation queues for golden comparisons: each seed makes a small cluster and a mixed queue.

A queue mixes gangs of 1 to 6 pods (GPU and CPU requests, a rack, block or no
topology key), composite gangs of two PodGroups, priorities (none, 0, 100,
1000), counts of 1 to 3 copies, arrivals that often coincide (ties follow the
seed) and entries that share one request object. The cluster has running
groups of its own, which preemption may evict. ``golden()`` is what
``simulate`` answered for each seed (``golden(CAPACITY_GOLDEN)``: what ``capacity``
answered for the seed's first request, with ``toAdd`` for one of its nodes);
``record()`` writes both.

Run ``python tests/placement/seeded_queues.py`` to record the answers
again (only when a change of answers is intended).
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

from workloadbuilder.placement.cluster.generate import BLOCK_KEY, RACK_KEY
from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.planning.capacity import capacity
from workloadbuilder.placement.planning.simulate import QueueEntry, simulate
from workloadbuilder.placement.request.model import PlacementRequest

SEEDS = range(200)
GOLDEN = Path(__file__).parents[1] / "data" / "placement" / "simulate-seeded-queues.json.gz"
CAPACITY_GOLDEN = GOLDEN.with_name("capacity-seeded-requests.json.gz")


def _pod_group(name: str, pods: int, key: str | None, parent: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"schedulingPolicy": {"gang": {"minCount": pods}}}
    if key:
        spec["schedulingConstraints"] = {"topology": [{"key": key}]}
    if parent:
        spec["parentCompositePodGroupName"] = parent
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": name}, "spec": spec}


def _request(rng: random.Random, name: str) -> PlacementRequest:
    key = rng.choice([None, None, RACK_KEY, BLOCK_KEY])
    pods = rng.randint(1, 6)
    wants = {"nvidia.com/gpu": str(rng.choice([1, 2, 4, 8])), "cpu": str(rng.choice([1, 4, 16]))}
    if rng.random() < 0.2:  # a composite gang of two PodGroups under one block
        parent = {
            "apiVersion": "scheduling.k8s.io/v1alpha3",
            "kind": "CompositePodGroup",
            "metadata": {"name": name},
            "spec": {
                "schedulingPolicy": {"gang": {"minGroupCount": 2}},
                "schedulingConstraints": {"topology": [{"key": BLOCK_KEY}]},
            },
        }
        groups = [parent, _pod_group(f"{name}-a", pods, key, name), _pod_group(f"{name}-b", 2, None, name)]
        return PlacementRequest.from_groups(groups, {f"{name}-a": (pods, wants), f"{name}-b": (2, {"cpu": "2"})})
    return PlacementRequest.from_groups([_pod_group(name, pods, key)], {name: (pods, wants)})


def queue(seed: int) -> tuple[list[QueueEntry], Cluster]:
    """The queue and cluster of ``seed``."""
    rng = random.Random(seed)
    cluster = Cluster.generate(
        rng.randint(6, 40),
        seed=seed,
        hosts_per_rack=rng.choice([2, 4]),
        racks_per_block=2,
        blocks_per_zone=2,
        used_fraction=rng.choice([0.0, 0.3, 0.6]),
        running_groups=rng.choice([0, 3, 6]),
    )
    shared = [_request(rng, f"s{k}") for k in range(3)]
    workloads = []
    for e in range(rng.randint(4, 24)):
        request = rng.choice(shared) if rng.random() < 0.4 else _request(rng, f"g{e}")
        arrival = rng.choice([0, 50, 100, 150]) if rng.random() < 0.5 else round(rng.uniform(0, 400), 1)
        workloads.append(
            QueueEntry(
                f"w{e}",
                request,
                arrival,
                rng.choice([10, 60, round(rng.uniform(5, 300), 1)]),
                count=rng.choice([1, 1, 2, 3]),
                priority=rng.choice([None, 0, 100, 1000]),
            )
        )
    return workloads, cluster


def answer(seed: int) -> dict[str, Any]:
    """``simulate``'s answer for ``seed`` as JSON data, without each copy's ``reason``.

    The recordings predate the reason a never-placed copy is given (``reasons`` checks those);
    the play itself, when each copy started and ended, must not change.
    """
    workloads, cluster = queue(seed)
    data = simulate(workloads, cluster, seed=seed).to_dict()
    for run in data["workloads"]:
        del run["reason"]
    return data


def reasons(seed: int) -> list[tuple[bool, str | None]]:
    """Per copy of ``seed``'s queue: whether it never ran (and was not undecided), and its ``reason``."""
    workloads, cluster = queue(seed)
    played = simulate(workloads, cluster, seed=seed)
    return [(run.start is None and not run.undecided, run.reason) for run in played.workloads]


def capacity_answer(seed: int) -> dict[str, Any]:
    """``capacity``'s answer for the first request of ``seed``'s queue on its cluster, with ``toAdd``."""
    workloads, cluster = queue(seed)
    like = cluster.names[seed % len(cluster.names)]
    return capacity(workloads[0].request, cluster, add_nodes_like=like).to_dict()


def golden(path: Path = GOLDEN) -> dict[str, Any]:
    """The recorded answers by seed (as text)."""
    with gzip.open(path, "rt", encoding="utf-8") as stream:
        data: dict[str, Any] = json.load(stream)
    return data


def record() -> None:
    """Write every seed's answers to ``GOLDEN`` and ``CAPACITY_GOLDEN``."""
    for path, make in ((GOLDEN, answer), (CAPACITY_GOLDEN, capacity_answer)):
        data = {str(seed): make(seed) for seed in SEEDS}
        with gzip.open(path, "wt", encoding="utf-8", compresslevel=9) as stream:
            json.dump(data, stream, separators=(",", ":"), sort_keys=True)


if __name__ == "__main__":
    record()
