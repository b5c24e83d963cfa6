"""Placement engine benchmark: one run prints every figure, as ratios to a vectorized floor.

Usage::

    python benchmarks/bench_placement.py                 # realistic 10k and 50k nodes, and the slow instances
    python benchmarks/bench_placement.py 10000           # chosen sizes
    python benchmarks/bench_placement.py --slow-only     # only the audit's slow instances
    python benchmarks/bench_placement.py --generated     # also the project's own generated clusters (below)
    python benchmarks/bench_placement.py --realistic-only 50000  # realistic clusters only, no slow instances

The clusters measured first are *realistic* ``kubectl get nodes -o json``
and ``kubectl get pods -A -o json`` dumps from
``../shared/bench/realistic_cluster.py`` (``generate(n, seed)``; beside
this repository): 15 labels, 20 images and 4 conditions a node, the GPU
taint on every node and a ``PreferNoSchedule`` maintenance taint on one
node in 50, 16 nodes a rack, no two nodes sharing a free vector, and 10 of
every 16 nodes running a 4-GPU pod. Every pod of every case there
tolerates the GPU taint (not the maintenance one, so TaintToleration's
score tells nodes apart), and every timed run places pods of a kind the
cluster has not seen, so filters and scores are evaluated in each run.
The issue's target for the keyless gang of 4,096 pods is 10x the floor.

With ``--generated``, the project's own clusters are measured too:
Each cluster is a generated zone → block → rack → host topology (16 hosts
per rack, 16 racks per block, 4 blocks per zone; 8 GPUs and 110 pods per
node; 20% of the nodes partly used, by pods of 5,000 running PodGroups),
made *realistic*: every node's allocatable CPU and memory differ a little,
as in a real ``kubectl get nodes -o json`` dump, so no two nodes share a
free vector. Every rack has a pool of 4 RDMA NICs for group claims.

Each size is measured twice: as above, and with the taint GPU nodes carry
(``nvidia.com/gpu=present:NoSchedule`` on every node) and pods that
tolerate it (no node is lost, so every case keeps its answer); there,
every timed run places pods of a kind the cluster has not seen (their
labels differ), so the filters are evaluated in each run, not read back
from the previous one's verdicts.

Every time is the median CPU time of several runs (CPU, not wall, time:
the machine is shared; 9 runs of each of the issue's five cases, whose
times are a millisecond or two and vary by a tenth from run to run). The
*floor* is one vectorized numpy pass over every node's free capacity for
one pod shape (pods of the shape each node holds): the least any engine
that looks at every node must do. Cases:

* a gang of 8 on a rack key; a gang of 4096 with no key;
* a depth-3 composite (block → rack → PodGroups, 512 pods);
* a DRA-claim gang of 64 on a rack key (one shared rack NIC claim);
* preemption: a whole block above every running priority;
* a composite where kube-scheduler's greedy order fails and a placement
  exists (16 rack gangs in a block, the last needing a whole free rack);
* ``complete`` on each (where greedy succeeds, the strategy costs kube-scheduler's);
* two that fit nowhere, where ``complete`` must prove it: a DRA-claim gang
  whose claim no rack's pool can serve, and a depth-3 composite whose rack
  CPGs need more GPUs than a rack has;
* the audit's slow instances: 6-24 nodes, 13-25 groups of several pod
  shapes, where kube-scheduler's greedy order fails and the exact search
  answers (seconds, not ratios; target under 2 s each).

Nothing here asserts: the script prints figures and the targets next to them.
"""

from __future__ import annotations

import functools
import gc
import importlib.util
import itertools
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from workloadbuilder.placement import Cluster, DevicePool, PlacementRequest, Pods, place, verify
from workloadbuilder.placement.cluster.generate import BLOCK_KEY, RACK_KEY, generate_kubectl

SIZES = (10000, 50000)
RUNNING_GROUPS = 5000
SHAPE = {"cpu": "250m", "memory": "1Gi"}
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
KINDS = itertools.count(1)  # the next kind of pod (see ``pods``) a timed run with taints places
REALISTIC = Path(__file__).resolve().parents[2] / "shared" / "bench" / "realistic_cluster.py"
"""The realistic cluster generator, ``../shared/bench/realistic_cluster.py`` from the repository's root."""


