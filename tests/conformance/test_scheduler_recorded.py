"""Every placement instance recorded from the Go reference gets the reference's answer here.

The instances (``tests/data/scheduler-recorded/recorded.jsonl``, see its README) are
replayed through the public API as a user would: the nodes and running pods as one
``kubectl get -o json`` list, the gang as a PodGroup with ``minCount`` (and a topology
constraint when the instance has a key) and ``count`` pods of the template. The rules:

* **verdict**: ``place`` says feasible exactly when the reference does (the reference
  counts how many pods of the template fit, per node, summed over the cluster or over
  each domain of the key, and compares with ``minCount``);
* **placement**: a feasible answer binds at least ``minCount`` and at most ``count``
  pods, and no node more than the reference says it takes; an infeasible one binds none;
* **domain**: with a topology key every bound pod is in one domain, and the reference
  found that domain feasible;
* **FitError line**: ``fit_error`` of one pod of the template on the untouched cluster is
  byte for byte the reference's (both absent when some node takes a pod); where the
  gang has no topology key, its one placement is that cluster and the explanation
  quotes the same line first (with a key, kube-scheduler's placement counts one
  domain's nodes: ``tests/e2e/test_scheduler_binds.py`` checks that against the real one);
* **per node**: on the untouched cluster, every node's reasons for one pod of the
  template are the reference's first rejecting filter's (none where it takes one), and
  the number of pods it takes before it refuses is the reference's capacity;
* the answer passes the project's own independent ``verify``.
"""

from __future__ import annotations

import collections
import functools
import json
from pathlib import Path
from typing import Any

import pytest

from workloadbuilder.placement import Cluster, Placement, PlacementRequest, Pods, place, verify
from workloadbuilder.placement.explain.fiterror import fit_error, node_reasons
from workloadbuilder.placement.framework.snapshot import Snapshot, slots_of
from workloadbuilder.placement.strategies.kube_scheduler import KubeScheduler

DATA = Path(__file__).resolve().parents[1] / "data" / "scheduler-recorded" / "recorded.jsonl"
RECORDED = [json.loads(line) for line in DATA.read_text().splitlines()]
IDS = [case["instance"]["id"] for case in RECORDED]
BY_ID = dict(zip(IDS, RECORDED, strict=True))
TOPOLOGY = [i for i in IDS if BY_ID[i]["instance"]["gang"]["topologyKey"]]
MOST_PODS = 1000
"""A bound on the pods one node is filled with when its capacity is counted (the instances stay far below)."""


def _cluster(instance: dict[str, Any]) -> Cluster:
    return Cluster.from_kubectl({"apiVersion": "v1", "kind": "List", "items": instance["nodes"] + instance["running"]})


def _request(instance: dict[str, Any]) -> PlacementRequest:
    gang = instance["gang"]
    spec: dict[str, Any] = {"schedulingPolicy": {"gang": {"minCount": gang["minCount"]}}}
    if gang["topologyKey"]:
        spec["schedulingConstraints"] = {"topology": [{"key": gang["topologyKey"]}]}
    group = {"kind": "PodGroup", "metadata": {"name": "g", "namespace": "default"}, "spec": spec}
    return PlacementRequest.from_groups([group], {"g": Pods(gang["count"], template=gang["pods"][0])})


@functools.cache
def _replayed(case_id: str) -> tuple[Cluster, PlacementRequest, Placement]:
    instance = BY_ID[case_id]["instance"]
    cluster, request = _cluster(instance), _request(instance)
    return cluster, request, place(request, cluster)


def _bound(answer: Placement) -> list[str]:
    return [pod.node for pod in answer.group("g").pods if pod.node]


@pytest.mark.parametrize("case_id", IDS, ids=IDS)
def test_verdict_is_the_references(case_id: str) -> None:
    _, _, answer = _replayed(case_id)
    assert answer.feasible is BY_ID[case_id]["go"]["feasible"]


