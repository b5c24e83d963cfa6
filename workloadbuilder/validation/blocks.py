"""Declarative validation of the building blocks, as the generated Go validators run it.

A port of ``Validate_WorkloadPodGroup*`` and ``Validate_WorkloadCompositePodGroup*``
from ``k8s.io/api/scheduling/v1alpha3``: the same checks, in the same order,
with the same short-circuits. On update (``old`` given) unchanged values are
not re-checked ("ratcheting") and a union whose set members did not change
is not re-checked; the building blocks carry no immutability of their own,
which belongs to the API that embeds them.
"""

from __future__ import annotations

from typing import Any

from workloadbuilder.field import ErrorList, FieldPath, invalid, required, too_many
from workloadbuilder.kinds import MAX_TOPOLOGY
from workloadbuilder.validation.formats import is_label_key, long_name_errors, short_name_errors

__all__ = [
    "validate_composite_disruption_mode",
    "validate_composite_scheduling_constraints",
    "validate_composite_scheduling_policy",
    "validate_disruption_mode",
    "validate_resource_claim",
    "validate_scheduling_constraints",
    "validate_scheduling_policy",
    "validate_union",
]

_MIN_COUNT = 1


def validate_union(
    path: FieldPath | None, members: tuple[str, ...], now_set: tuple[bool, ...], old_set: tuple[bool, ...] | None
) -> ErrorList:
    """Exactly one member of a union, as Go's ``validate.Union`` (members named by their JSON names).

    ``old_set`` is ``None`` on create or when there is no old value; on update
    the check is skipped when no member changed from set to unset or back.
    """
    if sum(now_set) == 1 or (old_set is not None and old_set == now_set):
        return ErrorList()
    names = ", ".join(f"`{member}`" for member in members)
    chosen = [member for member, is_set in zip(members, now_set, strict=False) if is_set]
    if chosen:
        return ErrorList([invalid(path, "{" + ", ".join(chosen) + "}", f"must specify exactly one of: {names}")])
    return ErrorList([invalid(path, "", f"must specify one of: {names}")])


def _child(path: FieldPath | None, name: str) -> FieldPath:
    return FieldPath(name) if path is None else path.child(name)


def _policy(path: FieldPath | None, obj: Any, old: Any, count_field: str, count_attr: str) -> ErrorList:
    errs = validate_union(
        path,
        ("basic", "gang"),
        (obj.basic is not None, obj.gang is not None),
        None if old is None else (old.basic is not None, old.gang is not None),
    )
    gang, old_gang = obj.gang, (old.gang if old is not None else None)
    if gang is None or (old is not None and _same_gang(gang, old_gang, count_attr)):
        return errs
    count = getattr(gang, count_attr)
    old_count = getattr(old_gang, count_attr) if old_gang is not None else None
    if count is None or (old_gang is not None and count == old_count):
        return errs
    if count < _MIN_COUNT:
        errs.append(invalid(_child(_child(path, "gang"), count_field), count, "must be greater than or equal to 1"))
    return errs


def _same_gang(gang: Any, old_gang: Any, count_attr: str) -> bool:
    return old_gang is not None and getattr(gang, count_attr) == getattr(old_gang, count_attr)


def validate_scheduling_policy(path: FieldPath | None, obj: Any, old: Any = None) -> ErrorList:
    """``Validate_WorkloadPodGroupSchedulingPolicy``: the basic/gang union and ``gang.minCount >= 1``."""
    return _policy(path, obj, old, "minCount", "min_count")


def validate_composite_scheduling_policy(path: FieldPath | None, obj: Any, old: Any = None) -> ErrorList:
    """``Validate_WorkloadCompositePodGroupSchedulingPolicy``: the union and ``gang.minGroupCount >= 1``."""
    return _policy(path, obj, old, "minGroupCount", "min_group_count")


def validate_scheduling_constraints(path: FieldPath | None, obj: Any, old: Any = None) -> ErrorList:
    """``Validate_WorkloadPodGroupSchedulingConstraints``: at most one topology entry, each with a valid key.

    Too many entries short-circuit the key checks; on update an unchanged
    list is skipped and a changed one is re-checked entry by entry as new.
    """
    errs = ErrorList()
    topology = obj.topology or []
    if old is not None and _keys(topology) == _keys(old.topology or []):
        return errs
    if len(topology) > MAX_TOPOLOGY:
        errs.append(too_many(_child(path, "topology"), len(topology), MAX_TOPOLOGY))
        return errs
    for i, constraint in enumerate(topology):
        problems = ["required"] if constraint.key == "" else is_label_key(constraint.key)
        if problems:  # paths are built only for errors: this runs on every reconcile
            key_path = _child(path, "topology").index(i).child("key")
            if constraint.key == "":
                errs.append(required(key_path))
            else:
                errs.extend(invalid(key_path, constraint.key, msg) for msg in problems)
    return errs


validate_composite_scheduling_constraints = validate_scheduling_constraints
"""``Validate_WorkloadCompositePodGroupSchedulingConstraints``: the same rules as the leaf block."""


def _keys(topology: list[Any]) -> list[str]:
    return [constraint.key for constraint in topology]


def validate_disruption_mode(path: FieldPath | None, obj: Any, old: Any = None) -> ErrorList:
    """``Validate_WorkloadPodGroupDisruptionMode``: exactly one of ``single`` and ``all``."""
    return validate_union(
        path,
        ("single", "all"),
        (obj.single is not None, obj.all is not None),
        None if old is None else (old.single is not None, old.all is not None),
    )


validate_composite_disruption_mode = validate_disruption_mode
"""``Validate_WorkloadCompositePodGroupDisruptionMode``: the same rules as the leaf block."""


def validate_resource_claim(path: FieldPath | None, obj: Any, old: Any = None) -> ErrorList:
    """``Validate_WorkloadPodGroupResourceClaim``: one source, a DNS-label name, DNS-subdomain sources.

    ``""`` counts as a set source (and then fails the subdomain format).
    """
    errs = validate_union(
        path,
        ("resourceClaimName", "resourceClaimTemplateName"),
        (obj.resource_claim_name is not None, obj.resource_claim_template_name is not None),
        None if old is None else (old.resource_claim_name is not None, old.resource_claim_template_name is not None),
    )
    if old is None or obj.name != old.name:
        name_path = _child(path, "name")
        if obj.name == "":
            errs.append(required(name_path))
        else:
            errs.extend(short_name_errors(name_path, obj.name))
    for json_name, attr in (
        ("resourceClaimName", "resource_claim_name"),
        ("resourceClaimTemplateName", "resource_claim_template_name"),
    ):
        value = getattr(obj, attr)
        if value is None or (old is not None and value == getattr(old, attr)):
            continue
        errs.extend(long_name_errors(_child(path, json_name), value))
    return errs
