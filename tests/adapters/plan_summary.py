"""Helpers of the adapter tests: what a golden file records before its objects, and the apiserver's verdict.

The summary is the resolved tree, the pods, the stamps and the warnings.
"""

from __future__ import annotations

from typing import Any

from workloadbuilder import FieldPath, WorkloadItem
from workloadbuilder._internal.objpath import elements_of
from workloadbuilder.adapters._shared.reading import at
from workloadbuilder.adapters.base import Compiled, Plan
from workloadbuilder.resolve import resolve_config
from workloadbuilder.validation.objects import validate_composite_pod_group, validate_pod_group, validate_workload

__all__ = ["accepted_by_the_apiserver", "golden_documents", "summary"]


def accepted_by_the_apiserver(compiled: Compiled) -> list[str]:
    """Every compiled object as a 1.37 apiserver (all gates on) sees it: the errors, none when all is well."""
    errors = [str(err) for err in validate_workload(compiled.workload)]
    for obj in compiled.hierarchy.objects():
        check = validate_composite_pod_group if obj.kind == "CompositePodGroup" else validate_pod_group
        errors.extend(f"{obj.metadata.name}: {err}" for err in check(obj))
    return errors


def golden_documents(plan: Plan, compiled: Compiled, **extra: Any) -> list[Any]:
    """The summary, then every object in creation order."""
    return [summary(plan, compiled, **extra), *compiled.objects()]


def summary(plan: Plan, compiled: Compiled, **extra: Any) -> dict[str, Any]:
    """The plan at a glance: each node's path, gang size, topology keys and mode; the pods; the stamps; the warnings."""
    out: dict[str, Any] = {"object": plan.object_ref, **extra}
    out["tree"] = [_node(root) for root in plan.roots]
    out["pods"] = [
        {
            "podGroup": pods.pod_group,
            "template": pods.template,
            "count": pods.count,
            "selector": dict(pods.selector),
            "stampPath": pods.stamp_path,
        }
        for pods in compiled.pods
    ]
    out["stamps"] = {
        pods.stamp_path: _stamp(compiled.source, pods.stamp_path) for pods in compiled.pods if pods.stamp_path
    }
    out["warnings"] = [str(warning) for warning in compiled.warnings]
    return out


def _node(item: WorkloadItem) -> dict[str, Any]:
    config = resolve_config(item)
    count = "minGroupCount" if item.is_composite else "minCount"
    node: dict[str, Any] = {"name": item.name, "path": str(item.path) if item.path is not None else None}
    if config.policy is not None and config.policy.gang is not None:
        node["policy"] = {"gang": {count: config.policy.gang.min_count}}
    elif config.policy is not None and config.policy.basic is not None:
        node["policy"] = {"basic": {}}
    if config.constraints is not None and config.constraints.topology:
        node["topology"] = [constraint.key for constraint in config.constraints.topology]
    if config.disruption_mode is not None:
        node["disruptionMode"] = "all" if config.disruption_mode.all is not None else "single"
    if config.priority_class_name:
        node["priorityClassName"] = config.priority_class_name
    if config.resource_claims:
        node["resourceClaims"] = [claim.name for claim in config.resource_claims]
    if item.children:
        node["children"] = [_node(child) for child in item.children if child is not None]
    return node


def _stamp(source: dict[str, Any], template_path: str) -> Any:
    """The PodGroup the compiled object's pod template names (``None``: the controller stamps the pods instead)."""
    return at(source, (*elements_of(FieldPath.parse(template_path)), "spec", "schedulingGroup", "podGroupName"))
