"""The Job API's side of ``spec.scheduling``: the WorkloadItem validation and the controller share, and the Job's rules.

Upstream keeps one helper (``jobutil.WorkloadItemForJob``) for the Job API
validation and the Job controller "so the two never drift"; so does this
module. ``validate_job`` holds the rules the Job API adds to the building
blocks' own (which the builder checks): the embedding field's declarative
rules (at most four claims, unique claim names, ``spec.scheduling`` and its
policy neither added nor removed on update, the other blocks immutable) and
the hand-written ones (a gang no larger than ``parallelism``, no
``spec.scheduling`` next to a pod template ``schedulingGroup``, the
basic/gang variant frozen). The hand-written rules' upstream source was not
available; their messages are ours (see docs/adapters/job.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from workloadbuilder import (
    BasicSchedulingPolicy,
    Builder,
    BuildOptions,
    ErrorList,
    FieldPath,
    SchedulingConfig,
    SchedulingPolicy,
    WorkloadInput,
    WorkloadItem,
    fill_gang_count,
)
from workloadbuilder.adapters.common import ALLOWED_DISRUPTION_MODES, ALLOWED_POLICIES, block_input
from workloadbuilder.adapters.kit import (
    MAX_RESOURCE_CLAIMS,
    duplicate,
    forbidden,
    invalid,
    is_int,
    too_many,
    type_invalid,
    unknown_field,
)
from workloadbuilder.adapters.reading import at, read_int

__all__ = [
    "ALLOWED_DISRUPTION_MODES",
    "ALLOWED_POLICIES",
    "MAX_RESOURCE_CLAIMS",
    "SCHEDULING_PATH",
    "api_options",
    "default_min_count",
    "scheduling_of",
    "validate_job",
    "validate_job_scheduling",
    "workload_item_for_job",
]

SCHEDULING_PATH = FieldPath("spec", "scheduling")
"""Where a Job keeps its scheduling blocks; every block error is reported below it."""

"""``+k8s:maxItems=4`` on ``spec.scheduling.resourceClaims``."""

_BLOCKS = ("schedulingPolicy", "schedulingConstraints", "disruptionMode", "resourceClaims")
_IMMUTABLE_BLOCKS = ("schedulingConstraints", "disruptionMode", "resourceClaims")
_SCHEDULING_GROUP = ("spec", "template", "spec", "schedulingGroup")


def scheduling_of(job: Mapping[str, Any]) -> Any:
    """The Job's ``spec.scheduling`` as given (``None`` when unset)."""
    return at(job, ("spec", "scheduling"))


def default_min_count(parallelism: int | None) -> Callable[[SchedulingConfig], None]:
    """The controller's callback: a gang without ``minCount`` gets ``max(1, parallelism)`` (parallelism defaults to 1).

    The clamp keeps a ``parallelism: 0`` Job (valid, and suspended ones use
    it) from compiling ``minCount: 0``, which the API server refuses.
    """
    return fill_gang_count(max(1, 1 if parallelism is None else parallelism))


def workload_item_for_job(job: Mapping[str, Any], template_name: str) -> WorkloadItem:
    """The one leaf a Job compiles to, as ``jobutil.WorkloadItemForJob`` builds it.

    Basic by default, the pod template's ``priorityClassName``, the user's
    ``spec.scheduling`` blocks at their paths (no input at all when
    ``spec.scheduling`` is unset), and ``default_min_count``.
    """
    priority_class = at(job, ("spec", "template", "spec", "priorityClassName"))
    parallelism = at(job, ("spec", "parallelism"))
    scheduling = scheduling_of(job)
    return WorkloadItem(
        name=template_name,
        path=SCHEDULING_PATH,
        default_config=SchedulingConfig(
            policy=SchedulingPolicy(basic=BasicSchedulingPolicy()),
            priority_class_name=priority_class if isinstance(priority_class, str) else "",
        ),
        input=block_input(scheduling) if isinstance(scheduling, Mapping) else WorkloadInput(),
        callbacks=[default_min_count(parallelism if is_int(parallelism) else None)],
    )


def api_options() -> BuildOptions:
    """The options Job API validation gives the builder: the Job controller's allow-lists, declarative rules on."""
    return BuildOptions(allowed_policies=ALLOWED_POLICIES, allowed_disruption_modes=ALLOWED_DISRUPTION_MODES)


def validate_job_scheduling(
    job: Mapping[str, Any],
    item: WorkloadItem,
    old: Mapping[str, Any] | None = None,
    old_item: WorkloadItem | None = None,
) -> ErrorList:
    """Everything the Job API checks of ``spec.scheduling``: ``validate_job``, then the builder on ``item``."""
    errors = validate_job(job, old)
    errors.extend(Builder(item, api_options()).validate(old_item))
    return errors


