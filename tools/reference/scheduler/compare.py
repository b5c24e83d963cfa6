"""How far the engine's single-pod choices agree with the real kube-scheduler's, per family.

Reads ``tests/data/scheduler-real/single-pods.jsonl.gz`` (the harness's output) and,
for every instance, builds the engine's Cluster and a one-pod request as a user
would, then counts per family:

* ``feasible``: the engine's feasible node set (no filter reason) equals the real one;
* ``chosen-in-best``: the node ``place`` binds the pod to is one of the real best nodes
  (an instance the real scheduler finds infeasible counts when the engine binds nothing);
* ``totals``: on every real feasible node the engine's score (resource scores plus the
  TaintToleration and NodeAffinity preferences, weighted) equals the real weighted total;
* ``resources``: the engine's resource score (``node_score``) equals the real
  NodeResourcesFit + NodeResourcesBalancedAllocation on every feasible node;
* ``preferences``: ``preference_scores`` equals the real 3 x TaintToleration + 2 x NodeAffinity + ImageLocality;
* ``modelled``: the same for their sum, against the real total of the five plugins the engine models
  (NodeResourcesFit, NodeResourcesBalancedAllocation, TaintToleration, NodeAffinity, ImageLocality);
* ``engine-best-in-best``: the engine's highest-scored feasible nodes are among the real best.

Usage: ``python tools/reference/scheduler/compare.py [FILE]`` (no Go needed).
"""

from __future__ import annotations

import collections
import gzip
import json
import sys
from pathlib import Path
from typing import Any

from workloadbuilder.placement import Cluster, PlacementRequest, Pods, place
from workloadbuilder.placement.explain.fiterror import node_reasons
from workloadbuilder.placement.framework.scoring import node_score, preference_scores
from workloadbuilder.placement.framework.snapshot import Snapshot, slots_of
from workloadbuilder.placement.strategies.kube_scheduler import KubeScheduler

DATA = Path(__file__).resolve().parents[3] / "tests" / "data" / "scheduler-real" / "single-pods.jsonl.gz"
MODELLED = ("NodeResourcesFit", "NodeResourcesBalancedAllocation", "TaintToleration", "NodeAffinity", "ImageLocality")


def load(path: Path = DATA) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the instances of a recording."""
    opener: Any = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as stream:
        lines = [json.loads(line) for line in stream if line.strip()]
    return lines[0]["header"], lines[1:]


def cluster_of(instance: dict[str, Any]) -> Cluster:
    """The instance's nodes and running pods as one ``kubectl get -o json`` list."""
    return Cluster.from_kubectl({"apiVersion": "v1", "kind": "List", "items": instance["nodes"] + instance["pods"]})


def request_of(instance: dict[str, Any]) -> PlacementRequest:
    """The pod to place as a group of one (minCount 1) whose template is that pod."""
    pod = instance["pod"]
    group = {
        "kind": "PodGroup",
        "metadata": {"name": "g", "namespace": "default"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 1}}},
    }
    template = {"metadata": pod.get("metadata", {}), "spec": pod["spec"]}
    return PlacementRequest.from_groups([group], {"g": Pods(1, template=template)})


def engine_view(instance: dict[str, Any]) -> dict[str, Any]:
    """The engine's feasible nodes, its per-node scores over them, and the node ``place`` chooses."""
    cluster, request = cluster_of(instance), request_of(instance)
    snap = Snapshot(cluster.with_slots(slot for pod in request.pod_constraints() for slot in slots_of(pod)))
    ((shape, _),) = KubeScheduler(snap).shapes(request.roots[0])
    names = [node["metadata"]["name"] for node in instance["nodes"]]
    feasible = [i for i in range(len(names)) if not node_reasons(snap, shape, i)]
    preferences = preference_scores(snap, shape, feasible)
    resources = {names[i]: node_score(snap, i, shape) for i in feasible}
    scores = {names[i]: resources[names[i]] + preferences[i] for i in feasible}
    bound = [pod.node for pod in place(request, cluster).group("g").pods if pod.node]
    return {
        "feasible": sorted(names[i] for i in feasible),
        "scores": scores,
        "resources": resources,
        "preferences": {names[i]: preferences[i] for i in feasible},
        "chosen": bound[0] if bound else None,
    }


def judge(case: dict[str, Any]) -> dict[str, bool]:
    """Which of the compared answers agree for one recorded instance."""
    real, mine = case["result"], engine_view(case)
    weights = real["weights"]
    feasible = mine["feasible"] == sorted(real["feasible"])
    best = set(real["best"])
    chosen = mine["chosen"] in best if best else mine["chosen"] is None
    totals = feasible and all(mine["scores"][n] == real["scores"][n]["total"] for n in real["feasible"])
    modelled = feasible and all(
        mine["scores"][n] == sum(real["scores"][n]["normalized"].get(p, 0) * weights.get(p, 1) for p in MODELLED)
        for n in real["feasible"]
    )

    def real_sum(node: str, plugins: tuple[str, ...]) -> int:
        return sum(real["scores"][node]["normalized"].get(p, 0) * weights.get(p, 1) for p in plugins)

    resources = feasible and all(mine["resources"][n] == real_sum(n, MODELLED[:2]) for n in real["feasible"])
    preferences = feasible and all(mine["preferences"][n] == real_sum(n, MODELLED[2:]) for n in real["feasible"])
    top = max(mine["scores"].values(), default=None)
    engine_best = {n for n, s in mine["scores"].items() if s == top}
    return {
        "feasible": feasible,
        "chosen-in-best": chosen,
        "totals": totals,
        "resources": resources,
        "preferences": preferences,
        "modelled": modelled,
        "engine-best-in-best": engine_best <= best if best else not engine_best,
    }


def main(argv: list[str]) -> None:
    header, cases = load(Path(argv[0]) if argv else DATA)
    print(f"revision {header.get('revision')}, seed {header.get('seed')}, {len(cases)} instances")
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    sizes: collections.Counter[str] = collections.Counter()
    for case in cases:
        sizes[case["family"]] += 1
        sizes["all"] += 1
        for name, ok in judge(case).items():
            counts[case["family"]][name] += ok
            counts["all"][name] += ok
    columns = ("feasible", "chosen-in-best", "engine-best-in-best", "resources", "preferences", "modelled", "totals")
    print(f"{'family':<14}{'n':>6}" + "".join(f"{c:>20}" for c in columns))
    for family in [*sorted(f for f in sizes if f != "all"), "all"]:
        print(f"{family:<14}{sizes[family]:>6}" + "".join(f"{counts[family][c]:>20}" for c in columns))


if __name__ == "__main__":
    main(sys.argv[1:])
