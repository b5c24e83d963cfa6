"""Updating a controller object: its own update rules, then the Workload API's on what both versions compile to.

A controller object that passes its own update rules can still compile to a
Workload, PodGroup or CompositePodGroup that the apiserver refuses to
update: a Job that gains a gang changes an immutable policy, a JobSet that
gains a ReplicatedJob adds a template. ``update_findings`` plans and
compiles both versions, runs ``workloadbuilder.check_update`` on each pair
of compiled objects (the Workload, and every runtime group of the same
name), and reports each refusal at the controller path of the template
that caused it, saying which compiled object refused and where.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from workloadbuilder import FeatureGates, FieldError, FieldPath, WorkloadItem, check_update
from workloadbuilder.adapters.base import Compiled, Finding, Plan, PlanError, adapter_for, as_dict
from workloadbuilder.adapters.kit import elements_of, to_json_dict
from workloadbuilder.errors import NoAdapterError
from workloadbuilder.field import ErrorType, extend_path, index_path

__all__ = ["update_findings"]


def update_findings(
    old: Mapping[str, Any] | BaseModel,
    new: Mapping[str, Any] | BaseModel,
    related: Sequence[Mapping[str, Any]] = (),
    gates: FeatureGates | None = None,
    old_related: Sequence[Mapping[str, Any]] | None = None,
) -> list[Finding]:
    """Every error an update of ``old`` to ``new`` meets, at the controller object's own paths.

    ``related`` are the objects ``new`` is planned with (a TrainJob's
    runtime), ``old_related`` those of ``old`` when they differ (by default
    the same).

    First the adapter's own update rules (a Job's ``validate_update``, or
    the new plan validated against the old); when they pass, the update
    rules of the Workload API on what both versions compile to. An old
    version that does not compile (it could not have been stored) leaves
    only the first.

    Raises:
        NoAdapterError: no adapter is registered for the object's apiVersion and kind.
    """
    old_data, new_data = as_dict(old), as_dict(new)
    adapter = adapter_for(str(new_data.get("apiVersion", "")), str(new_data.get("kind", "")))
    if adapter is None:
        raise NoAdapterError(f"no adapter for apiVersion {new_data.get('apiVersion')!r} kind {new_data.get('kind')!r}")
    old_objects = related if old_related is None else old_related
    old_plan, new_plan = adapter.plan(old_data, old_objects), adapter.plan(new_data, related)
    own_rules = getattr(adapter, "validate_update", None)
    findings = own_rules(old_data, new_data, related) if callable(own_rules) else new_plan.validate(old=old_plan)
    if findings:
        return list(findings)
    try:
        before, after = old_plan.compile(), new_plan.compile()
    except PlanError:
        return []
    return [Finding(new_plan.object_ref, err) for err in _compiled_errors(before, after, old_plan, new_plan, gates)]


def _compiled_errors(
    before: Compiled, after: Compiled, old_plan: Plan, new_plan: Plan, gates: FeatureGates | None
) -> Iterator[FieldError]:
    paths = {**_item_paths(old_plan.roots), **_item_paths(new_plan.roots)}
    items = {**_items(old_plan.roots), **_items(new_plan.roots)}
    if before.workload is not None and after.workload is not None:
        old_w, new_w = to_json_dict(before.workload), to_json_dict(after.workload)
        refused_by = f"Workload {old_w['metadata']['name']}"
        for err in check_update(old_w, new_w, gates):
            if _unowned(err):
                continue
            template = _template_at(new_w, old_w, str(err.field))
            if template is not None:
                old_t, new_t = _template_named(old_w, template), _template_named(new_w, template)
                path, value = _block_path(err, items.get(template), old_t, new_t)
                yield _at_controller(err, path or paths.get(template), refused_by, value)
                continue
            kept = set(_template_names(new_w))
            removed = [name for name in _template_names(old_w) if name not in kept]
            for name in removed or [""]:
                yield _at_controller(err, paths.get(name), refused_by)
    old_groups = {_name(group): group for group in before.hierarchy.objects()}
    for group in after.hierarchy.objects():
        previous = old_groups.get(_name(group))
        if previous is None:
            continue
        old_g, new_g = to_json_dict(previous), to_json_dict(group)
        for err in check_update(old_g, new_g, gates):
            if _unowned(err):
                continue
            template = _group_template(new_g)
            path, value = _block_path(err, items.get(template), old_g.get("spec"), new_g.get("spec"))
            refused_by = f"{new_g['kind']} {new_g['metadata']['name']}"
            yield _at_controller(err, path or paths.get(template), refused_by, value)


_BLOCKS = {
    "schedulingPolicy": "policy",
    "schedulingConstraints": "constraints",
    "disruptionMode": "disruption_mode",
    "resourceClaims": "resource_claims",
}
"""A compiled template's (or group's) block fields, and the ``WorkloadInput`` field that holds the user's block."""


