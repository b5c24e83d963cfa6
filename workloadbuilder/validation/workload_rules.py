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

from collections.abc import Iterator

from workloadbuilder.field import ErrorList, FieldPath, duplicate, forbidden, invalid
from workloadbuilder.validation.dv import Struct

__all__ = ["MAX_DEPTH", "tree_errors", "tree_warnings"]

MAX_DEPTH = 4  # WorkloadMaxTreeDepth: a top-level template is level 1
_CHILD_LISTS = ("podGroupTemplates", "compositePodGroupTemplates")


def tree_errors(path: FieldPath, spec: Struct) -> ErrorList:
    """The tree rules for a canonical ``spec`` at ``path``, in pre-order of the templates.

    A name repeated within one list is left to the list's own ``Duplicate``
    error; a repeat anywhere else is ``Duplicate`` at the later ``name``.
    """
    errs = ErrorList()
    first_list: dict[str, int] = {}
    for template_path, template, depth, list_id, composite in _walk(path, spec):
        name = template["name"]
        if name and first_list.setdefault(name, list_id) != list_id:
            errs.append(duplicate(template_path.child("name"), name))
        if composite:
            errs.extend(_composite_errors(template_path, template, depth))
    return errs


def _walk(path: FieldPath, parent: Struct, depth: int = 1) -> Iterator[tuple[FieldPath, Struct, int, int, bool]]:
    """Each template under ``parent`` in pre-order: ``(path, template, depth, id of its list, is composite)``.

    Lists deeper than ``MAX_DEPTH`` are not entered (their parent reports them).
    """
    if depth > MAX_DEPTH:
        return
    for list_name in _CHILD_LISTS:
        items = parent.get(list_name) or []
        for i, template in enumerate(items):
            composite = list_name == "compositePodGroupTemplates"
            template_path = path.child(list_name).index(i)
            yield template_path, template, depth, id(items), composite
            if composite:
                yield from _walk(template_path, template, depth + 1)


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
    for template_path, template, _, _, composite in _walk(path, spec):
        gang = template["schedulingPolicy"]["gang"] if composite else None
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
