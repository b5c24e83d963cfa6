"""Resolution: what one WorkloadItem's scheduling configuration comes to.

The controller's default is copied, the mapped user input overrides it field
by field, then the callbacks run in order on that copy. Neither the default
nor the input is ever mutated, so a callback may freely change what it gets.
"""

from __future__ import annotations

from workloadbuilder.mapping import map_composite_group_input, map_workload_input
from workloadbuilder.types import SchedulingConfig, WorkloadItem

__all__ = ["copy_config", "resolve_config"]


def resolve_config(item: WorkloadItem) -> SchedulingConfig:
    """Return the resolved config of one item: defaults, then user input, then callbacks.

    The composite mapper is used for an item with children. An empty user
    list of resource claims does not clear the default's claims.

    Example:
        >>> from workloadbuilder import WorkloadItem, SchedulingConfig, SchedulingPolicy, GangSchedulingPolicy
        >>> item = WorkloadItem(name="workers",
        ...     default_config=SchedulingConfig(policy=SchedulingPolicy(gang=GangSchedulingPolicy())),
        ...     callbacks=[lambda cfg: setattr(cfg.policy.gang, "min_count", 8)])
        >>> resolve_config(item).policy.gang.min_count
        8
    """
    resolved = copy_config(item.default_config) if item.default_config is not None else SchedulingConfig()
    user = map_composite_group_input(item.input) if item.is_composite else map_workload_input(item.input)
    if user.policy is not None:
        resolved.policy = user.policy
    if user.constraints is not None:
        resolved.constraints = user.constraints
    if user.disruption_mode is not None:
        resolved.disruption_mode = user.disruption_mode
    if user.resource_claims:
        resolved.resource_claims = user.resource_claims
    for callback in item.callbacks:
        if callback is not None:
            callback(resolved)
    return resolved


def copy_config(config: SchedulingConfig) -> SchedulingConfig:
    """A deep copy of a config, so callbacks cannot reach the caller's default."""
    return config.model_copy(deep=True)
