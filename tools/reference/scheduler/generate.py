"""Seeded single-pod instances for the real-scheduler harness (``main.go``).

Each line is one instance: Kubernetes JSON Nodes, running Pods (with
``spec.nodeName``) and the Pod to place. The first line is a header with the
seed and the families; the harness adds the revision and gates. Usage::

    python tools/reference/scheduler/generate.py --seed 34 --per-family 150 > instances.jsonl

Every cluster has fewer than 100 nodes, so kube-scheduler scores every feasible
node (no ``percentageOfNodesToScore`` sampling).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

FAMILIES = ("shapes", "norequests", "affinity", "taints", "images", "unschedulable", "mixed")
ZONES = ("zone-a", "zone-b", "zone-c")
DISKS = ("ssd", "hdd", "nvme")
IMAGES = ("registry.example/app:1", "registry.example/db:2", "registry.example/cache:3", "registry.example/ml:4")
NODE_SHAPES = (
    ("2", "4Gi"),
    ("4", "8Gi"),
    ("8", "16Gi"),
    ("8", "32Gi"),
    ("16", "64Gi"),
    ("32", "128Gi"),
    ("3500m", "7Gi"),
)
CPU_REQUESTS = ("50m", "100m", "250m", "500m", "750m", "1", "1500m", "2", "3", "4")
MEMORY_REQUESTS = ("64Mi", "128Mi", "256Mi", "512Mi", "1Gi", "1536Mi", "2Gi", "4Gi", "6Gi")
TAINT_KEYS = ("dedicated", "gpu", "spot", "maintenance")


def _requests(rng: random.Random, family: str) -> dict[str, str]:
    if family == "norequests" or rng.random() < 0.15:
        return {}
    out: dict[str, str] = {}
    roll = rng.random()
    if roll < 0.8:
        out["cpu"] = rng.choice(CPU_REQUESTS)
    if roll > 0.2:
        out["memory"] = rng.choice(MEMORY_REQUESTS)
    return out


def _containers(rng: random.Random, family: str, prefix: str, images: bool) -> list[dict[str, Any]]:
    count = rng.choice((1, 1, 2, 3)) if family != "norequests" else rng.choice((1, 2, 3, 4))
    out = []
    for c in range(count):
        container: dict[str, Any] = {"name": f"{prefix}{c}", "image": rng.choice(IMAGES) if images else "busybox"}
        requests = _requests(rng, family)
        if requests:
            container["resources"] = {"requests": requests}
        out.append(container)
    return out


def _node(rng: random.Random, family: str, n: int) -> dict[str, Any]:
    cpu, memory = rng.choice(NODE_SHAPES)
    name = f"node-{n:02d}"
    labels = {
        "kubernetes.io/hostname": name,
        "topology.kubernetes.io/zone": rng.choice(ZONES),
        "disk": rng.choice(DISKS),
    }
    if rng.random() < 0.3:
        labels["pool"] = rng.choice(("batch", "web"))
    spec: dict[str, Any] = {}
    if family in ("taints", "mixed") and rng.random() < 0.5:
        taints = []
        for key in rng.sample(TAINT_KEYS, rng.choice((1, 1, 2))):
            effect = rng.choice(("PreferNoSchedule", "PreferNoSchedule", "NoSchedule", "NoExecute"))
            taint = {"key": key, "effect": effect}
            if rng.random() < 0.5:
                taint["value"] = rng.choice(("true", "team-a"))
            taints.append(taint)
        spec["taints"] = taints
    if family in ("unschedulable", "mixed") and rng.random() < 0.25:
        spec["unschedulable"] = True
    status: dict[str, Any] = {
        "allocatable": {"cpu": cpu, "memory": memory, "pods": rng.choice(("110", "110", "8"))},
    }
    if family in ("images", "mixed"):
        status["images"] = [
            {"names": [image], "sizeBytes": rng.choice((30, 200, 600, 1200)) * 1024 * 1024}
            for image in rng.sample(IMAGES, rng.randint(0, len(IMAGES)))
        ]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": spec,
        "status": status,
    }


def _match_expression(rng: random.Random) -> dict[str, Any]:
    key = rng.choice(("topology.kubernetes.io/zone", "disk", "pool"))
    values = {"topology.kubernetes.io/zone": ZONES, "disk": DISKS, "pool": ("batch", "web")}[key]
    operator = rng.choice(("In", "In", "NotIn", "Exists", "DoesNotExist"))
    expression: dict[str, Any] = {"key": key, "operator": operator}
    if operator in ("In", "NotIn"):
        expression["values"] = rng.sample(values, rng.randint(1, len(values)))
    return expression


def _affinity(rng: random.Random) -> dict[str, Any]:
    node_affinity: dict[str, Any] = {}
    if rng.random() < 0.5:
        terms = [{"matchExpressions": [_match_expression(rng)]} for _ in range(rng.choice((1, 1, 2)))]
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": terms}
    if rng.random() < 0.8 or not node_affinity:
        node_affinity["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": rng.randint(1, 100), "preference": {"matchExpressions": [_match_expression(rng)]}}
            for _ in range(rng.randint(1, 3))
        ]
    return {"nodeAffinity": node_affinity}


def _tolerations(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for key in rng.sample(TAINT_KEYS, rng.randint(0, 2)):
        toleration: dict[str, Any] = {"key": key}
        if rng.random() < 0.5:
            toleration["operator"] = "Exists"
        else:
            toleration["operator"] = "Equal"
            toleration["value"] = rng.choice(("true", "team-a"))
        if rng.random() < 0.5:
            toleration["effect"] = rng.choice(("PreferNoSchedule", "NoSchedule", "NoExecute"))
        out.append(toleration)
    return out


def instance(rng: random.Random, family: str, index: int) -> dict[str, Any]:
    """One instance of ``family``: a cluster of 3 to 99 nodes, some running pods, one pod to place."""
    size = rng.choice((rng.randint(3, 12), rng.randint(3, 12), rng.randint(10, 40), rng.randint(40, 99)))
    nodes = [_node(rng, family, n) for n in range(size)]
    images = family in ("images", "mixed")
    running = []
    for p in range(rng.randint(0, size + size // 2)):
        node = rng.choice(nodes)
        running.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"run-{p:03d}", "namespace": "default", "labels": {"app": f"a{p % 4}"}},
                "spec": {"nodeName": node["metadata"]["name"], "containers": _containers(rng, family, "c", images)},
                "status": {"phase": "Running"},
            }
        )
    spec: dict[str, Any] = {"containers": _containers(rng, family, "main", images)}
    if family in ("affinity", "mixed") and rng.random() < 0.9:
        spec["affinity"] = _affinity(rng)
    if family in ("affinity", "mixed") and rng.random() < 0.25:
        spec["nodeSelector"] = {"disk": rng.choice(DISKS)}
    if family in ("taints", "mixed"):
        tolerations = _tolerations(rng)
        if tolerations:
            spec["tolerations"] = tolerations
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "incoming", "namespace": "default"}, "spec": spec}
    return {"id": f"{family}-{index:04d}", "family": family, "nodes": nodes, "pods": running, "pod": pod}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--per-family", type=int, default=150)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    out = sys.stdout
    header = {
        "seed": args.seed,
        "perFamily": args.per_family,
        "families": list(FAMILIES),
        "generator": "tools/reference/scheduler/generate.py",
    }
    out.write(json.dumps({"header": header}) + "\n")
    for family in FAMILIES:
        for index in range(args.per_family):
            out.write(json.dumps(instance(rng, family, index), separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
