"""Nodes no placement constraint can tell apart, grouped into classes for the exact search.

Two nodes are in one class when they carry the same value of every topology
key the root uses, reach the same device pools, and offer the same free
capacity *as far as the root can use it*: each resource is counted up to
what the whole minimum of the root could ask for (beyond that it never
binds), and for a root of one pod shape only the number of its pods a node
holds matters. A pod shape holds no pods on a node its filters reject
(``Shape.allowed``: cordons, taints, affinity); nodes where no pod of the
root fits are left out. Classes come out in the order of their first node, so the search
sees the cluster's order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from workloadbuilder.placement.cluster.records import DevicePool
from workloadbuilder.placement.framework.snapshot import Shape, Snapshot

__all__ = ["NodeClass", "node_classes"]


@dataclass
class NodeClass:
    """Equal nodes: their indexes (ascending), labels at the root's keys, capped free capacity and fits.

    ``free`` is the capped free vector of the class's first node (all nodes
    agree on it when the root has several shapes); ``fits`` maps each
    shape's uid to the pods of that shape one node of the class holds (0
    where the shape's filters reject the nodes).
    ``pool_node`` is the node's name when it has node-local devices.
    """

    labels: dict[str, str]
    pool_node: str | None
    free: tuple[int, ...]
    fits: dict[int, int]
    nodes: list[int] = field(default_factory=list)

    @property
    def size(self) -> int:
        """How many nodes the class holds."""
        return len(self.nodes)

    def value(self, key: str) -> str | None:
        """The class's value of a topology key (``None``: its nodes lack the label)."""
        return self.labels.get(key)

    def reaches(self, pool: DevicePool) -> bool:
        """Whether pods on the class's nodes can use ``pool``'s devices."""
        if pool.node is not None:
            return self.pool_node == pool.node
        if pool.domain is not None:
            key, value = pool.domain
            return self.labels.get(key) == value
        return True


def node_classes(
    snap: Snapshot,
    nodes: Sequence[int],
    shapes: Sequence[Shape],
    keys: Sequence[str],
    pools: Sequence[DevicePool],
    demand: dict[int, int],
    pods: int,
) -> list[NodeClass]:
    """The classes of the usable ``nodes`` (ascending) for a root with these shapes, keys, pools and total demand.

    ``demand[r]`` is the most of resource ``r`` the root's minimum asks
    for, and ``pods`` the most pods it places.
    """
    cluster = snap.cluster
    distinct = list({shape.uid: shape for shape in shapes}.values())
    pool_keys = sorted({pool.domain[0] for pool in pools if pool.domain is not None})
    all_keys = sorted(set(keys) | set(pool_keys))
    columns = [cluster.label_values(key) for key in all_keys]
    pool_nodes = {pool.node for pool in pools if pool.node is not None}
    width = len(cluster.resources)
    cap = [demand.get(r, 0) for r in range(width)]
    one_shape = distinct[0] if len(distinct) == 1 else None
    cached: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
    classes: dict[tuple[object, ...], NodeClass] = {}
    names, vector_of, changed = cluster.names, cluster.vector_of, snap.is_changed
    masks = [shape.allowed for shape in distinct]
    for i in nodes:
        entry = cached.get(vector_of[i]) if not changed(i) else None
        if entry is None:
            entry = _capacity(snap.free(i), cap, distinct, one_shape, pods)
            if not changed(i):
                cached[vector_of[i]] = entry
        free, fits = entry
        if any(mask is not None and not mask[i] for mask in masks):
            fits = tuple(0 if mask is not None and not mask[i] else n for mask, n in zip(masks, fits, strict=True))
        if not any(fits):
            continue
        labels = tuple(column[i] for column in columns)
        pool_node = names[i] if names[i] in pool_nodes else None
        key = (labels, pool_node, fits) if one_shape is not None else (labels, pool_node, free, fits)
        node_class = classes.get(key)
        if node_class is None:
            present = {k: v for k, v in zip(all_keys, labels, strict=True) if v is not None}
            fits_map = {shape.uid: n for shape, n in zip(distinct, fits, strict=True)}
            node_class = classes[key] = NodeClass(present, pool_node, free, fits_map)
        node_class.nodes.append(i)
    return list(classes.values())


def _capacity(
    free: Sequence[int], cap: list[int], shapes: list[Shape], one_shape: Shape | None, pods_cap: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A node's free vector capped at the root's demand, and how many pods of each shape it holds."""
    capped = tuple(min(max(f, 0), c) for f, c in zip(free, cap, strict=True))
    if one_shape is not None:
        return capped, (min(one_shape.fits(free), pods_cap),)
    return capped, tuple(shape.fits(capped) for shape in shapes)
