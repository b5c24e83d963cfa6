"""Declarative rules of the parts shared by templates and runtime groups.

Scheduling policies (leaf and composite), topology constraints, disruption
modes, resource claims, the Workload reference, the controller reference and
the three priority fields: each function is the generated ``Validate_<Type>``
of ``scheduling.k8s.io/v1beta1`` (and ``v1alpha3``), field by field in
declaration order, on canonical JSON. ``old`` is the correlated old value or
``None``.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from workloadbuilder._internal.kinds import MAX_PRIORITY, MAX_RESOURCE_CLAIMS, MAX_TOPOLOGY
from workloadbuilder.field import ErrorList, FieldPath
from workloadbuilder.validation.dv import (
    IMMUTABLE,
    NO_SET_UNSET,
    OPTIONAL_POINTER,
    OPTIONAL_VALUE,
    REQUIRED_VALUE,
    Check,
    Op,
    Struct,
    enum,
    forbidden_unless,
    keyed_items,
    max_items,
    maximum,
    minimum,
    nested,
    optional_unless,
    scalar,
    validate_union,
)
from workloadbuilder.validation.formats import (
    label_key_errors,
    long_name_errors,
    path_segment_name_errors,
    short_name_errors,
)
from workloadbuilder.validation.gates import DRA_WORKLOAD_RESOURCE_CLAIMS, POD_GROUP_PREEMPTION_POLICY

__all__ = [
    "CLAIMS_CHECKS",
    "PREEMPTION_POLICIES",
    "block_composite_scheduling_policy",
    "block_scheduling_policy",
    "composite_scheduling_policy",
    "constraints",
    "controller_ref",
    "disruption_mode",
    "priority_fields",
    "resource_claim",
    "resource_claims",
    "scheduling_policy",
    "union",
    "workload_reference",
]

PREEMPTION_POLICIES = ("Never", "PreemptLowerPriority")

CLAIMS_CHECKS: tuple[Check, ...] = (
    forbidden_unless(DRA_WORKLOAD_RESOURCE_CLAIMS),
    IMMUTABLE,
    max_items(MAX_RESOURCE_CLAIMS),
    OPTIONAL_POINTER,
)
"""The checks on a ``resourceClaims`` field: its gate (our addition, see docs/validation.md), immutable, at most 4,
optional.
"""

_PREEMPTION_CHECKS: tuple[Check, ...] = (
    forbidden_unless(POD_GROUP_PREEMPTION_POLICY),
    optional_unless(POD_GROUP_PREEMPTION_POLICY, False),
    optional_unless(POD_GROUP_PREEMPTION_POLICY, True),
    IMMUTABLE,
)


def union(op: Op, path: FieldPath | None, value: Struct, old: Struct | None, names: tuple[str, ...]) -> ErrorList:
    """A union of pointer (or canonical list) members: exactly one set.

    On update it is not re-checked when no member was set or cleared.
    """
    members = tuple(value[name] is not None for name in names)
    old_members = tuple(old[name] is not None for name in names) if op.update and old is not None else None
    return validate_union(path, names, members, old_members)


def _policy(count: str, op: Op, path: FieldPath, policy: Struct, old: Struct | None) -> ErrorList:
    errs = union(op, path, policy, old, ("basic", "gang"))
    errs += nested(op, path, policy, old, "basic", (IMMUTABLE, OPTIONAL_POINTER), lambda *_: ())
    errs += nested(op, path, policy, old, "gang", (OPTIONAL_POINTER, NO_SET_UNSET), partial(_gang, count))
    return errs


def _gang(count: str, op: Op, path: FieldPath, gang: Struct, old: Struct | None) -> ErrorList:
    """``minCount`` / ``minGroupCount``: required (0 is ``Required``), then at least 1; it may change on update."""
    return scalar(op, path, gang, old, count, (REQUIRED_VALUE,), lambda p, v: minimum(p, v, 1))


scheduling_policy = partial(_policy, "minCount")
"""``PodGroupSchedulingPolicy(op, path, policy, old)``: one of ``basic`` and ``gang``, the variant frozen on update.

Changing the variant gives ``basic: field is immutable`` and ``gang: field
cannot be set once created`` (or ``cleared once set``); only the gang's
count may change.
"""

composite_scheduling_policy = partial(_policy, "minGroupCount")
"""``CompositePodGroupSchedulingPolicy(op, path, policy, old)``: the same rules with ``gang.minGroupCount``."""


def _block_policy(count: str, op: Op, path: FieldPath | None, policy: Struct, old: Struct | None) -> ErrorList:
    errs = union(op, path, policy, old, ("basic", "gang"))
    errs += nested(op, path, policy, old, "gang", (OPTIONAL_POINTER,), partial(_block_gang, count))
    return errs


def _block_gang(count: str, op: Op, path: FieldPath, gang: Struct, old: Struct | None) -> ErrorList:
    """A building block's count is an optional pointer: unset is fine, a set one is at least 1 (0 included)."""
    return scalar(op, path, gang, old, count, (OPTIONAL_POINTER,), lambda p, v: minimum(p, v, 1))


