"""Seeded queue instances for the real-scheduler harness (``main.go``, ``queues.go``).

Each line is one instance: a cluster (Nodes labelled zone, rack and host, a
few running Pods of priority 1000 that nothing preempts) and ``queue``, 10 to
50 gangs as ``simulate`` plays them. Every entry is what one ``QueueEntry`` of
count 1 holds: ``name``, ``arrival`` and ``duration`` (seconds), and its
request as ``groups`` (one PodGroup, Kubernetes JSON, with ``spec.priority``)
and ``templates`` (its pod count and pod template), that is
``PlacementRequest.from_groups(groups, {name: Pods(count, template=...)})``.
``compare_queues.py`` replays an instance through ``simulate`` as it is.

Every gang is all or nothing (``minCount`` is its pod count); some have a
topology key (zone or rack). Arrivals are distinct whole seconds, so that no
two entries arrive together (``simulate`` breaks such ties with its seed, the
real queue by creation order); durations are whole seconds, 30 to 600. The
clusters are small (2 to 24 nodes, every allocatable its own) and the gangs
large enough that most queues wait.

Families:

* ``queues``: priorities 0, 10 and 20, every gang ``preemptionPolicy:
  Never``: priorities only order the queue;
* ``preempting``: the same with preemption allowed: a gang of higher priority
  that does not fit evicts running gangs of lower priority, which start over.

Usage::

    python tools/reference/scheduler/generate_queues.py --seed 34 --counts queues=80,preempting=40 > queues.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

FAMILIES = ("queues", "preempting")
ZONE = "topology.kubernetes.io/zone"
RACK = "topology.example.com/rack"
HOST = "kubernetes.io/hostname"


def _cluster(rng: random.Random) -> list[dict[str, Any]]:
    """2 to 24 nodes in 1 or 2 zones of 1 to 3 racks, every node's allocatable its own."""
    zones = rng.randint(1, 2)
    racks = rng.randint(1, 3)
    hosts = rng.randint(1, 4)
    nodes = []
    for z in range(zones):
        for r in range(racks):
            for _ in range(hosts):
                name = f"node-{len(nodes):02d}"
                cpu = rng.choice((8000, 16000, 32000)) - rng.randrange(0, 400, 10)
                memory = rng.choice((16, 32, 64)) * 1024 - rng.randrange(0, 512, 8)
                labels = {HOST: name, ZONE: f"zone-{z}", RACK: f"rack-{z}-{r}"}
                nodes.append(
                    {
                        "apiVersion": "v1",
                        "kind": "Node",
                        "metadata": {"name": name, "labels": labels},
                        "spec": {},
                        "status": {"allocatable": {"cpu": f"{cpu}m", "memory": f"{memory}Mi", "pods": "110"}},
                    }
                )
    if len(nodes) == 1:
        return _cluster(rng)
    return nodes


def _requests(rng: random.Random) -> dict[str, str]:
    return {
        "cpu": rng.choice(("500m", "1", "2", "3", "4", "6", "8")),
        "memory": rng.choice(("512Mi", "1Gi", "2Gi", "4Gi", "8Gi")),
    }


def _running(rng: random.Random, nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """0 to 4 lone running pods of priority 1000 (above every gang: never a victim)."""
    pods = []
    for p in range(rng.randint(0, 4)):
        node = rng.choice(nodes)
        pods.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"run-{p}", "namespace": "default", "labels": {"app": "running"}},
                "spec": {
                    "nodeName": node["metadata"]["name"],
                    "priority": 1000,
                    "containers": [{"name": "c", "image": "busybox", "resources": {"requests": _requests(rng)}}],
                },
                "status": {"phase": "Running", "startTime": "2026-07-01T08:00:00Z"},
            }
        )
    return pods


def _gang(rng: random.Random, name: str, arrival: int, preempt: bool) -> dict[str, Any]:
    """One queue entry: a gang of 1 to 8 pods of one shape, a priority, maybe a topology key."""
    count = rng.randint(1, 8)
    spec: dict[str, Any] = {"schedulingPolicy": {"gang": {"minCount": count}}, "priority": rng.choice((0, 10, 20))}
    key = rng.choice((None, None, RACK, ZONE))
    if key:
        spec["schedulingConstraints"] = {"topology": [{"key": key}]}
    if not preempt:
        spec["preemptionPolicy"] = "Never"
    group = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }
    template = {
        "metadata": {"labels": {"app": name}},
        "spec": {"containers": [{"name": "main", "image": "busybox", "resources": {"requests": _requests(rng)}}]},
    }
    return {
        "name": name,
        "arrival": arrival,
        "duration": rng.randrange(30, 601, 10),
        "groups": [group],
        "templates": {name: {"count": count, "template": template}},
    }


def instance(rng: random.Random, family: str, index: int) -> dict[str, Any]:
    """One instance of ``family``."""
    nodes = _cluster(rng)
    gangs = rng.randint(10, 50)
    span = rng.choice((2, 10, 30)) * gangs
    arrivals = sorted(rng.sample(range(span), gangs))
    queue = [_gang(rng, f"w{g:02d}", arrival, family == "preempting") for g, arrival in enumerate(arrivals)]
    return {
        "id": f"{family}-{index:04d}",
        "family": family,
        "nodes": nodes,
        "pods": _running(rng, nodes),
        "queue": queue,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--per-family", type=int, default=60)
    parser.add_argument("--counts", default="", help="instances per family, e.g. queues=80,preempting=40")
    parser.add_argument("--families", default=",".join(FAMILIES))
    args = parser.parse_args(argv)
    families = [f for f in args.families.split(",") if f]
    counts = {family: args.per_family for family in families}
    counts.update({k: int(v) for k, v in (item.split("=") for item in args.counts.split(",") if item)})
    header = {
        "seed": args.seed,
        "perFamily": counts,
        "families": families,
        "generator": "tools/reference/scheduler/generate_queues.py",
    }
    out = sys.stdout
    out.write(json.dumps({"header": header}) + "\n")
    for family in families:
        # One generator per family: a family's first instances do not depend on the others' counts.
        family_rng = random.Random(f"{args.seed}-{family}")
        for index in range(counts[family]):
            out.write(json.dumps(instance(family_rng, family, index), separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