def validate_job(job: Mapping[str, Any], old: Mapping[str, Any] | None = None) -> ErrorList:
    """The Job API's own rules for ``spec.scheduling`` (the builder checks the blocks), on create or update (``old``).

    In order: the shape of ``spec``, ``spec.parallelism``, ``spec.completions``
    and ``spec.scheduling``; no ``spec.scheduling`` next to a pod template
    ``schedulingGroup`` (on update, unless the old Job had both); a gang
    ``minCount`` at most ``parallelism``; at most four claims with unique
    names; and on update: ``spec.scheduling`` and its policy neither added
    nor removed, the policy's variant frozen, the other blocks immutable.
    """
    errors = ErrorList()
    spec = job.get("spec")
    if spec is not None and not isinstance(spec, Mapping):
        return ErrorList([type_invalid(FieldPath("spec"), spec, "must be of type object")])
    parallelism = read_int(job, ("spec", "parallelism"), errors, minimum=0)
    sized = not errors  # a bad parallelism is reported once, not again as a gang too large for it
    read_int(job, ("spec", "completions"), errors, minimum=0)
    scheduling = scheduling_of(job)
    if scheduling is not None and not isinstance(scheduling, Mapping):
        errors.append(type_invalid(SCHEDULING_PATH, scheduling, "must be of type object"))
        return errors
    errors.extend(unknown_field(SCHEDULING_PATH.child(key)) for key in scheduling or {} if key not in _BLOCKS)
    if scheduling is not None and at(job, _SCHEDULING_GROUP) is not None and not _had_both(old):
        errors.append(forbidden(SCHEDULING_PATH, "may not be set when spec.template.spec.schedulingGroup is set"))
    if sized:
        errors.extend(_gang_within_parallelism(scheduling, parallelism))
    errors.extend(_claims(scheduling))
    if old is not None:
        errors.extend(_update(scheduling, scheduling_of(old)))
    return errors


def _had_both(old: Mapping[str, Any] | None) -> bool:
    return old is not None and scheduling_of(old) is not None and at(old, _SCHEDULING_GROUP) is not None


def _gang_within_parallelism(scheduling: Mapping[str, Any] | None, parallelism: int | None) -> ErrorList:
    min_count = at(scheduling, ("schedulingPolicy", "gang", "minCount"))
    if not is_int(min_count) or min_count <= (1 if parallelism is None else parallelism):
        return ErrorList()
    path = SCHEDULING_PATH.child("schedulingPolicy", "gang", "minCount")
    return ErrorList([invalid(path, min_count, "must be less than or equal to parallelism")])


def _claims(scheduling: Mapping[str, Any] | None) -> ErrorList:
    claims = at(scheduling, ("resourceClaims",))
    if not isinstance(claims, list):
        return ErrorList()  # the builder reports a wrong type
    path = SCHEDULING_PATH.child("resourceClaims")
    errors = ErrorList()
    if len(claims) > MAX_RESOURCE_CLAIMS:
        errors.append(too_many(path, len(claims), MAX_RESOURCE_CLAIMS))
    seen: set[str] = set()
    for i, claim in enumerate(claims):
        name = claim.get("name") if isinstance(claim, Mapping) else None
        if not isinstance(name, str):
            continue
        if name in seen:
            errors.append(duplicate(path.index(i), _go_claim(claim)))
        seen.add(name)
    return errors


def _go_claim(claim: Mapping[str, Any]) -> dict[str, Any]:
    """A claim as Go's ``json.Marshal`` writes the struct: declared field order, unset pointers left out."""
    keys = ("name", "resourceClaimName", "resourceClaimTemplateName")
    return {key: claim[key] for key in keys if key == "name" or claim.get(key) is not None}


def _update(new: Mapping[str, Any] | None, old: Any) -> ErrorList:
    old = old if isinstance(old, Mapping) else None
    errors = _set_or_cleared(SCHEDULING_PATH, new, old)
    if new is None or old is None:
        return errors
    policy_path = SCHEDULING_PATH.child("schedulingPolicy")
    errors.extend(_set_or_cleared(policy_path, new.get("schedulingPolicy"), old.get("schedulingPolicy")))
    errors.extend(_variant_frozen(policy_path, new.get("schedulingPolicy"), old.get("schedulingPolicy")))
    for key in _IMMUTABLE_BLOCKS:
        if _normal(new.get(key)) != _normal(old.get(key)):
            errors.append(invalid(SCHEDULING_PATH.child(key), None, "field is immutable"))
    return errors


def _set_or_cleared(path: FieldPath, new: Any, old: Any) -> ErrorList:
    """``+k8s:update=NoSet,NoUnset``: an optional field may be neither added nor removed once the object exists."""
    if old is None and new is not None:
        return ErrorList([invalid(path, None, "field cannot be set once created")])
    if old is not None and new is None:
        return ErrorList([invalid(path, None, "field cannot be cleared once set")])
    return ErrorList()


def _variant_frozen(path: FieldPath, new: Any, old: Any) -> ErrorList:
    before, after = _variant(old), _variant(new)
    if before is None or after is None or before == after:
        return ErrorList()
    detail = f"may not change from {before} to {after}: only gang.minCount may change"
    return ErrorList([invalid(path, after, detail)])


def _variant(policy: Any) -> str | None:
    """``basic`` or ``gang``, or ``None`` for a policy that is not exactly one of them (the union rule reports it)."""
    if not isinstance(policy, Mapping):
        return None
    chosen = [key for key in ("basic", "gang") if policy.get(key) is not None]
    return chosen[0] if len(chosen) == 1 else None


def _normal(value: Any) -> Any:
    """A JSON value with ``null`` fields dropped, so ``{"single": {}}`` equals itself however it was spelt."""
    if isinstance(value, Mapping):
        return {key: _normal(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_normal(item) for item in value]
    return value