def _unowned(err: FieldError) -> bool:
    """``metadata.ownerReferences[i].uid: Required value``: a manifest never created has no uid, old or new alike.

    Such an owner reference is what compiling any object without a uid gives;
    it says nothing of the update, so the diff leaves it out.
    """
    loc = err.loc()
    return err.type is ErrorType.REQUIRED and loc[:2] == ("metadata", "ownerReferences") and loc[-1:] == ("uid",)


_AS_REFUSED = object()
"""The compiled object's bad value stands: the error's path does not reach one changed value."""


def _block_path(err: FieldError, item: WorkloadItem | None, old: Any, new: Any) -> tuple[FieldPath | None, Any]:
    """Where in the controller object the field an error is about lives, down to the leaf that changed,
    and the new value there as the object gives it (``_AS_REFUSED`` when the path stops above one value).

    ``old`` and ``new`` hold the compiled block the error sits in (a
    template, or a group's ``spec``). The error's block (``schedulingConstraints``,
    say) is found at the item's path and the block's path elements; when the
    user wrote that block under its own name, the path goes on into it, to
    the one value that changed (``topology[0].key``), whose new value is
    then the error's bad value (the apiserver's is that of the whole
    block). ``None`` when the error is not in a block the item was given.
    """
    loc = err.loc()
    at = next((i for i in range(len(loc) - 1, 0, -1) if loc[i] in _BLOCKS and _holds_block(loc, i)), None)
    if item is None or at is None:
        return None, _AS_REFUSED
    block = str(loc[at])
    given = getattr(item.input, _BLOCKS[block])
    data = getattr(given, "pod_group_data", None) or getattr(given, "composite_pod_group_data", None)
    if not data:
        return None, _AS_REFUSED  # the block came from the controller's defaults, not from the object
    path = extend_path(item.path, given.path_elements)
    if given.path_elements[-1:] != [block]:
        return path, _AS_REFUSED  # the block is spelled another way there (an annotation, say)
    inner = loc[at + 1 :]
    old_value, new_value = _value_at(_mapping_get(old, block), inner), _value_at(_mapping_get(new, block), inner)
    leaf = _changed_leaf(old_value, new_value)
    for element in (*inner, *leaf):
        path = index_path(path, element) if isinstance(element, int) else extend_path(path, [element])
    value = _value_at(new_value, leaf) if leaf else _AS_REFUSED
    return path, value if not isinstance(value, Mapping | list) else _AS_REFUSED


def _holds_block(loc: tuple[str | int, ...], i: int) -> bool:
    """Whether ``loc[i]`` is a block field: of a template (after its index) or of a group's ``spec``."""
    return isinstance(loc[i - 1], int) or (i == 1 and loc[0] == "spec")


def _mapping_get(node: Any, key: str) -> Any:
    return node.get(key) if isinstance(node, Mapping) else None


def _value_at(node: Any, elements: Sequence[str | int]) -> Any:
    for element in elements:
        if isinstance(element, int):
            node = node[element] if isinstance(node, list) and element < len(node) else None
        else:
            node = _mapping_get(node, element)
    return node


