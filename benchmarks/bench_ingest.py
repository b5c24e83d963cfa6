"""What reading a realistic kubectl dump costs against ``json.loads`` of the same text, and what the model holds.

Usage::

    python benchmarks/bench_ingest.py            # 10k and 50k nodes
    python benchmarks/bench_ingest.py 20000      # chosen sizes

The dump is ``../shared/bench/realistic_cluster.py``'s (``generate(n,
seed=1)``): full Node objects of about 6.6 kB (15 labels, annotations, 20
images, 4 conditions, the GPU taint), and running pods with init containers
and sidecars on 10 of every 16 nodes.

Figures, from one run (the median CPU time of three runs each, per node,
the quantity cache cleared before each run: a command reads a dump once):

* ``json.loads`` of the nodes' and the pods' text, the yardstick;
* ``from_kubectl(text)``, in all: the nodes' and pods' text to the cluster
  model ready for placing (the fast way: msgspec's typed decode of what the
  model reads, then the readers), against that yardstick (target <= 1.0x);
* the careful way, as every text was read before: the bounded parse with
  its duplicate-key and nesting checks (``manifests.read_data``), then the
  same readers; what the fast way falls back to when its decoder refuses a
  text or the dump has an error;
* the nodes alone, text to model, against ``json.loads`` of their text;
* ``from_kubectl`` on the parsed nodes and pods, beyond the parse (target
  <= 10 us a node);
* memory: what the built ``Cluster`` keeps once the parsed JSON is freed
  (``tracemalloc``), and the peak while building beyond the parsed JSON.

CPU time is measured, not wall time, but on a shared machine the figures
still move by 10-20% between runs. Nothing here asserts: the script prints
figures with the targets next to them.
"""

from __future__ import annotations

import gc
import json
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from bench_placement import realistic_generator

from workloadbuilder import manifests
from workloadbuilder.placement import Cluster
from workloadbuilder.placement.k8s.quantity import clear_cache

SIZES = (10000, 50000)
TARGET_TEXT = 1.0  # from_kubectl(text) in all against json.loads of the same text
TARGET_MICROS = 10.0  # from_kubectl(parsed) beyond the parse, per node
TARGET_MB = 150.0


def cpu_seconds(action: Callable[[], Any], runs: int = 3) -> float:
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


def measure(nodes: int) -> dict[str, float]:
    nodes_text, pods_text = realistic_generator().generate(nodes, 1)
    per_node = 1e6 / nodes
    figures = {"nodes": float(nodes), "bytes per node": (len(nodes_text) + len(pods_text)) / nodes}
    figures["json.loads"] = cpu_seconds(lambda: (json.loads(nodes_text), json.loads(pods_text))) * per_node
    figures["text"] = cpu_seconds(lambda: Cluster.from_kubectl(nodes_text, pods_text)) * per_node
    figures["careful"] = (
        cpu_seconds(lambda: Cluster.from_kubectl(manifests.read_data(nodes_text), manifests.read_data(pods_text)))
        * per_node
    )
    figures["nodes json.loads"] = cpu_seconds(lambda: json.loads(nodes_text)) * per_node
    figures["nodes text"] = cpu_seconds(lambda: Cluster.from_kubectl(nodes_text)) * per_node
    figures["parsed"] = beyond_the_parse(nodes_text, pods_text) * per_node
    gc.collect()
    figures.update(model_memory(nodes_text, pods_text))
    return figures


def beyond_the_parse(nodes_text: str, pods_text: str) -> float:
    """CPU seconds of ``from_kubectl`` on the parsed nodes and pods (the parsed JSON is freed on return)."""
    parsed_nodes, parsed_pods = json.loads(nodes_text), json.loads(pods_text)
    return cpu_seconds(lambda: Cluster.from_kubectl(parsed_nodes, parsed_pods))


def model_memory(nodes_text: str, pods_text: str) -> dict[str, float]:
    """MB the built cluster keeps once the parsed JSON is freed, and its peak beyond the parsed JSON."""
    clear_cache()
    tracemalloc.start()
    parsed = [json.loads(nodes_text), json.loads(pods_text)]
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
    print(
        "Ingest of a realistic kubectl dump, nodes and running pods (median CPU time per node; memory by tracemalloc)"
    )
    for f in all_figures:
        base = f["json.loads"]
        print(f"\n{int(f['nodes']):,} nodes, {f['bytes per node'] / 1000:.1f} kB of JSON per node (nodes and pods)")
        print(f"  json.loads of the nodes and the pods        {base:6.1f} us/node")
        print(
            f"  from_kubectl(text), in all                  {f['text']:6.1f} us/node "
            f"({f['text'] / base:.2f}x json.loads; target <= {TARGET_TEXT:.1f}x)"
        )
        print(
            f"  ... the careful way (bounded parse, readers) {f['careful']:5.1f} us/node ({f['careful'] / base:.2f}x)"
        )
        print(
            f"  the nodes alone, text to model              {f['nodes text']:6.1f} us/node "
            f"({f['nodes text'] / f['nodes json.loads']:.2f}x json.loads of their text)"
        )
        print(
            f"  from_kubectl(parsed), beyond the parse      {f['parsed']:6.1f} us/node "
            f"(target <= {TARGET_MICROS:.0f} us)"
        )
        print(
            f"  model kept after the JSON is freed          {f['model']:6.1f} MB "
            f"({f['model'] * 1e3 / f['nodes']:.2f} kB/node; target at 50k <= {TARGET_MB:.0f} MB)"
        )
        print(f"  peak while building, beyond the JSON        {f['peak']:6.1f} MB")


def main(argv: list[str]) -> None:
    sizes = tuple(int(arg) for arg in argv) or SIZES
    report([measure(n) for n in sizes])


if __name__ == "__main__":
    main(sys.argv[1:])
