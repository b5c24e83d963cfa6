"""Placement engine benchmark: one run prints every figure for 1k, 10k and 50k generated nodes.

Usage::

    python benchmarks/bench_placement.py            # all three sizes
    python benchmarks/bench_placement.py 1000 10000  # chosen sizes

Each cluster is a generated zone → block → rack → host topology (16 hosts
per rack, 16 racks per block, 4 blocks per zone; 64 CPUs, 512Gi, 8 GPUs and
110 pods per node; 20% of the nodes partly used, by pods of 5,000 running
PodGroups). Every time is the median CPU time of several runs (CPU time,
because a shared machine makes wall time noisy); every ratio is to the
*floor*: one pass over every node reading its free capacity of the three
resources (allocatable minus used), the least any engine that looks at every
node must do. Nothing here asserts: the script prints figures and the
targets next to them.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from workloadbuilder.placement import Cluster, PlacementRequest, Pods, place, verify
from workloadbuilder.placement.generate import BLOCK_KEY, RACK_KEY, ZONE_KEY, generate_kubectl
from workloadbuilder.placement.quantity import clear_cache

SIZES = (1000, 10000, 50000)
RUNNING_GROUPS = 5000
GANGS = (8, 64, 512, 4096)


def median_time(action: Callable[[], Any], runs: int) -> float:
    """Median CPU time of ``action`` in seconds (CPU, not wall, time: CI machines are shared)."""
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.process_time()
        action()
        times.append(time.process_time() - start)
    return statistics.median(times)


def floor_pass(cluster: Cluster) -> Callable[[], Any]:
    """One pass over every node computing its free CPU, memory and GPUs."""
    index = cluster.resource_index
    a0, a1, a2 = (cluster.allocatable[index[r]] for r in ("cpu", "memory", "nvidia.com/gpu"))
    u0, u1, u2 = (cluster.used[index[r]] for r in ("cpu", "memory", "nvidia.com/gpu"))

    def run() -> list[tuple[int, int, int]]:
        return [(x0 - y0, x1 - y1, x2 - y2) for x0, y0, x1, y1, x2, y2 in zip(a0, u0, a1, u1, a2, u2)]

    return run


def gang(pods: int) -> PlacementRequest:
    spec = {
        "schedulingPolicy": {"gang": {"minCount": pods}},
        "schedulingConstraints": {"topology": [{"key": RACK_KEY}]},
    }
    group = {"kind": "PodGroup", "metadata": {"name": "workers"}, "spec": spec}
    return PlacementRequest.from_groups([group], {"workers": Pods(pods, requests={"cpu": "250m", "memory": "1Gi"})})


def composite(fan: int, pods: int) -> PlacementRequest:
    """Depth 4: a zone CPG over ``fan`` block CPGs over ``fan`` rack CPGs over ``fan`` PodGroups each."""

    def cpg(name: str, key: str, parent: str | None) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "schedulingPolicy": {"gang": {"minGroupCount": fan}},
            "schedulingConstraints": {"topology": [{"key": key}]},
        }
        if parent:
            spec["parentCompositePodGroupName"] = parent
        return {"kind": "CompositePodGroup", "metadata": {"name": name}, "spec": spec}

    groups, pod_map = [cpg("train", ZONE_KEY, None)], {}
    for b in range(fan):
        groups.append(cpg(f"b{b}", BLOCK_KEY, "train"))
        for r in range(fan):
            groups.append(cpg(f"b{b}-r{r}", RACK_KEY, f"b{b}"))
            for leaf in range(fan):
                name = f"b{b}-r{r}-w{leaf}"
                groups.append(
                    {
                        "kind": "PodGroup",
                        "metadata": {"name": name},
                        "spec": {
                            "parentCompositePodGroupName": f"b{b}-r{r}",
                            "schedulingPolicy": {"gang": {"minCount": pods}},
                        },
                    }
                )
                pod_map[name] = Pods(pods, requests={"cpu": "1", "memory": "2Gi"})
    return PlacementRequest.from_groups(groups, pod_map)


def preemptor() -> PlacementRequest:
    """A whole block (256 nodes of 8 GPUs) above every running priority: only preemption makes room."""
    spec = {
        "priority": 2000,
        "schedulingPolicy": {"gang": {"minCount": 256}},
        "schedulingConstraints": {"topology": [{"key": BLOCK_KEY}]},
    }
    group = {"kind": "PodGroup", "metadata": {"name": "urgent"}, "spec": spec}
    return PlacementRequest.from_groups([group], {"urgent": Pods(256, requests={"nvidia.com/gpu": "8", "cpu": "8"})})


def measure(nodes: int) -> dict[str, Any]:
    figures: dict[str, Any] = {"nodes": nodes}
    kubectl = generate_kubectl(nodes, seed=0, running_groups=RUNNING_GROUPS)

    def ingest() -> Cluster:
        clear_cache()
        return Cluster.from_kubectl(*kubectl)

    def ingest_nodes() -> Cluster:
        clear_cache()
        return Cluster.from_kubectl(kubectl[0])

    figures["ingest"] = median_time(ingest, 3)
    figures["ingest_nodes"] = median_time(ingest_nodes, 3)
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    cluster = ingest()
    for key in (ZONE_KEY, BLOCK_KEY, RACK_KEY):
        cluster.domains(key)
    cluster.subdomains(next(iter(cluster.domains(ZONE_KEY).values())), BLOCK_KEY)
    cluster.subdomains(next(iter(cluster.domains(BLOCK_KEY).values())), RACK_KEY)
    after = tracemalloc.take_snapshot()
    _, figures["peak_build"] = tracemalloc.get_traced_memory()
    figures["model"] = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    tracemalloc.stop()
    figures["running"] = (len(cluster.running_groups), len({pod.group for pod in cluster.running_pods}))

    figures["floor"] = median_time(floor_pass(cluster), 7)
    for pods in GANGS:
        request = gang(pods)
        answer = place(request, cluster)
        assert verify(request, cluster, answer) == []
        figures[f"gang{pods}"] = (median_time(lambda r=request: place(r, cluster), 5), answer.feasible)
        figures[f"gang{pods}-complete"] = (
            median_time(lambda r=request: place(r, cluster, strategy="complete"), 5),
            place(request, cluster, strategy="complete").feasible,
        )
    request = composite(8, 2)
    answer = place(request, cluster)
    assert verify(request, cluster, answer) == []
    figures["composite"] = (median_time(lambda: place(request, cluster), 3), answer.feasible)
    figures["composite-complete"] = (
        median_time(lambda: place(request, cluster, strategy="complete"), 3),
        answer.feasible,
    )
    urgent = preemptor()
    answer = place(urgent, cluster, preempt=True)
    assert verify(urgent, cluster, answer) == []
    figures["preempt"] = (
        median_time(lambda: place(urgent, cluster, preempt=True), 3),
        answer.feasible,
        len(answer.victims),
    )
    tracemalloc.start()
    place(request, cluster)
    _, figures["peak_composite"] = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return figures


def report(all_figures: list[dict[str, Any]]) -> None:
    print("Placement benchmark (pure Python; median CPU times; x = ratio to the floor of the same cluster)")
    for f in all_figures:
        floor = f["floor"]
        print(f"\n{f['nodes']:,} nodes  (running groups: {f['running'][0]:,}, {f['running'][1]:,} with pods)")
        print(f"  floor (free capacity of 3 resources, every node)  {floor * 1e3:8.2f} ms")
        print(
            f"  ingest kubectl JSON: nodes only                    {f['ingest_nodes'] * 1e3:8.1f} ms   "
            f"{f['ingest_nodes'] / f['nodes'] * 1e6:5.2f} us/node   (target <= 10 us/node)"
        )
        print(
            f"  ingest kubectl JSON: nodes, pods and groups        {f['ingest'] * 1e3:8.1f} ms   "
            f"{f['ingest'] / f['nodes'] * 1e6:5.2f} us/node"
        )
        print(
            f"  cluster model incl. indexes (tracemalloc)         {f['model'] / 2**20:8.1f} MB   "
            f"peak while building {f['peak_build'] / 2**20:.1f} MB   (target <= 150 MB at 50k)"
        )
        for pods in GANGS:
            t, ok = f[f"gang{pods}"]
            tc, _ = f[f"gang{pods}-complete"]
            print(
                f"  leaf gang {pods:>4} pods, rack constraint {'placed' if ok else 'no fit':>7}   {t * 1e3:8.2f} ms  {t / floor:5.2f}x"
                f"   complete {tc * 1e3:7.2f} ms ({tc / t:4.2f}x kube)"
            )
        t, ok = f["composite"]
        tc, _ = f["composite-complete"]
        print(
            f"  composite zone>block>rack>leaves, fan-out 8, 1024 pods {'placed' if ok else 'no fit':>7}"
            f"  {t * 1e3:8.2f} ms  {t / floor:5.2f}x   complete {tc * 1e3:7.2f} ms ({tc / t:4.2f}x kube)"
        )
        t, ok, victims = f["preempt"]
        print(
            f"  preemption, a whole 256-node block ({victims} victims) {'placed' if ok else 'no fit':>7}"
            f"   {t * 1e3:8.2f} ms  {t / floor:5.2f}x"
        )
        print(f"  peak memory placing the composite (tracemalloc)   {f['peak_composite'] / 2**20:8.1f} MB")
    by = {f["nodes"]: f for f in all_figures}
    if 10000 in by and 50000 in by:
        big, mid = by[50000], by[10000]
        print("\nScaling t(50k)/t(10k) (target <= 5.5):")
        for name in ("floor", "gang64", "gang512", "composite", "preempt"):
            a = big[name][0] if isinstance(big[name], tuple) else big[name]
            b = mid[name][0] if isinstance(mid[name], tuple) else mid[name]
            print(f"  {name:<10} {a / b:5.2f}")
        print(
            "Targets at 50k: leaf gang <= 3x the floor, composite <= 8x, complete <= 10x kube-scheduler where both succeed."
        )


def main(argv: list[str]) -> None:
    sizes = tuple(int(arg) for arg in argv) or SIZES
    report([measure(n) for n in sizes])


if __name__ == "__main__":
    main(sys.argv[1:])
