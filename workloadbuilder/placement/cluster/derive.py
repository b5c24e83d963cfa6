"""New clusters derived from a cluster: a part of it, more nodes like one of its nodes, more running pods.

A ``Cluster`` never changes after construction; capacity planning and
simulation ask "what if" questions of clusters that differ from the given one
by a few nodes or pods. Each function here returns a new ``Cluster`` and
leaves its argument alone; every per-node fact (labels, allocatable, used,
cordon) and every pool and running pod that still applies is carried over.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.placement.cluster import images
from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.cluster.records import DevicePool, RunningGroup, RunningPod

__all__ = ["NEW_NODE_SUFFIX", "add_running", "node_named", "nodes_like", "restrict", "with_usage"]

NEW_NODE_SUFFIX = "-new-"
"""Added nodes are named ``<node>-new-<k>``, k from 1."""


def restrict(cluster: Cluster, nodes: Sequence[int]) -> Cluster:
    """The cluster made of ``nodes`` (indexes, kept in cluster order) alone.

    Device pools local to a dropped node go; pools shared by a domain stay
    (the domain may span nodes that remain). Running pods of dropped nodes go
    with their nodes.
    """
    keep = sorted(set(nodes))
    where = {old: new for new, old in enumerate(keep)}
    names = [cluster.names[i] for i in keep]
    kept = set(names)
    return cluster.replace(
        names=names,
        labels=[cluster.labels[i] for i in keep],
        taints=[cluster.taints[i] for i in keep],
        images=images.restricted(cluster.images, keep),
        allocatable=[[column[i] for i in keep] for column in cluster.allocatable],
        used=[[column[i] for i in keep] for column in cluster.used],
        schedulable=[cluster.schedulable[i] for i in keep],
        pools=[pool for pool in cluster.pools if pool.node is None or pool.node in kept],
        running_pods=[_moved(pod, where[pod.node]) for pod in cluster.running_pods if pod.node in where],
    )


def nodes_like(cluster: Cluster, name: str, count: int) -> Cluster:
    """The cluster plus ``count`` empty, schedulable nodes with the labels, taints and allocatable of node ``name``.

    The new nodes are named ``<name>-new-1`` ... and carry copies of the
    node's local device pools (empty of allocations).

    Raises:
        InvalidArgumentError: no node has that name, or ``count`` is negative.
    """
    i = node_named(cluster, name)
    if count < 0:
        raise InvalidArgumentError(f"the number of nodes to add must not be negative, not {count}")
    added = [f"{name}{NEW_NODE_SUFFIX}{k}" for k in range(1, count + 1)]
    pools: list[DevicePool] = list(cluster.pools)
    for pool in cluster.pools:
        if pool.node == name:
            pools += [
                DevicePool(f"{pool.name}{NEW_NODE_SUFFIX}{k}", pool.device_class, pool.count, 0, node=new)
                for k, new in enumerate(added, start=1)
            ]
    return cluster.replace(
        names=[*cluster.names, *added],
        labels=[*cluster.labels, *(dict(cluster.labels[i]) for _ in added)],
        taints=[*cluster.taints, *([cluster.taints[i]] * count)],
        images=images.extended(cluster.images, i, len(cluster.names), count),
        allocatable=[[*column, *([column[i]] * count)] for column in cluster.allocatable],
        used=[[*column, *([0] * count)] for column in cluster.used],
        schedulable=[*cluster.schedulable, *([True] * count)],
        pools=pools,
    )


def node_named(cluster: Cluster, name: str) -> int:
    """The index of node ``name``.

    Raises:
        InvalidArgumentError: no node has that name.
    """
    if name not in cluster.node_index:
        raise InvalidArgumentError(f"no node named {name!r} in the cluster")
    return cluster.node_index[name]


def add_running(cluster: Cluster, pods: Iterable[RunningPod], groups: Iterable[RunningGroup] = ()) -> Cluster:
    """The cluster with ``pods`` (of ``groups``) running as well: their requests add to their nodes' usage.

    Each pod's ``requests`` are aligned to ``cluster.resources`` (one pod slot
    included, as ``Cluster.build`` counts it), and its ``node`` is an index.
    """
    pods = list(pods)
    used = [list(column) for column in cluster.used]
    for pod in pods:
        for r, amount in enumerate(pod.requests):
            used[r][pod.node] += amount
    return with_usage(cluster, used, pods, groups)


def with_usage(
    cluster: Cluster,
    used: list[list[int]],
    pods: Iterable[RunningPod],
    groups: Iterable[RunningGroup] = (),
    *,
    own: Iterable[RunningPod] | None = None,
) -> Cluster:
    """The cluster with ``pods`` (of ``groups``) running as well, their usage already added up in ``used``.

    ``used[r][i]`` is node ``i``'s whole usage of resource ``r``, the cluster's
    own pods included; the new cluster keeps the lists given, so the caller
    must not change them afterwards. ``own`` are the cluster's own running
    pods still there (default: all of them), for a caller that removed some.
    """
    return cluster.replace(
        used=used,
        running_pods=[*(cluster.running_pods if own is None else own), *pods],
        running_groups=[*cluster.running_groups.values(), *groups],
    )


def _moved(pod: RunningPod, node: int) -> RunningPod:
    return dataclasses.replace(pod, node=node)
