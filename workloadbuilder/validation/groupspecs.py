"""Declarative rules of runtime groups: ``PodGroupSpec``, ``CompositePodGroupSpec``, ``PodGroupStatus``.

A runtime group copies its template's scheduling fields and adds its links:
``workloadRef`` back to the template and ``parentCompositePodGroupName`` up
the hierarchy. Everything but the gang's ``minCount`` is immutable; a
CompositePodGroup's whole ``schedulingPolicy`` is. Canonical JSON in, field
by field in the generated validators' order.
"""

from __future__ import annotations

from functools import partial

from workloadbuilder._internal.kinds import MAX_RESOURCE_CLAIMS
from workloadbuilder.field import ErrorList, FieldPath
from workloadbuilder.validation import parts
from workloadbuilder.validation.dv import (
    IMMUTABLE,
    OPTIONAL_POINTER,
    REQUIRED_POINTER,
    Check,
    Op,
    Struct,
    forbidden_unless,
    immutable_if,
    keyed_items,
    max_items,
    nested,
    optional_unless,
    scalar,
)
from workloadbuilder.validation.formats import long_name_errors
from workloadbuilder.validation.gates import COMPOSITE_POD_GROUP, TOPOLOGY_AWARE_WORKLOAD_SCHEDULING

__all__ = ["composite_pod_group_spec", "pod_group_spec", "pod_group_status"]

_PARENT_CHECKS: tuple[Check, ...] = (
    forbidden_unless(COMPOSITE_POD_GROUP),
    optional_unless(COMPOSITE_POD_GROUP, False),
    optional_unless(COMPOSITE_POD_GROUP, True),
    IMMUTABLE,
)
_CONSTRAINTS_CHECKS: tuple[Check, ...] = (
    forbidden_unless(TOPOLOGY_AWARE_WORKLOAD_SCHEDULING),
    optional_unless(TOPOLOGY_AWARE_WORKLOAD_SCHEDULING, False),
    optional_unless(TOPOLOGY_AWARE_WORKLOAD_SCHEDULING, True),
    immutable_if(TOPOLOGY_AWARE_WORKLOAD_SCHEDULING),
)
_IMMUTABLE_OPTIONAL: tuple[Check, ...] = (IMMUTABLE, OPTIONAL_POINTER)
# An optional field with a default (disruptionMode defaults to single) is effectively required.
_IMMUTABLE_REQUIRED: tuple[Check, ...] = (IMMUTABLE, REQUIRED_POINTER)


def pod_group_spec(op: Op, path: FieldPath, spec: Struct, old: Struct | None) -> ErrorList:
    """``PodGroupSpec``: the links, then the policy and the copied fields.

    The tags' alpha rule that a PodGroup with a parent names its Workload is
    not enforced by the apiserver (it filters out alpha declarative errors),
    so it is not checked here either.
    """
    errs = scalar(op, path, spec, old, "parentCompositePodGroupName", _PARENT_CHECKS, long_name_errors)
    errs += nested(op, path, spec, old, "workloadRef", _IMMUTABLE_OPTIONAL, parts.workload_reference)
    errs += nested(op, path, spec, old, "schedulingPolicy", (), parts.scheduling_policy)
    errs += nested(op, path, spec, old, "schedulingConstraints", _CONSTRAINTS_CHECKS, parts.constraints)
    errs += nested(op, path, spec, old, "resourceClaims", parts.CLAIMS_CHECKS, parts.resource_claims)
    errs += nested(op, path, spec, old, "disruptionMode", _IMMUTABLE_REQUIRED, parts.disruption_mode)
    errs += parts.priority_fields(op, path, spec, old)
    return errs


def composite_pod_group_spec(op: Op, path: FieldPath, spec: Struct, old: Struct | None) -> ErrorList:
    """``CompositePodGroupSpec``: a required ``workloadRef``, and an immutable ``schedulingPolicy`` as a whole."""
    errs = scalar(op, path, spec, old, "parentCompositePodGroupName", _IMMUTABLE_OPTIONAL, long_name_errors)
    errs += nested(op, path, spec, old, "workloadRef", _IMMUTABLE_REQUIRED, parts.workload_reference)
    errs += nested(op, path, spec, old, "schedulingPolicy", (IMMUTABLE,), parts.composite_scheduling_policy)
    errs += nested(op, path, spec, old, "schedulingConstraints", _IMMUTABLE_OPTIONAL, parts.constraints)
    errs += nested(op, path, spec, old, "disruptionMode", _IMMUTABLE_REQUIRED, parts.disruption_mode)
    errs += parts.priority_fields(op, path, spec, old)
    return errs


def pod_group_status(op: Op, path: FieldPath, status: Struct, old: Struct | None) -> ErrorList:
    """``PodGroupStatus``: at most 4 claim statuses, unique by name, each generated claim name a DNS subdomain.

    ``conditions`` carries only alpha rules, which the apiserver does not
    enforce; they are not checked.
    """
    return nested(
        op,
        path,
        status,
        old,
        "resourceClaimStatuses",
        (max_items(MAX_RESOURCE_CLAIMS), OPTIONAL_POINTER),
        _claim_statuses,
    )


def _claim_status(op: Op, path: FieldPath, item: Struct, old: Struct | None) -> ErrorList:
    return scalar(op, path, item, old, "resourceClaimName", (OPTIONAL_POINTER,), long_name_errors)


_claim_statuses = partial(keyed_items, "PodGroupResourceClaimStatus", _claim_status)
