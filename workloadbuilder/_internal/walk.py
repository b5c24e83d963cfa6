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

from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

from pydantic import BaseModel

from workloadbuilder.field import FieldPath

__all__ = ["COMPOSITE_LIST", "LEAF_LIST", "TemplateNode", "walk"]

LEAF_LIST = "podGroupTemplates"
"""The JSON name of the list of leaf templates."""
COMPOSITE_LIST = "compositePodGroupTemplates"
"""The JSON name of the list of composite templates."""


class TemplateNode(NamedTuple):
    """One template of a tree and where it sits (an immutable record).

    Attributes:
        list_name: the list it is an entry of (``podGroupTemplates`` or ``compositePodGroupTemplates``).
        position: its index in that list.
        depth: 1 for a top-level template, 2 for a child of one, and so on.
        composite: whether it is a composite template (it holds templates).
        parent: the composite template it sits in, ``None`` at the top level.
        node: the template itself, a client model or a mapping as given.
        root: the path of the spec the walk started from.
    """

    list_name: str
    position: int
    depth: int
    composite: bool
    parent: TemplateNode | None
    node: Any
    root: FieldPath

    @property
    def list_path(self) -> FieldPath:
        """The path of the list it is an entry of; siblings share it."""
        return (self.parent.path if self.parent is not None else self.root).child(self.list_name)

    @property
    def path(self) -> FieldPath:
        """Its field path, e.g. ``spec.compositePodGroupTemplates[0].podGroupTemplates[1]``."""
        return self.list_path.index(self.position)

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
        return "".join(f"/{record.list_name}/{record.position}" for record in self.lineage())


def walk(spec: object, path: FieldPath | None = None, *, max_depth: int | None = None) -> Iterator[TemplateNode]:
    """Every template under ``spec`` in pre-order, leaves before composites under each holder.

    Args:
        spec: a Workload spec or a composite template, as a client model or
            a mapping; anything else has no templates.
        path: the path of ``spec``; ``spec`` by default.
        max_depth: the deepest depth to visit; templates below it are not
            visited (their composite is, so a caller can report the excess).
    """
    root = path if path is not None else _SPEC
    pending = _children(spec, root, None)
    while pending:
        record = pending.pop()
        yield record
        if record.composite and (max_depth is None or record.depth < max_depth):
            pending.extend(_children(record.node, root, record))


_SPEC = FieldPath("spec")


def _children(holder: object, root: FieldPath, parent: TemplateNode | None) -> list[TemplateNode]:
    """The templates directly under ``holder``, last first (the walk pops from the end)."""
    depth = parent.depth + 1 if parent is not None else 1
    if isinstance(holder, BaseModel):
        # A client model's lists hold client models, or None, which names no template.
        leaves = getattr(holder, "pod_group_templates", None)
        composites = getattr(holder, "composite_pod_group_templates", None)
        is_template: Callable[[object], bool] = _is_not_none
    elif isinstance(holder, Mapping):
        leaves, composites, is_template = holder.get(LEAF_LIST), holder.get(COMPOSITE_LIST), _is_object
    else:
        return []
    out: list[TemplateNode] = []
    for list_name, entries, composite in ((COMPOSITE_LIST, composites, True), (LEAF_LIST, leaves, False)):
        if entries and isinstance(entries, list | tuple):
            out.extend(
                TemplateNode(list_name, i, depth, composite, parent, entries[i], root)
                for i in range(len(entries) - 1, -1, -1)
                if is_template(entries[i])
            )
    return out


def _is_not_none(entry: object) -> bool:
    return entry is not None


def _is_object(entry: object) -> bool:
    return isinstance(entry, Mapping | BaseModel)
