"""Capacity planning and simulation on realistic clusters: one run prints every figure.

Usage::

    python benchmarks/bench_planning.py                # 10,000 gangs on 5,000 nodes
    python benchmarks/bench_planning.py 2000 1000      # gangs, nodes

The clusters are ``../shared/bench/realistic_cluster.py``'s kubectl dumps
(``generate(n, seed=1)``, read with ``Cluster.from_kubectl``): full GPU
nodes of 8 GPUs with the GPU taint on every node and a PreferNoSchedule
maintenance taint on one in 50, 16 nodes a rack, and a running 4-GPU pod on
10 of every 16 nodes (so a node has 4 or 8 GPUs free, 5.5 on average). Every
pod here tolerates the GPU taint, as a GPU cluster's pods do.

It prints the targets of issue 36 point 5 as ratios: ``capacity`` of a
1-CPU Job on 256 realistic nodes against 64 (linear in nodes and copies: at
most 6), and the simulation's CPU time against 60 s (at most 1 at the
default size).

The queue mixes four gang shapes (8 pods of 4 GPUs in one rack, 16 pods of
4 GPUs, 4 pods of 2 GPUs in one block, 1 pod of 1 GPU) at two priorities,
arriving uniformly over a window that keeps the free GPUs about full, each
running 10 to 120 minutes. Times are CPU seconds of one run (a shared
machine makes wall time noisy); the ratio divides the time per placement
attempt by one ``place`` of the first shape on the cluster as read (the cost
of a single scheduling cycle), so it says how much the simulation adds
around the engine. Nothing here asserts: the script prints figures.
"""

from __future__ import annotations

import random
import sys
import time

from bench_placement import realistic_generator

from workloadbuilder.placement import Cluster, PlacementRequest, Pods, place
from workloadbuilder.placement.planning.capacity import capacity
from workloadbuilder.placement.planning.simulate import QueueEntry, simulate

RACK_KEY = "topology.example.com/rack"
BLOCK_KEY = "topology.example.com/block"
FREE_GPUS_PER_NODE = 5.5
"""What a realistic node has free on average: 8 GPUs, 4 of them taken on 10 nodes of every 16."""


def realistic_cluster(nodes: int) -> Cluster:
    """The realistic kubectl dump of ``nodes`` nodes and their running pods, read as ``--cluster`` reads it."""
    nodes_text, pods_text = realistic_generator().generate(nodes, 1)
    return Cluster.from_kubectl(nodes_text, pods_text)


def _pods(count: int, requests: dict[str, str]) -> Pods:
    """``count`` pods of ``requests`` that tolerate the GPU taint every realistic node carries."""
    template = {
        "spec": {
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            "containers": [{"name": "main", "resources": {"requests": requests}}],
        }
    }
    return Pods(count, template=template)


def _gang(name: str, pods: int, gpus: int, key: str | None) -> PlacementRequest:
    spec: dict[str, object] = {"schedulingPolicy": {"gang": {"minCount": pods}}}
    if key:
        spec["schedulingConstraints"] = {"topology": [{"key": key}]}
    group = {"kind": "PodGroup", "metadata": {"name": name}, "spec": spec}
    return PlacementRequest.from_groups([group], {name: _pods(pods, {"nvidia.com/gpu": str(gpus), "cpu": "4"})})


def _one_cpu_job() -> PlacementRequest:
    group = {"kind": "PodGroup", "metadata": {"name": "job"}, "spec": {"schedulingPolicy": {"gang": {"minCount": 1}}}}
    return PlacementRequest.from_groups([group], {"job": _pods(1, {"cpu": "1"})})


def _capacity_seconds(nodes: int) -> tuple[float, int]:
    """CPU seconds of ``capacity`` of a 1-CPU Job on a realistic cluster of ``nodes``, and the copies found."""
    cluster = realistic_cluster(nodes)
    start = time.process_time()
    answer = capacity(_one_cpu_job(), cluster)
    return time.process_time() - start, answer.copies


def main(gangs: int, nodes: int) -> None:
    small, small_copies = _capacity_seconds(64)
    large, large_copies = _capacity_seconds(256)
    print(
        f"capacity of a 1-CPU Job: 64 nodes {small:.2f} s ({small_copies} copies), 256 nodes {large:.2f} s"
        f" ({large_copies} copies): ratio {large / small:.2f} (target <= 6)"
    )

    cluster = realistic_cluster(nodes)
    shapes = [
        _gang("rack8", 8, 4, RACK_KEY),
        _gang("wide16", 16, 4, None),
        _gang("block4", 4, 2, BLOCK_KEY),
        _gang("one", 1, 1, None),
    ]
    rng = random.Random(0)
    mean_gpus = sum(g.count * int(g.requests["nvidia.com/gpu"] // 1000) for s in shapes for g in s.roots) / 4
    window = gangs * mean_gpus * 3900 / (nodes * FREE_GPUS_PER_NODE)  # arrivals that keep the free GPUs about full
    queue = [
        QueueEntry(
            f"w{i}", shapes[i % 4], rng.uniform(0, window), rng.uniform(600, 7200), priority=rng.choice([0, 100])
        )
        for i in range(gangs)
    ]
    start = time.process_time()
    place(shapes[0], cluster)
    one_cycle = time.process_time() - start

    start = time.process_time()
    answer = capacity(shapes[0], cluster)
    capacity_time = time.process_time() - start

    start = time.process_time()
    result = simulate(queue, cluster)
    spent = time.process_time() - start
    waits = sorted(run.wait for run in result.workloads if run.wait is not None)
    print(
        f"cluster: {nodes} realistic nodes, {len(cluster.running_pods)} running pods; "
        f"one scheduling cycle (rack8 on the cluster as read): {one_cycle * 1000:.1f} ms"
    )
    print(
        f"capacity of rack8: {answer.copies} copies in {capacity_time:.2f} s "
        f"({capacity_time / max(1, answer.copies + 1) / one_cycle:.1f}x one cycle per copy)"
    )
    print(
        f"simulate: {gangs} gangs in {spent:.1f} s CPU ({spent / 60:.1f} min); "
        f"{spent / gangs * 1000:.1f} ms per gang = {spent / gangs / one_cycle:.1f}x one cycle; "
        f"makespan {result.makespan}; median wait {waits[len(waits) // 2] if waits else None:.0f} s; "
        f"preemptions {sum(run.preempted for run in result.workloads)}"
    )
    print(f"simulate CPU time / 60 s: {spent / 60:.2f} (target < 1 at 10,000 gangs on 5,000 nodes)")


if __name__ == "__main__":
    numbers = [int(arg) for arg in sys.argv[1:]]
    main(numbers[0] if numbers else 10_000, numbers[1] if len(numbers) > 1 else 5_000)
