"""Forests: several WorkloadItem roots merged into one Workload.

A Builder compiles one root. A controller with several independent groups
(one per ReplicatedJob of a JobSet, say) wants one Workload whose top level
lists one template per group; without a composite root that takes one tree
per group. ``build_forest`` validates each tree at its own paths, checks what
only the merge can break (a name used in two trees, more than eight
templates, leaf and composite roots mixed), and compiles the merged Workload.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from kubernetes.client import V1alpha3CompositePodGroup, V1beta1PodGroup, V1beta1Workload

from workloadbuilder._internal.arguments import check_fields
from workloadbuilder._internal.gofmt import go_quote
from workloadbuilder._internal.kinds import MAX_TEMPLATES
from workloadbuilder.builder import Builder, build_options
from workloadbuilder.compile import compile_workload, compile_workload_spec
from workloadbuilder.errors import BuildError
from workloadbuilder.field import ErrorList, duplicate, invalid, too_many
from workloadbuilder.types import BuildOptions, WorkloadItem
from workloadbuilder.validation.controller import validate_tree
from workloadbuilder.validation.structure import check_item, tree_error

__all__ = ["Forest", "build_forest"]

"""``WorkloadMaxPodGroupTemplates``: the most templates one list of a Workload may hold."""


@dataclass(frozen=True)
class Forest:
    """The outcome of ``build_forest``: the merged Workload, or the reasons there is none.

    Attributes:
        workload: the compiled Workload; ``None`` exactly when there are errors.
        errors: every problem, at the controller's own paths (empty on success).
        options: what the forest was built with (its ``owner`` owns the runtime groups).

    ``new_pod_group`` and ``new_composite_pod_group`` make the runtime groups
    of any template of the merged Workload by name, as ``Builder``'s do.
    """

    workload: V1beta1Workload | None
    errors: ErrorList
    options: BuildOptions | None = field(default=None, compare=False, repr=False)

    def new_pod_group(self, name: str, template_name: str) -> V1beta1PodGroup:
        """A runtime PodGroup named ``name`` from the leaf template ``template_name`` of any root, at any depth.

        Raises:
            BuildError: the forest has errors (no Workload), or no such template (the message lists them).
        """
        return self._groups().new_pod_group(name, template_name)

    def new_composite_pod_group(self, name: str, template_name: str) -> V1alpha3CompositePodGroup:
        """A runtime CompositePodGroup from the composite template ``template_name`` of any root, at any depth.

        Raises:
            BuildError: the forest has errors (no Workload), or no such template.
        """
        return self._groups().new_composite_pod_group(name, template_name)

    def _groups(self) -> Builder:
        """A builder that materializes from the merged Workload, with the forest's options."""
        if self.workload is None:
            raise BuildError(f"the forest has no Workload: {len(self.errors)} error(s), the first: {self.errors[0]}")
        return Builder.from_existing_workload(self.workload, self.options)

    def __post_init__(self) -> None:
        check_fields(self)


def build_forest(
    roots: Sequence[WorkloadItem],
    options: BuildOptions | dict[str, Any] | None = None,
    *,
    old_roots: Sequence[WorkloadItem] | None = None,
) -> Forest:
    """Validate several roots and compile them into one Workload, their templates side by side.

    Each root is validated as ``Builder.validate`` validates a tree, at its
    own paths (an update when ``old_roots`` has a root of the same name).
    Then, root by root, the checks the merge adds, reported at the root's
    (or the offending item's) path:

    * a template name already used by an earlier root: ``Duplicate``;
    * a root of the other kind than the first root (a Workload's top level
      holds either leaf or composite templates): ``Invalid``;
    * a ninth root: ``Too many``, once.

    With no error the roots compile, in order, into one Workload owned by
    ``options.owner``; the first root's position is the first template.

    Raises:
        BuildError: no root or a ``None`` root (contract violations), or a
            compilation failure (no owner, a gang without a count).
        TypeError: ``roots`` or ``old_roots`` is not a sequence of ``WorkloadItem``.
    """
    options = build_options(options)
    if not roots:
        raise BuildError("a forest needs at least one root")
    given = _item_list(roots, "roots")
    roots = [root for root in given if root is not None]
    if len(roots) < len(given):
        raise BuildError(f"forest root {given.index(None)} is missing")
    old_by_name = {old.name: old for old in _item_list(old_roots or [], "old_roots") if old is not None}
    errors = ErrorList()
    seen: set[str] = set()  # item names of the earlier roots
    for position, root in enumerate(roots):
        errors.extend(validate_tree(root, options, old_by_name.get(root.name)))
        if tree_error(root) is not None:
            continue  # already reported, and its names cannot be trusted
        errors.extend(_duplicate_names(root, seen))
        if root.is_composite != roots[0].is_composite:
            errors.append(_mixed_kinds(root, roots[0]))
        if position == MAX_TEMPLATES:
            errors.append(too_many(root.path, len(roots), MAX_TEMPLATES))
    if errors:
        return Forest(None, errors, options)
    return Forest(_compile(roots, options), errors, options)


def _item_list(items: object, what: str) -> list[WorkloadItem | None]:
    """``items`` as a list, refusing what is not a sequence of ``WorkloadItem`` (or ``None``) with a ``TypeError``.

    A single item or a string would otherwise be iterated (a pydantic model
    yields field tuples) and fail later with an ``AttributeError``.
    """
    if not isinstance(items, Sequence) or isinstance(items, str):
        raise TypeError(f"{what} must be a sequence of WorkloadItem, not {type(items).__name__}")
    for position, item in enumerate(items):
        check_item(item, f"{what}[{position}]")
    return list(items)


def _duplicate_names(root: WorkloadItem, seen: set[str]) -> ErrorList:
    errors = ErrorList()
    for item in _walk(root):
        if item.name in seen:
            errors.append(duplicate(item.path, item.name))
    seen.update(item.name for item in _walk(root))
    return errors


def _mixed_kinds(root: WorkloadItem, first: WorkloadItem) -> Any:
    kind, other = ("composite", "leaf") if root.is_composite else ("leaf", "composite")
    detail = (
        f"root is a {kind} but the first root {go_quote(first.name)} is a {other}: "
        "a Workload's top level holds either podGroupTemplates or compositePodGroupTemplates"
    )
    return invalid(root.path, root.name, detail)


def _walk(item: WorkloadItem) -> Iterator[WorkloadItem]:
    yield item
    for child in item.children:
        if child is not None:
            yield from _walk(child)


def _compile(roots: Sequence[WorkloadItem], options: BuildOptions) -> V1beta1Workload:
    workload = compile_workload(roots[0], options)
    spec = workload.spec
    for root in roots[1:]:
        extra = compile_workload_spec(root)
        if root.is_composite:
            spec.composite_pod_group_templates = [
                *(spec.composite_pod_group_templates or []),
                *(extra.composite_pod_group_templates or []),
            ]
        else:
            spec.pod_group_templates = [*(spec.pod_group_templates or []), *(extra.pod_group_templates or [])]
    return workload
