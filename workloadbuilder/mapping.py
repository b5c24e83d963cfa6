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
)

from workloadbuilder.types import (
    SchedulingConfig,
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
    WorkloadInput,
)

__all__ = ["composite_fields", "leaf_fields", "map_composite_group_input", "map_workload_input"]


def map_workload_input(given: WorkloadInput) -> SchedulingConfig:
    """Map a leaf item's building blocks to the IR."""
    return SchedulingConfig.model_validate(leaf_fields(given))


def map_composite_group_input(given: WorkloadInput) -> SchedulingConfig:
    """Map a composite item's building blocks to the IR.

    The composite gang's ``minGroupCount`` travels in the IR's
    ``GangSchedulingPolicy.min_count``. Resource claims never apply to a composite.
    """
    return SchedulingConfig.model_validate(composite_fields(given))


def leaf_fields(given: WorkloadInput) -> dict[str, Any]:
    """The IR fields a leaf's input sets, as plain data (``SchedulingConfig`` field names).

    Resolution merges these with the default and validates the result once,
    which is much cheaper than building each IR object on its own.
    """
    fields: dict[str, Any] = {}
    policy = given.policy.pod_group_data
    if isinstance(policy, V1alpha3WorkloadPodGroupSchedulingPolicy):
        _put(fields, "policy", _policy(policy, policy.gang.min_count if policy.gang is not None else None))
    constraints = given.constraints.pod_group_data
    if isinstance(constraints, V1alpha3WorkloadPodGroupSchedulingConstraints):
        _put(fields, "constraints", _topology(constraints.topology))
    mode = given.disruption_mode.pod_group_data
    if isinstance(mode, V1alpha3WorkloadPodGroupDisruptionMode):
        _put(fields, "disruption_mode", _disruption_mode(mode))
    claims = given.resource_claims.pod_group_data
    if isinstance(claims, list) and claims:
        mapped = [
            {
                "name": claim.name,
                "resource_claim_name": claim.resource_claim_name,
                "resource_claim_template_name": claim.resource_claim_template_name,
            }
            for claim in claims
            if isinstance(claim, V1alpha3WorkloadPodGroupResourceClaim)
        ]
        if mapped:  # like an empty list, claims that all failed to decode leave the default in place
            fields["resource_claims"] = mapped
    return fields


def composite_fields(given: WorkloadInput) -> dict[str, Any]:
    """The IR fields a composite's input sets, as plain data; see ``leaf_fields``."""
    fields: dict[str, Any] = {}
    policy = given.policy.composite_pod_group_data
    if isinstance(policy, WorkloadCompositePodGroupSchedulingPolicy):
        _put(fields, "policy", _policy(policy, policy.gang.min_group_count if policy.gang is not None else None))
    constraints = given.constraints.composite_pod_group_data
    if isinstance(constraints, WorkloadCompositePodGroupSchedulingConstraints):
        _put(fields, "constraints", _topology(constraints.topology))
    mode = given.disruption_mode.composite_pod_group_data
    if isinstance(mode, WorkloadCompositePodGroupDisruptionMode):
        _put(fields, "disruption_mode", _disruption_mode(mode))
    return fields


def _put(fields: dict[str, Any], name: str, value: Any) -> None:
    if value is not None:
        fields[name] = value


def _policy(policy: Any, min_count: int | None) -> dict[str, Any] | None:
    """``basic`` wins over ``gang``; an empty policy maps to nothing so the default applies."""
    if policy.basic is not None:
        return {"basic": {}}
    if policy.gang is not None:
        return {"gang": {"min_count": min_count}}
    return None


def _topology(topology: list[Any] | None) -> dict[str, Any] | None:
    if not topology:
        return None
    return {"topology": [{"key": t.key} for t in topology]}


def _disruption_mode(mode: Any) -> dict[str, Any] | None:
    """``single`` wins over ``all``; an empty mode maps to nothing."""
    if mode.single is not None:
        return {"single": {}}
    if mode.all is not None:
        return {"all": {}}
    return None
