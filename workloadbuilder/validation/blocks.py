"""Declarative validation of the building blocks: their ``+k8s:`` tags on the one engine (``dv``, ``parts``).

The building blocks of ``k8s.io/api/scheduling/v1alpha3`` (``WorkloadPodGroup*``
and ``WorkloadCompositePodGroup*``) have the fields and tags of the compiled
types' parts, except that a gang's count is an optional pointer and nothing
is immutable (immutability belongs to the API that embeds a block). Each
validator here is one row of the table: the block's Go type (for its
canonical form) and its rules in ``parts``. On update (``old`` given) an
unchanged value is not re-checked, and a union whose set members did not
change is not re-checked, as the generated validators ratchet.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubernetes.client import (
    V1alpha3WorkloadPodGroupDisruptionMode,
    V1alpha3WorkloadPodGroupResourceClaim,
    V1alpha3WorkloadPodGroupSchedulingConstraints,
    V1alpha3WorkloadPodGroupSchedulingPolicy,
)
from pydantic import BaseModel

from workloadbuilder.field import ErrorList, FieldPath
from workloadbuilder.types import (
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
)
from workloadbuilder.validation import parts
from workloadbuilder.validation.dv import Op, Struct, validate_union
from workloadbuilder.validation.gates import FeatureGates
from workloadbuilder.validation.gotypes import canonical

__all__ = [
    "VALIDATORS",
    "BlockValidator",
    "validate_composite_disruption_mode",
    "validate_composite_scheduling_constraints",
    "validate_composite_scheduling_policy",
    "validate_disruption_mode",
    "validate_resource_claim",
    "validate_scheduling_constraints",
    "validate_scheduling_policy",
    "validate_union",
]

BlockValidator = Callable[[FieldPath | None, Any, Any], ErrorList]
"""``(path, block, old_block)``: a block's errors at ``path`` (``None`` renders ``<nil>``), ``old_block`` for update."""

_Rules = Callable[[Op, FieldPath | None, Struct, Struct | None], ErrorList]
# The building blocks have no gated fields, so one create and one update operation serve every call.
_CREATE, _UPDATE = Op(update=False, gates=FeatureGates.all()), Op(update=True, gates=FeatureGates.all())


def _block(type_name: str, rules: _Rules) -> BlockValidator:
    def validate(path: FieldPath | None, obj: Any, old: Any = None) -> ErrorList:
        value = canonical(type_name, obj)
        old_value = None if old is None else canonical(type_name, old)
        return rules(_CREATE if old is None else _UPDATE, path, value, old_value)

    validate.__doc__ = f"``Validate_{type_name}``: the block's rules at ``path``; ``old`` makes it an update."
    return validate


validate_scheduling_policy = _block("WorkloadPodGroupSchedulingPolicy", parts.block_scheduling_policy)
validate_composite_scheduling_policy = _block(
    "WorkloadCompositePodGroupSchedulingPolicy", parts.block_composite_scheduling_policy
)
validate_scheduling_constraints = _block("PodGroupSchedulingConstraints", parts.constraints)
validate_composite_scheduling_constraints = validate_scheduling_constraints
validate_disruption_mode = _block("DisruptionMode", parts.disruption_mode)
validate_composite_disruption_mode = validate_disruption_mode
validate_resource_claim = _block("PodGroupResourceClaim", parts.resource_claim)

VALIDATORS: dict[type[BaseModel], BlockValidator] = {
    V1alpha3WorkloadPodGroupSchedulingPolicy: validate_scheduling_policy,
    V1alpha3WorkloadPodGroupSchedulingConstraints: validate_scheduling_constraints,
    V1alpha3WorkloadPodGroupDisruptionMode: validate_disruption_mode,
    V1alpha3WorkloadPodGroupResourceClaim: validate_resource_claim,
    WorkloadCompositePodGroupSchedulingPolicy: validate_composite_scheduling_policy,
    WorkloadCompositePodGroupSchedulingConstraints: validate_composite_scheduling_constraints,
    WorkloadCompositePodGroupDisruptionMode: validate_composite_disruption_mode,
}
"""The validator of each building block, by its model (``tree.BLOCK_MODELS`` says which model each block is)."""
