"""The Node items of ``kubectl get nodes -o json``, read into the plain node records ``Cluster.build`` takes.

A real node dump is mostly what the model does not need (managedFields,
images, annotations, addresses); a node is read by its few fields the model
does need: ``metadata.name`` and ``labels``, ``spec.unschedulable`` and
``taints``, ``status.allocatable`` and the Ready condition. Nothing of the
input is kept: label keys and values are interned (the same zone, instance
type and GPU product strings are one object across all nodes), each
distinct quantity string and taint list is read once per dump, and every
record is built afresh. A malformed node is a ``FieldError`` at its path
(``nodes[3].status.allocatable[cpu]``) and no record.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from workloadbuilder.field import ErrorList, FieldPath, path_below, required, type_invalid
from workloadbuilder.placement.constraints import Taint, read_taints
from workloadbuilder.placement.resources import key_below, read_quantity, read_resource_list, valid_millis

__all__ = ["NOT_READY_TAINTS", "read_nodes"]

NOT_READY_TAINTS = frozenset({"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"})
"""The taints the node lifecycle controller puts on a node whose Ready condition is False or Unknown."""

_intern = sys.intern


def read_nodes(entries: list[tuple[int, Any]], section: str, errors: ErrorList) -> list[dict[str, Any]]:
    """One record per ``(index, item)`` entry: ``{"name", "labels", "allocatable", "schedulable", "taints"}``.

    ``allocatable`` is in millis; a record also has ``"warning"`` when the
    node reports Ready other than True without the taint that keeps pods
    off it. A malformed node gives ``{}`` and its errors, at
    ``<section>[index]...``.
    """
    reader = _Reader(section, errors)
    return [reader.node(item, i) for i, item in entries]


class _Reader:
    """The state of reading one dump: where errors go, and what it has read already."""

    def __init__(self, section: str, errors: ErrorList) -> None:
        self.section = FieldPath(section)
        self.errors = errors
        self.cpu: dict[str, int] = {}
        self.others: dict[str, int] = {}
        """Millis by quantity string: CPU counts milli-cores, every other resource whole units (``resource_millis``)."""
        self.taint_lists: dict[tuple[Any, ...], tuple[Taint, ...]] = {}

    def node(self, item: Any, i: int) -> dict[str, Any]:
        """The record of item ``i`` (``{}`` when it is malformed)."""
        try:
            metadata = item["metadata"]
            name = metadata["name"]
            status = item["status"]
            allocatable = status["allocatable"]
        except (KeyError, TypeError):
            return self.malformed(item, i)
        if not isinstance(name, str) or not name:
            self.errors.append(required(self.section.index(i).child("metadata", "name")))
            return {}
        if type(allocatable) is not dict and not isinstance(allocatable, Mapping):
            return self.malformed(item, i)
        spec = item.get("spec")
        if type(spec) is not dict:
            spec = spec if isinstance(spec, Mapping) else {}
        raw_taints = spec.get("taints")
        taints = self.taints(raw_taints, i) if raw_taints is not None else ()
        node: dict[str, Any] = {
            "name": _intern(name),
            "labels": self.labels(metadata.get("labels"), i),
            "allocatable": self.allocatable(allocatable, i),
            "schedulable": not spec.get("unschedulable"),
            "taints": taints,
        }
        ready = _ready(status.get("conditions"))
        if ready != "True" and not any(taint.key in NOT_READY_TAINTS for taint in taints):
            node["warning"] = (
                f"node {name} reports Ready={ready} but has no node.kubernetes.io/not-ready or unreachable taint: "
                "kube-scheduler still places pods on it, and so does this model"
            )
        return node

    def labels(self, raw: Any, i: int) -> dict[str, str]:
        """A node's labels, keys and values interned; a value that is not a string is an error at its key."""
        if raw is None:
            return {}
        if type(raw) is dict:
            try:
                return {_intern(key): _intern(value) for key, value in raw.items()}
            except TypeError:  # a key or value that is not exactly a string: said below
                pass
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

    def allocatable(self, raw: Mapping[Any, Any], i: int) -> dict[str, int]:
        """``status.allocatable`` in millis; each distinct quantity string is read once per dump."""
        if type(raw) is not dict:
            return read_resource_list(raw, path_below(self.section, i, "status", "allocatable"), self.errors)
        cpu, others = self.cpu, self.others
        out: dict[str, int] = {}
        for name, text in raw.items():
            millis = (cpu if name == "cpu" else others).get(text) if type(text) is str else None
            if millis is None:
                millis = self.quantity(name, text, i)
                if millis is None:
                    continue
            out[name if type(name) is str else str(name)] = millis
        return out

    def quantity(self, name: Any, text: Any, i: int) -> int | None:
        """One allocatable quantity read afresh (and remembered), or ``None`` with its error."""
        millis = valid_millis(name, text)
        if millis is None:
            where = key_below(path_below(self.section, i, "status", "allocatable"), name)
            return read_quantity(str(name), text, where, self.errors)
        (self.cpu if name == "cpu" else self.others)[text] = millis
        return millis

    def taints(self, raw: Any, i: int) -> tuple[Taint, ...]:
        """``spec.taints``; nodes with equal taint lists share one tuple."""
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
        return taints

    def malformed(self, item: Any, i: int) -> dict[str, Any]:
        """The error path: say exactly what is missing."""
        path = self.section.index(i)
        if not isinstance(item, Mapping):
            self.errors.append(type_invalid(path, item, "must be of type object"))
            return {}
        metadata, status = item.get("metadata"), item.get("status")
        name = metadata.get("name") if isinstance(metadata, Mapping) else None
        allocatable = status.get("allocatable") if isinstance(status, Mapping) else None
        if not isinstance(name, str) or not name:
            self.errors.append(required(path.child("metadata", "name")))
        elif allocatable is None:
            self.errors.append(required(path.child("status", "allocatable")))
        else:
            self.errors.append(type_invalid(path.child("status", "allocatable"), allocatable, "must be of type object"))
        return {}


def _ready(conditions: Any) -> str:
    """The status of a node's first Ready condition (``Unknown`` when it has none; ``True`` without conditions)."""
    if not isinstance(conditions, list):
        return "True"
    for condition in conditions:
        if (type(condition) is dict or isinstance(condition, Mapping)) and condition.get("type") == "Ready":
            return str(condition.get("status") or "Unknown")
    return "Unknown"
