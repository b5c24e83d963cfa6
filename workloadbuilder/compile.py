"""Compilation: a WorkloadItem tree into a ``scheduling.k8s.io/v1beta1`` Workload.

A leaf root becomes the Workload's one PodGroupTemplate; a composite root
becomes its one CompositePodGroupTemplate, with children compiled
recursively into nested templates in child order per kind. Compilation fails
fast with the Go library's messages and runs no allow-list or declarative
check: that is ``validate``'s job.
"""

from __future__ import annotations

from kubernetes.client import (
    V1beta1CompositeDisruptionMode,
    V1beta1CompositeGangSchedulingPolicy,
    V1beta1CompositePodGroupSchedulingConstraints,
    V1beta1CompositePodGroupSchedulingPolicy,
    V1beta1CompositePodGroupTemplate,
    V1beta1DisruptionMode,
    V1beta1GangSchedulingPolicy,
    V1beta1PodGroupResourceClaim,
    V1beta1PodGroupSchedulingConstraints,
    V1beta1PodGroupSchedulingPolicy,
    V1beta1PodGroupTemplate,
    V1beta1TopologyConstraint,
    V1beta1TypedLocalObjectReference,
    V1beta1Workload,
    V1beta1WorkloadSpec,
    V1ObjectMeta,
)

from workloadbuilder.field import go_quote
from workloadbuilder.resolve import resolve_config
from workloadbuilder.tree import tree_error, undecodable_tree_errors
from workloadbuilder.types import BuildError, BuildOptions, DisruptionMode, SchedulingConfig, SchedulingPolicy, WorkloadItem

__all__ = ["WORKLOAD_API_VERSION", "compile_workload", "compile_workload_spec", "parse_group"]

WORKLOAD_API_VERSION = "scheduling.k8s.io/v1beta1"


