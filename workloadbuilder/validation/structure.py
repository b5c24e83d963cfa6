"""Structural checks of a WorkloadItem tree, shared by validation and compilation.

Both ``Builder.validate`` and ``Builder.build_workload`` refuse a malformed
tree before resolving anything (so no callback runs on it), with the Go
library's messages, and both refuse building blocks that did not decode.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kubernetes.client import (
    V1alpha3WorkloadPodGroupDisruptionMode,
    V1alpha3WorkloadPodGroupResourceClaim,
    V1alpha3WorkloadPodGroupSchedulingConstraints,
    V1alpha3WorkloadPodGroupSchedulingPolicy,
)
from pydantic import BaseModel

from workloadbuilder._internal.decode import decode, errors_at
from workloadbuilder._internal.gofmt import go_quote
from workloadbuilder.field import ErrorList, FieldPath, extend_path, index_path, type_invalid
from workloadbuilder.types import (
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
    WorkloadInput,
    WorkloadItem,
)

__all__ = [
    "BLOCK_MODELS",
    "CheckedTree",
    "GivenBlock",
    "block_path",
    "check_item",
    "given_blocks",
    "set_blocks",
    "tree_error",
    "undecodable_input_errors",
    "undecodable_tree_errors",
]


@dataclass(frozen=True)
class CheckedTree:
    """A tree ``validate`` found well formed and valid, handed to compilation on the same ``Builder``.

    Compilation then skips the structural and decoding checks it would
    repeat. It still resolves every item, callbacks included: Go's builder
    runs a controller's callbacks in ``Validate`` and again in
    ``BuildWorkload``, and a callback may count or log. It applies only to
    the very ``root`` object it was made for; ``build_workload`` alone (or on
    another tree) checks everything.
    """

    root: WorkloadItem
    """The root item that was validated (compared by identity)."""


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
                f"duplicate workload item name {go_quote(item.name)}: template names must be unique across the Workload"
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


BLOCK_MODELS: dict[tuple[str, bool], type[BaseModel]] = {
    ("policy", False): V1alpha3WorkloadPodGroupSchedulingPolicy,
    ("constraints", False): V1alpha3WorkloadPodGroupSchedulingConstraints,
    ("disruption_mode", False): V1alpha3WorkloadPodGroupDisruptionMode,
    ("resource_claims", False): V1alpha3WorkloadPodGroupResourceClaim,
    ("policy", True): WorkloadCompositePodGroupSchedulingPolicy,
    ("constraints", True): WorkloadCompositePodGroupSchedulingConstraints,
    ("disruption_mode", True): WorkloadCompositePodGroupDisruptionMode,
}
"""The model of each building block, by its ``WorkloadInput`` attribute and whether the item is composite.

``resource_claims`` is a list of the model; a composite item has no claims.
"""


@dataclass(frozen=True)
class GivenBlock:
    """One building block an item sets, where it is reported, and what it should decode to.

    Attributes:
        name: its ``WorkloadInput`` attribute (``policy``, ``constraints``,
            ``disruption_mode``, ``resource_claims``).
        path: the full path: the item's path, the block's path elements, and
            for a claim its index.
        data: the block as given: its model when it decoded, else the raw value.
        model: the model it should be.
        index: a claim's index in the claims list, else ``None``.
    """

    name: str
    path: FieldPath | None
    data: Any
    model: type[BaseModel]
    index: int | None = None

    @property
    def decoded(self) -> bool:
        """Whether the block is its model (a dict that did not decode is kept as given)."""
        return isinstance(self.data, self.model)

    def decode_errors(self) -> ErrorList:
        """The strict-decoding errors of a block that did not decode, at its path; none for a decoded one."""
        if self.decoded:
            return ErrorList()
        if self.name == "resource_claims" and self.index is None:
            return ErrorList([type_invalid(self.path, self.data, "must be of type array")])
        return errors_at(self.path, decode(self.model, self.data)[1])


def given_blocks(given: WorkloadInput, path: FieldPath | None, composite: bool) -> Iterator[GivenBlock]:
    """Each block ``given`` sets, in Go's order (policy, constraints, disruption mode, then each claim).

    A claims value that is not a list is one block with no index.
    """
    for name, elements, data, model, index in set_blocks(given, composite):
        yield GivenBlock(name, block_path(path, elements, index), data, model, index)


def block_path(path: FieldPath | None, elements: list[str], index: int | None) -> FieldPath | None:
    """Where a block is reported: the item's ``path``, the block's path ``elements``, and a claim's ``index``."""
    extended = extend_path(path, elements)
    return extended if index is None else index_path(extended, index)


def set_blocks(
    given: WorkloadInput, composite: bool
) -> Iterator[tuple[str, list[str], Any, type[BaseModel], int | None]]:
    """``given_blocks`` before paths: each set block's name, path elements, data, model and claim index.

    For a caller that builds a block's path only when it has something to report there.
    """
    data_attr = "composite_pod_group_data" if composite else "pod_group_data"
    for name in ("policy", "constraints", "disruption_mode"):
        block = getattr(given, name)
        data = getattr(block, data_attr)
        if data is not None:
            yield name, block.path_elements, data, BLOCK_MODELS[(name, composite)], None
    claims_block = given.resource_claims
    claims = claims_block.pod_group_data
    if composite or not claims:
        return
    model = BLOCK_MODELS[("resource_claims", False)]
    if not isinstance(claims, list):
        yield "resource_claims", claims_block.path_elements, claims, model, None
        return
    for i, claim in enumerate(claims):
        yield "resource_claims", claims_block.path_elements, claim, model, i


def undecodable_input_errors(item: WorkloadItem) -> ErrorList:
    """Field errors for every building block of one item that did not decode, at its full path.

    A block given as a dict with an unknown field or a wrong type is kept
    as given (see ``types``); this reports it, in block order, claims by index.
    A tree whose blocks all decoded builds no path.
    """
    composite = item.is_composite
    if all(
        isinstance(data, model) and not (name == "resource_claims" and index is None)
        for name, _, data, model, index in set_blocks(item.input, composite)
    ):
        return ErrorList()
    errs = ErrorList()
    for block in given_blocks(item.input, item.path, composite):
        errs.extend(block.decode_errors())
    return errs


def undecodable_tree_errors(root: WorkloadItem) -> ErrorList:
    """``undecodable_input_errors`` of every item of a well-formed tree, in pre-order."""
    errs = undecodable_input_errors(root)
    for child in root.children:
        if child is not None:
            errs.extend(undecodable_tree_errors(child))
    return errs
