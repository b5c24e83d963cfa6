"""Building blocks (the versioned API objects users write) to the SchedulingConfig IR.

Each mapper returns a config whose fields stay ``None`` where the user left a
block unset or empty, so resolution falls back to the controller's default
field by field. Where a block sets both union members, the mappers prefer
``basic`` over ``gang`` and ``single`` over ``all``, exactly as the Go
library does (compilation prefers the opposite; both orders are ported).
Input that did not decode is treated as unset here; validation reports it.
"""

from __future__ import annotations

from typing import Any

from kubernetes.client import (
    V1alpha3WorkloadPodGroupDisruptionMode,
    V1alpha3WorkloadPodGroupResourceClaim,
    V1alpha3WorkloadPodGroupSchedulingConstraints,
    V1alpha3WorkloadPodGroupSchedulingPolicy,
    V1beta1TopologyConstraint,
)

from workloadbuilder.types import (
    AllDisruptionMode,
    BasicSchedulingPolicy,
    DisruptionMode,
    GangSchedulingPolicy,
    ResourceClaim,
    SchedulingConfig,
    SchedulingConstraints,
    SchedulingPolicy,
    SingleDisruptionMode,
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
    WorkloadInput,
)

__all__ = ["map_composite_group_input", "map_workload_input"]


def map_workload_input(given: WorkloadInput) -> SchedulingConfig:
    """Map a leaf item's building blocks to the IR."""
    policy = _decoded(given.policy.pod_group_data, V1alpha3WorkloadPodGroupSchedulingPolicy)
    constraints = _decoded(given.constraints.pod_group_data, V1alpha3WorkloadPodGroupSchedulingConstraints)
    mode = _decoded(given.disruption_mode.pod_group_data, V1alpha3WorkloadPodGroupDisruptionMode)
    claims = given.resource_claims.pod_group_data
    return SchedulingConfig.model_construct(
        policy=_map_policy(policy, policy.gang.min_count if policy and policy.gang else None),
        constraints=_map_topology(constraints),
        disruption_mode=_map_disruption_mode(mode),
        resource_claims=_map_claims(claims) if isinstance(claims, list) else [],
        priority_class_name="",
        priority=None,
        preemption_policy=None,
    )


def map_composite_group_input(given: WorkloadInput) -> SchedulingConfig:
    """Map a composite item's building blocks to the IR.

    The composite gang's ``minGroupCount`` travels in the IR's
    ``GangSchedulingPolicy.min_count``. Resource claims never apply to a composite.
    """
    policy = _decoded(given.policy.composite_pod_group_data, WorkloadCompositePodGroupSchedulingPolicy)
    constraints = _decoded(given.constraints.composite_pod_group_data, WorkloadCompositePodGroupSchedulingConstraints)
    mode = _decoded(given.disruption_mode.composite_pod_group_data, WorkloadCompositePodGroupDisruptionMode)
    return SchedulingConfig.model_construct(
        policy=_map_policy(policy, policy.gang.min_group_count if policy and policy.gang else None),
        constraints=_map_topology(constraints),
        disruption_mode=_map_disruption_mode(mode),
        resource_claims=[],
        priority_class_name="",
        priority=None,
        preemption_policy=None,
    )


def _decoded(block: Any, model: type) -> Any:
    return block if isinstance(block, model) else None


def _map_policy(policy: Any, min_count: int | None) -> SchedulingPolicy | None:
    """``basic`` wins over ``gang``; an empty policy maps to ``None`` so the default applies."""
    if policy is None:
        return None
    if policy.basic is not None:
        return SchedulingPolicy.model_construct(basic=BasicSchedulingPolicy(), gang=None)
    if policy.gang is not None:
        return SchedulingPolicy.model_construct(basic=None, gang=GangSchedulingPolicy.model_construct(min_count=min_count))
    return None


def _map_topology(constraints: Any) -> SchedulingConstraints | None:
    if constraints is None or not constraints.topology:
        return None
    return SchedulingConstraints.model_construct(
        topology=[V1beta1TopologyConstraint.model_construct(key=t.key) for t in constraints.topology]
    )


def _map_disruption_mode(mode: Any) -> DisruptionMode | None:
    """``single`` wins over ``all``; an empty mode maps to ``None``."""
    if mode is None:
        return None
    if mode.single is not None:
        return DisruptionMode.model_construct(single=SingleDisruptionMode(), all=None)
    if mode.all is not None:
        return DisruptionMode.model_construct(single=None, all=AllDisruptionMode())
    return None


def _map_claims(claims: list[Any]) -> list[ResourceClaim]:
    return [
        ResourceClaim.model_construct(
            name=claim.name,
            resource_claim_name=claim.resource_claim_name,
            resource_claim_template_name=claim.resource_claim_template_name,
        )
        for claim in claims
        if isinstance(claim, V1alpha3WorkloadPodGroupResourceClaim)
    ]
