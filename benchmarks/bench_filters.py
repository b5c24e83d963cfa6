"""What kube-scheduler's filters cost the placement engine: the same gang on the same cluster, without and with taints.

Usage::

    python benchmarks/bench_filters.py           # 10,000 nodes
    python benchmarks/bench_filters.py 50000

A generated cluster is placed on as is, then with a ``nvidia.com/gpu``
taint on every node and one NotReady taint per rack, by a rack-constrained
gang whose pods tolerate the GPU taint (so the filters must be evaluated
for every node). Times are median CPU times; the script prints the ratio
of the tainted run to the untainted one and asserts nothing.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from workloadbuilder.placement import Cluster, PlacementRequest, Pods, place
from workloadbuilder.placement.cluster.generate import RACK_KEY, generate_parts
from workloadbuilder.placement.cluster.records import ClusterParts

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
NOT_READY = {"key": "node.kubernetes.io/not-ready", "value": "", "effect": "NoExecute"}


def median_time(action: Callable[[], Any], runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        action()
        times.append(time.process_time() - start)
    return statistics.median(times)


def tainted(parts: ClusterParts) -> ClusterParts:
    from workloadbuilder.placement.k8s.constraints import Taint

    nodes = []
    for i, node in enumerate(parts.nodes):
        taints = [Taint(**GPU_TAINT)] + ([Taint(**NOT_READY)] if i % 16 == 0 else [])
        nodes.append({**node, "taints": tuple(taints)})
    return ClusterParts(nodes, parts.pools, parts.pods, parts.groups)


def main(nodes: int) -> None:
    parts = generate_parts(nodes, seed=1)
    marked = tainted(parts)
    plain, taints = Cluster.from_parts(parts), Cluster.from_parts(marked)
    group = {
        "kind": "PodGroup",
        "metadata": {"name": "train"},
        "spec": {
            "schedulingPolicy": {"gang": {"minCount": 64}},
            "schedulingConstraints": {"topology": [{"key": RACK_KEY}]},
        },
    }
    pod = {
        "spec": {
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
            "containers": [{"name": "w", "resources": {"limits": {"nvidia.com/gpu": "2"}}}],
        }
    }
    request = PlacementRequest.from_groups([group], {"train": Pods(64, template=pod)})
    base = median_time(lambda: place(request, plain))
    filtered = median_time(lambda: place(request, taints))
    print(
        f"{nodes:,} nodes, warm: untainted {base * 1000:.1f} ms, tainted {filtered * 1000:.1f} ms, ratio {filtered / base:.2f}"
    )
    cold_base = median_time(lambda: place(request, Cluster.from_parts(parts)), 3)
    cold = median_time(lambda: place(request, Cluster.from_parts(marked)), 3)
    print(
        f"{nodes:,} nodes, index and place: untainted {cold_base * 1000:.0f} ms, tainted {cold * 1000:.0f} ms, "
        f"ratio {cold / cold_base:.2f}"
    )


if __name__ == "__main__":
    for size in [int(arg) for arg in sys.argv[1:]] or [10000]:
        main(size)
