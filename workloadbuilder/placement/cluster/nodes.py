"""The Node items of ``kubectl get nodes -o json``, read into the ``NodeColumns`` that ``Cluster.build`` indexes.

A real node dump is mostly what the model does not need (managedFields,
annotations, addresses); a node is read by its few fields the model
does need: ``metadata.name`` and ``labels``, ``spec.unschedulable`` and
``taints``, ``status.allocatable``, the Ready condition and ``status.images``
(names and sizes, for ImageLocality). Nothing of the input is kept: label
keys and values and image names are interned (the same zone, instance type,
GPU product and image strings are one object across all nodes), each
distinct taint list is read once per dump, and the allocatable maps that
list the same resources are read column by column once every node is read
(each node's amounts are kept as one joined string until then, so the
strings of a dump are touched once as nodes are read and once more,
together, as columns, a few thousand nodes at a time). A malformed node is
a ``FieldError`` at its path (``nodes[3].status.allocatable[cpu]``) and is
left out.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from itertools import count
from typing import Any, NamedTuple, overload

import numpy as np

from workloadbuilder.field import ErrorList, FieldPath, path_below, required, type_invalid
from workloadbuilder.placement.cluster.images import ImageCollector
from workloadbuilder.placement.cluster.records import NodeColumns
from workloadbuilder.placement.k8s.constraints import Taint, read_taints
from workloadbuilder.placement.k8s.quantity import column_millis
from workloadbuilder.placement.k8s.resources import key_below, read_quantity, read_resource_list, valid_millis

__all__ = ["NOT_READY_TAINTS", "NodesRead", "read_nodes"]

NOT_READY_TAINTS = frozenset({"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"})
"""The taints the node lifecycle controller puts on a node whose Ready condition is False or Unknown."""

_intern = sys.intern
_MISSING = object()
_SEPARATOR = "\n"
"""Between the amounts of an allocatable map kept as one string, and between such strings."""
_CHUNK = 4096
"""How many nodes' kept allocatable maps are split and read together (a few megabytes of strings)."""


class NodesRead(NamedTuple):
    """What ``read_nodes`` found: the well-formed nodes, every entry's name, and the warnings.

    ``names`` has one entry per item read, ``None`` for a malformed one
    (left out of ``columns``); ``distinct`` holds the names of ``columns``,
    each once (as many as ``columns`` has nodes when no name is given
    twice), gathered as each node is read, while its name is at hand;
    ``warnings`` says, per node that reports Ready other than True without
    the taint that keeps pods off it, that pods are still placed on it.
    """

    columns: NodeColumns
    names: list[str | None]
    distinct: set[str]
    warnings: list[str]


@overload
def read_nodes(
    items: Sequence[Any], section: str, errors: ErrorList, indices: Sequence[int] | None = None
) -> NodesRead: ...


@overload
def read_nodes(
    items: Sequence[Any], section: str, errors: ErrorList, indices: Sequence[int] | None = None, *, nodes_only: bool
) -> NodesRead | None: ...


def read_nodes(
    items: Sequence[Any],
    section: str,
    errors: ErrorList,
    indices: Sequence[int] | None = None,
    *,
    nodes_only: bool = False,
) -> NodesRead | None:
    """The nodes among ``items``, amounts in millis; item ``n``'s errors are at ``<section>[indices[n]]...``.

    ``indices`` gives each item's index in its List (by default, its
    position in ``items``). With ``nodes_only``, ``None`` (and no errors)
    when an object among ``items`` has a ``kind`` other than ``Node``: the
    caller then sorts its List by kind.

    Allocatable maps of the same resource names are read column by column
    once every node is read (``column_millis``). When a column holds a
    string that is no quantity, the items are read again node by node, each
    amount as it comes, so that the errors are those of each node in turn.
    """
    where = range(len(items)) if indices is None else indices
    found = ErrorList()
    reader = _NodeDumpReader(section, found, by_column=True, nodes_only=nodes_only)
    read = reader.read(items, where)
    if reader.other_kind:
        return None
    if read is None:
        found = ErrorList()
        read = _NodeDumpReader(section, found, by_column=False).read(items, where)
    assert read is not None, "a reader that reads every amount as it comes always gives its nodes"
    errors.extend(found)
    return read