def realistic_generator() -> ModuleType:
    """``../shared/bench/realistic_cluster.py`` as a module (it is no package: loaded from its path)."""
    spec = importlib.util.spec_from_file_location("realistic_cluster", REALISTIC)
    if spec is None or spec.loader is None or not REALISTIC.is_file():
        raise SystemExit(f"bench_placement: no realistic cluster generator at {REALISTIC}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def realistic_cluster(nodes: int, seed: int = 1) -> Cluster:
    """A realistic ``kubectl`` dump of ``nodes`` nodes and their running pods, read as a cluster with rack NIC pools."""
    nodes_text, pods_text = realistic_generator().generate(nodes, seed)
    return with_rack_pools(Cluster.from_kubectl(nodes_text, pods_text))


def median_time(action: Callable[[], Any], runs: int) -> float:
    """Median CPU time of ``action`` in seconds."""
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.process_time()
        action()
        times.append(time.process_time() - start)
    return statistics.median(times)


def realistic(kubectl: tuple[dict[str, Any], ...]) -> None:
    """Give every node its own allocatable CPU and memory, as system reservations do on real nodes."""
    for i, item in enumerate(kubectl[0]["items"]):
        allocatable = item["status"]["allocatable"]
        allocatable["cpu"] = f"{64000 - 100 - (i * 37) % 900}m"
        allocatable["memory"] = f"{512 * 1024 * 1024 - 1_500_000 - (i * 7919) % 2_000_000}Ki"


def with_taints(kubectl: tuple[dict[str, Any], ...]) -> None:
    """Taint every node as a GPU node, as GPU clusters' nodes are (the pods of every case tolerate it)."""
    for item in kubectl[0]["items"]:
        item["spec"]["taints"] = [dict(GPU_TAINT)]


def with_rack_pools(cluster: Cluster) -> Cluster:
    """The same cluster (its taints too) with a pool of 4 RDMA NICs in every rack."""
    pools = [
        DevicePool(f"nics-{value}", "rdma", 4, domain=(RACK_KEY, value)) for value in sorted(cluster.domains(RACK_KEY))
    ]
    return cluster.replace(pools=pools)


def floor_pass(cluster: Cluster) -> Callable[[], Any]:
    """One vectorized pass: how many pods of ``SHAPE`` each node's free capacity holds."""
    index = cluster.resource_index
    free = {
        r: np.array(cluster.allocatable[index[r]], dtype=np.int64) - np.array(cluster.used[index[r]], dtype=np.int64)
        for r in ("cpu", "memory", "pods")
    }
    need = {"cpu": 250, "memory": 1024**3 * 1000, "pods": 1000}

    def run() -> Any:
        return np.minimum(
            np.minimum(free["cpu"] // need["cpu"], free["memory"] // need["memory"]), free["pods"] // 1000
        )

    return run


def _pod_group(name: str, count: int, key: str | None = None, parent: str | None = None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"schedulingPolicy": {"gang": {"minCount": count}}, **spec}
    if key:
        body["schedulingConstraints"] = {"topology": [{"key": key}]}
    if parent:
        body["parentCompositePodGroupName"] = parent
    return {"kind": "PodGroup", "metadata": {"name": name}, "spec": body}


def _composite(name: str, need: int, key: str | None, parent: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"schedulingPolicy": {"gang": {"minGroupCount": need}}}
    if key:
        body["schedulingConstraints"] = {"topology": [{"key": key}]}
    if parent:
        body["parentCompositePodGroupName"] = parent
    return {"kind": "CompositePodGroup", "metadata": {"name": name}, "spec": body}


def pods(count: int, requests: dict[str, str], kind: int | None) -> Pods:
    """``count`` pods of ``requests``; with ``kind``, from a template that tolerates ``GPU_TAINT``, labelled ``kind``.

    Pods of another ``kind`` are another kind of pod to the engine (their
    labels differ), so the filters are evaluated afresh for them, as for
    every new job a cluster sees.
    """
    if kind is None:
        return Pods(count, requests=requests)
    template = {
        "metadata": {"labels": {"kind": str(kind)}},
        "spec": {
            "tolerations": [{"key": GPU_TAINT["key"], "operator": "Exists", "effect": GPU_TAINT["effect"]}],
            "containers": [{"name": "main", "resources": {"requests": dict(requests)}}],
        },
    }
    return Pods(count, template=template)


def gang(count: int, key: str | None, kind: int | None = None) -> PlacementRequest:
    """One PodGroup of ``count`` pods of ``SHAPE``, all or nothing, in one domain of ``key`` (no key: anywhere)."""
    return PlacementRequest.from_groups([_pod_group("workers", count, key)], {"workers": pods(count, SHAPE, kind)})


def depth3(count: int = 32, requests: dict[str, str] | None = None, kind: int | None = None) -> PlacementRequest:
    """A block CPG over 4 rack CPGs over 4 PodGroups of ``count`` pods each (512 pods of 1 CPU and 2Gi by default)."""
    groups, sets = [_composite("train", 4, BLOCK_KEY)], {}
    for r in range(4):
        groups.append(_composite(f"r{r}", 4, RACK_KEY, "train"))
        for w in range(4):
            groups.append(_pod_group(f"r{r}-w{w}", count, parent=f"r{r}"))
            sets[f"r{r}-w{w}"] = pods(count, requests or {"cpu": "1", "memory": "2Gi"}, kind)
    return PlacementRequest.from_groups(groups, sets)


def stealing(kind: int | None = None) -> PlacementRequest:
    """A block CPG over 16 rack PodGroups of 128 one-GPU pods: 15 need 90, the last a whole free rack.

    kube-scheduler gives the whole free racks to the first children and
    fails; the exact search puts the last child in one of them.
    """
    groups, sets = [_composite("train", 16, BLOCK_KEY)], {}
    for c in range(16):
        groups.append(_pod_group(f"w{c}", 128 if c == 15 else 90, RACK_KEY, "train"))
        sets[f"w{c}"] = pods(128, {"nvidia.com/gpu": "1"}, kind)
    return PlacementRequest.from_groups(groups, sets)


def claimed(kind: int | None = None) -> PlacementRequest:
    """A gang of 64 on a rack key sharing one claim of 2 of its rack's RDMA NICs."""
    claims = [{"name": "nics", "resourceClaimTemplateName": "rdma-pair"}]
    group = _pod_group("workers", 64, RACK_KEY, resourceClaims=claims)
    return PlacementRequest.from_groups(
        [group], {"workers": pods(64, SHAPE, kind)}, {"rdma-pair": {"deviceClass": "rdma", "count": 2}}
    )


def claim_nowhere(kind: int | None = None) -> PlacementRequest:
    """A DRA-claim gang of 64 on a rack key whose claim needs 5 NICs: every rack has 4, so it fits nowhere."""
    claims = [{"name": "nics", "resourceClaimTemplateName": "rdma-five"}]
    group = _pod_group("workers", 64, RACK_KEY, resourceClaims=claims)
    return PlacementRequest.from_groups(
        [group], {"workers": pods(64, SHAPE, kind)}, {"rdma-five": {"deviceClass": "rdma", "count": 5}}
    )


def preemptor(kind: int | None = None) -> PlacementRequest:
    """A whole block (256 nodes of 8 GPUs) above every running priority: only preemption makes room."""
    group = _pod_group("urgent", 256, BLOCK_KEY, priority=2000)
    return PlacementRequest.from_groups([group], {"urgent": pods(256, {"nvidia.com/gpu": "8", "cpu": "8"}, kind)})


def timed_place(
    make: Callable[[int | None], PlacementRequest],
    kinds: bool,
    cluster: Cluster,
    strategy: str,
    preempt: bool,
    runs: int,
) -> float:
    """The median CPU time of placing ``make``'s request; with ``kinds``, pods of a new kind on each run."""
    if not kinds:
        return median_time(functools.partial(place, make(None), cluster, strategy, preempt), runs)
    requests = iter([make(next(KINDS)) for _ in range(runs)])  # built before the clock starts
    return median_time(lambda: place(next(requests), cluster, strategy, preempt), runs)


CASES: dict[str, tuple[Callable[[int | None], PlacementRequest], bool, int]] = {
    "gang 8, rack key": (functools.partial(gang, 8, RACK_KEY), False, 9),
    "gang 4096, no key": (functools.partial(gang, 4096, None), False, 9),
    "depth-3 composite, 512 pods": (functools.partial(depth3, 32, None), False, 9),
    "DRA-claim gang 64, rack key": (claimed, False, 9),
    "preemption, a whole block": (preemptor, True, 9),
    "greedy fails: 16 rack gangs": (stealing, False, 1),
    "fits nowhere: claim of 5 NICs": (claim_nowhere, False, 3),
    # 4 PodGroups of 40 one-GPU pods per rack CPG: 160 GPUs, where a rack has 128
    "fits nowhere: depth-3, 160 GPUs": (functools.partial(depth3, 40, {"nvidia.com/gpu": "1"}), False, 1),
}
"""Each case: the request it places (given a kind of pod, or ``None``), whether it may preempt, and its runs."""

REALISTIC_CASES = [name for name in CASES if name != "greedy fails: 16 rack gangs"]
"""The cases that say the same on realistic clusters: there 10 of every 16 nodes run a 4-GPU pod, so no rack is
whole and free and the 16-rack-gang case would ask something else."""


def measure_cases(cluster: Cluster, names: list[str], kinds: bool) -> dict[str, Any]:
    """The floor and each named case's figures on ``cluster``; with ``kinds``, pods that tolerate the GPU taint.

    With ``kinds``, each timed run places pods of a new kind (see
    ``pods``), so the filters' verdicts are never read from a previous
    run's; the request is built outside the timed part.
    """
    figures: dict[str, Any] = {"nodes": len(cluster), "vectors": len(cluster.vectors)}
    figures["floor"] = median_time(floor_pass(cluster), 21)
    for name in names:
        make, preempt, runs = CASES[name]
        request = make(0 if kinds else None)
        answer = place(request, cluster, "complete", preempt)
        assert verify(request, cluster, answer) == []
        kube = timed_place(make, kinds, cluster, "kube-scheduler", preempt, runs)
        complete = timed_place(make, kinds, cluster, "complete", preempt, runs)
        search = answer.explanation["roots"][0]["search"]
        status = "placed" if answer.feasible else "timed out" if search and search["timedOut"] else "proved"
        figures[name] = (kube, complete, status)
    return figures


def measure_realistic(nodes: int) -> dict[str, Any]:
    """The cases that hold there, on a realistic dump of ``nodes`` nodes (seed 1); pods tolerate the GPU taint."""
    figures = measure_cases(realistic_cluster(nodes), REALISTIC_CASES, True)
    figures["setting"] = "realistic dump (../shared/bench): GPU taint everywhere, PreferNoSchedule on 1 in 50"
    return figures


def measure(nodes: int, taints: bool) -> dict[str, Any]:
    """Every case's figures on the project's generated cluster of ``nodes``; with ``taints``, on GPU-tainted nodes."""
    kubectl = generate_kubectl(nodes, seed=0, running_groups=RUNNING_GROUPS)
    realistic(kubectl)
    if taints:
        with_taints(kubectl)
    figures = measure_cases(with_rack_pools(Cluster.from_kubectl(*kubectl)), list(CASES), taints)
    setting = "GPU taint on every node, pods that tolerate it (a new kind of pod each run)"
    figures["setting"] = "generated: " + (setting if taints else "no taints")
    return figures


def slow_instance(seed: int) -> tuple[Cluster, PlacementRequest]:
    """The audit's shape: 6-24 nodes in racks and blocks, 13-25 groups of several pod shapes, tight capacity."""
    rng = random.Random(seed)
    count = rng.randint(6, 24)
    nodes = []
    for i in range(count):
        nodes.append(
            {
                "name": f"n{i:02d}",
                "labels": {BLOCK_KEY: f"b{i % 3}", RACK_KEY: f"r{i % 6}"},
                "allocatable": {
                    "cpu": str(rng.randint(4, 16)),
                    "memory": f"{rng.randint(8, 64)}Gi",
                    "nvidia.com/gpu": str(rng.choice([0, 4, 8])),
                    "pods": "110",
                },
            }
        )
    cluster = Cluster.from_yaml({"nodes": nodes})
    shapes = [
        {"cpu": str(rng.randint(1, 4)), "memory": f"{rng.randint(1, 8)}Gi", "nvidia.com/gpu": str(rng.randint(0, 2))}
        for _ in range(3)
    ]
    groups = [_composite("root", 0, BLOCK_KEY if rng.random() < 0.5 else None)]
    pods: dict[str, Pods] = {}
    total = rng.randint(13, 25) - 1
    subs = max(1, total // 6)
    for s in range(subs):
        groups.append(_composite(f"s{s}", 0, RACK_KEY if rng.random() < 0.6 else None, "root"))
    for g in range(total - subs):
        name = f"w{g:02d}"
        need = rng.randint(1, 4)
        groups.append(_pod_group(name, need, parent=f"s{g % subs}"))
        pods[name] = Pods(need + rng.randint(0, 2), requests=shapes[g % 3])
    for group in groups:
        if group["kind"] == "CompositePodGroup":
            children = sum(
                1 for other in groups if other["spec"].get("parentCompositePodGroupName") == group["metadata"]["name"]
            )
            group["spec"]["schedulingPolicy"]["gang"]["minGroupCount"] = max(1, children - rng.randint(0, 1))
    return cluster, PlacementRequest.from_groups(groups, pods)


def slow_instances(wanted: int = 12) -> list[tuple[int, float, str]]:
    """(seed, CPU seconds of ``complete``, verdict) for instances where kube-scheduler's greedy order fails.

    OR-tools is imported first, so its one-time import is not counted.
    """
    from ortools.sat.python import cp_model  # noqa: F401

    out: list[tuple[int, float, str]] = []
    seed = 0
    while len(out) < wanted and seed < 2000:
        cluster, request = slow_instance(seed)
        seed += 1
        if place(request, cluster).feasible:
            continue
        start = time.process_time()
        answer = place(request, cluster, strategy="complete", timeout=60)
        elapsed = time.process_time() - start
        assert verify(request, cluster, answer) == []
        search = answer.explanation["roots"][0]["search"]
        verdict = "placed" if answer.feasible else ("timed out" if search["timedOut"] else "proved infeasible")
        out.append((seed - 1, elapsed, verdict))
    return out


def report(all_figures: list[dict[str, Any]], slow: list[tuple[int, float, str]]) -> None:
    """Print every cluster's figures as ratios to its floor, the 50k/10k scaling and the slow instances."""
    print("Placement benchmark (median CPU times; x = ratio to the vectorized floor of the same cluster)")
    print("(one run on a shared 2-core machine: other processes' load moves the figures by tens of percent)")
    for f in all_figures:
        floor = f["floor"]
        print(f"\n{f['nodes']:,} nodes ({f['vectors']:,} distinct free vectors), {f['setting']}")
        print(f"  floor: numpy pass over every node's free capacity for one shape  {floor * 1e3:8.3f} ms")
        for name, value in f.items():
            if not isinstance(value, tuple):
                continue
            kube, complete, status = value
            print(
                f"  {name:<32} {status:>9} (complete)  kube-scheduler {kube * 1e3:9.2f} ms "
                f"{kube / floor:8.1f}x   complete {complete / floor:8.1f}x ({complete / kube:4.2f}x kube)"
            )
    by = {(f["nodes"], f["setting"]): f for f in all_figures}
    for setting in dict.fromkeys(f["setting"] for f in all_figures):
        if (10000, setting) in by and (50000, setting) in by:
            small, large = by[(10000, setting)], by[(50000, setting)]
            print(f"\nScaling t(50k)/t(10k), kube-scheduler, {setting} (target <= 5.5):")
            for name, value in large.items():
                if isinstance(value, tuple):
                    print(f"  {name:<32} {value[0] / small[name][0]:5.2f}")
            print(f"  {'floor':<32} {large['floor'] / small['floor']:5.2f}")
    if slow:
        print("\nThe audit's slow instances (6-24 nodes, 13-25 groups, 3 pod shapes; greedy fails), complete (CPU s):")
        for seed, seconds, verdict in slow:
            print(f"  seed {seed:>4}  {seconds:6.3f} s  {verdict}")
        print(f"  slowest {max(s for _, s, _ in slow):.3f} s (target < 2 s)")
    print(
        "\nTargets at 50k realistic nodes: the keyless gang of 4096 <= 10x the floor; gang of 8 on a rack key, "
        "depth-3 composite, DRA gang and preemption <= 30x; complete <= 2x kube-scheduler."
    )


def main(argv: list[str]) -> None:
    """Run what ``argv`` asks for (see the module's usage) and print the report."""
    slow = [] if "--realistic-only" in argv else slow_instances()
    if "--slow-only" in argv:
        report([], slow)
        return
    sizes = tuple(int(arg) for arg in argv if not arg.startswith("--")) or SIZES
    figures = [measure_realistic(n) for n in sizes]
    if "--generated" in argv:
        figures += [measure(n, taints) for n in sizes for taints in (False, True)]
    report(figures, slow)


if __name__ == "__main__":
    main(sys.argv[1:])
