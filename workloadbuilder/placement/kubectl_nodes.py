"""The Node items of ``kubectl get nodes -o json``, read into the ``NodeColumns`` that ``Cluster.build`` indexes.

A real node dump is mostly what the model does not need (managedFields,
images, annotations, addresses); a node is read by its few fields the model
does need: ``metadata.name`` and ``labels``, ``spec.unschedulable`` and
``taints``, ``status.allocatable`` and the Ready condition. Nothing of the
input is kept: label keys and values are interned (the same zone, instance
type and GPU product strings are one object across all nodes), each
distinct quantity string of a resource and each distinct taint list is read
once per dump, and the nodes' amounts go straight into per-resource
columns. A malformed node is a ``FieldError`` at its path
(``nodes[3].status.allocatable[cpu]``) and is left out.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from workloadbuilder.field import ErrorList, FieldPath, path_below, required, type_invalid
from workloadbuilder.placement.constraints import Taint, read_taints
from workloadbuilder.placement.quantity import QuantityError, resource_millis
from workloadbuilder.placement.records import NodeColumns
from workloadbuilder.placement.resources import key_below, read_quantity, read_resource_list, valid_millis

__all__ = ["NOT_READY_TAINTS", "NodesRead", "read_nodes"]

NOT_READY_TAINTS = frozenset({"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"})
"""The taints the node lifecycle controller puts on a node whose Ready condition is False or Unknown."""

_intern = sys.intern
_MISSING = object()

_MEMO_SIZE = 2048
"""Quantity strings remembered per resource, far more than the few a node pool repeats; past it, the strings
of a resource whose every node differs (memory after system reservations) are read afresh, not remembered."""


class NodesRead(NamedTuple):
    """What ``read_nodes`` found: the well-formed nodes, every entry's name, and the warnings.

    ``names`` has one entry per item read, ``None`` for a malformed one
    (left out of ``columns``); ``warnings`` says, per node that reports
    Ready other than True without the taint that keeps pods off it, that
    pods are still placed on it.
    """

    columns: NodeColumns
    names: list[str | None]
    warnings: list[str]


def read_nodes(entries: list[tuple[int, Any]], section: str, errors: ErrorList) -> NodesRead:
    """The nodes of the ``(index, item)`` entries, amounts in millis; errors at ``<section>[index]...``."""
    reader = _Reader(section, errors)
    node = reader.node
    skipped = [ordinal for ordinal, (i, item) in enumerate(entries) if not node(item, i)]
    names: list[str | None] = list(reader.names)
    for ordinal in skipped:  # ascending: each lands where its entry is
        names.insert(ordinal, None)
    return NodesRead(reader.columns(), names, reader.warnings)


_Layout = tuple[int, tuple[dict[str, int], ...]]
"""An allocatable layout as the reader knows it: its number and the memo of each of its resources."""


class _Reader:
    """The state of reading one dump: where errors go, what it has read already, and the nodes' columns."""

    def __init__(self, section: str, errors: ErrorList) -> None:
        self.section = FieldPath(section)
        self.errors = errors
        self.memos: dict[str, dict[str, int]] = {}
        """Per resource, millis by quantity string (CPU counts milli-cores, the others whole units)."""
        self.layouts: dict[tuple[Any, ...], _Layout] = {}
        """By the resource names of an allocatable map as given (all strings), the layout its amounts read into."""
        self.layout_names: list[tuple[str, ...]] = []
        """Each layout's resource names, in the order of its amounts."""
        self.layout_numbers: dict[tuple[str, ...], int] = {}
        self.taint_lists: dict[tuple[Any, ...], tuple[Taint, ...]] = {}
        self.last_taints: tuple[Any, tuple[Taint, ...]] = (None, ())
        """The last taint list read without error, as given and as read."""
        self.names: list[str] = []
        self.labels: list[dict[str, str]] = []
        self.schedulable: list[bool] = []
        self.taints: list[tuple[Taint, ...]] = []
        self.shapes: list[int] = []
        """Each node's allocatable layout."""
        self.amounts: list[list[int]] = []
        """Each node's allocatable amounts, in its layout's order."""
        self.warnings: list[str] = []

    def node(self, item: Any, i: int) -> bool:
        """Read item ``i`` into the columns; ``False`` (and its errors) when it is malformed."""
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
        taints = self.read_taints(raw_taints, i) if raw_taints is not None else ()
        raw_labels = metadata.get("labels")
        labels = None
        if type(raw_labels) is dict:
            try:
                labels = self.interned_labels(raw_labels)
            except TypeError:  # a key or value that is not exactly a string: said by read_labels
                pass
        self.labels.append(labels if labels is not None else self.read_labels(raw_labels, i))
        self.read_allocatable(allocatable, i)
        self.names.append(name if type(name) is str else str(name))
        self.schedulable.append(not spec.get("unschedulable"))
        self.taints.append(taints)
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
        interned. A node whose keys are not the previous node's is read in
        full. Raises ``TypeError`` for a key or value that is not exactly a
        string.
        """
        labels = dict(self.labels[-1]) if self.labels else {}
        get = labels.get
        for key, value in raw.items():
            if get(key, _MISSING) != value:
                labels[_intern(key)] = _intern(value)
        if len(labels) != len(raw):  # keys the previous node had and this one has not
            labels = {_intern(key): _intern(value) for key, value in raw.items()}
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
        """Add ``status.allocatable``, in millis, to the columns.

        The nodes of a dump list the same resources in the same order: a
        node whose resource names the reader has seen is read in one pass
        over their memos, then the quantity strings not seen yet one by one;
        any other node is read entry by entry.
        """
        layout = self.layouts.get(tuple(raw)) if type(raw) is dict else None
        if layout is None:
            self.add_amounts(self.entries(raw, i), raw)
            return
        number, memos = layout
        try:
            amounts: list[Any] = list(map(dict.get, memos, raw.values()))
        except TypeError:  # a value that no memo can hold: not a quantity string
            self.add_amounts(self.entries(raw, i), raw)
            return
        if None in amounts and self.fill(number, memos, amounts, raw, i) is None:
            return
        self.shapes.append(number)
        self.amounts.append(amounts)

    def fill(
        self, number: int, memos: tuple[dict[str, int], ...], amounts: list[Any], raw: Mapping[Any, Any], i: int
    ) -> list[Any] | None:
        """Read in place the quantity strings no memo knew (``None`` in ``amounts``), remembered while a memo has room.

        ``None`` when one of them is bad: the node's other amounts are then
        added without it, as its error says.
        """
        names, texts = self.layout_names[number], list(raw.values())
        j = -1
        for _ in range(amounts.count(None)):
            j = amounts.index(None, j + 1)
            text = texts[j]
            try:
                millis = resource_millis(names[j], text) if type(text) is str else -1
            except QuantityError:
                millis = -1
            if millis < 0:  # not a quantity string, or a bad one: read in full, with its error
                amounts[j] = self.quantity(names[j], text, i)
                continue
            memo = memos[j]
            if len(memo) < _MEMO_SIZE:
                memo[text] = millis
            amounts[j] = millis
        if None in amounts:
            self.add_amounts({n: m for n, m in zip(names, amounts, strict=True) if m is not None}, raw)
            return None
        return amounts

    def entries(self, raw: Mapping[Any, Any], i: int) -> dict[str, int]:
        """``status.allocatable`` read entry by entry, as ``{resource: millis}``."""
        if type(raw) is not dict:
            return read_resource_list(raw, path_below(self.section, i, "status", "allocatable"), self.errors)
        out: dict[str, int] = {}
        memos = self.memos
        for name, text in raw.items():
            millis = memos.get(name, {}).get(text) if type(name) is str and type(text) is str else None
            if millis is None:
                millis = self.quantity(name, text, i)
                if millis is None:
                    continue
            out[name if type(name) is str else str(name)] = millis
        return out

    def add_amounts(self, amounts: dict[str, int], raw: Mapping[Any, Any]) -> None:
        """Add one node's ``{resource: millis}``; a map of string names read in full becomes a known layout."""
        names = tuple(map(_intern, amounts))
        number = self.layout_numbers.get(names)
        if number is None:
            number = self.layout_numbers[names] = len(self.layout_names)
            self.layout_names.append(names)
        if type(raw) is dict and len(amounts) == len(raw) and all(type(name) is str for name in raw):
            self.layouts[tuple(raw)] = (number, tuple(self.memos.setdefault(name, {}) for name in names))
        self.shapes.append(number)
        self.amounts.append(list(amounts.values()))

    def quantity(self, name: Any, text: Any, i: int) -> int | None:
        """One allocatable quantity read afresh (and remembered), or ``None`` with its error."""
        millis = valid_millis(name, text)
        if millis is None:
            where = key_below(path_below(self.section, i, "status", "allocatable"), name)
            return read_quantity(str(name), text, where, self.errors)
        memo = self.memos.setdefault(name, {})
        if len(memo) < _MEMO_SIZE:
            memo[text] = millis
        return millis

    def read_taints(self, raw: Any, i: int) -> tuple[Taint, ...]:
        """``spec.taints``; nodes with equal taint lists share one tuple.

        A list equal to the previous node's (the usual case) is its tuple, found by comparing, not hashing.
        """
        if type(raw) is list and raw == self.last_taints[0]:
            return self.last_taints[1]
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
            self.last_taints = (raw, taints)
        return taints

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

    def columns(self) -> NodeColumns:
        """The nodes read, column by column."""
        return NodeColumns(self.names, self.labels, self.allocatable_columns(), {}, self.schedulable, self.taints)

    def allocatable_columns(self) -> dict[str, list[int]]:
        """Per resource, every node's millis: each layout's amounts transposed, then laid at its nodes."""
        count = len(self.amounts)
        if len(self.layout_names) == 1 and count:
            names = self.layout_names[0]
            return {name: list(column) for name, column in zip(names, zip(*self.amounts, strict=True), strict=True)}
        shapes = np.asarray(self.shapes, dtype=np.int64)
        columns: dict[str, Any] = {}
        for number, names in enumerate(self.layout_names):
            nodes = np.flatnonzero(shapes == number)
            if not names or not len(nodes):
                continue
            rows = [self.amounts[i] for i in nodes.tolist()]
            for name, amounts in zip(names, zip(*rows, strict=True), strict=True):
                column = columns.get(name)
                if column is None:
                    column = columns[name] = np.zeros(count, dtype=object)
                column[nodes] = amounts
        return {name: column.tolist() for name, column in columns.items()}


def _ready(conditions: Any) -> str:
    """The status of a node's first Ready condition (``Unknown`` when it has none; ``True`` without conditions)."""
    if not isinstance(conditions, list):
        return "True"
    for condition in conditions:
        if (type(condition) is dict or isinstance(condition, Mapping)) and condition.get("type") == "Ready":
            return str(condition.get("status") or "Unknown")
    return "Unknown"
