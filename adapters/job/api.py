"""The Job API's side of ``spec.scheduling``: the WorkloadItem validation and the controller share, and the Job's rules.

Upstream keeps one helper (``jobutil.WorkloadItemForJob``) for the Job API
validation and the Job controller "so the two never drift"; so does this
module. ``validate_job`` holds the rules the Job API adds to the building
blocks' own (which the builder checks): the hand-written ones (a gang no
larger than ``parallelism``, the basic/gang variant frozen), then the
embedding field's ``+k8s:`` tags as a table on the building blocks' engine
(``spec.scheduling`` and its policy neither added nor removed on update, the
other blocks immutable, at most four claims with unique names), ratcheted as
the apiserver does: an unchanged value is not checked again. The hand-written rules' upstream source was not
available; their messages are ours (see docs/adapters/job.md).

``spec.scheduling`` next to a pod template ``schedulingGroup`` is accepted,
as in 1.37: the Job controller then manages nothing for the Job, so the
blocks have no effect, and ``scheduling_ignored`` says so as a warning.
(Refusing it is a 1.38 proposal, which exempts Jobs created under 1.37.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from workloadbuilder import (
    Builder,
    BuildOptions,
    ErrorList,
    FeatureGates,
    FieldPath,
    SchedulingConfig,
    WorkloadInput,
    WorkloadItem,
)
from workloadbuilder.adapters._shared.blocks import ALLOWED_DISRUPTION_MODES, ALLOWED_POLICIES, block_input
from workloadbuilder.adapters._shared.reading import PODS_BOUND, at, read_int
from workloadbuilder.adapters.kit import (
    IMMUTABLE,
    MAX_PODS,
    MAX_RESOURCE_CLAIMS,
    NO_SET_UNSET,
    Op,
    canonical,
    check_field,
    forbidden,
    given_blocks,
    invalid,
    is_int,
    max_items,
    nested,
    type_invalid,
    unique_names,
    unknown_field,
)
from workloadbuilder.resolve import fill_gang_count
from workloadbuilder.types import BasicSchedulingPolicy, SchedulingPolicy

__all__ = [
    "ALLOWED_DISRUPTION_MODES",
    "ALLOWED_POLICIES",
    "MAX_RESOURCE_CLAIMS",
    "SCHEDULING_PATH",
    "api_options",
    "default_min_count",
    "scheduling_ignored",
    "scheduling_of",
    "validate_job",
    "validate_job_scheduling",
    "workload_item_for_job",
]

SCHEDULING_PATH = FieldPath("spec", "scheduling")
"""Where a Job keeps its scheduling blocks; every block error is reported below it."""

"""``+k8s:maxItems=4`` on ``spec.scheduling.resourceClaims``."""

_BLOCKS = ("schedulingPolicy", "schedulingConstraints", "disruptionMode", "resourceClaims")


def _no_rules(op: Op, path: FieldPath, value: Any, old: Any) -> ErrorList:
    """A block whose own rules the builder checks: the embedding field adds none below its tags."""
    return ErrorList()


def _claim_names(op: Op, path: FieldPath, value: Any, old: Any) -> ErrorList:
    """``+listType=map`` keyed by name on ``resourceClaims``: a repeated name is a ``Duplicate`` of the whole claim."""
    return unique_names(path, value or [], "PodGroupResourceClaim")


# The tags of spec.scheduling's fields, in declaration order, and what is checked below them.
_FIELD_TAGS = (
    ("schedulingPolicy", (NO_SET_UNSET,), _no_rules),
    ("schedulingConstraints", (IMMUTABLE,), _no_rules),
    ("disruptionMode", (IMMUTABLE,), _no_rules),
    ("resourceClaims", (IMMUTABLE, max_items(MAX_RESOURCE_CLAIMS)), _claim_names),
)
_ALL_GATES = FeatureGates.all()
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
    and ``spec.scheduling``; a gang ``minCount`` at most ``parallelism``; on
    update the policy's variant frozen; then the tags of ``spec.scheduling``
    (neither added nor removed, nor its policy; the other blocks immutable;
    at most four claims with unique names), once its blocks decode (the
    builder reports those that do not).
    """
    errors = ErrorList()
    spec = job.get("spec")
    if spec is not None and not isinstance(spec, Mapping):
        return ErrorList([type_invalid(FieldPath("spec"), spec, "must be of type object")])
    parallelism = read_int(job, ("spec", "parallelism"), errors, minimum=0, maximum=MAX_PODS, why=PODS_BOUND)
    sized = not errors  # a bad parallelism is reported once, not again as a gang too large for it
    read_int(job, ("spec", "completions"), errors, minimum=0)
    scheduling = scheduling_of(job)
    if scheduling is not None and not isinstance(scheduling, Mapping):
        errors.append(type_invalid(SCHEDULING_PATH, scheduling, "must be of type object"))
        return errors
    errors.extend(unknown_field(SCHEDULING_PATH.child(key)) for key in scheduling or {} if key not in _BLOCKS)
    if sized:
        errors.extend(_gang_within_parallelism(scheduling, parallelism))
    old_scheduling = scheduling_of(old) if old is not None else None
    old_scheduling = old_scheduling if isinstance(old_scheduling, Mapping) else None
    if scheduling is not None and old_scheduling is not None:
        policy, old_policy = scheduling.get("schedulingPolicy"), old_scheduling.get("schedulingPolicy")
        errors.extend(_variant_frozen(SCHEDULING_PATH.child("schedulingPolicy"), policy, old_policy))
    if _decodes(scheduling) and _decodes(old_scheduling):
        errors.extend(_declarative(scheduling, old_scheduling, update=old is not None))
    return errors