def compile_workload(root: WorkloadItem | None, options: BuildOptions) -> V1beta1Workload:
    """Compile the tree into a complete Workload manifest owned by ``options.owner``.

    Raises:
        BuildError: the tree is malformed, a gang has no count after
            resolution, there is no owner, or the owner's apiVersion does not parse.
    """
    spec = compile_workload_spec(root)
    owner = options.owner
    if owner is None:
        raise BuildError("a Workload must be owned by its controller for garbage collection")
    group = parse_group(owner.api_version)
    spec.controller_ref = V1beta1TypedLocalObjectReference(api_group=group, kind=owner.kind, name=owner.name)
    return V1beta1Workload(
        api_version=WORKLOAD_API_VERSION,
        kind="Workload",
        metadata=V1ObjectMeta(
            name=options.name or None,
            namespace=options.namespace or None,
            owner_references=[owner.model_copy(deep=True)],
        ),
        spec=spec,
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
    raise BuildError(
        f"invalid owner apiVersion {go_quote(api_version)}: unexpected GroupVersion string: {api_version}"
    )


def compile_workload_spec(root: WorkloadItem | None) -> V1beta1WorkloadSpec:
    """Compile the tree into a WorkloadSpec without identity or controllerRef."""
    problem = tree_error(root)
    if problem is not None:
        raise BuildError(problem)
    assert root is not None  # tree_error rejects a missing root
    _refuse_undecodable(root)
    if root.is_composite:
        return V1beta1WorkloadSpec(composite_pod_group_templates=[_composite_template(root)])
    return V1beta1WorkloadSpec(pod_group_templates=[_leaf_template(root)])


def _refuse_undecodable(root: WorkloadItem) -> None:
    """Input that ``validate`` would reject as unreadable cannot be compiled either."""
    errs = undecodable_tree_errors(root)
    if errs:
        raise BuildError(f"invalid input: {errs.to_aggregate()}")


def _leaf_template(item: WorkloadItem) -> V1beta1PodGroupTemplate:
    cfg = resolve_config(item)
    template = V1beta1PodGroupTemplate(
        name=item.name,
        scheduling_policy=_leaf_policy(cfg.policy),
        scheduling_constraints=_leaf_constraints(cfg),
        disruption_mode=_leaf_disruption_mode(cfg.disruption_mode),
        resource_claims=_claims(cfg),
    )
    _copy_priority(cfg, template)
    return template


def _composite_template(item: WorkloadItem) -> V1beta1CompositePodGroupTemplate:
    cfg = resolve_config(item)
    template = V1beta1CompositePodGroupTemplate(
        name=item.name,
        scheduling_policy=_composite_policy(cfg.policy),
        scheduling_constraints=_composite_constraints(cfg),
        disruption_mode=_composite_disruption_mode(cfg.disruption_mode),
    )
    _copy_priority(cfg, template)
    leaves: list[V1beta1PodGroupTemplate] = []
    composites: list[V1beta1CompositePodGroupTemplate] = []
    for child in item.children:
        if child is None:  # unreachable after the tree check; kept for the Go message
            raise BuildError(f"composite workload item {go_quote(item.name)} has a nil child")
        if child.is_composite:
            composites.append(_composite_template(child))
        else:
            leaves.append(_leaf_template(child))
    template.pod_group_templates = leaves or None
    template.composite_pod_group_templates = composites or None
    return template


def _copy_priority(cfg: SchedulingConfig, template: V1beta1PodGroupTemplate | V1beta1CompositePodGroupTemplate) -> None:
    template.priority_class_name = cfg.priority_class_name or None
    template.priority = cfg.priority
    template.preemption_policy = cfg.preemption_policy


def _leaf_policy(policy: SchedulingPolicy | None) -> V1beta1PodGroupSchedulingPolicy:
    """Gang wins over basic; no policy, an empty one or basic compile to ``basic: {}``."""
    if policy is not None and policy.gang is not None:
        if policy.gang.min_count is None:
            raise BuildError("gang scheduling requires minCount to be set after resolution")
        return V1beta1PodGroupSchedulingPolicy(gang=V1beta1GangSchedulingPolicy(min_count=policy.gang.min_count))
    return V1beta1PodGroupSchedulingPolicy(basic={})


def _composite_policy(policy: SchedulingPolicy | None) -> V1beta1CompositePodGroupSchedulingPolicy:
    if policy is not None and policy.gang is not None:
        if policy.gang.min_count is None:
            raise BuildError("composite gang scheduling requires minGroupCount to be set after resolution")
        return V1beta1CompositePodGroupSchedulingPolicy(
            gang=V1beta1CompositeGangSchedulingPolicy(min_group_count=policy.gang.min_count)
        )
    return V1beta1CompositePodGroupSchedulingPolicy(basic={})


def _topology(cfg: SchedulingConfig) -> list[V1beta1TopologyConstraint] | None:
    if cfg.constraints is None or not cfg.constraints.topology:
        return None
    return [V1beta1TopologyConstraint(key=t.key) for t in cfg.constraints.topology]


def _leaf_constraints(cfg: SchedulingConfig) -> V1beta1PodGroupSchedulingConstraints | None:
    topology = _topology(cfg)
    return None if topology is None else V1beta1PodGroupSchedulingConstraints(topology=topology)


def _composite_constraints(cfg: SchedulingConfig) -> V1beta1CompositePodGroupSchedulingConstraints | None:
    topology = _topology(cfg)
    return None if topology is None else V1beta1CompositePodGroupSchedulingConstraints(topology=topology)


def _leaf_disruption_mode(mode: DisruptionMode | None) -> V1beta1DisruptionMode | None:
    """``all`` wins over ``single``; a mode with neither compiles to nothing."""
    if mode is None:
        return None
    if mode.all is not None:
        return V1beta1DisruptionMode(all={})
    if mode.single is not None:
        return V1beta1DisruptionMode(single={})
    return None


def _composite_disruption_mode(mode: DisruptionMode | None) -> V1beta1CompositeDisruptionMode | None:
    if mode is None:
        return None
    if mode.all is not None:
        return V1beta1CompositeDisruptionMode(all={})
    if mode.single is not None:
        return V1beta1CompositeDisruptionMode(single={})
    return None


def _claims(cfg: SchedulingConfig) -> list[V1beta1PodGroupResourceClaim] | None:
    if not cfg.resource_claims:
        return None
    return [
        V1beta1PodGroupResourceClaim(
            name=claim.name,
            resource_claim_name=claim.resource_claim_name,
            resource_claim_template_name=claim.resource_claim_template_name,
        )
        for claim in cfg.resource_claims
    ]
