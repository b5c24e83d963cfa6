"""How far the engine agrees with the real kube-scheduler on the PodTopologySpread and InterPodAffinity scores.

Reads ``tests/data/scheduler-real/pod-scores.jsonl.gz`` (``generate_pod_scores.py``
run through the harness) and, per family, counts the instances where:

* ``feasible``: at every step the engine's feasible nodes equal the real ones;
* ``pod-scores``: at every step, on every real feasible node, the engine's
  ``pod_scores`` equal the real 2 x PodTopologySpread + 2 x InterPodAffinity;
* ``totals``: the engine's whole score (``scores_after`` + ``preference_array``
  + ``pod_scores``) equals the real weighted total on every feasible node;
* ``chosen``: the nodes ``place`` puts the pods on, in order, are the recorded
  ones (a single pod: one of the real best; a gang: at each step the first of
  the real best by name, which the harness assumed; see ``sequence.go``).

A gang's step ``k`` is scored by the engine with the ``k`` copies before it
assumed on the recorded nodes (``Snapshot.add`` and ``pod_scores``'s ``assumed``),
as its ``assign_pods`` pass holds them.

Usage: ``python tools/reference/scheduler/compare_pod_scores.py [FILE] [--show=FAMILY:COLUMN]`` (no Go needed).
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import compare  # noqa: E402  (the script folder, put on the path above)

from workloadbuilder.placement import PlacementRequest, Pods, place  # noqa: E402
from workloadbuilder.placement.explain.fiterror import node_reasons  # noqa: E402
from workloadbuilder.placement.framework import scoring  # noqa: E402
from workloadbuilder.placement.framework.snapshot import Snapshot, slots_of  # noqa: E402
from workloadbuilder.placement.strategies.kube_scheduler import KubeScheduler  # noqa: E402

DATA = Path(__file__).resolve().parents[3] / "tests" / "data" / "scheduler-real" / "pod-scores.jsonl.gz"
POD_PLUGINS = ("PodTopologySpread", "InterPodAffinity")
COLUMNS = ("feasible", "pod-scores", "totals", "chosen")


def load(path: Path = DATA) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the instances of the recording."""
    return compare.load(path)


def steps_of(instance: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """The recorded steps (one single-pod result per copy) and the node each copy was assumed on."""
    result = instance["result"]
    if "steps" in result:
        return result["steps"], result["chosen"]
    return [result], result["best"][:1]


def request_of(instance: dict[str, Any]) -> PlacementRequest:
    """The pod, ``count`` times (1 for a single pod), as a group of basic policy (minCount 1)."""
    pod = instance["pod"]
    group = {
        "kind": "PodGroup",
        "metadata": {"name": "g", "namespace": "default"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 1}}},
    }
    template = {"metadata": pod.get("metadata", {}), "spec": pod["spec"]}
    return PlacementRequest.from_groups([group], {"g": Pods(instance.get("count", 1), template=template)})


def engine_steps(instance: dict[str, Any]) -> list[dict[str, Any]]:
    """Per recorded step: the engine's feasible nodes, its totals and pod scores on them, with the copies before it."""
    cluster = compare.cluster_of(instance)
    request = request_of(instance)
    names = [node["metadata"]["name"] for node in instance["nodes"]]
    index = {name: i for i, name in enumerate(names)}
    steps, chosen = steps_of(instance)
    out = []
    for k in range(len(steps)):
        snap = Snapshot(cluster.with_slots(slot for pod in request.pod_constraints() for slot in slots_of(pod)))
        ((shape, _),) = KubeScheduler(snap).shapes(request.roots[0])
        everyone = np.arange(len(names), dtype=np.int64)
        before = scoring.score_inputs(snap, everyone)
        counts = np.zeros(len(names), dtype=np.int64)
        for name in chosen[:k]:
            snap.add(index[name], shape.vector)
            counts[index[name]] += 1
        feasible = np.asarray([i for i in range(len(names)) if not node_reasons(snap, shape, i)], dtype=np.int64)
        resources = scoring.scores_after(shape, before.take(feasible), counts[feasible]) if len(feasible) else feasible
        assert resources is not None
        totals = resources + scoring.preference_array(snap, shape, feasible)
        pods = np.zeros(len(feasible), dtype=np.int64)
        if hasattr(scoring, "pod_scores") and len(feasible):  # the engine before these scores had none
            pods = scoring.pod_scores(snap.cluster, shape.constraints, feasible, {shape.constraints: counts})
        totals = totals + pods
        out.append(
            {
                "feasible": sorted(names[i] for i in feasible.tolist()),
                "totals": {names[i]: int(t) for i, t in zip(feasible.tolist(), totals.tolist(), strict=True)},
                "pods": {names[i]: int(t) for i, t in zip(feasible.tolist(), pods.tolist(), strict=True)},
            }
        )
    return out


def engine_chosen(instance: dict[str, Any]) -> list[str]:
    """The nodes ``place`` binds the pods to, in placement order."""
    answer = place(request_of(instance), compare.cluster_of(instance))
    return [pod.node for pod in answer.group("g").pods if pod.node]


def judge(instance: dict[str, Any]) -> dict[str, bool]:
    """Which of the compared answers agree for one recorded instance."""
    steps, chosen = steps_of(instance)
    mine = engine_steps(instance)
    ok = dict.fromkeys(COLUMNS, True)
    for real, engine in zip(steps, mine, strict=True):
        weights = real["weights"]
        if engine["feasible"] != sorted(real["feasible"]):
            ok["feasible"] = ok["pod-scores"] = ok["totals"] = False
            continue
        for node in real["feasible"]:
            normalized = real["scores"][node]["normalized"]
            if engine["pods"][node] != sum(normalized.get(p, 0) * weights[p] for p in POD_PLUGINS):
                ok["pod-scores"] = False
            if engine["totals"][node] != real["scores"][node]["total"]:
                ok["totals"] = False
    bound = engine_chosen(instance)
    if "steps" in instance["result"]:
        ok["chosen"] = bound == chosen
    else:
        best = instance["result"]["best"]
        ok["chosen"] = (bound[:1] == [] and not best) or (len(bound) == 1 and bound[0] in best)
    return ok


def main(argv: list[str]) -> None:
    show = [a.split("=", 1)[1] for a in argv if a.startswith("--show=")]
    files = [a for a in argv if not a.startswith("--")]
    header, cases = load(Path(files[0]) if files else DATA)
    print(f"revision {header.get('revision')}, seed {header.get('seed')}, {len(cases)} instances")
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    sizes: collections.Counter[str] = collections.Counter()
    for case in cases:
        sizes[case["family"]] += 1
        sizes["all"] += 1
        for name, agrees in judge(case).items():
            counts[case["family"]][name] += agrees
            counts["all"][name] += agrees
            if not agrees and f"{case['family']}:{name}" in show:
                print("differs:", case["id"], name)
    print(f"{'family':<14}{'n':>6}" + "".join(f"{c:>12}" for c in COLUMNS))
    for family in [*sorted(f for f in sizes if f != "all"), "all"]:
        print(f"{family:<14}{sizes[family]:>6}" + "".join(f"{counts[family][c]:>12}" for c in COLUMNS))


if __name__ == "__main__":
    main(sys.argv[1:])
