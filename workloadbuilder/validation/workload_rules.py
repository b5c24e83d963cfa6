"""The Workload rules no ``+k8s:`` tag can express: the template tree as a whole.

These are the apiserver's hand-written ``ValidateWorkloadSpec``
(``pkg/apis/scheduling/validation``), run on create and on every update, in
its order and with its messages:

1. template names are unique across the whole tree (a ``workloadRef`` names a
   template by name alone); a repeat within one list is left to the list's
   declarative ``Duplicate`` error;
2. composite templates nest at most 4 deep counting the top-level one, the
   error at the top-level composite with its child composites as the value;
3. every template has the same ``priorityClassName`` and ``priority``;
4. every composite template has at least one child.

Also here: the warnings, problems the apiserver accepts that a user should
hear about.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from workloadbuilder._internal.gofmt import WholeValue
from workloadbuilder._internal.kinds import MAX_DEPTH
from workloadbuilder._internal.walk import COMPOSITE_LIST, LEAF_LIST, walk
from workloadbuilder.field import ErrorList, FieldPath, duplicate, invalid
from workloadbuilder.validation.dv import Struct
from workloadbuilder.validation.gotypes import GoStruct

__all__ = ["tree_errors", "tree_warnings"]

_LEAF_PRIORITY_DETAIL = "detected multiple priority configurations"
_COMPOSITE_PRIORITY_DETAIL = "all priority and priorityClassName values must be identical, detected multiple values"
_NO_CHILD_DETAIL = "must have at least one child PodGroupTemplate or CompositePodGroupTemplate"


def tree_errors(path: FieldPath, spec: Struct, raw: Any = None) -> ErrorList:
    """The hand-written rules for a canonical ``spec`` at ``path``: names, depth, priority, children, in that order.

    ``raw`` is the spec as sent (JSON), if at hand: the depth error shows a
    list sent empty as ``[]`` and a list left out as ``null``, as Go does.
    """
    errs = _unique_names(path, spec)
    errs += _depth(path.child(COMPOSITE_LIST), spec[COMPOSITE_LIST] or [], _raw_list(raw, COMPOSITE_LIST))
    errs += _one_priority(path, spec)
    for i, template in enumerate(spec[COMPOSITE_LIST] or []):
        errs += _has_children(path.child(COMPOSITE_LIST).index(i), template)
    return errs


def _unique_names(path: FieldPath, spec: Struct) -> ErrorList:
    """Names seen so far grow list by list: a composite list is checked whole before its members' children."""
    seen = {template["name"] for template in spec[LEAF_LIST] or []}
    return _composite_list_names(path, spec[COMPOSITE_LIST] or [], seen)


def _composite_list_names(path: FieldPath, templates: list[Struct], seen: set[str]) -> ErrorList:
    errs = _list_names(path.child(COMPOSITE_LIST), templates, seen)
    for i, template in enumerate(templates):
        template_path = path.child(COMPOSITE_LIST).index(i)
        errs += _list_names(template_path.child(LEAF_LIST), template[LEAF_LIST] or [], seen)
        errs += _composite_list_names(template_path, template[COMPOSITE_LIST] or [], seen)
    return errs


def _list_names(path: FieldPath, templates: list[Struct], seen: set[str]) -> ErrorList:
    """``Duplicate`` for each name an earlier list holds; then the list's names join those seen."""
    names = [template["name"] for template in templates]
    errs = ErrorList(duplicate(path.index(i).child("name"), name) for i, name in enumerate(names) if name in seen)
    seen.update(names)
    return errs


def _depth(path: FieldPath, templates: list[Struct], raw: list[Any]) -> ErrorList:
    """A top-level composite with a composite at depth ``MAX_DEPTH`` below it is refused at itself.

    The value, the template's child composites, is shown whole, as Go shows it.
    """
    detail = f"maximum template hierarchy depth is {MAX_DEPTH}"
    return ErrorList(
        invalid(path.index(i), WholeValue(_internal_list(template[COMPOSITE_LIST], _raw_item(raw, i))), detail)
        for i, template in enumerate(templates)
        if _too_deep(template, 1)
    )