def _decodes(scheduling: Mapping[str, Any] | None) -> bool:
    """Whether every block of ``scheduling`` decodes (its Go form exists); ``None`` does."""
    return scheduling is None or all(block.decoded for block in given_blocks(block_input(scheduling), None, False))


def _declarative(scheduling: Mapping[str, Any] | None, old: Mapping[str, Any] | None, update: bool) -> ErrorList:
    """The tags of ``spec.scheduling`` (``+k8s:update=NoSet,NoUnset``) and of its fields, on the engine."""
    op = Op(update=update, gates=_ALL_GATES)
    new_value = None if scheduling is None else canonical("JobScheduling", scheduling)
    old_value = None if old is None else canonical("JobScheduling", old)

    def fields() -> ErrorList:
        errors = ErrorList()
        if new_value is None:
            return errors
        for name, tags, below in _FIELD_TAGS:
            errors += nested(op, SCHEDULING_PATH, new_value, old_value, name, tags, below)
        return errors

    return check_field(op, SCHEDULING_PATH, new_value, old_value, update, (NO_SET_UNSET,), fields)


def scheduling_ignored(job: Mapping[str, Any]) -> ErrorList:
    """A warning for ``spec.scheduling`` beside a pod template ``schedulingGroup``: 1.37 accepts it and ignores it."""
    if scheduling_of(job) is None or at(job, _SCHEDULING_GROUP) is None:
        return ErrorList()
    detail = (
        "has no effect while spec.template.spec.schedulingGroup is set: the Job controller makes no Workload and "
        "no PodGroup for the Job"
    )
    return ErrorList([forbidden(SCHEDULING_PATH, detail)])


def _gang_within_parallelism(scheduling: Mapping[str, Any] | None, parallelism: int | None) -> ErrorList:
    min_count = at(scheduling, ("schedulingPolicy", "gang", "minCount"))
    effective = 1 if parallelism is None else parallelism  # the apiserver's default parallelism
    if not is_int(min_count) or min_count <= effective:
        return ErrorList()
    path = SCHEDULING_PATH.child("schedulingPolicy", "gang", "minCount")
    return ErrorList([invalid(path, min_count, f"must not be greater than parallelism ({effective})")])


def _variant_frozen(path: FieldPath, new: Any, old: Any) -> ErrorList:
    before, after = _variant(old), _variant(new)
    if before is None or after is None or before == after:
        return ErrorList()
    detail = (
        "the basic/gang policy variant is immutable after creation; only schedulingPolicy.gang.minCount may be updated"
    )
    return ErrorList([invalid(path, None, detail)])


def _variant(policy: Any) -> str | None:
    """``basic`` or ``gang``, or ``None`` for a policy that is not exactly one of them (the union rule reports it)."""
    if not isinstance(policy, Mapping):
        return None
    chosen = [key for key in ("basic", "gang") if policy.get(key) is not None]
    return chosen[0] if len(chosen) == 1 else None
