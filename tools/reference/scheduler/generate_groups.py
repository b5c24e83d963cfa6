"""Seeded pod-group instances for the real-scheduler harness (``main.go``, ``groups.go``).

Each line is one instance: a cluster (Nodes labelled zone, block, rack and
host; running Pods; for preemption, running PodGroups and CompositePodGroups,
PodDisruptionBudgets with ``status.disruptionsAllowed``) and what to place:
``groups`` (PodGroups and CompositePodGroups as Kubernetes JSON, linked by
``spec.parentCompositePodGroupName``) and ``templates`` (per PodGroup, how many
pods and their pod template). That is ``PlacementRequest.from_groups``'s input
as it is, and the harness expands each template into pods ``<group>-<i>``.

Families:

* ``gangs``: one PodGroup (gang ``minCount``, sometimes basic), with or without
  a topology key (zone, block, rack or host), some pods beyond ``minCount``;
* ``composites``: one CompositePodGroup over 2 to 4 PodGroups, or over
  CompositePodGroups over PodGroups (zone over block over rack), keys at every
  level or some, ``minGroupCount`` at most the children;
* ``roots``: 2 or 3 roots (PodGroups and composites) of distinct priorities, so
  kube-scheduler's queue takes them in one order;
* ``preemption``: a root of higher priority on a cluster full of running work of
  several priorities: lone pods, PodGroups and CompositePodGroups with
  ``disruptionMode`` single or all, budgets; some roots with
  ``preemptionPolicy: Never``;
* ``sampling``: one PodGroup of 1 to 40 pods, without a key or on zones, on a
  cluster of 100 to 450 nodes in 1 to 4 zones, where kube-scheduler scores only
  the first ``numFeasibleNodesToFind`` feasible nodes from its rotating start
  over the zone-interleaved node order (the only family at or above 100 nodes).

Node allocatable amounts differ from node to node, so that the real
scheduler's random tie-breaking between equal nodes and domains comes up
rarely; every cluster but ``sampling``'s has fewer than 100 nodes (no node
sampling). Usage::

    python tools/reference/scheduler/generate_groups.py --seed 34 --per-family 150 > groups.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

FAMILIES = ("gangs", "composites", "roots", "preemption", "sampling")
ZONE = "topology.kubernetes.io/zone"
BLOCK = "topology.example.com/block"
RACK = "topology.example.com/rack"
HOST = "kubernetes.io/hostname"
KEYS = (ZONE, BLOCK, RACK, HOST)
BASE = "2026-07-01T{:02d}:{:02d}:00Z"


def _time(minutes: int) -> str:
    return BASE.format(8 + minutes // 60, minutes % 60)


def _cluster(rng: random.Random) -> list[dict[str, Any]]:
    """Zones of blocks of racks of hosts, 4 to 72 nodes, every node's allocatable its own."""
    zones = rng.randint(1, 3)
    blocks = rng.randint(1, 2)
    racks = rng.randint(1, 3)
    hosts = rng.randint(1, 4)
    nodes = []
    gpu = rng.random() < 0.3
    for z in range(zones):
        for b in range(blocks):
            for r in range(racks):
                for h in range(hosts):
                    name = f"node-{len(nodes):02d}"
                    cpu = rng.choice((4000, 8000, 16000, 32000)) - rng.randrange(0, 400, 10)
                    memory = rng.choice((8, 16, 32, 64)) * 1024 - rng.randrange(0, 512, 8)
                    allocatable = {"cpu": f"{cpu}m", "memory": f"{memory}Mi", "pods": rng.choice(("110", "110", "8"))}
                    if gpu:
                        allocatable["nvidia.com/gpu"] = str(rng.choice((0, 4, 8)))
                    labels = {
                        HOST: name,
                        ZONE: f"zone-{z}",
                        BLOCK: f"block-{z}-{b}",
                        RACK: f"rack-{z}-{b}-{r}",
                    }
                    node: dict[str, Any] = {
                        "apiVersion": "v1",
                        "kind": "Node",
                        "metadata": {"name": name, "labels": labels},
                        "spec": {},
                        "status": {"allocatable": allocatable},
                    }
                    if rng.random() < 0.05:
                        node["spec"]["unschedulable"] = True
                    nodes.append(node)
    return nodes


