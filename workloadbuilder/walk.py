"""The one walk of a Workload's template tree, shared by everything that reads templates.

A Workload spec (and each composite template in it) holds two lists,
``podGroupTemplates`` (leaves) and ``compositePodGroupTemplates`` (composites,
which hold the same two lists again). ``walk`` visits every template of such
a tree once and says where it is. It makes each decision once:

- **order**: pre-order; under one holder the leaf templates come before the
  composite ones, each in list order, and a composite's subtree follows the
  composite right away;
- **null entries**: an entry that is not a template (``null`` in JSON, or any
  non-object) names no template and is skipped, though it keeps its index,
  so later entries keep their true paths; a list field that is not a list is
  skipped the same way;
- **depth**: a top-level template is at depth 1; every depth is visited (the
  walk is iterative, so a deep tree cannot exhaust the stack) unless
  ``max_depth`` prunes what lies below it.

It reads both shapes a spec comes in: a kubernetes client model
(``V1beta1WorkloadSpec``, ``V1beta1CompositePodGroupTemplate``) and its JSON
form (a mapping with camelCase keys).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from workloadbuilder.field import FieldPath

__all__ = ["COMPOSITE_LIST", "LEAF_LIST", "TemplateNode", "walk"]

LEAF_LIST = "podGroupTemplates"
"""The JSON name of the list of leaf templates."""
COMPOSITE_LIST = "compositePodGroupTemplates"
"""The JSON name of the list of composite templates."""

_ATTRIBUTES = {LEAF_LIST: "pod_group_templates", COMPOSITE_LIST: "composite_pod_group_templates"}


@dataclass(frozen=True)
class TemplateNode:
    """One template of a tree and where it sits.

    Attributes:
        path: its field path, e.g. ``spec.compositePodGroupTemplates[0].podGroupTemplates[1]``.
        list_path: the path of the list it is an entry of (siblings share it).
        list_name: the list it is an entry of (``podGroupTemplates`` or ``compositePodGroupTemplates``).
        index: its index in that list.
        depth: 1 for a top-level template, 2 for a child of one, and so on.
        composite: whether it is a composite template (it holds templates).
        parent: the composite template it sits in, ``None`` at the top level.
        node: the template itself, a client model or a mapping as given.
    """

    path: FieldPath
    list_path: FieldPath
    list_name: str
    index: int
    depth: int
    composite: bool
    parent: TemplateNode | None = field(repr=False)
    node: Any = field(repr=False, compare=False)

    def lineage(self) -> tuple[TemplateNode, ...]:
        """The templates from its top-level ancestor down to itself."""
        chain: list[TemplateNode] = []
        record: TemplateNode | None = self
        while record is not None:
            chain.append(record)
            record = record.parent
        return tuple(reversed(chain))

    @property
    def json_pointer(self) -> str:
        """Its RFC 6901 pointer below the spec, e.g. ``/compositePodGroupTemplates/0/podGroupTemplates/1``."""
        return "".join(f"/{record.list_name}/{record.index}" for record in self.lineage())


def walk(spec: object, path: FieldPath | None = None, *, max_depth: int | None = None) -> Iterator[TemplateNode]:
    """Every template under ``spec`` in pre-order, leaves before composites under each holder.

    Args:
        spec: a Workload spec or a composite template, as a client model or
            a mapping; anything else has no templates.
        path: the path of ``spec``; ``spec`` by default.
        max_depth: the deepest depth to visit; templates below it are not
            visited (their composite is, so a caller can report the excess).
    """
    root = path if path is not None else FieldPath("spec")
    pending = list(reversed(list(_children(spec, root, None))))
    while pending:
        record = pending.pop()
        yield record
        if record.composite and (max_depth is None or record.depth < max_depth):
            pending.extend(reversed(list(_children(record.node, record.path, record))))


def _children(holder: object, path: FieldPath, parent: TemplateNode | None) -> Iterator[TemplateNode]:
    depth = parent.depth + 1 if parent is not None else 1
    for list_name in (LEAF_LIST, COMPOSITE_LIST):
        entries = _entries(holder, list_name)
        list_path = path.child(list_name)
        for i, entry in enumerate(entries):
            if isinstance(entry, Mapping | BaseModel):
                yield TemplateNode(
                    list_path.index(i), list_path, list_name, i, depth, list_name == COMPOSITE_LIST, parent, entry
                )


def _entries(holder: object, list_name: str) -> Sequence[Any]:
    if isinstance(holder, Mapping):
        entries = holder.get(list_name)
    elif isinstance(holder, BaseModel):
        entries = getattr(holder, _ATTRIBUTES[list_name], None)
    else:
        return ()
    return entries if isinstance(entries, list | tuple) else ()