def _raw_list(raw: Any, name: str) -> list[Any]:
    """The list ``name`` of a raw (JSON) struct, ``[]`` when it is missing or not a list."""
    value = raw.get(name) if isinstance(raw, Mapping) else None
    return value if isinstance(value, list) else []


def _raw_item(raw: list[Any], i: int) -> Any:
    return raw[i] if i < len(raw) else None


def _too_deep(template: Struct, depth: int) -> bool:
    if depth == MAX_DEPTH:
        return True
    return any(_too_deep(child, depth + 1) for child in template[COMPOSITE_LIST] or [])


def _one_priority(path: FieldPath, spec: Struct) -> ErrorList:
    """The first template's ``(priorityClassName, priority)`` is every template's; the first difference is refused.

    Leaves come first; a composite comes before its child composites, which
    come before its leaves. A difference met among the top-level leaves and
    one met under a composite have different messages.
    """
    first: tuple[str, int | None] | None = None
    for in_composite, template in _priority_order(spec):
        mine = (template["priorityClassName"], template["priority"])
        if first is None:
            first = mine
        elif mine != first:
            detail = _COMPOSITE_PRIORITY_DETAIL if in_composite else _LEAF_PRIORITY_DETAIL
            return ErrorList([invalid(path, None, detail)])
    return ErrorList()


def _priority_order(spec: Struct) -> Iterator[tuple[bool, Struct]]:
    for template in spec[LEAF_LIST] or []:
        yield False, template
    for template in spec[COMPOSITE_LIST] or []:
        yield from _composite_priority_order(template)


def _composite_priority_order(template: Struct) -> Iterator[tuple[bool, Struct]]:
    yield True, template
    for child in template[COMPOSITE_LIST] or []:
        yield from _composite_priority_order(child)
    for leaf in template[LEAF_LIST] or []:
        yield True, leaf


def _has_children(path: FieldPath, template: Struct) -> ErrorList:
    """A composite with no child template is refused at itself; then its child composites, in order."""
    errs = ErrorList()
    if not template[LEAF_LIST] and not template[COMPOSITE_LIST]:
        errs.append(invalid(path, template["name"], _NO_CHILD_DETAIL))
    for i, child in enumerate(template[COMPOSITE_LIST] or []):
        errs += _has_children(path.child(COMPOSITE_LIST).index(i), child)
    return errs


# The depth error's value is the internal (unversioned) template list, which has no JSON tags:
# json.Marshal writes Go's field names, every field, in the internal types' order.
_INTERNAL_FIELDS: dict[str, tuple[tuple[str, str, str | None], ...]] = {
    "CompositePodGroupTemplate": (
        ("Name", "name", None),
        ("SchedulingPolicy", "schedulingPolicy", "CompositeSchedulingPolicy"),
        ("SchedulingConstraints", "schedulingConstraints", "SchedulingConstraints"),
        ("DisruptionMode", "disruptionMode", "DisruptionMode"),
        ("PriorityClassName", "priorityClassName", None),
        ("Priority", "priority", None),
        ("PreemptionPolicy", "preemptionPolicy", None),
        ("PodGroupTemplates", LEAF_LIST, "PodGroupTemplate"),
        ("CompositePodGroupTemplates", COMPOSITE_LIST, "CompositePodGroupTemplate"),
    ),
    "PodGroupTemplate": (
        ("Name", "name", None),
        ("SchedulingPolicy", "schedulingPolicy", "SchedulingPolicy"),
        ("SchedulingConstraints", "schedulingConstraints", "SchedulingConstraints"),
        ("ResourceClaims", "resourceClaims", "ResourceClaim"),
        ("DisruptionMode", "disruptionMode", "DisruptionMode"),
        ("PriorityClassName", "priorityClassName", None),
        ("Priority", "priority", None),
        ("PreemptionPolicy", "preemptionPolicy", None),
    ),
    "SchedulingPolicy": (("Basic", "basic", "Empty"), ("Gang", "gang", "Gang")),
    "Gang": (("MinCount", "minCount", None),),
    "CompositeSchedulingPolicy": (("Basic", "basic", "Empty"), ("Gang", "gang", "CompositeGang")),
    "CompositeGang": (("MinGroupCount", "minGroupCount", None),),
    "SchedulingConstraints": (("Topology", "topology", "TopologyConstraint"),),
    "TopologyConstraint": (("Key", "key", None),),
    "ResourceClaim": (
        ("Name", "name", None),
        ("ResourceClaimName", "resourceClaimName", None),
        ("ResourceClaimTemplateName", "resourceClaimTemplateName", None),
    ),
    "DisruptionMode": (("Single", "single", "Empty"), ("All", "all", "Empty")),
    "Empty": (),
}


