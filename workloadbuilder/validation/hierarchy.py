"""Runtime hierarchy checks over a set of PodGroups and CompositePodGroups.

Each object is valid alone, yet the groups of one workload form a tree
through ``spec.parentCompositePodGroupName``, and no apiserver sees the tree
whole. kube-scheduler checks it at run time and refuses to schedule an
invalid hierarchy (KEP-6012): every parent must exist, there is no cycle,
the tree is at most 4 levels deep, all its groups reference one Workload,
and (alpha) all share one priority class and priority. ``validate_hierarchy``
runs those checks before anything is created.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from workloadbuilder._internal import kinds
from workloadbuilder._internal.gofmt import go_quote
from workloadbuilder._internal.kinds import KubeObject
from workloadbuilder.field import FieldError, FieldPath, invalid, not_found
from workloadbuilder.validation.objects import read_object

__all__ = ["HierarchyProblem", "validate_hierarchy"]

_PARENT = FieldPath("spec", "parentCompositePodGroupName")
_WORKLOAD = FieldPath("spec", "workloadRef", "workloadName")
_CLASS = FieldPath("spec", "priorityClassName")
_PRIORITY = FieldPath("spec", "priority")


@dataclass(frozen=True)
class HierarchyProblem:
    """One problem of one group in its hierarchy: which object, and the field error inside it.

    ``str()`` is ``<Kind> <namespace>/<name>: <field error>``.
    """

    kind: str
    namespace: str
    name: str
    error: FieldError

    def __str__(self) -> str:
        where = f"{self.namespace}/{self.name}" if self.namespace else self.name
        return f"{self.kind} {where}: {self.error}"


@dataclass(eq=False)
class _Group:
    kind: str
    namespace: str
    name: str
    parent: str | None
    workload: str | None
    priority_class: str
    priority: int | None
    depth: int = 0  # levels from its root, 1 for a root; 0 when it has none (a missing parent or a cycle)
    root: _Group | None = None

    def error(self, err: FieldError) -> HierarchyProblem:
        return HierarchyProblem(self.kind, self.namespace, self.name, err)


def validate_hierarchy(objects: Iterable[KubeObject]) -> list[HierarchyProblem]:
    """The runtime-hierarchy problems of a set of groups, each reported on the group it is about.

    Args:
        objects: PodGroups and CompositePodGroups, as client models or dicts
            (anything else, a Workload say, is skipped, and so is a group that
            does not decode). Namespaces are separate worlds; a missing
            namespace counts as one.

    Returns:
        In the order of ``objects``: a parent that is not among the
        CompositePodGroups (``Not found``), a group on a cycle, a group 5
        levels below its root (the first level too deep), then, per tree, each
        group whose Workload, priority class or priority differs from its
        root's. Groups on broken chains skip the per-tree checks.
    """
    groups = [group for obj in objects if (group := _group(obj)) is not None]
    composites = {(g.namespace, g.name): g for g in groups if g.kind == kinds.COMPOSITE_POD_GROUP}
    problems: list[HierarchyProblem] = []
    for group in groups:
        problems.extend(_chain_errors(group, composites))
    for group in groups:
        problems.extend(_tree_errors(group))
    return problems


def _group(obj: Any) -> _Group | None:
    kind = kinds.kind_of(obj)
    if kind not in (kinds.POD_GROUP, kinds.COMPOSITE_POD_GROUP):
        return None
    data, errs = read_object(obj, kind)
    if errs:  # validate_pod_group / validate_composite_pod_group report it
        return None
    meta, spec = data.get("metadata") or {}, data.get("spec") or {}
    ref = spec.get("workloadRef") or {}
    return _Group(
        kind,
        meta.get("namespace") or "",
        meta.get("name") or "",
        spec.get("parentCompositePodGroupName"),
        ref.get("workloadName"),
        spec.get("priorityClassName") or "",
        spec.get("priority"),
    )


def _chain_errors(group: _Group, composites: dict[tuple[str, str], _Group]) -> list[HierarchyProblem]:
    """Walk up from ``group``: a missing parent, a cycle, or too many levels; else record its root and depth."""
    chain = [group]
    current = group
    while current.parent is not None:
        parent = composites.get((group.namespace, current.parent))
        if parent is None:
            if current is group:
                return [group.error(not_found(_PARENT, current.parent))]
            return []  # reported on the group whose parent is missing
        if parent in chain:
            if parent is group:
                names = " -> ".join(go_quote(g.name) for g in [*chain, group])
                return [group.error(invalid(_PARENT, group.parent, f"the parent chain is a cycle: {names}"))]
            return []  # not on the cycle itself: reported on the cycle's members
        chain.append(parent)
        current = parent
    group.root, group.depth = current, len(chain)
    if group.depth == kinds.MAX_DEPTH + 1:
        detail = f"the hierarchy may be at most {kinds.MAX_DEPTH} levels deep; this group is at level {group.depth}"
        return [group.error(invalid(_PARENT, group.parent, detail))]
    return []


def _tree_errors(group: _Group) -> list[HierarchyProblem]:
    """A group that disagrees with its root about the Workload or the priority (alpha: one per tree)."""
    root = group.root
    if root is None or root is group:
        return []
    errs = []
    root_name = go_quote(root.name)
    if group.workload is not None and root.workload is not None and group.workload != root.workload:
        detail = (
            "all groups of one hierarchy must reference one Workload; "
            f"the root {root_name} references {go_quote(root.workload)}"
        )
        errs.append(group.error(invalid(_WORKLOAD, group.workload, detail)))
    if group.priority_class != root.priority_class:
        detail = (
            "all groups of one hierarchy must have the root's priorityClassName; "
            f"the root {root_name} has {go_quote(root.priority_class)}"
        )
        errs.append(group.error(invalid(_CLASS, group.priority_class, detail)))
    if group.priority is not None and root.priority is not None and group.priority != root.priority:
        detail = f"all groups of one hierarchy must have the root's priority; the root {root_name} has {root.priority}"
        errs.append(group.error(invalid(_PRIORITY, group.priority, detail)))
    return errs
