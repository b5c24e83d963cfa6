"""Compilation: a WorkloadItem tree into a ``scheduling.k8s.io/v1beta1`` Workload.

A leaf root becomes the Workload's one PodGroupTemplate; a composite root
becomes its one CompositePodGroupTemplate, with children compiled
recursively into nested templates in child order per kind. Compilation fails
fast with the Go library's messages and runs no allow-list or declarative
check: that is ``validate``'s job.

The templates are assembled as Kubernetes JSON and turned into client models
in one validation pass, which is about twice as fast as constructing each
nested model in Python.
"""

from __future__ import annotations

from typing import Any

from kubernetes.client import V1beta1Workload, V1beta1WorkloadSpec

from workloadbuilder._internal.gofmt import go_quote
from workloadbuilder._internal.kinds import WORKLOAD_API_VERSION
from workloadbuilder.errors import BuildError
from workloadbuilder.resolve import resolve_config
from workloadbuilder.types import (
    BuildOptions,
    DisruptionMode,
    SchedulingConfig,
    SchedulingPolicy,
    WorkloadItem,
)
from workloadbuilder.validation.structure import CheckedTree, tree_error, undecodable_tree_errors

__all__ = ["compile_workload", "compile_workload_spec", "parse_group"]


def compile_workload(
    root: WorkloadItem | None, options: BuildOptions, checked: CheckedTree | None = None
) -> V1beta1Workload:
    """Compile the tree into a complete Workload manifest owned by ``options.owner``.

    ``checked`` is what ``validate`` found of this very tree on the same
    ``Builder``: the structural and decoding checks are then not repeated
    (every item is still resolved, callbacks included, as Go's builder
    resolves again). Without it, or for another root, compilation checks
    everything itself, as Go's does.

    Raises:
        BuildError: the tree is malformed, a gang has no count after
            resolution, there is no owner, or the owner's apiVersion does not parse.
    """
    spec = _spec(root, checked if checked is not None and checked.root is root else None)
    owner = options.owner
    if owner is None:
        raise BuildError("a Workload must be owned by its controller for garbage collection")
    controller_ref = {"kind": owner.kind, "name": owner.name}
    group = parse_group(owner.api_version)
    if group:  # the core group is "", which Go's omitempty leaves out
        controller_ref["apiGroup"] = group
    spec["controllerRef"] = controller_ref
    metadata: dict[str, Any] = {"ownerReferences": [owner.model_dump(by_alias=True, exclude_none=True)]}
    if options.name:
        metadata["name"] = options.name
    if options.namespace:
        metadata["namespace"] = options.namespace
    return V1beta1Workload.model_validate(
        {"apiVersion": WORKLOAD_API_VERSION, "kind": "Workload", "metadata": metadata, "spec": spec}
    )


def parse_group(api_version: str) -> str:
    """The API group of an ``apiVersion``, as Go's ``schema.ParseGroupVersion`` reads it.

    Raises:
        BuildError: the value has more than one ``/``.
    """
    if api_version in ("", "/"):
        return ""
    slashes = api_version.count("/")
    if slashes == 0:
        return ""
    if slashes == 1:
        return api_version.split("/", 1)[0]
    raise BuildError(f"invalid owner apiVersion {go_quote(api_version)}: unexpected GroupVersion string: {api_version}")


def compile_workload_spec(root: WorkloadItem | None) -> V1beta1WorkloadSpec:
    """Compile the tree into a WorkloadSpec without identity or controllerRef."""
    return V1beta1WorkloadSpec.model_validate(_spec(root, None))


def _spec(root: WorkloadItem | None, checked: CheckedTree | None) -> dict[str, Any]:
    if checked is None:
        problem = tree_error(root)
        if problem is not None:
            raise BuildError(problem)
        assert root is not None  # tree_error rejects a missing root
        errs = undecodable_tree_errors(root)
        if errs:
            raise BuildError(f"invalid input: {errs.to_aggregate()}")
    assert root is not None
    if root.is_composite:
        return {"compositePodGroupTemplates": [_composite_template(root)]}
    return {"podGroupTemplates": [_leaf_template(root)]}


def _leaf_template(item: WorkloadItem) -> dict[str, Any]:
    cfg = resolve_config(item)
    template: dict[str, Any] = {"name": item.name, "schedulingPolicy": _policy(cfg.policy, composite=False)}
    _add_common(template, cfg)
    if cfg.resource_claims:
        template["resourceClaims"] = [_claim(claim) for claim in cfg.resource_claims]
    return template


def _composite_template(item: WorkloadItem) -> dict[str, Any]:
    cfg = resolve_config(item)
    # The composite's own policy compiles before its children, so its error wins.
    template: dict[str, Any] = {"name": item.name, "schedulingPolicy": _policy(cfg.policy, composite=True)}
    _add_common(template, cfg)
    leaves: list[dict[str, Any]] = []
    composites: list[dict[str, Any]] = []
    for child in item.children:
        if child is None:  # unreachable after the tree check; kept for the Go message
            raise BuildError(f"composite workload item {go_quote(item.name)} has a nil child")
        if child.is_composite:
            composites.append(_composite_template(child))
        else:
            leaves.append(_leaf_template(child))
    if leaves:
        template["podGroupTemplates"] = leaves
    if composites:
        template["compositePodGroupTemplates"] = composites
    return template


def _add_common(template: dict[str, Any], cfg: SchedulingConfig) -> None:
    """Constraints (only when a topology is set, only its keys), the mode, and the priority fields.

    An empty priorityClassName is left out, as Go's omitempty does.
    """
    if cfg.constraints is not None and cfg.constraints.topology:
        template["schedulingConstraints"] = {"topology": [{"key": t.key} for t in cfg.constraints.topology]}
    mode = _disruption_mode(cfg.disruption_mode)
    if mode is not None:
        template["disruptionMode"] = mode
    if cfg.priority_class_name:
        template["priorityClassName"] = cfg.priority_class_name
    if cfg.priority is not None:
        template["priority"] = cfg.priority
    if cfg.preemption_policy is not None:
        template["preemptionPolicy"] = cfg.preemption_policy


def _policy(policy: SchedulingPolicy | None, composite: bool) -> dict[str, Any]:
    """Gang wins over basic; no policy, an empty one or basic compile to ``basic: {}``."""
    if policy is None or policy.gang is None:
        return {"basic": {}}
    if policy.gang.min_count is None:
        if composite:
            raise BuildError("composite gang scheduling requires minGroupCount to be set after resolution")
        raise BuildError("gang scheduling requires minCount to be set after resolution")
    return {"gang": {"minGroupCount" if composite else "minCount": policy.gang.min_count}}


def _disruption_mode(mode: DisruptionMode | None) -> dict[str, Any] | None:
    """``all`` wins over ``single``; a mode with neither compiles to nothing."""
    if mode is None:
        return None
    if mode.all is not None:
        return {"all": {}}
    if mode.single is not None:
        return {"single": {}}
    return None


def _claim(claim: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": claim.name}
    if claim.resource_claim_name is not None:
        out["resourceClaimName"] = claim.resource_claim_name
    if claim.resource_claim_template_name is not None:
        out["resourceClaimTemplateName"] = claim.resource_claim_template_name
    return out