def _large_cluster(rng: random.Random) -> list[dict[str, Any]]:
    """100 to 450 nodes in 1 to 4 zones, named so that the zones interleave unevenly, every allocatable its own."""
    count = rng.randint(100, 450)
    zones = rng.randint(1, 4)
    nodes = []
    for i in range(count):
        name = f"node-{i:03d}"
        zone = rng.randrange(zones)
        cpu = rng.choice((8000, 16000, 32000)) - rng.randrange(0, 2000, 10)
        memory = rng.choice((16, 32, 64)) * 1024 - rng.randrange(0, 2048, 8)
        labels = {HOST: name, ZONE: f"zone-{zone}", RACK: f"rack-{zone}-{i % 7}"}
        node: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": labels},
            "spec": {"unschedulable": True} if rng.random() < 0.03 else {},
            "status": {"allocatable": {"cpu": f"{cpu}m", "memory": f"{memory}Mi", "pods": "110"}},
        }
        nodes.append(node)
    return nodes


def _requests(rng: random.Random, gpu: bool) -> dict[str, str]:
    out = {
        "cpu": rng.choice(("250m", "500m", "1", "1500m", "2", "3", "4", "6")),
        "memory": rng.choice(("256Mi", "512Mi", "1Gi", "2Gi", "4Gi", "8Gi")),
    }
    if gpu and rng.random() < 0.6:
        out["nvidia.com/gpu"] = str(rng.choice((1, 1, 2, 4)))
    return out


def _template(rng: random.Random, gpu: bool) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "containers": [{"name": "main", "image": "busybox", "resources": {"requests": _requests(rng, gpu)}}]
    }
    if rng.random() < 0.15:
        spec["containers"].append(
            {"name": "side", "image": "busybox", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}
        )
    if rng.random() < 0.1:
        spec["nodeSelector"] = {ZONE: "zone-0"}
    return {"metadata": {"labels": {"app": "incoming"}}, "spec": spec}


def _pod_group(
    name: str, min_count: int | None, key: str | None, parent: str | None, priority: int | None, minute: int
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "schedulingPolicy": {"gang": {"minCount": min_count}} if min_count else {"basic": {}},
    }
    if key:
        spec["schedulingConstraints"] = {"topology": [{"key": key}]}
    if parent:
        spec["parentCompositePodGroupName"] = parent
    if priority is not None:
        spec["priority"] = priority
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default", "creationTimestamp": _time(minute)},
        "spec": spec,
    }


def _composite(
    name: str, min_groups: int | None, key: str | None, parent: str | None, priority: int | None, minute: int
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "schedulingPolicy": {"gang": {"minGroupCount": min_groups}} if min_groups else {"basic": {}},
    }
    if key:
        spec["schedulingConstraints"] = {"topology": [{"key": key}]}
    if parent:
        spec["parentCompositePodGroupName"] = parent
    if priority is not None:
        spec["priority"] = priority
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha3",
        "kind": "CompositePodGroup",
        "metadata": {"name": name, "namespace": "default", "creationTimestamp": _time(minute)},
        "spec": spec,
    }


def _key(rng: random.Random, below: str | None = None) -> str | None:
    """A topology key finer than ``below`` (any when ``None``), or none."""
    keys = KEYS if below is None else KEYS[KEYS.index(below) + 1 :]
    if not keys or rng.random() < 0.25:
        return None
    return rng.choice(keys)


