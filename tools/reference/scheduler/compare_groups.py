"""How far the engine's pod-group placements agree with the real kube-scheduler's, per family.

Reads ``tests/data/scheduler-real/groups.jsonl.gz`` (the harness's output for
``generate_groups.py``'s instances): every instance was run through a whole
kube-scheduler 1.37.2 several times, and its ``result.outcomes`` are the distinct
outcomes (bound node of every pod, deleted pods) with how often each came; more
than one means the real scheduler broke a tie at random. For every instance the
engine is given what a user would give it (``Cluster.from_kubectl`` over the
instance's objects, ``PlacementRequest.from_groups`` over its groups and pod
templates, ``place(..., preempt=True)`` for the preemption family, and
``score_all_nodes=False``: kube-scheduler's node sampling and tie-breaking, pod by pod;
``--score-all-nodes`` compares the engine's default instead) and each
answer is counted as agreeing when it equals the answer of *some* recorded
outcome:

* ``verdict``: which PodGroups have pods placed;
* ``domains``: for every group with a topology key (PodGroup or
  CompositePodGroup), the key's value at the nodes its pods went to;
* ``nodes``: every PodGroup's pods on the same nodes (as a multiset: the pods of
  one PodGroup share one template, so which of them the real queue took first
  does not matter);
* ``victims``: the same pods deleted (preemption family);
* ``all``: every one of these at once, from one outcome.

``ties`` counts the instances where the runs differed. Usage:
``python tools/reference/scheduler/compare_groups.py [FILE] [--show=FAMILY:COLUMN] [--known] [--score-all-nodes]`` (no Go
needed): ``--show`` prints the engine's and the real answers where a column differs, ``--known``
the instances and columns that differ, as ``groups-known-differences.json`` lists them.
"""

from __future__ import annotations

import collections
import gzip
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from workloadbuilder.placement import Cluster, PlacementRequest, Pods, place

DATA = Path(__file__).resolve().parents[3] / "tests" / "data" / "scheduler-real" / "groups.jsonl.gz"
COLUMNS = ("verdict", "domains", "nodes", "victims", "all")
SCORE_ALL_NODES = False
"""The engine's ``place(score_all_nodes=...)`` in ``engine_summary`` (``--score-all-nodes`` sets it)."""


def read_lines(path: Path) -> list[dict[str, Any]]:
    """The JSON lines of a recording, gzip-compressed or not."""
    opener: Any = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as stream:
        return [json.loads(line) for line in stream if line.strip()]


def load(path: Path = DATA) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the instances of a recording."""
    lines = read_lines(path)
    return lines[0]["header"], lines[1:]


def cluster_of(instance: dict[str, Any]) -> Cluster:
    """The instance's nodes, running pods and groups, budgets and classes as one ``kubectl get -o json`` list."""
    items = [
        *instance["nodes"],
        *instance["pods"],
        *instance.get("runningGroups", []),
        *instance.get("pdbs", []),
        *instance.get("priorityClasses", []),
    ]
    return Cluster.from_kubectl({"apiVersion": "v1", "kind": "List", "items": items})


def request_of(instance: dict[str, Any]) -> PlacementRequest:
    """The instance's groups, each PodGroup with its pods from its template."""
    pods = {name: Pods(t["count"], template=t["template"]) for name, t in instance["templates"].items()}
    return PlacementRequest.from_groups(instance["groups"], pods)


def _tree(instance: dict[str, Any]) -> tuple[dict[str, str | None], dict[str, str | None], dict[str, str]]:
    """Each group's topology key, its parent, and each pod's PodGroup."""
    keys: dict[str, str | None] = {}
    parents: dict[str, str | None] = {}
    for group in instance["groups"]:
        spec = group.get("spec", {})
        topology = (spec.get("schedulingConstraints") or {}).get("topology") or []
        keys[group["metadata"]["name"]] = topology[0]["key"] if topology else None
        parents[group["metadata"]["name"]] = spec.get("parentCompositePodGroupName")
    owner = {f"{name}-{i}": name for name, t in instance["templates"].items() for i in range(t["count"])}
    return keys, parents, owner


