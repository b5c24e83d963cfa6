"""Validation of a WorkloadItem tree: input decoding, the building blocks' rules, and the controller's policy.

This is ``Builder.validate`` without the builder: the tree checks, then for
each node in depth-first pre-order its building blocks' declarative rules
followed by the checks declarative validation cannot express (the
controller's allow-lists and the Basic + ``all`` cross-field rule), all at
the controller's own field paths.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from kubernetes.client import (
    V1alpha3WorkloadPodGroupDisruptionMode,
    V1alpha3WorkloadPodGroupResourceClaim,
    V1alpha3WorkloadPodGroupSchedulingConstraints,
    V1alpha3WorkloadPodGroupSchedulingPolicy,
)
from pydantic import BaseModel

from workloadbuilder.decode import decode, errors_at
from workloadbuilder.field import (
    ErrorList,
    FieldPath,
    extend_path,
    forbidden,
    index_path,
    internal_error,
    invalid,
    type_invalid,
)
from workloadbuilder.gofmt import go_quote
from workloadbuilder.mapping import composite_fields, leaf_fields
from workloadbuilder.resolve import resolve_config
from workloadbuilder.tree import check_item, tree_error
from workloadbuilder.types import (
    BuildOptions,
    DisruptionModeOption,
    SchedulingPolicyOption,
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
    WorkloadItem,
)
from workloadbuilder.validation import blocks

__all__ = ["validate_tree"]

_Validator = Callable[[FieldPath | None, Any, Any], ErrorList]


def validate_tree(root: WorkloadItem | None, options: BuildOptions, old_root: WorkloadItem | None = None) -> ErrorList:
    """Validate a tree as ``Builder.validate`` does; ``old_root`` makes it an update.

    Contract violations (no root, an old root of another name, a malformed
    tree) come back alone, as one error at the root's path.

    Raises:
        TypeError: ``root`` or ``old_root`` is not a ``WorkloadItem`` (a
            programming error, not a problem with the user's input).
    """
    check_item(root, "the root")
    check_item(old_root, "old_root")
    if root is None:
        return ErrorList([invalid(None, None, "invalid builder: missing root WorkloadItem")])
    if old_root is not None and old_root.name != root.name:
        detail = f"old root name {go_quote(old_root.name)} does not match new root name {go_quote(root.name)}"
        return ErrorList([internal_error(root.path, detail)])
    problem = tree_error(root)
    if problem is not None:
        return ErrorList([internal_error(root.path, problem)])
    errs = ErrorList()
    _validate_item(root, old_root, options, errs)
    return errs


def _validate_item(item: WorkloadItem, old: WorkloadItem | None, options: BuildOptions, errs: ErrorList) -> None:
    _add_block_errors(errs, item, old, not options.disable_declarative_validation)
    resolved = _resolved_members(item)
    _add_allowed_policy_errors(errs, item, resolved, options)
    _add_allowed_disruption_mode_errors(errs, item, resolved, options)
    _add_basic_with_all_errors(errs, item, resolved)
    # Children correlate with old children by name within one level only: a
    # node that moved to another level is validated as new.
    old_children = {c.name: c for c in old.children if c is not None} if old is not None else {}
    for child in item.children:
        if child is not None:
            _validate_item(child, old_children.get(child.name), options, errs)


class _Members(NamedTuple):
    """Which union members the resolved policy and disruption mode set; ``None`` where unresolved."""

    policy: tuple[bool, bool] | None  # (basic, gang)
    mode: tuple[bool, bool] | None  # (single, all)


def _resolved_members(item: WorkloadItem) -> _Members:
    """What the controller checks need of the resolved config.

    With callbacks the full resolution runs, as in Go, so callbacks run during
    validation too. Without, the answer follows from the input and the
    default alone, and computing it directly saves building the whole config.
    """
    if any(callback is not None for callback in item.callbacks):
        config = resolve_config(item)
        policy, mode = config.policy, config.disruption_mode
        return _Members(
            None if policy is None else (policy.basic is not None, policy.gang is not None),
            None if mode is None else (mode.single is not None, mode.all is not None),
        )
    fields = composite_fields(item.input) if item.is_composite else leaf_fields(item.input)
    default = item.default_config
    policy_members: tuple[bool, bool] | None = None
    mode_members: tuple[bool, bool] | None = None
    if "policy" in fields:
        policy_members = ("basic" in fields["policy"], "gang" in fields["policy"])
    elif default is not None and default.policy is not None:
        policy_members = (default.policy.basic is not None, default.policy.gang is not None)
    if "disruption_mode" in fields:
        mode_members = ("single" in fields["disruption_mode"], "all" in fields["disruption_mode"])
    elif default is not None and default.disruption_mode is not None:
        mode_members = (default.disruption_mode.single is not None, default.disruption_mode.all is not None)
    return _Members(policy_members, mode_members)


# (block attribute on WorkloadInput, data attribute, model, validator), in Go's order.
_LEAF_BLOCKS: tuple[tuple[str, str, type[BaseModel], _Validator], ...] = (
    ("policy", "pod_group_data", V1alpha3WorkloadPodGroupSchedulingPolicy, blocks.validate_scheduling_policy),
    (
        "constraints",
        "pod_group_data",
        V1alpha3WorkloadPodGroupSchedulingConstraints,
        blocks.validate_scheduling_constraints,
    ),
    ("disruption_mode", "pod_group_data", V1alpha3WorkloadPodGroupDisruptionMode, blocks.validate_disruption_mode),
)
_COMPOSITE_BLOCKS: tuple[tuple[str, str, type[BaseModel], _Validator], ...] = (
    (
        "policy",
        "composite_pod_group_data",
        WorkloadCompositePodGroupSchedulingPolicy,
        blocks.validate_composite_scheduling_policy,
    ),
    (
        "constraints",
        "composite_pod_group_data",
        WorkloadCompositePodGroupSchedulingConstraints,
        blocks.validate_composite_scheduling_constraints,
    ),
    (
        "disruption_mode",
        "composite_pod_group_data",
        WorkloadCompositePodGroupDisruptionMode,
        blocks.validate_composite_disruption_mode,
    ),
)


def _add_block_errors(errs: ErrorList, item: WorkloadItem, old: WorkloadItem | None, run_declarative: bool) -> None:
    """Each set block in Go's order: its decoding errors if it did not decode, else its declarative rules.

    Input that does not decode is reported even with declarative validation
    disabled: it is not a rule the apiserver already ran, it is input nobody
    can read.
    """
    composite = bool(item.children)
    for block_name, data_attr, model, validator in _COMPOSITE_BLOCKS if composite else _LEAF_BLOCKS:
        block = getattr(item.input, block_name)
        data = getattr(block, data_attr)
        if data is None:
            continue
        path = extend_path(item.path, block.path_elements)
        if not isinstance(data, model):
            errs.extend(errors_at(path, decode(model, data)[1]))
        elif run_declarative:
            old_data = getattr(getattr(old.input, block_name), data_attr) if old is not None else None
            errs.extend(validator(path, data, old_data if isinstance(old_data, model) else None))
    if not composite:
        _add_claim_errors(errs, item, old, run_declarative)


def _add_claim_errors(errs: ErrorList, item: WorkloadItem, old: WorkloadItem | None, run_declarative: bool) -> None:
    """Each claim at ``path[i]`` (its index in the new list), matched with the old claim of the same name."""
    block = item.input.resource_claims
    claims = block.pod_group_data
    if not claims:
        return
    path = extend_path(item.path, block.path_elements)
    if not isinstance(claims, list):
        errs.append(type_invalid(path, claims, "must be of type array"))
        return
    old_claims = old.input.resource_claims.pod_group_data if old is not None else []
    old_by_name = {
        c.name: c
        for c in (old_claims if isinstance(old_claims, list) else [])
        if isinstance(c, V1alpha3WorkloadPodGroupResourceClaim)
    }
    for i, claim in enumerate(claims):
        if not isinstance(claim, V1alpha3WorkloadPodGroupResourceClaim):
            errs.extend(errors_at(index_path(path, i), decode(V1alpha3WorkloadPodGroupResourceClaim, claim)[1]))
        elif run_declarative:
            errs.extend(blocks.validate_resource_claim(index_path(path, i), claim, old_by_name.get(claim.name)))


def _add_allowed_policy_errors(errs: ErrorList, item: WorkloadItem, resolved: _Members, options: BuildOptions) -> None:
    """A resolved policy outside the allow-list is Forbidden at the policy block's path, wherever it came from."""
    if resolved.policy is None:
        return
    basic, gang = resolved.policy
    if basic and SchedulingPolicyOption.BASIC not in options.allowed_policies:
        errs.append(forbidden(_policy_path(item), "basic scheduling policy is not supported by this controller"))
    if gang and SchedulingPolicyOption.GANG not in options.allowed_policies:
        errs.append(forbidden(_policy_path(item), "gang scheduling policy is not supported by this controller"))


def _policy_path(item: WorkloadItem) -> FieldPath | None:
    return extend_path(item.path, item.input.policy.path_elements)


def _mode_path(item: WorkloadItem) -> FieldPath | None:
    return extend_path(item.path, item.input.disruption_mode.path_elements)


def _add_allowed_disruption_mode_errors(
    errs: ErrorList, item: WorkloadItem, resolved: _Members, options: BuildOptions
) -> None:
    """A resolved disruption mode outside the allow-list is Forbidden at the mode block's path."""
    if resolved.mode is None:
        return
    single, all_ = resolved.mode
    if single and DisruptionModeOption.SINGLE not in options.allowed_disruption_modes:
        errs.append(forbidden(_mode_path(item), "the disruptionMode `single` is not supported by this controller"))
    if all_ and DisruptionModeOption.ALL not in options.allowed_disruption_modes:
        errs.append(forbidden(_mode_path(item), "the disruptionMode `all` is not supported by this controller"))


def _add_basic_with_all_errors(errs: ErrorList, item: WorkloadItem, resolved: _Members) -> None:
    """A Basic group is scheduled pod by pod, so disrupting it all-or-nothing is meaningless."""
    if resolved.policy is not None and resolved.policy[0] and resolved.mode is not None and resolved.mode[1]:
        detail = "the disruptionMode `all` is not supported with the Basic scheduling policy"
        errs.append(invalid(_mode_path(item), "", detail))
