"""Small builders for placement tests: nodes, runtime groups as Kubernetes JSON, and a compact view of answers."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, settings

from workloadbuilder.placement import Cluster, Placement, PlacementRequest, verify

COLUMNAR_SETTINGS = settings(
    max_examples=int(os.environ.get("WB_COLUMNAR_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
"""Hypothesis settings of the tests comparing a fast path with its reference;
``WB_COLUMNAR_EXAMPLES=3000`` runs more."""

ZONE = "topology.kubernetes.io/zone"
BLOCK = "topology.example.com/block"
RACK = "topology.example.com/rack"


def node(
    name: str,
    gpus: int = 8,
    *,
    cpu: str = "64",
    memory: str = "256Gi",
    used: dict[str, str] | None = None,
    **labels: str,
) -> dict[str, Any]:
    """A compact-YAML node; keyword labels use short names: ``zone``, ``block``, ``rack``."""
    keys = {"zone": ZONE, "block": BLOCK, "rack": RACK}
    entry: dict[str, Any] = {
        "name": name,
        "labels": {keys.get(k, k): v for k, v in labels.items()},
        "allocatable": {"cpu": cpu, "memory": memory, "nvidia.com/gpu": str(gpus), "pods": "110"},
    }
    if used:
        entry["used"] = used
    return entry


def cluster(*nodes: dict[str, Any], **sections: Any) -> Cluster:
    """A cluster from compact-YAML nodes (and ``devicePools`` / ``running`` sections)."""
    return Cluster.from_yaml({"nodes": list(nodes), **sections})


def pod_group(
    name: str,
    min_count: int | None = None,
    *,
    key: str | None = None,
    parent: str | None = None,
    claims: list[dict[str, str]] | None = None,
    priority: int | None = None,
    mode: str | None = None,
) -> dict[str, Any]:
    """A runtime PodGroup as Kubernetes JSON; ``min_count=None`` is a basic policy."""
    spec: dict[str, Any] = {
        "schedulingPolicy": {"basic": {}} if min_count is None else {"gang": {"minCount": min_count}}
    }
    if key:
        spec["schedulingConstraints"] = {"topology": [{"key": key}]}
    if parent:
        spec["parentCompositePodGroupName"] = parent
    if claims:
        spec["resourceClaims"] = claims
    if priority is not None:
        spec["priority"] = priority
    if mode:
        spec["disruptionMode"] = {mode: {}}
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": name}, "spec": spec}


def composite(
    name: str,
    min_group_count: int | None = None,
    *,
    key: str | None = None,
    parent: str | None = None,
    priority: int | None = None,
) -> dict[str, Any]:
    """A runtime CompositePodGroup as Kubernetes JSON; ``min_group_count=None`` is a basic policy."""
    spec: dict[str, Any] = {
        "schedulingPolicy": {"basic": {}} if min_group_count is None else {"gang": {"minGroupCount": min_group_count}}
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
        "metadata": {"name": name},
        "spec": spec,
    }


def request(
    groups: list[dict[str, Any]], pods: dict[str, Any], claims: dict[str, Any] | None = None
) -> PlacementRequest:
    return PlacementRequest.from_groups(groups, pods, claims)


def where(answer: Placement) -> dict[str, tuple[dict[str, str], list[str]]]:
    """Each placed group's domains (short keys) and its pods' nodes, for exact assertions."""
    short = {ZONE: "zone", BLOCK: "block", RACK: "rack"}
    return {
        group.name: ({short.get(k, k): v for k, v in group.domains.items()}, [pod.node for pod in group.pods])
        for group in answer.groups
        if group.pods or group.domains
    }


def checked(req: PlacementRequest, cl: Cluster, answer: Placement) -> Placement:
    """The answer, after asserting that the independent checker finds nothing wrong."""
    problems = verify(req, cl, answer)
    assert [str(p) for p in problems] == []
    return answer
