"""Declarative rules of a Workload's spec and its templates (``Validate_WorkloadSpec`` and below).

The spec holds one of two template lists; a composite template holds two
more, recursively. Every list is capped at 8 templates, keyed by name, and
may neither gain nor lose a template on update; each template's fields
follow the generated validators' order and short-circuits, on canonical JSON.
"""

from __future__ import annotations

from functools import partial

from workloadbuilder._internal.kinds import MAX_TEMPLATES
from workloadbuilder.field import ErrorList, FieldPath
from workloadbuilder.validation import parts
from workloadbuilder.validation.dv import (
    IMMUTABLE,
    OPTIONAL_POINTER,
    REQUIRED_VALUE,
    Check,
    Op,
    Struct,
    forbidden_unless,
    keyed_items,
    max_items,
    nested,
    no_add_or_remove,
    optional_unless,
    scalar,
)
from workloadbuilder.validation.formats import short_name_errors
from workloadbuilder.validation.gates import COMPOSITE_POD_GROUP, TOPOLOGY_AWARE_WORKLOAD_SCHEDULING

__all__ = ["workload_spec"]


_LIST_CHECKS: tuple[Check, ...] = (max_items(MAX_TEMPLATES), OPTIONAL_POINTER, no_add_or_remove)
_TOP_COMPOSITE_LIST_CHECKS: tuple[Check, ...] = (
    forbidden_unless(COMPOSITE_POD_GROUP),
    optional_unless(COMPOSITE_POD_GROUP, False),
    optional_unless(COMPOSITE_POD_GROUP, True),
    max_items(MAX_TEMPLATES),
    no_add_or_remove,
)
_LEAF_CONSTRAINTS_CHECKS: tuple[Check, ...] = (
    forbidden_unless(TOPOLOGY_AWARE_WORKLOAD_SCHEDULING),
    optional_unless(TOPOLOGY_AWARE_WORKLOAD_SCHEDULING, False),
    optional_unless(TOPOLOGY_AWARE_WORKLOAD_SCHEDULING, True),
    IMMUTABLE,
)
_IMMUTABLE_OPTIONAL: tuple[Check, ...] = (IMMUTABLE, OPTIONAL_POINTER)


def workload_spec(op: Op, path: FieldPath, spec: Struct, old: Struct | None) -> ErrorList:
    """``WorkloadSpec``: exactly one non-empty template list, an immutable controller reference, the lists.

    The composite list needs the ``CompositePodGroup`` gate.
    """
    errs = parts.union(op, path, spec, old, ("podGroupTemplates", "compositePodGroupTemplates"))
    errs += nested(op, path, spec, old, "controllerRef", _IMMUTABLE_OPTIONAL, parts.controller_ref)
    errs += nested(op, path, spec, old, "podGroupTemplates", _LIST_CHECKS, _pod_group_templates)
    errs += nested(op, path, spec, old, "compositePodGroupTemplates", _TOP_COMPOSITE_LIST_CHECKS, _composite_templates)
    return errs


def _pod_group_template(op: Op, path: FieldPath, template: Struct, old: Struct | None) -> ErrorList:
    """``PodGroupTemplate``: name, policy, gated immutable constraints, claims, mode, priorities."""
    errs = scalar(op, path, template, old, "name", (REQUIRED_VALUE,), short_name_errors)
    errs += nested(op, path, template, old, "schedulingPolicy", (), parts.scheduling_policy)
    errs += nested(op, path, template, old, "schedulingConstraints", _LEAF_CONSTRAINTS_CHECKS, parts.constraints)
    errs += nested(op, path, template, old, "resourceClaims", parts.CLAIMS_CHECKS, parts.resource_claims)
    errs += nested(op, path, template, old, "disruptionMode", _IMMUTABLE_OPTIONAL, parts.disruption_mode)
    errs += parts.priority_fields(op, path, template, old)
    return errs


def _composite_template(op: Op, path: FieldPath, template: Struct, old: Struct | None) -> ErrorList:
    """``CompositePodGroupTemplate``: name, composite policy, immutable constraints and mode, priorities, children."""
    errs = scalar(op, path, template, old, "name", (REQUIRED_VALUE,), short_name_errors)
    errs += nested(op, path, template, old, "schedulingPolicy", (), parts.composite_scheduling_policy)
    errs += nested(op, path, template, old, "schedulingConstraints", _IMMUTABLE_OPTIONAL, parts.constraints)
    errs += nested(op, path, template, old, "disruptionMode", _IMMUTABLE_OPTIONAL, parts.disruption_mode)
    errs += parts.priority_fields(op, path, template, old)
    errs += nested(op, path, template, old, "podGroupTemplates", _LIST_CHECKS, _pod_group_templates)
    errs += nested(op, path, template, old, "compositePodGroupTemplates", _LIST_CHECKS, _composite_templates)
    return errs


_pod_group_templates = partial(keyed_items, "PodGroupTemplate", _pod_group_template)
_composite_templates = partial(keyed_items, "CompositePodGroupTemplate", _composite_template)
