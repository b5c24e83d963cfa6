"""The Workload rules no ``+k8s:`` tag can express: the template tree as a whole.

KEP-6012 adds hand-written validation for new Workloads: template names are
unique across the whole tree (a ``workloadRef`` names a template by name
alone), the tree is at most 4 levels deep, a composite template has
children, and (an alpha restriction) a composite template whose
``disruptionMode`` is ``all`` has only ``all`` children. Upstream's messages
for these were not published with the sources; ours are listed in
docs/validation.md. Also here: the warnings, which the apiserver would send
as ``Warning`` headers rather than reject.
"""

from __future__ import annotations

from workloadbuilder.field import ErrorList, FieldPath, duplicate, forbidden, invalid
from workloadbuilder.kinds import MAX_DEPTH
from workloadbuilder.validation.dv import Struct
from workloadbuilder.walk import walk

__all__ = ["tree_errors", "tree_warnings"]

_CHILD_LISTS = ("podGroupTemplates", "compositePodGroupTemplates")


def tree_errors(path: FieldPath, spec: Struct) -> ErrorList:
    """The tree rules for a canonical ``spec`` at ``path``, in pre-order of the templates.

    A name repeated within one list is left to the list's own ``Duplicate``
    error; a repeat anywhere else is ``Duplicate`` at the later ``name``.
    """
    errs = ErrorList()
    first_list: dict[str, str] = {}
    for record in walk(spec, path, max_depth=MAX_DEPTH):
        name = record.node["name"]
        if name and first_list.setdefault(name, str(record.list_path)) != str(record.list_path):
            errs.append(duplicate(record.path.child("name"), name))
        if record.composite:
            errs.extend(_composite_errors(record.path, record.node, record.depth))
    return errs


def _composite_errors(path: FieldPath, template: Struct, depth: int) -> ErrorList:
    errs = ErrorList()
    children = [
        (path.child(name).index(i), child) for name in _CHILD_LISTS for i, child in enumerate(template[name] or [])
    ]
    if not children:
        errs.append(
            invalid(path, "", "must specify at least one of: `podGroupTemplates`, `compositePodGroupTemplates`")
        )
    mode = template["disruptionMode"]
    if mode is not None and mode["all"] is not None:
        for child_path, child in children:
            child_mode = child["disruptionMode"]
            if child_mode is None or child_mode["all"] is None:
                value = "single" if child_mode is not None and child_mode["single"] is not None else ""
                detail = "must be `all` because the parent template's disruptionMode is `all`"
                errs.append(invalid(child_path.child("disruptionMode"), value, detail))
    if depth == MAX_DEPTH:
        for name in _CHILD_LISTS:
            if template[name]:
                errs.append(forbidden(path.child(name), f"the template tree may be at most {MAX_DEPTH} levels deep"))
    return errs


def tree_warnings(path: FieldPath, spec: Struct) -> list[str]:
    """Warnings for a canonical ``spec``: a composite gang asking for more groups than it has child templates.

    Several runtime groups may be made from one template, so this is not an
    error; but with one group per template such a gang can never be admitted.
    """
    warnings = []
    for record in walk(spec, path, max_depth=MAX_DEPTH):
        template_path, template = record.path, record.node
        gang = template["schedulingPolicy"]["gang"] if record.composite else None
        if gang is None:
            continue
        children = sum(len(template[name] or []) for name in _CHILD_LISTS)
        if gang["minGroupCount"] > children:
            count_path = template_path.child("schedulingPolicy", "gang", "minGroupCount")
            warnings.append(
                f"{count_path}: minGroupCount {gang['minGroupCount']} is greater than the number of child templates "
                f"({children}): unless several groups are made from one template, this group can never be admitted"
            )
    return warnings