def summary(instance: dict[str, Any], bound: dict[str, str], victims: Iterable[str]) -> dict[str, Any]:
    """The compared answers of one placement: pod name to node, and the pods deleted."""
    keys, parents, owner = _tree(instance)
    labels = {node["metadata"]["name"]: node["metadata"].get("labels", {}) for node in instance["nodes"]}
    nodes: dict[str, list[str]] = collections.defaultdict(list)
    under: dict[str, list[str]] = collections.defaultdict(list)
    for pod, node in bound.items():
        group: str | None = owner[pod]
        nodes[owner[pod]].append(node)
        while group is not None:
            under[group].append(node)
            group = parents.get(group)
    domains = {}
    for group, key in keys.items():
        if key is not None and under.get(group):
            domains[group] = sorted({labels[node].get(key, "") for node in under[group]})
    return {
        "verdict": sorted(nodes),
        "domains": domains,
        "nodes": {group: sorted(names) for group, names in sorted(nodes.items())},
        "victims": sorted(victims),
    }


def engine_summary(instance: dict[str, Any]) -> dict[str, Any]:
    """The engine's answers for one instance, in ``summary``'s form."""
    family = instance["family"]
    answer = place(
        request_of(instance), cluster_of(instance), preempt=family == "preemption", score_all_nodes=SCORE_ALL_NODES
    )
    bound = {pod.name: pod.node for group in answer.groups for pod in group.pods if pod.node}
    victims = [pod.name.split("/", 1)[-1] for victim in answer.victims for pod in victim.pods]
    return summary(instance, bound, victims)


def real_summaries(instance: dict[str, Any]) -> list[dict[str, Any]]:
    """The summary of every distinct recorded outcome."""
    return [summary(instance, o["bound"], o["victims"]) for o in instance["result"]["outcomes"]]


def judge(instance: dict[str, Any], mine: dict[str, Any] | None = None) -> dict[str, bool]:
    """Which compared answers of the engine equal those of some recorded outcome."""
    mine = mine if mine is not None else engine_summary(instance)
    reals = real_summaries(instance)
    out = {column: any(real[column] == mine[column] for real in reals) for column in COLUMNS[:-1]}
    out["all"] = any(all(real[c] == mine[c] for c in COLUMNS[:-1]) for real in reals)
    return out


def table(cases: list[dict[str, Any]]) -> str:
    """The agreement per family as text."""
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for case in cases:
        verdicts = judge(case)
        tied = len(case["result"]["outcomes"]) > 1
        timed_out = any(o.get("timedOut") for o in case["result"]["outcomes"])
        for family in (case["family"], "all"):
            counts[family]["n"] += 1
            counts[family]["ties"] += tied
            counts[family]["timed-out"] += timed_out
            for name, ok in verdicts.items():
                counts[family][name] += ok
    columns = ("n", "ties", "timed-out", *COLUMNS)
    lines = [f"{'family':<12}" + "".join(f"{c:>11}" for c in columns)]
    for family in [*sorted(f for f in counts if f != "all"), "all"]:
        lines.append(f"{family:<12}" + "".join(f"{counts[family][c]:>11}" for c in columns))
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    global SCORE_ALL_NODES
    SCORE_ALL_NODES = "--score-all-nodes" in argv
    show = [a.split("=", 1)[1] for a in argv if a.startswith("--show=")]
    paths = [a for a in argv if not a.startswith("--")]
    header, cases = load(Path(paths[0]) if paths else DATA)
    if "--known" in argv:
        # The instances and answers that differ now, one line each (the known-differences file's entries).
        for case in cases:
            verdicts = judge(case)
            bad = [c for c in COLUMNS[:-1] if not verdicts[c]]
            if bad:
                print(f"    {json.dumps(case['id'])}: {json.dumps(bad)},")
        return
    print(f"revision {header.get('revision')}, seed {header.get('seed')}, {len(cases)} instances")
    if show:
        family, column = show[0].split(":")
        for case in cases:
            if case["family"] == family and not judge(case)[column]:
                print(case["id"], "engine", engine_summary(case)[column])
                for real in real_summaries(case):
                    print("  real", real[column])
        return
    print(table(cases))


if __name__ == "__main__":
    main(sys.argv[1:])