def _gang(
    rng: random.Random,
    name: str,
    groups: list[dict[str, Any]],
    templates: dict[str, Any],
    gpu: bool,
    parent: str | None = None,
    below: str | None = None,
    priority: int | None = None,
    minute: int = 0,
) -> None:
    count = rng.randint(1, 8)
    min_count = None if rng.random() < 0.15 else rng.randint(1, count)
    groups.append(_pod_group(name, min_count, _key(rng, below), parent, priority, minute))
    templates[name] = {"count": count, "template": _template(rng, gpu)}


def _composite_root(
    rng: random.Random,
    name: str,
    groups: list[dict[str, Any]],
    templates: dict[str, Any],
    gpu: bool,
    priority: int | None = None,
    minute: int = 0,
) -> None:
    key = _key(rng, None) if rng.random() < 0.7 else None
    if key == HOST:
        key = RACK
    nested = rng.random() < 0.35 and key in (None, ZONE)
    children = rng.randint(2, 4 if not nested else 3)
    min_groups = None if rng.random() < 0.15 else rng.randint(1, children)
    groups.append(_composite(name, min_groups, key, None, priority, minute))
    for c in range(children):
        child = f"{name}-{c}"
        if nested:
            inner = rng.randint(1, 3)
            inner_key = BLOCK if rng.random() < 0.7 else None
            groups.append(_composite(child, rng.randint(1, inner), inner_key, name, priority, minute + c + 1))
            for i in range(inner):
                _gang(rng, f"{child}-{i}", groups, templates, gpu, child, inner_key or key, priority, minute + c + 1)
        else:
            _gang(rng, child, groups, templates, gpu, name, key, priority, minute + c + 1)


def _running(
    rng: random.Random, nodes: list[dict[str, Any]], gpu: bool, count: int, priority: int
) -> list[dict[str, Any]]:
    """Lone running pods on random nodes, taking some capacity (of ``priority``: none is a victim)."""
    pods = []
    for p in range(count):
        node = rng.choice(nodes)
        pods.append(_running_pod(rng, f"run-{p:03d}", node, gpu, priority, None, p))
    return pods


def _running_pod(
    rng: random.Random,
    name: str,
    node: dict[str, Any],
    gpu: bool,
    priority: int,
    group: str | None,
    minute: int,
    labels: dict[str, str] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "nodeName": node["metadata"]["name"],
        "priority": priority,
        "containers": [{"name": "c", "image": "busybox", "resources": {"requests": _requests(rng, gpu)}}],
    }
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": labels or {"app": f"a{minute % 3}"}},
        "spec": spec,
        "status": {"phase": "Running", "startTime": _time(minute)},
    }