def _internal_list(templates: list[Struct] | None, raw_parent: Any) -> list[GoStruct] | None:
    """A template's child composites (``raw_parent`` the template as sent) as the internal type marshals them."""
    raw = raw_parent.get(COMPOSITE_LIST) if isinstance(raw_parent, Mapping) else None
    return _internal_items("CompositePodGroupTemplate", templates, raw)


def _internal_items(type_name: str, items: list[Struct] | None, raw: Any) -> list[GoStruct] | None:
    """A canonical list: ``null`` when nil, ``[]`` when sent empty (the canonical form does not tell them apart)."""
    if items is None:
        return [] if isinstance(raw, list) else None
    raw_items = raw if isinstance(raw, list) else []
    return [_internal(type_name, item, _raw_item(raw_items, i)) for i, item in enumerate(items)]


def _internal(type_name: str, value: Struct, raw: Any) -> GoStruct:
    """A canonical struct as ``json.Marshal`` writes the internal type (a nil list or pointer is ``null``)."""
    fields: list[tuple[str, Any]] = []
    raw_fields = raw if isinstance(raw, Mapping) else {}
    for go_name, json_name, nested in _INTERNAL_FIELDS[type_name]:
        item = value.get(json_name)
        if nested is None:
            fields.append((go_name, item))
        elif isinstance(item, list) or (item is None and isinstance(raw_fields.get(json_name), list)):
            fields.append((go_name, _internal_items(nested, item, raw_fields.get(json_name))))
        elif item is None:
            fields.append((go_name, None))
        else:
            fields.append((go_name, _internal(nested, item, raw_fields.get(json_name))))
    return GoStruct(fields)


def tree_warnings(path: FieldPath, spec: Struct) -> list[str]:
    """Warnings for a canonical ``spec``, in pre-order of the templates.

    - A composite gang asking for more groups than it has child templates:
      several runtime groups may be made from one template, so this is not an
      error; but with one group per template it can never be admitted.
    - A composite whose ``disruptionMode`` is ``all`` over a child that is not
      ``all``: the apiserver accepts it, but the child's own mode then never
      applies, since disrupting the child disrupts the whole composite.
    """
    warnings = []
    for record in walk(spec, path):
        if not record.composite:
            continue
        template = record.node
        children = [(LEAF_LIST, i, c) for i, c in enumerate(template[LEAF_LIST] or [])]
        children += [(COMPOSITE_LIST, i, c) for i, c in enumerate(template[COMPOSITE_LIST] or [])]
        gang = template["schedulingPolicy"]["gang"]
        if gang is not None and gang["minGroupCount"] > len(children):
            count_path = record.path.child("schedulingPolicy", "gang", "minGroupCount")
            warnings.append(
                f"{count_path}: minGroupCount {gang['minGroupCount']} is greater than the number of child templates "
                f"({len(children)}): unless several groups are made from one template, this group can never be admitted"
            )
        mode = template["disruptionMode"]
        if mode is not None and mode["all"] is not None:
            for list_name, i, child in children:
                child_mode = child["disruptionMode"]
                if child_mode is None or child_mode["all"] is None:
                    warnings.append(
                        f"{record.path.child(list_name).index(i).child('disruptionMode')}: not `all` under a parent "
                        "whose disruptionMode is `all`: the child is only ever disrupted with the whole parent"
                    )
    return warnings