class _NodeDumpReader:
    """The state of reading one dump: where errors go, what it has read already, and the nodes' columns."""

    def __init__(self, section: str, errors: ErrorList, *, by_column: bool, nodes_only: bool = False) -> None:
        self.section = FieldPath(section)
        self.errors = errors
        self.by_column = by_column
        """Whether allocatable maps (dicts of string names) are kept as given and read column by column at the end."""
        self.nodes_only = nodes_only
        """Whether to stop at an object whose ``kind`` is not ``Node`` (an absent kind is a Node's)."""
        self.other_kind = False
        """Whether it stopped so."""
        self.layouts: dict[tuple[Any, ...], int] = {}
        """By the resource names of an allocatable map as given (all strings), its layout's number."""
        self.layout_names: list[tuple[str, ...]] = []
        """Each layout's resource names (interned), in the order of its amounts."""
        self.layout_numbers: dict[tuple[str, ...], int] = {}
        self.read_rows: list[tuple[list[int], list[list[int]]]] = []
        """Per layout, the nodes whose amounts were read as they came, and those amounts."""
        self.kept_rows: list[tuple[list[int], list[str]]] = []
        """Per layout, the nodes whose allocatable is read by column at the end, and each one's strings joined."""
        self.taint_lists: dict[tuple[Any, ...], tuple[Taint, ...]] = {}
        """By each taint's (key, value, effect) as given, the taint lists read without error."""
        self.last_raw_taints: list[Any] | None = None
        """The last taint list read without error, as given (a node whose list equals it shares its tuple)."""
        self.last_taints: tuple[Taint, ...] = ()
        """That list as read."""
        self.names: list[str] = []
        self.distinct: set[str] = set()
        """The names of ``names``, each once."""
        self.labels: list[dict[str, str]] = []
        self.schedulable: list[bool] = []
        self.taints: list[tuple[Taint, ...]] = []
        self.images = ImageCollector()
        """The images of the nodes read so far, for ImageLocality."""
        self.warnings: list[str] = []

    def read(self, items: Sequence[Any], indices: Sequence[int]) -> NodesRead | None:
        """Every item read; ``None`` when a column of allocatable maps kept as given is not all quantity strings."""
        node = self.node
        skipped = []
        for ordinal, item, i in zip(count(), items, indices, strict=False):
            if not node(item, i):
                if self.other_kind:
                    return None
                skipped.append(ordinal)
        allocatable = self.allocatable_columns()
        if allocatable is None:
            return None
        names: list[str | None] = list(self.names)
        for ordinal in skipped:  # ascending: each lands where its entry is
            names.insert(ordinal, None)
        images = self.images.index() if self.images else None
        columns = NodeColumns(self.names, self.labels, allocatable, {}, self.schedulable, self.taints, images)
        return NodesRead(columns, names, self.distinct, self.warnings)

    def node(self, item: Any, i: int) -> bool:
        """Read item ``i`` into the columns; ``False`` (and its errors) when it is malformed or of another kind."""
        if self.nodes_only and (type(item) is dict or isinstance(item, Mapping)):
            kind = item.get("kind")
            if kind is not None and kind != "Node":
                self.other_kind = True
                return False
        try:
            metadata = item["metadata"]
            name = metadata["name"]
            status = item["status"]
            allocatable = status["allocatable"]
        except (KeyError, TypeError):
            return self.malformed(item, i)
        if not isinstance(name, str) or not name:
            self.errors.append(required(self.section.index(i).child("metadata", "name")))
            return False
        if type(allocatable) is not dict and not isinstance(allocatable, Mapping):
            return self.malformed(item, i)
        spec = item.get("spec")
        if type(spec) is not dict:
            spec = spec if isinstance(spec, Mapping) else {}
        raw_taints = spec.get("taints")
        if raw_taints is None:
            taints: tuple[Taint, ...] = ()
        elif type(raw_taints) is list and raw_taints == self.last_raw_taints:
            taints = self.last_taints
        else:
            taints = self.read_taints(raw_taints, i)
        raw_labels = metadata.get("labels")
        labels = None
        if type(raw_labels) is dict:
            # try rather than contextlib.suppress: no extra call per node in this loop
            try:  # noqa: SIM105
                labels = self.interned_labels(raw_labels)
            except TypeError:  # a key or value that is not exactly a string: said by read_labels
                pass
        self.labels.append(labels if labels is not None else self.read_labels(raw_labels, i))
        self.read_allocatable(allocatable, i)
        if type(name) is not str:
            name = str(name)
        self.names.append(name)
        self.distinct.add(name)
        self.schedulable.append(not spec.get("unschedulable"))
        self.taints.append(taints)
        raw_images = status.get("images")
        if raw_images:
            self.read_images(raw_images, i)
        ready = _ready(status.get("conditions"))
        if ready != "True" and not any(taint.key in NOT_READY_TAINTS for taint in taints):
            self.warnings.append(
                f"node {name} reports Ready={ready} but has no node.kubernetes.io/not-ready or unreachable taint: "
                "kube-scheduler still places pods on it, and so does this model"
            )
        return True

    def interned_labels(self, raw: dict[Any, Any]) -> dict[str, str]:
        """A node's labels with every key and value interned.

        Nodes of a dump mostly share their labels' values (zone, instance
        type, GPU product): a label equal to the previous node's keeps that
        node's interned string, with no hashing; only the others are
        interned. A node with a key the previous node lacks is compared
        again key by key (``merged_labels``); one that lacks a key the
        previous node has is read in full. Raises ``TypeError`` for a key or
        value that is not exactly a string.
        """
        previous = self.labels[-1] if self.labels else {}
        labels = previous.copy()
        try:
            for key, value in raw.items():
                if labels[key] != value:
                    labels[key] = _intern(value)  # the dict keeps its key, the previous node's
        except KeyError:  # a key the previous node has not
            labels = self.merged_labels(previous, raw)
        if len(labels) != len(raw):  # keys the previous node had and this one has not
            labels = {_intern(key): _intern(value) for key, value in raw.items()}
        return labels

    @staticmethod
    def merged_labels(previous: dict[str, str], raw: dict[Any, Any]) -> dict[str, str]:
        """``previous`` with every entry of ``raw`` that differs from it set, interned (new keys come last)."""
        labels = previous.copy()
        get = labels.get
        for key, value in raw.items():
            if get(key, _MISSING) != value:
                labels[_intern(key)] = _intern(value)
        return labels

    def read_labels(self, raw: Any, i: int) -> dict[str, str]:
        """A node's labels read one by one; a value that is not a string is an error at its key."""
        if raw is None:
            return {}
        path = path_below(self.section, i, "metadata", "labels")
        if not isinstance(raw, Mapping):
            self.errors.append(type_invalid(path(), raw, "must be of type object"))
            return {}
        out = {}
        for key, value in raw.items():
            if isinstance(value, str):
                out[str(key)] = value
            else:
                self.errors.append(type_invalid(path().key(str(key)), value, "must be of type string"))
        return out

    def read_allocatable(self, raw: Mapping[Any, Any], i: int) -> None:
        """Add ``status.allocatable``, in millis, to the columns of the node read next.

        When reading by column, a dict of string names is kept as given,
        with the other nodes that list the same names in the same order;
        anything else is read entry by entry at once.
        """
        if self.by_column and type(raw) is dict:
            key = tuple(raw)
            number = self.layouts.get(key)
            if number is None and all(type(name) is str for name in key):
                number = self.layouts[key] = self.layout(key)
            if number is not None:
                try:
                    text = _SEPARATOR.join(raw.values())
                except TypeError:  # an amount that is not a string: read at once, with its error
                    pass
                else:
                    nodes, texts = self.kept_rows[number]
                    nodes.append(len(self.names))
                    texts.append(text)
                    return
        amounts = self.entries(raw, i)
        nodes, rows = self.read_rows[self.layout(tuple(amounts))]
        nodes.append(len(self.names))
        rows.append(list(amounts.values()))

    def layout(self, names: tuple[str, ...]) -> int:
        """The number of the layout of these resource names, a new one if none has them."""
        names = tuple(map(_intern, names))
        number = self.layout_numbers.get(names)
        if number is None:
            number = self.layout_numbers[names] = len(self.layout_names)
            self.layout_names.append(names)
            self.read_rows.append(([], []))
            self.kept_rows.append(([], []))
        return number

    def entries(self, raw: Mapping[Any, Any], i: int) -> dict[str, int]:
        """``status.allocatable`` read entry by entry, as ``{resource: millis}``, with the errors of its bad entries."""
        if type(raw) is not dict:
            return read_resource_list(raw, path_below(self.section, i, "status", "allocatable"), self.errors)
        out: dict[str, int] = {}
        for name, text in raw.items():
            millis = valid_millis(name, text)
            if millis is None:
                where = key_below(path_below(self.section, i, "status", "allocatable"), name)
                millis = read_quantity(str(name), text, where, self.errors)
                if millis is None:
                    continue
            out[name if type(name) is str else str(name)] = millis
        return out

    def read_taints(self, raw: Any, i: int) -> tuple[Taint, ...]:
        """``spec.taints`` (not ``None``); nodes with equal taint lists share one tuple.

        ``node`` finds a list equal to the previous one's (the usual case)
        by comparing, without calling this; the others are found by their
        entries, or read.
        """
        key: tuple[Any, ...] | None
        try:
            key = tuple([(entry.get("key"), entry.get("value"), entry.get("effect")) for entry in raw])
            known = self.taint_lists.get(key) if type(raw) is list else None
        except (AttributeError, TypeError):  # not a list of objects of strings: read_taints says what is wrong
            key, known = None, None
        if known is not None:
            return known
        before = len(self.errors)
        taints = read_taints(raw, path_below(self.section, i, "spec", "taints"), self.errors)
        if key is not None and type(raw) is list and len(self.errors) == before:
            self.taint_lists[key] = taints
            self.last_raw_taints, self.last_taints = raw, taints
        return taints

    def read_images(self, raw: Any, i: int) -> None:
        """Add ``status.images`` of item ``i`` (the node read last) to ``images``; a malformed entry is an error.

        An image without ``sizeBytes`` weighs 0, as the API's omitted field
        reads; an image object met before is not read again.
        """
        node = len(self.names) - 1
        images = self.images
        if type(raw) is not list:
            self.errors.append(
                type_invalid(path_below(self.section, i, "status", "images")(), raw, "must be of type array")
            )
            return
        for j, image in enumerate(raw):
            known = images.known(image)
            if known is not None:
                images.add(node, known)
                continue
            size, names = (image.get("sizeBytes", 0), image.get("names") or ()) if type(image) is dict else (None, None)
            if type(size) is int and type(names) is list and all(type(name) is str for name in names):
                images.add(node, (tuple([_intern(name) for name in names]), size), image)
            else:
                self.bad_image(image, i, j)

    def bad_image(self, image: Any, i: int, j: int) -> None:
        """The error path of ``read_images``: what is wrong with entry ``j``, at its path."""
        path = path_below(self.section, i, "status", "images", j)
        if not isinstance(image, Mapping):
            self.errors.append(type_invalid(path(), image, "must be of type object"))
            return
        size, names = image.get("sizeBytes", 0), image.get("names") or []
        if isinstance(size, bool) or not isinstance(size, int):
            self.errors.append(type_invalid(path().child("sizeBytes"), size, "must be of type integer"))
        elif not isinstance(names, list):
            self.errors.append(type_invalid(path().child("names"), names, "must be of type array"))
        else:
            for k, name in enumerate(names):
                if not isinstance(name, str):
                    self.errors.append(type_invalid(path().child("names").index(k), name, "must be of type string"))

    def malformed(self, item: Any, i: int) -> bool:
        """The error path: say exactly what is missing."""
        path = self.section.index(i)
        if not isinstance(item, Mapping):
            self.errors.append(type_invalid(path, item, "must be of type object"))
            return False
        metadata, status = item.get("metadata"), item.get("status")
        name = metadata.get("name") if isinstance(metadata, Mapping) else None
        allocatable = status.get("allocatable") if isinstance(status, Mapping) else None
        if not isinstance(name, str) or not name:
            self.errors.append(required(path.child("metadata", "name")))
        elif allocatable is None:
            self.errors.append(required(path.child("status", "allocatable")))
        else:
            self.errors.append(type_invalid(path.child("status", "allocatable"), allocatable, "must be of type object"))
        return False

    def allocatable_columns(self) -> dict[str, list[int]] | None:
        """Per resource, every node's millis (0 where a node has none); ``None`` when a kept column is not quantities.

        Each layout's amounts, read or kept, are transposed into columns and
        laid at their nodes.
        """
        count = len(self.names)
        pieces: list[tuple[list[int], tuple[str, ...], list[Any]]] = []
        for names, (nodes, rows), (kept, texts) in zip(self.layout_names, self.read_rows, self.kept_rows, strict=True):
            if rows:
                pieces.append((nodes, names, [list(column) for column in zip(*rows, strict=True)]))
            if texts and names:
                parsed = _kept_columns(names, texts)
                if parsed is None:
                    return None
                pieces.append((kept, names, parsed))
        if len(pieces) == 1 and len(pieces[0][0]) == count:
            _, names, values = pieces[0]
            return dict(zip(names, values, strict=True))
        columns: dict[str, Any] = {}
        for nodes, names, values in pieces:
            at = np.asarray(nodes, dtype=np.int64)
            for name, column in zip(names, values, strict=True):
                into = columns.get(name)
                if into is None:
                    into = columns[name] = np.zeros(count, dtype=object)
                into[at] = column
        return {name: column.tolist() for name, column in columns.items()}


