"""The nodes' images as ImageLocality reads them: by image name, the nodes that list it and its size on each.

A node dump lists some twenty images a node, each under one or two names
(a tag and a digest), out of a few hundred the cluster runs; ImageLocality
needs, for each name a pod asks for, which nodes list it and how many do.
So the readers gather the index as they meet each node's images
(``ImageCollector``), one entry per distinct image rather than per name
and node, and the cluster keeps only the index (``ImageIndex``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from workloadbuilder.placement.cluster.arrays import IntArray

__all__ = ["ImageCollector", "ImageIndex", "extended", "index_of", "restricted"]


class ImageIndex:
    """By image name, the nodes that list it (ascending indexes) and the image's size in bytes on each.

    Read-only once made; two indexes are equal when they hold the same
    names with equal arrays.
    """

    __slots__ = ("_by_name",)

    def __init__(self, by_name: dict[str, tuple[IntArray, IntArray]] | None = None) -> None:
        self._by_name = by_name or {}  # image name -> (nodes, sizes), both int64 arrays of one length

    def get(self, name: str) -> tuple[IntArray, IntArray] | None:
        """The nodes listing ``name`` and its size on each, or ``None`` when no node lists it."""
        return self._by_name.get(name)

    def items(self) -> Iterable[tuple[str, tuple[IntArray, IntArray]]]:
        """Every name with its nodes and sizes."""
        return self._by_name.items()

    def __bool__(self) -> bool:
        return bool(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ImageIndex):
            return NotImplemented
        mine, theirs = self._by_name, other._by_name
        return mine.keys() == theirs.keys() and all(
            np.array_equal(mine[name][0], theirs[name][0]) and np.array_equal(mine[name][1], theirs[name][1])
            for name in mine
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ImageIndex({len(self._by_name)} names)"


Image = tuple[tuple[str, ...], int]
"""One entry of a node's ``status.images``: its names and ``sizeBytes``."""


class ImageCollector:
    """The images of the nodes a reader has met, gathered per distinct image into an ``ImageIndex`` at the end.

    Nodes must be added in ascending order of their index. An image object
    shared by several nodes (a decoder that decodes each distinct image
    once) is recognised by identity and its names are read once.
    """

    def __init__(self) -> None:
        # by the id of an image object met before: the object (kept, so the id stays its own) and its entry
        self._seen: dict[int, tuple[Any, Image]] = {}
        self._nodes: dict[Image, list[int]] = {}  # each distinct image -> the nodes that list it, ascending

    def known(self, image: Any) -> Image | None:
        """The entry of an image object met before, or ``None``."""
        hit = self._seen.get(id(image))
        return hit[1] if hit is not None and hit[0] is image else None

    def add(self, node: int, image: Image, source: Any = None) -> None:
        """Record that ``node`` lists ``image`` (read from the object ``source``, when one is to be recognised)."""
        if source is not None:
            self._seen[id(source)] = (source, image)
        nodes = self._nodes.get(image)
        if nodes is None:
            self._nodes[image] = [node]
        elif nodes[-1] != node:
            nodes.append(node)

    def __bool__(self) -> bool:
        return bool(self._nodes)

    def index(self) -> ImageIndex:
        """The index of every image added.

        A name under two images on one node counts that node once, with
        the size of the image added later, as a node's own image list
        overwrites an earlier entry of the name.
        """
        per_name: dict[str, list[tuple[list[int], int]]] = {}
        for (names, size), nodes in self._nodes.items():
            for name in dict.fromkeys(names):
                per_name.setdefault(name, []).append((nodes, size))
        index: dict[str, tuple[IntArray, IntArray]] = {}
        for name, entries in per_name.items():
            if len(entries) == 1:
                nodes, size = entries[0]
                index[name] = (np.asarray(nodes, dtype=np.int64), np.full(len(nodes), size, dtype=np.int64))
                continue
            all_nodes = np.concatenate([np.asarray(nodes, dtype=np.int64) for nodes, _ in entries])
            sizes = np.concatenate([np.full(len(nodes), size, dtype=np.int64) for nodes, size in entries])
            order = np.argsort(all_nodes, kind="stable")  # later entries of one node come last
            all_nodes, sizes = all_nodes[order], sizes[order]
            last = np.append(all_nodes[1:] != all_nodes[:-1], True)
            index[name] = (all_nodes[last], sizes[last])
        return ImageIndex(index)


def index_of(per_node: Sequence[Iterable[tuple[str, int]]]) -> ImageIndex:
    """The index of nodes given as ``(name, sizeBytes)`` pairs each (node records, ``Cluster.build``)."""
    collector = ImageCollector()
    for node, pairs in enumerate(per_node):
        for name, size in pairs:
            collector.add(node, ((name,), size))
    return collector.index()


def restricted(index: ImageIndex, keep: Sequence[int]) -> ImageIndex:
    """The index of the cluster made of the nodes ``keep`` alone (ascending), renumbered from 0."""
    kept = np.asarray(keep, dtype=np.int64)
    out: dict[str, tuple[IntArray, IntArray]] = {}
    for name, (nodes, sizes) in index.items():
        positions = np.searchsorted(kept, nodes)
        inside = positions < len(kept)
        inside[inside] = kept[positions[inside]] == nodes[inside]
        if inside.any():
            out[name] = (positions[inside], sizes[inside])
    return ImageIndex(out)


def extended(index: ImageIndex, node: int, first: int, count: int) -> ImageIndex:
    """The index with ``count`` more nodes, numbered from ``first``, that list what ``node`` lists."""
    if count <= 0:
        return index
    added = np.arange(first, first + count, dtype=np.int64)
    out: dict[str, tuple[IntArray, IntArray]] = {}
    for name, (nodes, sizes) in index.items():
        at = np.flatnonzero(nodes == node)
        if len(at):
            out[name] = (np.concatenate((nodes, added)), np.concatenate((sizes, np.full(count, sizes[at[0]]))))
        else:
            out[name] = (nodes, sizes)
    return ImageIndex(out)