def _changed_leaf(old: Any, new: Any) -> tuple[str | int, ...]:
    """The path from ``old``/``new`` down to the one value that differs (``()`` when more, or a whole part, changed).

    Examples:
        >>> _changed_leaf({"topology": [{"key": "a"}]}, {"topology": [{"key": "b"}]})
        ('topology', 0, 'key')
        >>> _changed_leaf({"topology": [{"key": "a"}]}, {})
        ()
    """
    out: list[str | int] = []
    while True:
        if isinstance(old, Mapping) and isinstance(new, Mapping):
            changed: list[str | int] = [key for key in {**old, **new} if old.get(key) != new.get(key)]
        elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
            changed = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
        else:
            return tuple(out)
        if len(changed) != 1:
            return tuple(out)
        step = changed[0]
        old, new = (old[step], new[step]) if isinstance(step, int) else (old.get(step), new.get(step))
        if old is None or new is None:
            return tuple(out)  # a field added or removed: said at the field that holds it
        out.append(step)


def _items(roots: Sequence[WorkloadItem | None]) -> dict[str, WorkloadItem]:
    """Every item of a plan's tree, by template name."""
    out: dict[str, WorkloadItem] = {}
    stack = list(roots)
    while stack:
        item = stack.pop()
        if item is None:
            continue
        out.setdefault(item.name, item)
        stack.extend(item.children)
    return out


def _template_named(workload: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    """The template of that name in a Workload (composites' children included)."""
    return next((template for template in _templates(workload) if template.get("name") == name), None)


def _templates(workload: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """Every template of a Workload in JSON form, composites and their children included, depth first."""
    stack = [workload.get("spec") or {}]
    while stack:
        holder = stack.pop()
        for key in ("podGroupTemplates", "compositePodGroupTemplates"):
            for template in holder.get(key) or []:
                if isinstance(template, Mapping):
                    yield template
                    stack.append(template)


def _name(obj: BaseModel) -> str:
    metadata = getattr(obj, "metadata", None)
    return str(getattr(metadata, "name", "") or "")


def _item_paths(roots: Sequence[WorkloadItem | None]) -> dict[str, FieldPath | None]:
    """Each template's name to where its item's blocks live in the controller object."""
    out: dict[str, FieldPath | None] = {}
    stack = list(roots)
    while stack:
        item = stack.pop()
        if item is None:
            continue
        out.setdefault(item.name, item.path)
        stack.extend(item.children)
    return out


def _template_names(workload: Mapping[str, Any]) -> list[str]:
    """Every template name of a Workload, composites and their children included."""
    return [str(template.get("name")) for template in _templates(workload)]


def _template_at(new: Mapping[str, Any], old: Mapping[str, Any], field: str) -> str | None:
    """The name of the template an error's path points into (looked up in the new Workload, then the old)."""
    elements = elements_of(field)
    for workload in (new, old):
        node: Any = workload
        name: str | None = None
        for element in elements:
            if isinstance(element, int):
                node = node[element] if isinstance(node, list) and element < len(node) else None
                if isinstance(node, Mapping) and isinstance(node.get("name"), str):
                    name = node["name"]
            elif isinstance(node, Mapping):
                node = node.get(element)
            else:
                node = None
            if node is None:
                break
        if name is not None:
            return name
    return None


def _group_template(group: Mapping[str, Any]) -> str:
    spec = group.get("spec") or {}
    ref = spec.get("workloadRef") or spec.get("podGroupTemplateRef") or {}
    name = ref.get("templateName") if isinstance(ref, Mapping) else None
    return name if isinstance(name, str) else ""


def _at_controller(err: FieldError, path: FieldPath | None, refused_by: str, value: Any = _AS_REFUSED) -> FieldError:
    """The compiled object's error, moved to the controller path that caused it and saying where it was refused;
    ``value`` (the changed value at that path, as given) replaces the compiled object's bad value."""
    detail = f"{err.detail} (the {refused_by} refuses the update at {err.field})"
    bad_value = err.bad_value if value is _AS_REFUSED else value
    return FieldError(err.type, path if path is not None else err.field, bad_value, detail)