def _preemption_cluster(
    rng: random.Random, nodes: list[dict[str, Any]], gpu: bool
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Running lone pods, PodGroups and CompositePodGroups of priorities 0 to 50, and budgets over them."""
    pods: list[dict[str, Any]] = []
    groups: list[dict[str, Any]] = []
    minute = 0
    for p in range(rng.randint(len(nodes), 3 * len(nodes))):
        minute += 1
        pods.append(_running_pod(rng, f"lone-{p:02d}", rng.choice(nodes), gpu, rng.choice((0, 10, 50)), None, minute))
    for g in range(rng.randint(1, 5)):
        minute += 1
        priority = rng.choice((0, 10, 50))
        mode = {"all": {}} if rng.random() < 0.5 else {"single": {}}
        composite = rng.random() < 0.3
        members = []
        if composite:
            cpg = _composite(f"held-{g}", None, None, None, priority, minute)
            cpg["spec"]["disruptionMode"] = {"all": {}} if rng.random() < 0.6 else {"single": {}}
            groups.append(cpg)
            for c in range(rng.randint(1, 3)):
                pg = _pod_group(f"held-{g}-{c}", 1, None, f"held-{g}", priority, minute)
                pg["spec"]["disruptionMode"] = mode
                groups.append(pg)
                members.append(pg["metadata"]["name"])
        else:
            pg = _pod_group(f"held-{g}", 1, None, None, priority, minute)
            pg["spec"]["disruptionMode"] = mode
            groups.append(pg)
            members.append(pg["metadata"]["name"])
        for member in members:
            for i in range(rng.randint(1, 4)):
                minute += 1
                labels = {"app": f"held-{g}"}
                pods.append(
                    _running_pod(rng, f"{member}-p{i}", rng.choice(nodes), gpu, priority, member, minute, labels)
                )
    budgets = []
    for b, app in enumerate(rng.sample(["a0", "a1", "a2", "held-0", "held-1"], rng.randint(0, 3))):
        budgets.append(
            {
                "apiVersion": "policy/v1",
                "kind": "PodDisruptionBudget",
                "metadata": {"name": f"pdb-{b}", "namespace": "default"},
                "spec": {"selector": {"matchLabels": {"app": app}}, "maxUnavailable": 1},
                "status": {"disruptionsAllowed": rng.choice((0, 0, 1, 2))},
            }
        )
    return pods, groups, budgets


def instance(rng: random.Random, family: str, index: int) -> dict[str, Any]:
    """One instance of ``family``."""
    nodes = _cluster(rng) if family != "sampling" else _large_cluster(rng)
    gpu = "nvidia.com/gpu" in nodes[0]["status"]["allocatable"]
    groups: list[dict[str, Any]] = []
    templates: dict[str, Any] = {}
    running_groups: list[dict[str, Any]] = []
    budgets: list[dict[str, Any]] = []
    if family == "preemption":
        pods, running_groups, budgets = _preemption_cluster(rng, nodes, gpu)
        priority = rng.choice((20, 100, 100, 100))
        if rng.random() < 0.5:
            _gang(rng, "w", groups, templates, gpu, priority=priority, minute=200)
        else:
            _composite_root(rng, "w", groups, templates, gpu, priority=priority, minute=200)
        if rng.random() < 0.1:
            groups[0]["spec"]["preemptionPolicy"] = "Never"
    else:
        pods = _running(rng, nodes, gpu, rng.randint(0, len(nodes) * 2), 0 if family != "roots" else 1000)
        if family == "sampling":
            count = rng.randint(1, 40)
            min_count = None if rng.random() < 0.2 else rng.randint(1, count)
            key = ZONE if rng.random() < 0.3 else None
            groups.append(_pod_group("w", min_count, key, None, None, 200))
            templates["w"] = {"count": count, "template": _template(rng, gpu)}
        elif family == "gangs":
            _gang(rng, "w", groups, templates, gpu, minute=200)
        elif family == "composites":
            _composite_root(rng, "w", groups, templates, gpu, minute=200)
        else:
            priorities = rng.sample((0, 10, 20, 30), rng.randint(2, 3))
            for r, priority in enumerate(priorities):
                if rng.random() < 0.5:
                    _gang(rng, f"r{r}", groups, templates, gpu, priority=priority, minute=200 + 10 * r)
                else:
                    _composite_root(rng, f"r{r}", groups, templates, gpu, priority=priority, minute=200 + 10 * r)
    return {
        "id": f"{family}-{index:04d}",
        "family": family,
        "nodes": nodes,
        "pods": pods,
        "runningGroups": running_groups,
        "pdbs": budgets,
        "groups": groups,
        "templates": templates,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--per-family", type=int, default=150)
    parser.add_argument(
        "--counts", default="", help="instances per family, e.g. gangs=200,preemption=220 (others: --per-family)"
    )
    parser.add_argument("--families", default=",".join(FAMILIES))
    args = parser.parse_args(argv)
    families = [f for f in args.families.split(",") if f]
    counts = {family: args.per_family for family in families}
    counts.update({k: int(v) for k, v in (item.split("=") for item in args.counts.split(",") if item)})
    header = {
        "seed": args.seed,
        "perFamily": counts,
        "families": families,
        "generator": "tools/reference/scheduler/generate_groups.py",
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
