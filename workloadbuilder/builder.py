"""The Builder: validate a controller's WorkloadItem tree, compile it once, materialize runtime groups.

The facade the Go library offers controllers. Two error channels are kept
apart: ``validate`` returns field errors at the controller's own paths; build
and materialization failures raise ``BuildError`` with the Go message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pydantic
from kubernetes.client import V1alpha3CompositePodGroup, V1beta1PodGroup, V1beta1Workload, V1OwnerReference

from workloadbuilder._internal.decode import as_model
from workloadbuilder._internal.gofmt import capped
from workloadbuilder._internal.kinds import KubeObject
from workloadbuilder.compile import compile_workload
from workloadbuilder.errors import BuildError, InvalidArgumentError
from workloadbuilder.field import ErrorList, internal_error
from workloadbuilder.podgroup import TemplateIndex, new_composite_pod_group, new_pod_group
from workloadbuilder.runtime.delegation import delegated_pod_group
from workloadbuilder.types import BuildOptions, WorkloadItem
from workloadbuilder.validation.controller import validate_tree
from workloadbuilder.validation.structure import CheckedTree

__all__ = ["Builder", "build_options"]


def build_options(options: BuildOptions | Mapping[str, Any] | None) -> BuildOptions:
    """``options`` as ``BuildOptions``: the model itself, ``None`` (the defaults), or a mapping of its fields.

    Raises:
        TypeError: ``options`` is none of those.
        InvalidArgumentError: a mapping with an unknown field or a bad value, each named by its field.
    """
    if isinstance(options, BuildOptions):
        return options
    if options is None:
        return BuildOptions()
    if not isinstance(options, Mapping):
        raise TypeError(f"options must be BuildOptions or a mapping of its fields, not {type(options).__name__}")
    try:
        return BuildOptions(**options)
    except pydantic.ValidationError as problem:
        said = "; ".join(_said(error) for error in problem.errors())
        raise InvalidArgumentError(f"options: {capped(said)}") from None


def _said(error: Any) -> str:
    """One pydantic error as ``field: message`` (a message that already starts with its field is kept as it is)."""
    where = ".".join(str(part) for part in error["loc"])
    message = str(error["msg"]).removeprefix("Value error, ")
    return message if message.startswith(where + ":") else f"{where}: {message}"


class Builder:
    """Turns one WorkloadItem tree into a Workload and its runtime groups.

    Construct it once per reconcile, call ``validate`` (admission), then
    ``build_workload`` and ``new_pod_group`` / ``new_composite_pod_group`` as
    needed; the compiled Workload is cached so every group comes from one
    compilation.

    Args:
        root: the tree's root item.
        options: the Workload's identity, owner and the allow-lists; a dict is
            read as ``BuildOptions`` keyword arguments.

    Raises:
        TypeError: ``root`` is a list or tuple (several roots are ``build_forest``'s).
    """

    def __init__(self, root: WorkloadItem | None, options: BuildOptions | dict[str, Any] | None = None) -> None:
        if isinstance(root, list | tuple):
            raise TypeError(
                f"Builder takes one WorkloadItem tree, not a {type(root).__name__} of them: for several roots, "
                "use build_forest(roots, options), whose Forest makes the runtime groups by template name"
            )
        self.root = root
        self.options = build_options(options)
        # the compiled Workload, cached by the first successful build_workload
        self._workload: V1beta1Workload | None = None
        # the Workload a child controller materializes from (from_existing_workload); None for a tree builder
        self._existing: V1beta1Workload | None = None
        # the leaf and composite templates of the Workload by name, built on the first new_*_group
        self._index: TemplateIndex | None = None
        # what the last validate found of the tree when it had no error, for build_workload to reuse
        self._checked: CheckedTree | None = None

    @classmethod
    def from_existing_workload(
        cls, workload: V1beta1Workload | dict[str, Any], options: BuildOptions | dict[str, Any] | None = None
    ) -> Builder:
        """A Builder that materializes from a Workload it did not compile.

        For a child controller whose parent (or a person) authored and
        persisted the Workload: ``validate`` and ``build_workload`` are refused,
        ``new_pod_group`` and ``new_composite_pod_group`` use ``options.owner``.

        Raises:
            AggregateError: a dict Workload that does not decode, with each
                problem at its path inside the Workload.
        """
        builder = cls(None, options)
        builder._existing = as_model(V1beta1Workload, workload)
        return builder

    def validate(self, old_root: WorkloadItem | None = None) -> ErrorList:
        """Check the tree: input decoding, the building blocks' rules, the allow-lists and cross-field rules.

        Args:
            old_root: the previously persisted tree on an update; ``None`` for a create.

        Returns:
            Every problem, at the controller's own field paths, in depth-first
            pre-order of the tree (empty when the tree is valid).

        A tree found valid is handed to ``build_workload`` on this builder,
        which then does not check its structure and decoding again (it still
        resolves every item, callbacks included, as Go's does): change the
        tree's shape after ``validate`` and it takes a new ``Builder``, one per
        reconcile.
        """
        if self._existing is not None:
            return ErrorList([internal_error(None, "cannot validate a builder constructed from an existing workload")])
        errors = validate_tree(self.root, self.options, old_root)
        self._checked = CheckedTree(self.root) if not errors and self.root is not None else None
        return errors

    def build_workload(self) -> V1beta1Workload:
        """Compile the tree into a Workload, once: later calls return the same object.

        Raises:
            BuildError: on an existing-workload builder, a malformed tree, a
                gang without a count, or a missing or unparsable owner. A failed
                build caches nothing.
        """
        if self._existing is not None:
            raise BuildError(
                "BuildWorkload is not available on a Builder created from an existing Workload: "
                "it materializes from the supplied Workload"
            )
        if self._workload is None:
            self._workload = compile_workload(self.root, self.options, self._checked)
        return self._workload

    def new_pod_group(self, name: str, template_name: str) -> V1beta1PodGroup:
        """A runtime PodGroup named ``name`` from the leaf template ``template_name``, at any depth.

        Raises:
            BuildError: no Workload yet, or no such template (the message lists the available ones).
        """
        index = self._template_index()
        return new_pod_group(index.workload, index.leaf(template_name), name, self._owners())

    def new_composite_pod_group(self, name: str, template_name: str) -> V1alpha3CompositePodGroup:
        """A runtime CompositePodGroup from the composite template ``template_name``, at any depth.

        ``spec.parentCompositePodGroupName`` and the children are the caller's to set.

        Raises:
            BuildError: no Workload yet, or no such template.
        """
        index = self._template_index()
        return new_composite_pod_group(index.workload, index.composite(template_name), name, self._owners())

    def new_delegated_pod_group(self, child_obj: KubeObject, name: str | None = None) -> V1beta1PodGroup:
        """The PodGroup of a delegated child (a JobSet's Job, say), from the template its annotations name.

        The child side of delegation, usually on a builder from
        ``from_existing_workload`` (the parent's Workload): see
        ``delegation.delegated_pod_group``. The owner is ``options.owner``,
        or a controller reference to ``child_obj`` when there is none.

        Raises:
            BuildError: no Workload yet, the child is not delegated, or its template is not in the Workload.
        """
        index = self._template_index()
        return delegated_pod_group(index.workload, child_obj, self.options.owner, name)

    def _template_index(self) -> TemplateIndex:
        workload = self._existing if self._existing is not None else self._workload
        if workload is None:
            raise BuildError("no Workload available: call BuildWorkload or use NewBuilderFromExistingWorkload first")
        if self._index is None or self._index.workload is not workload:
            self._index = TemplateIndex(workload)
        return self._index

    def _owners(self) -> list[V1OwnerReference]:
        return [self.options.owner] if self.options.owner is not None else []
