"""Copies of a request: the same groups under new names, as a second submission of the same objects would make.

Capacity planning and simulation place the same workload many times. Copy ``k``
(from 1) renames every group and pod to ``<name>-<k>`` (``<name>-<prefix><k>``) and makes its claims
its own, so that copies never share a group, a pod or a claim; each copy
keeps the shape, quorum, topology, priority and disruption mode of the
original.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable

from workloadbuilder.placement.answer import Placement, PodPlacement
from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.cluster.records import RunningPod
from workloadbuilder.placement.k8s.resources import POD_MILLIS
from workloadbuilder.placement.request.model import ClaimRef, GroupRequest, PlacementRequest, PodSet

__all__ = ["as_running", "copies_of", "copy_name", "leaves", "placed_roots", "pod_sets"]


def copy_name(name: str, tag: str) -> str:
    """The name of ``name`` in the copy tagged ``tag``: ``<name>-<tag>``."""
    return f"{name}-{tag}"


def copies_of(request: PlacementRequest, first: int, count: int, prefix: str = "") -> PlacementRequest:
    """Copies ``first`` .. ``first + count - 1`` of every root of ``request``, copy by copy, roots in order.

    Copy ``k`` is tagged ``<prefix><k>``.
    """
    roots = [_renamed(root, f"{prefix}{k}") for k in range(first, first + count) for root in request.roots]
    return PlacementRequest(roots)


def placed_roots(answer: Placement, request: PlacementRequest) -> list[bool]:
    """Per root of ``request`` (the request ``answer`` answers), whether it was placed.

    A placed root has at least one pod placed in one of its groups; a root
    that is not placed has none (the engine places a root all or nothing).
    """
    by_name = {group.name: group for group in answer.groups}
    return [any(by_name[group.name].pods for group in root.walk()) for root in request.roots]


def _renamed(group: GroupRequest, k: str) -> GroupRequest:
    out = copy.copy(group)
    out.name = copy_name(group.name, k)
    out.parent = None if group.parent is None else copy_name(group.parent, k)
    out.pod_names = tuple(copy_name(pod, k) for pod in group.pod_names)
    out.pod_sets = tuple(
        dataclasses.replace(pods, names=tuple(copy_name(name, k) for name in pods.names)) for pods in group.pod_sets
    )
    out.claims = tuple(_claim(claim, k) for claim in group.claims)
    out.children = [_renamed(child, k) for child in group.children]
    return out


def _claim(claim: ClaimRef, k: str) -> ClaimRef:
    return dataclasses.replace(claim, identity=(*claim.identity, f"copy-{k}"))


def leaves(roots: Iterable[GroupRequest]) -> Iterable[GroupRequest]:
    """Every PodGroup under ``roots``."""
    for root in roots:
        for group in root.walk():
            if group.is_leaf:
                yield group


def pod_sets(group: GroupRequest) -> tuple[PodSet, ...]:
    """A PodGroup's pods by shape (one set of ``requests`` for a group read without pod sets)."""
    return group.pod_sets or (PodSet(group.count, group.requests, names=group.pod_names),)


def as_running(
    group: GroupRequest, placed: Iterable[PodPlacement], cluster: Cluster, priority: int, start: str = ""
) -> list[RunningPod]:
    """The placed pods of ``group`` as running pods of ``cluster``, each with its own pod set's requests and identity.

    A pod's set is the one its place in ``group.pod_names`` falls in.
    """
    position = {name: k for k, name in enumerate(group.pod_names)}
    out = []
    for pod in placed:
        pods = group.set_of(position[pod.name]) if group.pod_sets else pod_sets(group)[0]
        vector = tuple(pods.requests.get(r, 0) + (POD_MILLIS if r == "pods" else 0) for r in cluster.resources)
        constraints = pods.constraints
        out.append(
            RunningPod(
                pod.name,
                cluster.node_index[pod.node],
                vector,
                priority,
                group.name,
                start,
                constraints.namespace,
                dict(constraints.labels),
                constraints.host_ports,
            )
        )
    return out
