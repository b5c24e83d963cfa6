"""How far the engine's ``simulate`` agrees with a real kube-scheduler 1.37.2 run through the same queue.

Reads ``tests/data/scheduler-real/queues.jsonl.gz`` (the harness's output for
``generate_queues.py``'s instances): each queue was played several times
through a whole scheduler in simulated time (``queues.go``), and its
``result.outcomes`` are the distinct outcomes with how often each came. For
every instance the engine is given what a user would give ``simulate``: the
instance's objects as one ``Cluster.from_kubectl`` list and one
``QueueEntry(name, PlacementRequest.from_groups(groups, pods), arrival,
duration)`` per queue entry (the ``kube-scheduler`` strategy, seed 0, and
``score_all_nodes=False``: every pod placed as kube-scheduler's cycle places it;
``--score-all-nodes`` compares ``simulate``'s default instead). Per instance,
against each recorded outcome:

* ``starts``: every workload's start (the one that ran to its end; never
  started: ``None``) equals the recorded one;
* ``order``: the workloads in the order they started equal the recorded order
  (``simulate``'s order within one time is its pass order: priority, then
  arrival);
* ``all``: both, against one outcome.

An instance agrees on a column when some recorded outcome agrees. Usage:
``python tools/reference/scheduler/compare_queues.py [FILE] [--show=ID] [--known] [--score-all-nodes]`` (no Go needed):
``--show`` prints the first workloads whose start differs, ``--known`` the
instances and columns that differ, as ``queues-known-differences.json`` lists them.
"""

from __future__ import annotations

import collections
import gzip
import json
import sys
from pathlib import Path
from typing import Any

from workloadbuilder.placement import Cluster, PlacementRequest, Pods
from workloadbuilder.placement.planning.simulate import QueueEntry, Simulation, simulate

DATA = Path(__file__).resolve().parents[3] / "tests" / "data" / "scheduler-real" / "queues.jsonl.gz"
COLUMNS = ("starts", "order", "all")
SCORE_ALL_NODES = False
"""``simulate(score_all_nodes=...)`` for the engine's answers (``--score-all-nodes`` sets it)."""


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
    """The instance's nodes, running pods and classes as one ``kubectl get -o json`` list."""
    items = [*instance["nodes"], *instance["pods"], *instance.get("priorityClasses", [])]
    return Cluster.from_kubectl({"apiVersion": "v1", "kind": "List", "items": items})


def queue_of(instance: dict[str, Any]) -> list[QueueEntry]:
    """One ``QueueEntry`` per entry of the instance's queue, in order."""
    entries = []
    for entry in instance["queue"]:
        pods = {name: Pods(t["count"], template=t["template"]) for name, t in entry["templates"].items()}
        request = PlacementRequest.from_groups(entry["groups"], pods)
        entries.append(QueueEntry(entry["name"], request, entry["arrival"], entry["duration"]))
    return entries


def engine_run(instance: dict[str, Any]) -> Simulation:
    """``simulate`` over the instance, as it is."""
    return simulate(queue_of(instance), cluster_of(instance), score_all_nodes=SCORE_ALL_NODES)


def summary_of_simulation(instance: dict[str, Any], played: Simulation) -> dict[str, Any]:
    """``{"starts": {name: start or None}, "order": [names by start, then pass order]}`` of ``simulate``."""
    priority = {e["name"]: max(g["spec"].get("priority", 0) for g in e["groups"]) for e in instance["queue"]}
    position = {e["name"]: k for k, e in enumerate(instance["queue"])}
    starts = {run.name: run.start for run in played.workloads}
    started = [name for name, start in starts.items() if start is not None]
    started.sort(key=lambda name: (starts[name], -priority[name], position[name]))
    return {"starts": starts, "order": started}


def real_summaries(instance: dict[str, Any]) -> list[dict[str, Any]]:
    """The summary of every distinct recorded outcome."""
    return [{"starts": o["starts"], "order": o["order"] or []} for o in instance["result"]["outcomes"]]


def judge(instance: dict[str, Any], mine: dict[str, Any] | None = None) -> dict[str, bool]:
    """Which compared answers of the engine equal those of some recorded outcome."""
    mine = mine if mine is not None else summary_of_simulation(instance, engine_run(instance))
    reals = real_summaries(instance)
    out = {column: any(real[column] == mine[column] for real in reals) for column in COLUMNS[:-1]}
    out["all"] = any(all(real[c] == mine[c] for c in COLUMNS[:-1]) for real in reals)
    return out


def table(cases: list[dict[str, Any]]) -> str:
    """The agreement per family as text."""
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for case in cases:
        verdicts = judge(case)
        outcomes = case["result"]["outcomes"]
        for family in (case["family"], "all"):
            counts[family]["n"] += 1
            counts[family]["gangs"] += len(case["queue"])
            counts[family]["ties"] += len(outcomes) > 1
            counts[family]["timed-out"] += any(o["timedOut"] or o["partial"] for o in outcomes)
            for name, ok in verdicts.items():
                counts[family][name] += ok
    columns = ("n", "gangs", "ties", "timed-out", *COLUMNS)
    lines = [f"{'family':<12}" + "".join(f"{c:>11}" for c in columns)]
    for family in [*sorted(f for f in counts if f != "all"), "all"]:
        lines.append(f"{family:<12}" + "".join(f"{counts[family][c]:>11}" for c in columns))
    return "\n".join(lines)


def show(case: dict[str, Any]) -> None:
    """The workloads whose start differs from the first recorded outcome's, and both orders' heads."""
    mine = summary_of_simulation(case, engine_run(case))
    real = real_summaries(case)[0]
    for name, start in mine["starts"].items():
        if real["starts"].get(name) != start:
            print(f"  {name}: engine {start}, real {real['starts'].get(name)}")
    print("  engine order", mine["order"][:20])
    print("  real order  ", real["order"][:20])


def main(argv: list[str]) -> None:
    global SCORE_ALL_NODES
    SCORE_ALL_NODES = "--score-all-nodes" in argv
    shown = [a.split("=", 1)[1] for a in argv if a.startswith("--show=")]
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
    if shown:
        for case in cases:
            if case["id"] in shown:
                print(case["id"])
                show(case)
        return
    print(table(cases))


if __name__ == "__main__":
    main(sys.argv[1:])