block_scheduling_policy = partial(_block_policy, "minCount")
"""``WorkloadPodGroupSchedulingPolicy(op, path, policy, old)``: one of ``basic`` and ``gang``; a set ``minCount`` >= 1.

The building block carries no immutability: that belongs to the API embedding it.
"""

block_composite_scheduling_policy = partial(_block_policy, "minGroupCount")
"""``WorkloadCompositePodGroupSchedulingPolicy(op, path, policy, old)``: the same with ``gang.minGroupCount``."""


def constraints(op: Op, path: FieldPath | None, value: Struct, old: Struct | None) -> ErrorList:
    """``PodGroupSchedulingConstraints``: at most one topology entry, each key required and a label key.

    A list that is too long is not looked into; entries are checked with no
    old value (the list is atomic).
    """
    return nested(op, path, value, old, "topology", (max_items(MAX_TOPOLOGY), OPTIONAL_POINTER), _topology)


def _topology(op: Op, path: FieldPath, entries: list[Struct], old: Any) -> ErrorList:
    errs = ErrorList()
    for i, entry in enumerate(entries):
        errs += scalar(op, path.index(i), entry, None, "key", (REQUIRED_VALUE,), label_key_errors)
    return errs


def disruption_mode(op: Op, path: FieldPath | None, value: Struct, old: Struct | None) -> ErrorList:
    """``DisruptionMode`` / ``CompositeDisruptionMode``: one of ``single`` and ``all``."""
    return union(op, path, value, old, ("single", "all"))


def resource_claims(op: Op, path: FieldPath, claims: list[Struct], old_claims: list[Struct] | None) -> ErrorList:
    """The items of a claims list: unique names, then each claim against the old claim of its name."""
    return keyed_items("PodGroupResourceClaim", resource_claim, op, path, claims, old_claims)


def resource_claim(op: Op, path: FieldPath | None, claim: Struct, old: Struct | None) -> ErrorList:
    """``PodGroupResourceClaim``: one source, a DNS-label name, DNS-subdomain sources (``""`` counts as set)."""
    errs = union(op, path, claim, old, ("resourceClaimName", "resourceClaimTemplateName"))
    errs += scalar(op, path, claim, old, "name", (REQUIRED_VALUE,), short_name_errors)
    errs += scalar(op, path, claim, old, "resourceClaimName", (OPTIONAL_POINTER,), long_name_errors)
    errs += scalar(op, path, claim, old, "resourceClaimTemplateName", (OPTIONAL_POINTER,), long_name_errors)
    return errs


def workload_reference(op: Op, path: FieldPath, ref: Struct, old: Struct | None) -> ErrorList:
    """``WorkloadReference``: a DNS-subdomain Workload name and a DNS-label template name, both required."""
    errs = scalar(op, path, ref, old, "workloadName", (REQUIRED_VALUE,), long_name_errors)
    errs += scalar(op, path, ref, old, "templateName", (REQUIRED_VALUE,), short_name_errors)
    return errs


def controller_ref(op: Op, path: FieldPath, ref: Struct, old: Struct | None) -> ErrorList:
    """``TypedLocalObjectReference``: an optional DNS-subdomain API group, a required path-segment kind and name."""
    errs = scalar(op, path, ref, old, "apiGroup", (OPTIONAL_VALUE,), long_name_errors)
    errs += scalar(op, path, ref, old, "kind", (REQUIRED_VALUE,), path_segment_name_errors)
    errs += scalar(op, path, ref, old, "name", (REQUIRED_VALUE,), path_segment_name_errors)
    return errs


def priority_fields(op: Op, path: FieldPath, obj: Struct, old: Struct | None) -> ErrorList:
    """``priorityClassName``, ``priority`` and ``preemptionPolicy`` of a template or group: all immutable.

    The class name is a DNS subdomain, the priority at most 1000000000, the
    preemption policy (gate ``PodGroupPreemptionPolicy``) ``Never`` or
    ``PreemptLowerPriority``.
    """
    errs = scalar(op, path, obj, old, "priorityClassName", (IMMUTABLE, OPTIONAL_VALUE), long_name_errors)
    errs += scalar(
        op, path, obj, old, "priority", (IMMUTABLE, OPTIONAL_POINTER), lambda p, v: maximum(p, v, MAX_PRIORITY)
    )
    errs += scalar(
        op, path, obj, old, "preemptionPolicy", _PREEMPTION_CHECKS, lambda p, v: enum(p, v, PREEMPTION_POLICIES)
    )
    return errs
