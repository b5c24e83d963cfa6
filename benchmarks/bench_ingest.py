"""What reading a realistic ``kubectl get nodes -o json`` costs beyond ``json.loads``, and what the model holds.

Usage::

    python benchmarks/bench_ingest.py            # 10k and 50k nodes
    python benchmarks/bench_ingest.py 20000      # chosen sizes

The cluster is ``bench_placement``'s (``generate_kubectl(n, seed=0,
running_groups=5000)`` made ``realistic``: every node's allocatable CPU and
memory differ), dressed as a real node dump: each node is
``tests/data/placement/node-realistic.json`` (an EKS GPU node: 30 labels,
annotations, managedFields, conditions, images, addresses, a taint) with
the generated name, topology labels and allocatable, a distinct
``ephemeral-storage`` and a distinct ``nvidia.com/gfd.timestamp`` label.

Figures, from one run:

* text: the median CPU time of ``Cluster.from_kubectl`` on the dump's text,
  everything included (the bounded parse, its nesting and duplicate-key
  checks, the reading), against ``json.loads`` of the same text;
* ingest: the median CPU time of ``Cluster.from_kubectl`` on the parsed
  nodes, per node, with the quantity cache cleared before each run (a
  command reads a dump once); ``json.loads`` of the same text per node
  next to it; then the same with the running pods and groups;
* memory: what the built ``Cluster`` keeps once the parsed JSON is freed
  (``tracemalloc``), and the peak while building beyond the parsed JSON.

Nothing here asserts: the script prints figures with the targets next to them.
"""

from __future__ import annotations

import gc
import json
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_placement import RUNNING_GROUPS, realistic

from workloadbuilder.placement import Cluster
from workloadbuilder.placement.cluster.generate import generate_kubectl
from workloadbuilder.placement.k8s.quantity import clear_cache

SIZES = (10000, 50000)
TEMPLATE = Path(__file__).resolve().parent.parent / "tests" / "data" / "placement" / "node-realistic.json"
TARGET_MICROS = 10.0
TARGET_MB = 150.0
TARGET_TEXT = 1.5  # from_kubectl(text) in all against json.loads of the same text, at 50k nodes


def cpu_seconds(action: Callable[[], Any], runs: int) -> float:
    """Median CPU time of ``action`` in seconds, the quantity cache cleared before each run.

    What ``action`` returns is freed after the clock stops: freeing is not reading.
    """
    times = []
    for _ in range(runs):
        clear_cache()
        gc.collect()
        start = time.process_time()
        result = action()
        times.append(time.process_time() - start)
        del result
    return statistics.median(times)


def node_dump(nodes: int) -> tuple[str, str, str]:
    """``kubectl get nodes``, ``get pods -A`` and ``get podgroups -A`` JSON text of the realistic cluster."""
    kubectl = generate_kubectl(nodes, seed=0, running_groups=RUNNING_GROUPS)
    realistic(kubectl)
    template = json.loads(TEMPLATE.read_text(encoding="utf-8"))
    items = []
    for i, item in enumerate(kubectl[0]["items"]):
        node = _copy(template)
        metadata, status = node["metadata"], node["status"]
        metadata["name"] = item["metadata"]["name"]
        metadata["uid"] = f"3b7e2f90-1c4d-4a8e-9f65-{i:012d}"
        metadata["labels"] = {
            **metadata["labels"],
            "nvidia.com/gfd.timestamp": str(1727856901 + i * 13),
            **item["metadata"]["labels"],
        }
        allocatable = {**status["allocatable"], **item["status"]["allocatable"]}
        allocatable["ephemeral-storage"] = str(1846700085301 - (i * 104729) % 50_000_000)
        status["allocatable"] = allocatable
        items.append(node)
    nodes_text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items})
    return nodes_text, json.dumps(kubectl[1]), json.dumps(kubectl[2])


def _copy(value: Any) -> Any:
    """A deep copy of JSON data (faster than ``copy.deepcopy``)."""
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def measure(nodes: int) -> dict[str, float]:
    nodes_text, pods_text, groups_text = node_dump(nodes)
    figures = {"nodes": float(nodes), "bytes per node": len(nodes_text) / nodes}
    figures["json.loads"] = cpu_seconds(lambda: json.loads(nodes_text), 3) / nodes * 1e6
    figures["text"] = cpu_seconds(lambda: (clear_cache(), Cluster.from_kubectl(nodes_text)), 3) / nodes * 1e6
    figures.update(ingest_times(json.loads(nodes_text), json.loads(pods_text), json.loads(groups_text), nodes))
    gc.collect()
    figures.update(model_memory(nodes_text, pods_text, groups_text))
    return figures


def ingest_times(items: Any, pods: Any, groups: Any, nodes: int) -> dict[str, float]:
    """Microseconds per node of ``from_kubectl`` on parsed JSON: the nodes alone, then with pods and groups."""
    return {
        "nodes only": cpu_seconds(lambda: Cluster.from_kubectl(items), 3) / nodes * 1e6,
        "with pods": cpu_seconds(lambda: Cluster.from_kubectl(items, pods, groups), 3) / nodes * 1e6,
    }


def model_memory(nodes_text: str, pods_text: str, groups_text: str) -> dict[str, float]:
    """MB the built cluster keeps once the parsed JSON is freed, and its peak beyond the parsed JSON."""
    clear_cache()
    tracemalloc.start()
    parsed = [json.loads(nodes_text), json.loads(pods_text), json.loads(groups_text)]
    before = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    cluster = Cluster.from_kubectl(*parsed)
    peak = (tracemalloc.get_traced_memory()[1] - before) / 1e6
    parsed.clear()
    gc.collect()
    model = tracemalloc.get_traced_memory()[0] / 1e6
    tracemalloc.stop()
    del cluster
    return {"peak": peak, "model": model}


def report(all_figures: list[dict[str, float]]) -> None:
    print("Ingest of a realistic `kubectl get nodes -o json` (median CPU time per node; memory by tracemalloc)")
    for f in all_figures:
        print(f"\n{int(f['nodes']):,} nodes, {f['bytes per node'] / 1000:.1f} kB of JSON per node")
        print(f"  json.loads                               {f['json.loads']:6.1f} us/node")
        print(
            f"  from_kubectl(text), in all               {f['text']:6.1f} us/node "
            f"({f['text'] / f['json.loads']:.2f}x json.loads; target <= {TARGET_TEXT:.1f}x)"
        )
        print(
            f"  from_kubectl beyond json.loads, nodes    {f['nodes only']:6.1f} us/node "
            f"({f['nodes only'] / f['json.loads']:.2f}x json.loads; target <= {TARGET_MICROS:.0f} us)"
        )
        print(f"  ... with running pods and groups         {f['with pods']:6.1f} us/node")
        print(
            f"  model kept after the JSON is freed       {f['model']:6.1f} MB "
            f"({f['model'] * 1e3 / f['nodes']:.2f} kB/node; target at 50k <= {TARGET_MB:.0f} MB)"
        )
        print(f"  peak while building, beyond the JSON     {f['peak']:6.1f} MB")


def main(argv: list[str]) -> None:
    sizes = tuple(int(arg) for arg in argv) or SIZES
    report([measure(n) for n in sizes])


if __name__ == "__main__":
    main(sys.argv[1:])
