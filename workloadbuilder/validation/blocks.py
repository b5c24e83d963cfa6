"""Declarative validation of the building blocks: their ``+k8s:`` tags on the one engine (``dv``, ``parts``).

The building blocks of ``k8s.io/api/scheduling/v1alpha3`` (``WorkloadPodGroup*``
and ``WorkloadCompositePodGroup*``) have the fields and tags of the compiled
types' parts, except that a gang's count is an optional pointer and nothing
is immutable (immutability belongs to the API that embeds a block). Each
validator here is one row of the table: the block's Go type (for its
canonical form) and its rules in ``parts``. On update (``old`` given) an
unchanged value is not re-checked, and a union whose set members did not
change is not re-checked, as the generated validators ratchet.

``is_clean`` is each block's rules compiled once into a predicate on its
model, which the controller asks first on create: a valid block (the usual
case) is then passed without its canonical form or any field path being
built, and only a block it cannot vouch for runs the rules.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from kubernetes.client import (
    V1alpha3TopologyConstraint,
    V1alpha3WorkloadPodGroupDisruptionMode,
    V1alpha3WorkloadPodGroupGangSchedulingPolicy,
    V1alpha3WorkloadPodGroupResourceClaim,
    V1alpha3WorkloadPodGroupSchedulingConstraints,
    V1alpha3WorkloadPodGroupSchedulingPolicy,
)
from pydantic import BaseModel

from workloadbuilder._internal.kinds import MAX_TOPOLOGY
from workloadbuilder.field import ErrorList, FieldPath
from workloadbuilder.types import (
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupGangSchedulingPolicy,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
)
from workloadbuilder.validation import parts
from workloadbuilder.validation.dv import Op, Struct, validate_union
from workloadbuilder.validation.formats import is_label_key
from workloadbuilder.validation.gates import FeatureGates
from workloadbuilder.validation.gotypes import canonical

__all__ = [
    "VALIDATORS",
    "BlockValidator",
    "is_clean",
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


_Clean = Callable[[Any], bool]
"""A block's rules compiled into one predicate: ``True`` only for a block the rules find nothing wrong with.

It reads the decoded model's attributes and builds neither the canonical
form nor a field path; ``False`` means "not known clean" (a problem, or a
value of a type it does not read), and the rules then run as written.
"""


@functools.lru_cache(maxsize=1024)
def _label_key_ok(key: str) -> bool:
    """Whether ``key`` is a non-empty qualified name (no message from ``is_label_key``); kept per key."""
    return bool(key) and not is_label_key(key)


def _policy_clean(model: type[BaseModel], gang_model: type[BaseModel], count: str) -> _Clean:
    """One of ``basic`` and ``gang`` set, and a set gang count at least 1 (``parts._block_policy``)."""

    def clean(obj: Any) -> bool:
        if type(obj) is not model:
            return False
        basic, gang = obj.basic, obj.gang  # type: ignore[attr-defined]
        if (basic is None) == (gang is None):
            return False
        if gang is None:
            return True
        if type(gang) is not gang_model:
            return False
        value = getattr(gang, count)
        return value is None or (type(value) is int and value >= 1)

    return clean


def _constraints_clean(*models: type[BaseModel]) -> _Clean:
    """At most ``MAX_TOPOLOGY`` topology entries, each a model with a valid label key (``parts.constraints``)."""

    def clean(obj: Any) -> bool:
        if type(obj) not in models:
            return False
        topology = obj.topology
        if not topology:
            return topology is None or type(topology) is list
        if type(topology) is not list or len(topology) > MAX_TOPOLOGY:
            return False
        return all(
            type(entry) is V1alpha3TopologyConstraint and type(entry.key) is str and _label_key_ok(entry.key)
            for entry in topology
        )

    return clean


def _mode_clean(*models: type[BaseModel]) -> _Clean:
    """One of ``single`` and ``all`` set (``parts.disruption_mode``)."""

    def clean(obj: Any) -> bool:
        return type(obj) in models and (obj.single is None) != (obj.all is None)

    return clean


def _block(type_name: str, rules: _Rules) -> BlockValidator:
    def validate(path: FieldPath | None, obj: Any, old: Any = None) -> ErrorList:
        value = canonical(type_name, obj)
        old_value = None if old is None else canonical(type_name, old)
        return rules(_CREATE if old is None else _UPDATE, path, value, old_value)

    validate.__doc__ = f"``Validate_{type_name}``: the block's rules at ``path``; ``old`` makes it an update."
    return validate


_CONSTRAINTS_CLEAN = _constraints_clean(
    V1alpha3WorkloadPodGroupSchedulingConstraints, WorkloadCompositePodGroupSchedulingConstraints
)
_MODE_CLEAN = _mode_clean(V1alpha3WorkloadPodGroupDisruptionMode, WorkloadCompositePodGroupDisruptionMode)
_CLEAN: dict[type[BaseModel], _Clean] = {
    V1alpha3WorkloadPodGroupSchedulingPolicy: _policy_clean(
        V1alpha3WorkloadPodGroupSchedulingPolicy, V1alpha3WorkloadPodGroupGangSchedulingPolicy, "min_count"
    ),
    WorkloadCompositePodGroupSchedulingPolicy: _policy_clean(
        WorkloadCompositePodGroupSchedulingPolicy, WorkloadCompositePodGroupGangSchedulingPolicy, "min_group_count"
    ),
    V1alpha3WorkloadPodGroupSchedulingConstraints: _CONSTRAINTS_CLEAN,
    WorkloadCompositePodGroupSchedulingConstraints: _CONSTRAINTS_CLEAN,
    V1alpha3WorkloadPodGroupDisruptionMode: _MODE_CLEAN,
    WorkloadCompositePodGroupDisruptionMode: _MODE_CLEAN,
}
"""Each block model's compiled predicate (claims have none: their rules always run)."""


def is_clean(model: type[BaseModel], block: Any) -> bool:
    """Whether ``block``, a block of ``model``, is known to pass its rules on create, without running them.

    ``False`` is no verdict: run ``VALIDATORS[model]`` to find the errors, if any. A block clean on
    create is clean on update too (ratcheting only skips checks), but an update runs the rules, as written.
    """
    clean = _CLEAN.get(model)
    return clean is not None and clean(block)


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
