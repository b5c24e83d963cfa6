"""Resolution: what one WorkloadItem's scheduling configuration comes to.

The controller's default is copied, the mapped user input overrides it field
by field, then the callbacks run in order on that copy. Neither the default
nor the input is ever mutated, so a callback may freely change what it gets.
"""

from __future__ import annotations

from workloadbuilder.mapping import composite_fields, leaf_fields
from workloadbuilder.types import SchedulingConfig, SchedulingConfigFunc, WorkloadItem

__all__ = ["fill_gang_count", "resolve_config"]


def resolve_config(item: WorkloadItem) -> SchedulingConfig:
    """Return the resolved config of one item: defaults, then user input, then callbacks.

    The composite mapper is used for an item with children. An empty user
    list of resource claims does not clear the default's claims.

    Examples:
        >>> from workloadbuilder import WorkloadItem
        >>> from workloadbuilder.types import GangSchedulingPolicy, SchedulingConfig, SchedulingPolicy
        >>> item = WorkloadItem(name="workers",
        ...     default_config=SchedulingConfig(policy=SchedulingPolicy(gang=GangSchedulingPolicy())),
        ...     callbacks=[lambda cfg: setattr(cfg.policy.gang, "min_count", 8)])
        >>> resolve_config(item).policy.gang.min_count
        8

    Raises:
        TypeError: ``item`` is not a ``WorkloadItem``.
    """
    if not isinstance(item, WorkloadItem):
        raise TypeError(f"resolve_config takes a WorkloadItem, not {type(item).__name__}")
    fields = composite_fields(item.input) if item.is_composite else leaf_fields(item.input)
    if item.default_config is not None:
        # Every field the user left unset comes from a copy of the default; the
        # dump is the copy, so callbacks never reach the caller's default.
        missing = _DEFAULTABLE.difference(fields)
        fields.update(item.default_config.model_dump(include=set(missing)))
    resolved = SchedulingConfig.model_validate(fields)
    for callback in item.callbacks:
        if callback is not None:
            callback(resolved)
    return resolved


def fill_gang_count(count: int | None) -> SchedulingConfigFunc:
    """A callback giving a gang that has no count yet the controller's ``count``.

    This is the callback every controller passes: the user may set the count,
    else the controller computes it (a Job's parallelism, a group's size). It
    changes nothing when the policy is basic, the count is already set, or
    ``count`` is ``None`` (the builder then reports the missing count). On a
    composite item the count is ``minGroupCount``. Clamping (a template's
    count is at least 1) is the caller's choice.

    Examples:
        >>> from workloadbuilder import WorkloadItem
        >>> from workloadbuilder.types import GangSchedulingPolicy, SchedulingConfig, SchedulingPolicy
        >>> item = WorkloadItem(name="workers",
        ...     default_config=SchedulingConfig(policy=SchedulingPolicy(gang=GangSchedulingPolicy())),
        ...     callbacks=[fill_gang_count(4)])
        >>> resolve_config(item).policy.gang.min_count
        4
    """

    def fill(config: SchedulingConfig) -> None:
        gang = config.policy.gang if config.policy is not None else None
        if gang is not None and gang.min_count is None and count is not None:
            gang.min_count = count

    return fill


_DEFAULTABLE = frozenset(
    {
        "policy",
        "constraints",
        "disruption_mode",
        "resource_claims",
        "priority_class_name",
        "priority",
        "preemption_policy",
    }
)
