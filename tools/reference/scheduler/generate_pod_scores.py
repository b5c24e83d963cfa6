"""Seeded instances for the PodTopologySpread and InterPodAffinity scores (``main.go``, ``sequence.go``).

Like ``generate.py`` (whose node and container builders it reuses): Kubernetes
JSON Nodes, running Pods with ``spec.nodeName`` and a Pod to place, on 3 to 60
nodes (no node sampling). Families:

* ``spread``: the pod has one or two ``whenUnsatisfiable: ScheduleAnyway``
  constraints (zone, rack, hostname or disk; ``maxSkew`` 1 to 3; selectors by
  ``matchLabels``, ``matchExpressions`` or ``matchLabelKeys``, now and then
  empty; node inclusion policies), sometimes beside a loose ``DoNotSchedule``
  one; some nodes have no rack label;
* ``podaffinity``: the pod has preferred pod affinity and anti-affinity terms;
  running pods carry required pod affinity and preferred (anti-)affinity
  terms of their own that may select the pod (the symmetric part);
* ``gangs``: ``count`` copies (2 to 8) of one pod placed one after another,
  each scored with the copies before it assumed (``sequence.go``); a third of
  them request no CPU or memory (the assumed pods' non-zero defaults), the
  rest spread or repel their own copies.

Usage::

    python tools/reference/scheduler/generate_pod_scores.py --seed 34 --per-family 120 > instances.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import _containers, _node  # noqa: E402  (the script folder, put on the path above)

FAMILIES = ("spread", "podaffinity", "gangs")
APPS = ("a0", "a1", "a2", "a3")
KEYS = ("topology.kubernetes.io/zone", "rack", "kubernetes.io/hostname", "disk")
NAMESPACES = ("default", "default", "default", "other")


def _cluster_node(rng: random.Random, n: int) -> dict[str, Any]:
    node = _node(rng, "mixed" if rng.random() < 0.3 else "shapes", n)
    node["status"].pop("images", None)
    if rng.random() < 0.85:
        node["metadata"]["labels"]["rack"] = f"rack-{rng.randint(0, 3)}"
    return node


def _selector(rng: random.Random) -> dict[str, Any]:
    roll = rng.random()
    if roll < 0.55:
        return {"matchLabels": {"app": rng.choice(APPS)}}
    if roll < 0.85:
        return {"matchExpressions": [{"key": "app", "operator": "In", "values": rng.sample(APPS, rng.randint(1, 3))}]}
    if roll < 0.95:
        return {"matchExpressions": [{"key": "tier", "operator": rng.choice(("Exists", "DoesNotExist"))}]}
    return {}


def _spread(rng: random.Random, when: str) -> dict[str, Any]:
    constraint: dict[str, Any] = {
        "maxSkew": rng.choice((1, 1, 2, 3)) if when == "ScheduleAnyway" else rng.randint(4, 8),
        "topologyKey": rng.choice(KEYS),
        "whenUnsatisfiable": when,
        "labelSelector": _selector(rng),
    }
    if rng.random() < 0.15:
        constraint["matchLabelKeys"] = ["tier"]
    if rng.random() < 0.2:
        constraint["nodeAffinityPolicy"] = rng.choice(("Honor", "Ignore"))
    if rng.random() < 0.25:
        constraint["nodeTaintsPolicy"] = rng.choice(("Honor", "Ignore"))
    return constraint


def _term(rng: random.Random) -> dict[str, Any]:
    term: dict[str, Any] = {"topologyKey": rng.choice(KEYS[:3]), "labelSelector": _selector(rng)}
    roll = rng.random()
    if roll < 0.15:
        term["namespaces"] = rng.sample(("default", "other"), rng.randint(1, 2))
    elif roll < 0.25:
        term["namespaceSelector"] = {}
    return term


def _weighted(rng: random.Random, count: int) -> list[dict[str, Any]]:
    return [{"weight": rng.randint(1, 100), "podAffinityTerm": _term(rng)} for _ in range(count)]


def _pod_affinity(rng: random.Random, running: bool) -> dict[str, Any]:
    affinity: dict[str, Any] = {}
    if rng.random() < 0.7:
        affinity["podAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": _weighted(rng, rng.randint(1, 2))}
    if rng.random() < 0.6 or not affinity:
        affinity["podAntiAffinity"] = {
            "preferredDuringSchedulingIgnoredDuringExecution": _weighted(rng, rng.randint(1, 2))
        }
    if running and rng.random() < 0.4:
        affinity.setdefault("podAffinity", {})["requiredDuringSchedulingIgnoredDuringExecution"] = [_term(rng)]
    return affinity


def _labels(rng: random.Random) -> dict[str, str]:
    labels = {"app": rng.choice(APPS)}
    if rng.random() < 0.4:
        labels["tier"] = rng.choice(("web", "db"))
    return labels


def instance(rng: random.Random, family: str, index: int) -> dict[str, Any]:
    """One instance of ``family``."""
    size = rng.choice((rng.randint(3, 10), rng.randint(3, 10), rng.randint(10, 30), rng.randint(30, 60)))
    nodes = [_cluster_node(rng, n) for n in range(size)]
    norequests = family == "gangs" and rng.random() < 0.34
    running = []
    for p in range(rng.randint(0, size * 2)):
        node = rng.choice(nodes)
        spec: dict[str, Any] = {
            "nodeName": node["metadata"]["name"],
            "containers": _containers(rng, "norequests" if rng.random() < 0.2 else "shapes", "c", False),
        }
        if family == "podaffinity" and rng.random() < 0.3:
            spec["affinity"] = _pod_affinity(rng, running=True)
        metadata = {"name": f"run-{p:03d}", "namespace": rng.choice(NAMESPACES), "labels": _labels(rng)}
        running.append(
            {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec, "status": {"phase": "Running"}}
        )
    spec = {"containers": _containers(rng, "norequests" if norequests else "shapes", "main", False)}
    labels = _labels(rng)
    count = rng.randint(2, 8) if family == "gangs" else 1
    if family == "spread" or (family == "gangs" and not norequests and rng.random() < 0.5):
        spec["topologySpreadConstraints"] = [_spread(rng, "ScheduleAnyway") for _ in range(rng.choice((1, 1, 2)))]
        if family == "gangs":
            spec["topologySpreadConstraints"][0]["labelSelector"] = {"matchLabels": {"app": labels["app"]}}
        if rng.random() < 0.2:
            spec["topologySpreadConstraints"].append(_spread(rng, "DoNotSchedule"))
    elif family == "podaffinity" or (family == "gangs" and not norequests):
        spec["affinity"] = _pod_affinity(rng, running=False)
        if family == "gangs":
            own = {
                "weight": rng.randint(1, 100),
                "podAffinityTerm": {
                    "topologyKey": rng.choice(KEYS[:3]),
                    "labelSelector": {"matchLabels": {"app": labels["app"]}},
                },
            }
            spec["affinity"].setdefault("podAntiAffinity", {}).setdefault(
                "preferredDuringSchedulingIgnoredDuringExecution", []
            ).append(own)
    elif norequests and rng.random() < 0.3:
        spec["topologySpreadConstraints"] = [_spread(rng, "ScheduleAnyway")]
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "incoming", "namespace": "default", "labels": labels},
        "spec": spec,
    }
    out: dict[str, Any] = {"id": f"{family}-{index:04d}", "family": family, "nodes": nodes, "pods": running, "pod": pod}
    if count > 1:
        out["count"] = count
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--per-family", type=int, default=120)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    header = {
        "seed": args.seed,
        "perFamily": args.per_family,
        "families": list(FAMILIES),
        "generator": "tools/reference/scheduler/generate_pod_scores.py",
    }
    sys.stdout.write(json.dumps({"header": header}) + "\n")
    for family in FAMILIES:
        for index in range(args.per_family):
            sys.stdout.write(json.dumps(instance(rng, family, index), separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