@pytest.mark.parametrize("case_id", IDS, ids=IDS)
def test_placement_is_one_the_reference_allows(case_id: str) -> None:
    case = BY_ID[case_id]
    gang, go = case["instance"]["gang"], case["go"]
    _, _, answer = _replayed(case_id)
    bound = _bound(answer)
    if not go["feasible"]:
        assert bound == []
        return
    assert gang["minCount"] <= len(bound) <= gang["count"]
    over = {node: n for node, n in collections.Counter(bound).items() if n > go["capacity"].get(node, 0)}
    assert over == {}


@pytest.mark.parametrize("case_id", TOPOLOGY, ids=TOPOLOGY)
def test_domain_is_one_the_reference_found_feasible(case_id: str) -> None:
    case = BY_ID[case_id]
    key, go = case["instance"]["gang"]["topologyKey"], case["go"]
    _, _, answer = _replayed(case_id)
    labels = {node["metadata"]["name"]: node["metadata"]["labels"].get(key) for node in case["instance"]["nodes"]}
    domains = {labels[node] for node in _bound(answer)}
    if not go["feasible"]:
        assert domains == set()
        return
    assert len(domains) == 1
    assert domains <= set(go["feasibleDomains"])


@pytest.mark.parametrize("case_id", IDS, ids=IDS)
def test_fit_error_line_is_kube_schedulers(case_id: str) -> None:
    instance, expected = BY_ID[case_id]["instance"], BY_ID[case_id]["go"]["fitError"]
    request = _request(instance)
    cluster = _cluster(instance).with_slots(slot for pod in request.pod_constraints() for slot in slots_of(pod))
    snap = Snapshot(cluster)
    ((shape, _),) = KubeScheduler(snap).shapes(request.roots[0])
    assert fit_error(snap, shape) == expected
    if expected is not None and not instance["gang"]["topologyKey"]:
        _, _, answer = _replayed(case_id)
        lines = [entry["message"] for root in answer.explanation["roots"] for entry in root["fitErrors"]]
        assert lines[:1] == [expected]


@pytest.mark.parametrize("case_id", IDS, ids=IDS)
def test_each_nodes_reasons_and_capacity_are_the_references(case_id: str) -> None:
    case = BY_ID[case_id]
    instance, go = case["instance"], case["go"]
    request = _request(instance)
    cluster = _cluster(instance).with_slots(slot for pod in request.pod_constraints() for slot in slots_of(pod))
    snap = Snapshot(cluster)
    ((shape, _),) = KubeScheduler(snap).shapes(request.roots[0])
    names = [node["metadata"]["name"] for node in instance["nodes"]]
    got: dict[str, tuple[str | None, int]] = {}
    for i, name in enumerate(names):
        reasons = node_reasons(snap, shape, i)
        mark, taken = snap.mark(), 0
        while taken < MOST_PODS and not node_reasons(snap, shape, i):
            snap.add(i, shape.vector, 1)
            taken += 1
        snap.revert(mark)
        got[name] = ("|".join(reasons) or None, taken)
    assert got == {name: (go["firstReason"].get(name), go["capacity"].get(name, 0)) for name in names}


@pytest.mark.parametrize("case_id", IDS, ids=IDS)
def test_answer_passes_verify(case_id: str) -> None:
    cluster, request, answer = _replayed(case_id)
    assert [str(problem) for problem in verify(request, cluster, answer)] == []


def test_the_copy_holds_every_family_and_fit_error() -> None:
    families = collections.Counter(case["instance"]["family"] for case in RECORDED)
    names = ("affinity", "nofit", "podreq", "podslots", "ports", "quantity", "rack", "res", "taints", "zone")
    assert families == dict.fromkeys(names, 10)
    assert sum(case["go"]["fitError"] is not None for case in RECORDED) == 20
    assert len(TOPOLOGY) == 20