def _kept_columns(names: tuple[str, ...], texts: list[str]) -> list[list[int]] | None:
    """Per resource of ``names``, the millis of each node's kept amounts; ``None`` when one is not a quantity.

    ``texts`` holds each node's amounts, in the order of ``names``, joined
    by the separator. They are split and read ``_CHUNK`` nodes at a time:
    a chunk's strings are read while they are still in the processor's
    caches, and the memory they take is taken again by the next chunk's
    instead of being asked of the system for every node of the dump (a
    dump's strings split all at once take tens of megabytes, each page of
    it a page fault).
    """
    width = len(names)
    columns = [[0] * len(texts) for _ in names]  # each chunk's amounts are laid into place: no list grows
    for start in range(0, len(texts), _CHUNK):
        chunk = texts[start : start + _CHUNK]
        strings = _SEPARATOR.join(chunk).split(_SEPARATOR)
        if len(strings) != len(chunk) * width:  # a string with the separator in it
            return None
        for j, (name, column) in enumerate(zip(names, columns, strict=True)):
            millis = _column_millis(name, strings[j::width])
            if millis is None:
                return None
            column[start : start + len(chunk)] = millis
    return columns


def _column_millis(resource: str, texts: list[str]) -> list[int] | None:
    """``column_millis`` of a kept column (at least one string); one string on every node is read once.

    The amounts a node pool shares (pods, GPUs, hugepages) are most
    columns of a dump: telling them by comparing is cheaper than the
    hashing ``column_millis`` does to find its few distinct strings.
    """
    first = texts[0]
    if texts[-1] == first and texts.count(first) == len(texts):
        one = column_millis(resource, [first])
        return None if one is None else one * len(texts)
    return column_millis(resource, texts)


def _ready(conditions: Any) -> str:
    """The status of a node's first Ready condition (``Unknown`` when it has none; ``True`` without conditions)."""
    if not isinstance(conditions, list):
        return "True"
    for condition in conditions:
        if (type(condition) is dict or isinstance(condition, Mapping)) and condition.get("type") == "Ready":
            return str(condition.get("status") or "Unknown")
    return "Unknown"
