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

__all__ = ["update_findings"]


def update_findings(
    old: Mapping[str, Any] | BaseModel,
    new: Mapping[str, Any] | BaseModel,
    related: Sequence[Mapping[str, Any]] = (),
    gates: FeatureGates | None = None,
) -> list[Finding]:
    """Every error an update of ``old`` to ``new`` meets, at the controller object's own paths.

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
    old_plan, new_plan = adapter.plan(old_data, related), adapter.plan(new_data, related)
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
    if before.workload is not None and after.workload is not None:
        old_w, new_w = to_json_dict(before.workload), to_json_dict(after.workload)
        refused_by = f"Workload {old_w['metadata']['name']}"
        for err in check_update(old_w, new_w, gates):
            template = _template_at(new_w, old_w, str(err.field))
            if template is not None:
                yield _at_controller(err, paths.get(template), refused_by)
                continue
            removed = [name for name in _template_names(old_w) if name not in _template_names(new_w)]
            for name in removed or [""]:
                yield _at_controller(err, paths.get(name), refused_by)
    old_groups = {_name(group): group for group in before.hierarchy.objects()}
    for group in after.hierarchy.objects():
        previous = old_groups.get(_name(group))
        if previous is None:
            continue
        new_g = to_json_dict(group)
        for err in check_update(to_json_dict(previous), new_g, gates):
            template = _group_template(new_g)
            yield _at_controller(err, paths.get(template), f"{new_g['kind']} {new_g['metadata']['name']}")


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
    names: list[str] = []
    stack = [workload.get("spec") or {}]
    while stack:
        holder = stack.pop()
        for key in ("podGroupTemplates", "compositePodGroupTemplates"):
            for template in holder.get(key) or []:
                if isinstance(template, Mapping):
                    names.append(str(template.get("name")))
                    stack.append(template)
    return names


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


def _at_controller(err: FieldError, path: FieldPath | None, refused_by: str) -> FieldError:
    """The compiled object's error, moved to the controller path that caused it and saying where it was refused."""
    detail = f"{err.detail} (the {refused_by} refuses the update at {err.field})"
    return FieldError(err.type, path if path is not None else err.field, err.bad_value, detail)
