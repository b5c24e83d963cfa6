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
    V1alpha3WorkloadPodGroupResourceClaim,
)
from pydantic import BaseModel

from workloadbuilder._internal.decode import decode_known
from workloadbuilder._internal.gofmt import go_quote
from workloadbuilder.field import (
    ErrorList,
    FieldPath,
    extend_path,
    forbidden,
    internal_error,
    invalid,
)
from workloadbuilder.resolve import resolve_config
from workloadbuilder.types import (
    BuildOptions,
    DisruptionModeOption,
    SchedulingPolicyOption,
    WorkloadItem,
)
from workloadbuilder.validation import blocks
from workloadbuilder.validation.structure import (
    BLOCK_MODELS,
    GivenBlock,
    block_path,
    check_item,
    set_blocks,
    tree_error,
)

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
    composite = item.is_composite
    data_attr = _data_attr(composite)
    default = item.default_config
    policy_members = _mapped_members(
        getattr(item.input.policy, data_attr), BLOCK_MODELS[("policy", composite)], "basic", "gang"
    )
    mode_members = _mapped_members(
        getattr(item.input.disruption_mode, data_attr), BLOCK_MODELS[("disruption_mode", composite)], "single", "all"
    )
    if policy_members is None and default is not None and default.policy is not None:
        policy_members = (default.policy.basic is not None, default.policy.gang is not None)
    if mode_members is None and default is not None and default.disruption_mode is not None:
        mode_members = (default.disruption_mode.single is not None, default.disruption_mode.all is not None)
    return _Members(policy_members, mode_members)


def _mapped_members(block: Any, model: type[BaseModel], first: str, second: str) -> tuple[bool, bool] | None:
    """The members a union block maps to, as ``mapping`` maps it: the first set one wins (``basic``, ``single``).

    ``None`` when the block did not decode or sets neither, so the default applies.
    """
    if not isinstance(block, model):
        return None
    if getattr(block, first) is not None:
        return (True, False)
    if getattr(block, second) is not None:
        return (False, True)
    return None


def _add_block_errors(errs: ErrorList, item: WorkloadItem, old: WorkloadItem | None, run_declarative: bool) -> None:
    """Each set block in Go's order: its decoding errors if it did not decode, else its declarative rules.

    Input that does not decode is reported even with declarative validation
    disabled: it is not a rule the apiserver already ran, it is input nobody
    can read.
    """
    composite = item.is_composite
    old_claims: dict[str, Any] | None = None
    # A block's path is built only to report at it: a clean block on create needs none.
    for name, elements, data, model, index in set_blocks(item.input, composite):
        if not isinstance(data, model):
            errs.extend(GivenBlock(name, block_path(item.path, elements, index), data, model, index).decode_errors())
            continue
        if not run_declarative:
            continue
        if index is None:
            old_data = getattr(getattr(old.input, name), _data_attr(composite)) if old is not None else None
        else:
            old_claims = _old_claims(old) if old_claims is None else old_claims
            claim: Any = data  # a claim model (narrowed to BaseModel above)
            old_data = old_claims.get(claim.name)
        old_block = _old_block(model, old_data)
        if old_block is None and blocks.is_clean(model, data):
            continue
        errs.extend(blocks.VALIDATORS[model](block_path(item.path, elements, index), data, old_block))


def _data_attr(composite: bool) -> str:
    return "composite_pod_group_data" if composite else "pod_group_data"


def _old_claims(old: WorkloadItem | None) -> dict[str, Any]:
    """The old item's claims by name (the last of each name), for ratcheting."""
    claims = old.input.resource_claims.pod_group_data if old is not None else None
    by_name: dict[str, Any] = {}
    for claim in claims if isinstance(claims, list) else []:
        decoded = _old_block(V1alpha3WorkloadPodGroupResourceClaim, claim)
        if decoded is not None:
            by_name[decoded.name] = decoded
    return by_name


def _old_block(model: type[BaseModel], data: object) -> Any:
    """The old block as its model, for ratcheting: unknown fields of a dict are dropped (a Go struct has none).

    ``None`` when there is none, or a known field has a wrong type: the new
    block is then checked as if created.
    """
    return None if data is None else decode_known(model, data)


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
