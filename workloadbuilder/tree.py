"""Structural checks of a WorkloadItem tree, shared by validation and compilation.

Both ``Builder.validate`` and ``Builder.build_workload`` refuse a malformed
tree before resolving anything (so no callback runs on it), with the Go
library's messages, and both refuse building blocks that did not decode.
"""

from __future__ import annotations

from kubernetes.client import (
    V1alpha3WorkloadPodGroupDisruptionMode,
    V1alpha3WorkloadPodGroupResourceClaim,
    V1alpha3WorkloadPodGroupSchedulingConstraints,
    V1alpha3WorkloadPodGroupSchedulingPolicy,
)
from pydantic import BaseModel

from workloadbuilder.decode import decode, errors_at
from workloadbuilder.field import ErrorList, extend_path, index_path, type_invalid
from workloadbuilder.gofmt import go_quote
from workloadbuilder.types import (
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
    WorkloadItem,
)

__all__ = ["check_item", "tree_error", "undecodable_input_errors", "undecodable_tree_errors"]


def check_item(value: object, what: str) -> None:
    """Raise ``TypeError`` unless ``value`` is a ``WorkloadItem`` or ``None``.

    Children are typed by pydantic, but a root (or an old root) is handed in
    as is; without this a dict or a list passed as a root would surface as an
    ``AttributeError`` deep in the tree walk. ``None`` is left to the callers,
    which answer it with the Go library's message.

    Raises:
        TypeError: ``value`` is of another type.
    """
    if value is not None and not isinstance(value, WorkloadItem):
        raise TypeError(f"{what} must be a WorkloadItem, not {type(value).__name__}")


def tree_error(root: WorkloadItem | None) -> str | None:
    """Return the first structural problem of the tree, in depth-first pre-order, or ``None``.

    A node must exist and have a name unique across the whole tree (names
    become template names), and must not mix leaf and composite building
    blocks.

    Raises:
        TypeError: ``root`` is neither a ``WorkloadItem`` nor ``None``.
    """
    check_item(root, "the root")
    seen: set[str] = set()
    stack: list[WorkloadItem | None] = [root]
    while stack:
        item = stack.pop()
        if item is None:
            return "workload item cannot be nil"
        if not item.name:
            return "workload item name cannot be empty"
        if item.name in seen:
            return (
                f"duplicate workload item name {go_quote(item.name)}: "
                "template names must be unique across the Workload"
            )
        seen.add(item.name)
        problem = _input_union_error(item)
        if problem:
            return problem
        stack.extend(reversed(item.children))
    return None


def _input_union_error(item: WorkloadItem) -> str | None:
    """A composite node must not set a leaf block, and a leaf node must not set a composite block."""
    given = item.input
    if item.children:
        leaf_blocks = (
            ("policy", given.policy.pod_group_data),
            ("constraints", given.constraints.pod_group_data),
            ("disruptionMode", given.disruption_mode.pod_group_data),
            ("resourceClaims", given.resource_claims.pod_group_data or None),
        )
        for block, data in leaf_blocks:
            if data is not None:
                return f"composite workload item {go_quote(item.name)} sets leaf building block: {block}"
        return None
    composite_blocks = (
        ("policy", given.policy.composite_pod_group_data),
        ("constraints", given.constraints.composite_pod_group_data),
        ("disruptionMode", given.disruption_mode.composite_pod_group_data),
    )
    for block, data in composite_blocks:
        if data is not None:
            return f"leaf workload item {go_quote(item.name)} sets composite building block: {block}"
    return None


_BLOCKS = ("policy", "constraints", "disruption_mode")


def undecodable_input_errors(item: WorkloadItem) -> ErrorList:
    """Field errors for every building block of one item that did not decode, at its full path.

    A block given as a dict with an unknown field or a wrong type is kept
    as given (see ``types``); this reports it, in block order, claims by index.
    """
    errs = ErrorList()
    data_attr = "composite_pod_group_data" if item.is_composite else "pod_group_data"
    for block_name in _BLOCKS:
        block = getattr(item.input, block_name)
        data = getattr(block, data_attr)
        model = _MODELS[(block_name, data_attr)]
        if data is not None and not isinstance(data, model):
            errs.extend(errors_at(extend_path(item.path, block.path_elements), decode(model, data)[1]))
    claims_block = item.input.resource_claims
    claims = claims_block.pod_group_data
    if item.is_composite or not claims:
        return errs
    path = extend_path(item.path, claims_block.path_elements)
    if not isinstance(claims, list):
        errs.append(type_invalid(path, claims, "must be of type array"))
        return errs
    for i, claim in enumerate(claims):
        if not isinstance(claim, V1alpha3WorkloadPodGroupResourceClaim):
            errs.extend(errors_at(index_path(path, i), decode(V1alpha3WorkloadPodGroupResourceClaim, claim)[1]))
    return errs


def undecodable_tree_errors(root: WorkloadItem) -> ErrorList:
    """``undecodable_input_errors`` of every item of a well-formed tree, in pre-order."""
    errs = undecodable_input_errors(root)
    for child in root.children:
        if child is not None:
            errs.extend(undecodable_tree_errors(child))
    return errs


_MODELS: dict[tuple[str, str], type[BaseModel]] = {
    ("policy", "pod_group_data"): V1alpha3WorkloadPodGroupSchedulingPolicy,
    ("constraints", "pod_group_data"): V1alpha3WorkloadPodGroupSchedulingConstraints,
    ("disruption_mode", "pod_group_data"): V1alpha3WorkloadPodGroupDisruptionMode,
    ("policy", "composite_pod_group_data"): WorkloadCompositePodGroupSchedulingPolicy,
    ("constraints", "composite_pod_group_data"): WorkloadCompositePodGroupSchedulingConstraints,
    ("disruption_mode", "composite_pod_group_data"): WorkloadCompositePodGroupDisruptionMode,
}
