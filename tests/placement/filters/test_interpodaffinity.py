"""Required inter-pod affinity and anti-affinity, against running pods and within a gang; warnings on the rest."""

from __future__ import annotations

from typing import Any

import pytest
from placement_helpers import checked, cluster, node, pod_group, request, where

from workloadbuilder.placement import Pods, place

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"


def term(key: str, **labels: str) -> dict[str, Any]:
    return {"topologyKey": key, "labelSelector": {"matchLabels": labels}}


def pod(
    labels: dict[str, str],
    affinity: list[dict[str, Any]] | None = None,
    anti: list[dict[str, Any]] | None = None,
    **spec: Any,
) -> dict[str, Any]:
    rules: dict[str, Any] = {}
    if affinity:
        rules["podAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": affinity}
    if anti:
        rules["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": anti}
    body: dict[str, Any] = {"containers": [{"name": "m", "resources": {"requests": {"cpu": "1"}}}], **spec}
    if rules:
        body["affinity"] = rules
    return {"metadata": {"labels": labels}, "spec": body}


def hosts(*names: str, zone: dict[str, str] | None = None) -> list[dict[str, Any]]:
    return [node(n, **{HOST: n, **({ZONE: zone[n]} if zone and n in zone else {})}) for n in names]


RUNNING = [{"name": "db-0", "kind": "Pod", "node": "a", "requests": {"cpu": "1"}, "labels": {"app": "db"}}]
ZONES = {"a": "z1", "b": "z1", "c": "z2"}
CASES = [
    ("one pod per node among the gang", pod({"app": "w"}, anti=[term(HOST, app="w")]), 3, [], ["a", "b", "c"]),
    ("keep away from a running pod's zone", pod({"app": "w"}, anti=[term(ZONE, app="db")]), 1, RUNNING, ["c"]),
    ("stay in a running pod's zone", pod({"app": "w"}, affinity=[term(ZONE, app="db")]), 2, RUNNING, ["a", "b"]),
    (
        "the first of a series goes where its topology label is",
        pod({"app": "w"}, affinity=[term(ZONE, app="w")]),
        1,
        [],
        ["a"],
    ),
    (
        "another namespace's pods do not count",
        pod({"app": "w"}, anti=[{**term(ZONE, app="db"), "namespaces": ["other"]}]),
        1,
        RUNNING,
        ["b"],
    ),
]


@pytest.mark.parametrize(("spec", "count", "running", "nodes"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_pod_affinity_rules_decide_the_nodes(
    spec: dict[str, Any], count: int, running: list[dict[str, Any]], nodes: list[str]
) -> None:
    cl = cluster(*hosts("a", "b", "c", zone=ZONES), running=running)
    req = request([pod_group("pg", count)], {"pg": Pods(count, template=spec)})
    answer = checked(req, cl, place(req, cl))
    assert answer.feasible
    assert sorted(where(answer)["pg"][1]) == nodes


def test_a_gang_larger_than_its_one_per_node_domains_is_not_placed() -> None:
    cl = cluster(*hosts("a", "b"))
    req = request([pod_group("pg", 3)], {"pg": Pods(3, template=pod({"app": "w"}, anti=[term(HOST, app="w")]))})
    assert place(req, cl).feasible is False


def test_the_fit_error_names_the_anti_affinity_rule() -> None:
    cl = cluster(*hosts("a", "b", zone={"a": "z1", "b": "z1"}), running=RUNNING)
    req = request([pod_group("pg", 1)], {"pg": Pods(1, template=pod({"app": "w"}, anti=[term(ZONE, app="db")]))})
    (root,) = place(req, cl).explanation["roots"]
    assert root["fitErrors"] == [
        {
            "group": "pg",
            "pod": "pg-0",
            "message": "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.",
        }
    ]


WARNINGS = [
    (
        "a persistent volume claim",
        {"volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "d"}}]},
        (
            "PodGroup pg: spec.volumes[0].persistentVolumeClaim: volumes, their binding and topology are not modelled "
            "(VolumeBinding, VolumeZone, NodeVolumeLimits)"
        ),
    ),
    (
        "a spread constraint",
        {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"}]},
        (
            "PodGroup pg: spec.topologySpreadConstraints: spread counts running pods and this PodGroup's own pods, "
            "not the pods of other groups placed in the same cycle"
        ),
    ),
    (
        "per-pod claims",
        {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu"}]},
        "PodGroup pg: spec.resourceClaims: per-pod DRA claims are not modelled (only the PodGroup's group claims are)",
    ),
    (
        "another scheduler",
        {"schedulerName": "volcano"},
        "PodGroup pg: spec.schedulerName: 'volcano' is not kube-scheduler's default profile, which this model follows",
    ),
]


@pytest.mark.parametrize(("extra", "warning"), [c[1:] for c in WARNINGS], ids=[c[0] for c in WARNINGS])
def test_what_is_not_modelled_is_named_on_the_answer(extra: dict[str, Any], warning: str) -> None:
    cl = cluster(*hosts("a"))
    req = request([pod_group("pg", 1)], {"pg": Pods(1, template=pod({"app": "w"}, **extra))})
    answer = place(req, cl)
    assert answer.warnings == [warning]
    assert f"warning: {warning}" in answer.text.splitlines()
