"""The whole runtime hierarchy of a Workload: every CompositePodGroup and PodGroup, linked and named.

``groups.py`` makes one runtime group from one template; this module makes all
of them for a compiled Workload and a count of instances per template, with
``parentCompositePodGroupName`` links, owner references and deterministic
names, in the order the KEP asks controllers to create them: from the roots
to the leaves. docs/runtime.md describes the lifecycle around it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kubernetes.client import (
    V1alpha3CompositePodGroup,
    V1beta1CompositePodGroupTemplate,
    V1beta1PodGroup,
    V1beta1PodGroupTemplate,
    V1beta1Workload,
    V1ObjectMeta,
    V1OwnerReference,
)

from workloadbuilder._internal.arguments import check_fields
from workloadbuilder._internal.decode import as_model, is_int
from workloadbuilder._internal.gofmt import go_quote
from workloadbuilder._internal.kinds import WORKLOAD_API_VERSION
from workloadbuilder._internal.walk import walk
from workloadbuilder.errors import BuildError
from workloadbuilder.podgroup import TemplateIndex, new_composite_pod_group, new_pod_group
from workloadbuilder.runtime.naming import runtime_group_name
from workloadbuilder.validation.formats import is_dns1123_subdomain

__all__ = ["Hierarchy", "Namer", "RuntimeGroup", "materialize"]

RuntimeObject = V1beta1PodGroup | V1alpha3CompositePodGroup
Template = V1beta1PodGroupTemplate | V1beta1CompositePodGroupTemplate

Namer = Callable[[str, str, Sequence[int]], str]
"""Names one runtime group from (workload name, template name, indices); ``runtime_group_name`` by default."""


@dataclass(frozen=True)
class RuntimeGroup:
    """One runtime group of a hierarchy, with where it came from and where it sits.

    Attributes:
        name: the group's name (``metadata.name``).
        template_name: the template it was made from.
        parent: the name of its parent CompositePodGroup, ``None`` for a root.
        indices: the instance index of each replicated template on the way
            down to this group, itself included, outermost first (a template
            is replicated when ``instances`` names it); ``()`` when none is.
        depth: 1 for a root, 2 for its children, and so on.
        object: the ``V1alpha3CompositePodGroup`` or ``V1beta1PodGroup`` to create.
    """

    name: str
    template_name: str
    parent: str | None
    indices: tuple[int, ...]
    depth: int
    object: RuntimeObject = field(repr=False, compare=False)

    @property
    def is_composite(self) -> bool:
        """Whether this is a CompositePodGroup (it groups groups) rather than a PodGroup (it groups pods)."""
        return isinstance(self.object, V1alpha3CompositePodGroup)

    def __post_init__(self) -> None:
        check_fields(self)


class Hierarchy:
    """The runtime groups of one Workload, in creation order, with lookups by name and by template.

    Iterating gives the ``RuntimeGroup``s root to leaves; ``objects()`` the
    objects to create in that order and ``deletion_order()`` the reverse.
    """

    def __init__(self, groups: Sequence[RuntimeGroup]) -> None:
        self.groups: tuple[RuntimeGroup, ...] = tuple(groups)
        self._by_name = {group.name: group for group in self.groups}
        self._by_key = {(group.template_name, group.indices): group for group in self.groups}
        self._children: dict[str | None, list[RuntimeGroup]] = {}
        for group in self.groups:
            self._children.setdefault(group.parent, []).append(group)

    def __iter__(self) -> Iterator[RuntimeGroup]:
        return iter(self.groups)

    def __len__(self) -> int:
        return len(self.groups)

    def __getitem__(self, name: str) -> RuntimeGroup:
        """The group of that name.

        Raises:
            KeyError: no group has that name.
        """
        return self._by_name[name]

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def objects(self) -> list[RuntimeObject]:
        """The objects to create, roots first: every parent comes before its children."""
        return [group.object for group in self.groups]

    def deletion_order(self) -> list[RuntimeObject]:
        """The objects leaves first, the order in which garbage collection can remove them."""
        return [group.object for group in reversed(self.groups)]

    def template_of(self, name: str) -> str:
        """The template the named group was made from."""
        return self._by_name[name].template_name

    def parent_of(self, name: str) -> str | None:
        """The named group's parent CompositePodGroup, ``None`` for a root."""
        return self._by_name[name].parent

    def children_of(self, name: str | None) -> list[RuntimeGroup]:
        """The direct children of the named CompositePodGroup in creation order; ``None`` gives the roots."""
        return list(self._children.get(name, []))

    def roots(self) -> list[RuntimeGroup]:
        """The groups without a parent."""
        return self.children_of(None)

    def pod_groups(self) -> list[RuntimeGroup]:
        """The PodGroups (the leaves, the groups pods join), in creation order."""
        return [group for group in self.groups if not group.is_composite]

    def find(self, template_name: str, *indices: int) -> RuntimeGroup:
        """The group made from ``template_name`` at these instance indices (as in ``RuntimeGroup.indices``).

        Raises:
            KeyError: no such group.
        """
        return self._by_key[(template_name, tuple(indices))]


def materialize(
    workload: V1beta1Workload | dict[str, Any],
    instances: Mapping[str, int] | None = None,
    owner: V1OwnerReference | dict[str, Any] | None = None,
    *,
    link_workload: bool = False,
    namer: Namer | None = None,
) -> Hierarchy:
    """Every CompositePodGroup and PodGroup of a Workload, linked to its parent, in creation order.

    ``instances`` says how many runtime groups each template has, **per
    instance of its parent**: ``{"replica": 3}`` on an LWS-shaped Workload
    (composite ``replica`` over leaves ``leader`` and ``worker``) gives three
    ``replica`` CompositePodGroups, each with one ``leader`` and one
    ``worker`` PodGroup; ``{"workers": 4}`` on a flat Workload gives four
    ``workers`` PodGroups (one per child Job of a JobSet, say). A template
    that ``instances`` does not name has one group per parent instance. A
    count of 0 makes no group of that template, and none below it.

    Each object is made by ``groups.new_pod_group`` /
    ``groups.new_composite_pod_group`` (so every scheduling field is copied as
    there), with ``spec.parentCompositePodGroupName`` set below the roots and
    the Workload's namespace.

    Names come from ``namer(workload name, template name, indices)``,
    ``naming.runtime_group_name`` by default. ``indices`` holds the instance
    index of every template on the way down that ``instances`` names (a
    replicated template), so a group's name does not change when a count
    does, and a Workload with no replicated template gets the Job
    controller's names (``<workload>-<template>-<hash>``).

    Order: breadth first, as the KEP asks ("from root to leaves"): all roots,
    then their children, and so on; under one parent, the leaf templates
    before the composite ones (the Workload's order), then instance by
    instance. The scheduler orders sibling groups by creation time, so this
    is also the order it tries them in.

    Args:
        workload: the compiled Workload (``Builder.build_workload``, or read
            from the API server); a dict is decoded strictly.
        instances: template name to its count per parent instance.
        owner: the controller reference every group carries, normally the
            true workload's (``controller: true``). Defaults to the Workload's
            controller owner reference, or its only owner reference.
        link_workload: also give every group a non-controller owner reference
            to the Workload, as the Job controller does for a root Job's
            PodGroup (the Workload must have a ``uid``: create it first).
        namer: replaces the naming scheme; its names must be unique DNS subdomains.

    Raises:
        BuildError: an unknown template or a bad count in ``instances``, no
            owner, a Workload without a name (or a uid with
            ``link_workload``), or a name that is invalid or used twice.
        AggregateError: a dict Workload that does not decode.
    """
    workload = as_model(V1beta1Workload, workload)
    metadata = workload.metadata or V1ObjectMeta()
    workload_name = metadata.name
    if not workload_name:
        raise BuildError("cannot materialize a Workload without a name: runtime groups refer to it by name")
    index = TemplateIndex(workload)
    counts = _counts(instances, index)
    owners = _owners(metadata, owner, link_workload)
    name_of = namer if namer is not None else runtime_group_name
    # The templates below each holder (the spec is None), leaves first, as listed.
    below: dict[int | None, list[Template]] = {}
    for record in walk(workload.spec):
        below.setdefault(id(record.parent.node) if record.parent else None, []).append(record.node)
    groups: list[RuntimeGroup] = []
    # One level at a time: (parent group, the templates below it).
    level: list[tuple[RuntimeGroup | None, list[Template]]] = [(None, below.get(None, []))]
    while level:
        next_level: list[tuple[RuntimeGroup | None, list[Template]]] = []
        for parent, templates in level:
            for template in templates:
                for group in _instances(workload, workload_name, template, parent, counts, owners, name_of):
                    groups.append(group)
                    if group.is_composite:
                        next_level.append((group, below.get(id(template), [])))
        level = next_level
    _check_names(groups)
    return Hierarchy(groups)


def _instances(
    workload: V1beta1Workload,
    workload_name: str,
    template: Template,
    parent: RuntimeGroup | None,
    counts: Mapping[str, int],
    owners: list[V1OwnerReference],
    name_of: Namer,
) -> Iterator[RuntimeGroup]:
    replicated = template.name in counts
    parent_indices = parent.indices if parent is not None else ()
    for i in range(counts.get(template.name, 1)):
        indices = (*parent_indices, i) if replicated else parent_indices
        name = name_of(workload_name, template.name, indices)
        obj: RuntimeObject
        if isinstance(template, V1beta1CompositePodGroupTemplate):
            obj = new_composite_pod_group(workload, template, name, owners)
        else:
            obj = new_pod_group(workload, template, name, owners)
        if parent is not None:
            obj.spec.parent_composite_pod_group_name = parent.name
        depth = parent.depth + 1 if parent is not None else 1
        yield RuntimeGroup(name, template.name, parent.name if parent else None, indices, depth, obj)


def _counts(instances: Mapping[str, int] | None, index: TemplateIndex) -> dict[str, int]:
    counts = dict(instances or {})
    known = [*index.leaves, *index.composites]
    for name, count in counts.items():
        if name not in index.leaves and name not in index.composites:
            raise BuildError(
                f"instances names template {go_quote(str(name))}, which the Workload does not have "
                f"(have [{' '.join(known)}])"
            )
        if not is_int(count) or count < 0:
            raise BuildError(f"instances of template {go_quote(name)} must be a count >= 0, got {count!r}")
    return counts


def _owners(
    metadata: V1ObjectMeta, owner: V1OwnerReference | dict[str, Any] | None, link_workload: bool
) -> list[V1OwnerReference]:
    if owner is None:
        owner = _workload_controller(metadata)
    owners = [as_model(V1OwnerReference, owner)]
    if link_workload:
        uid = metadata.uid
        if not uid:
            raise BuildError(
                f"cannot link runtime groups to Workload {go_quote(metadata.name or '')}: "
                "it has no uid yet (create it first)"
            )
        owners.append(
            V1OwnerReference(api_version=WORKLOAD_API_VERSION, kind="Workload", name=metadata.name or "", uid=uid)
        )
    return owners


def _workload_controller(metadata: V1ObjectMeta) -> V1OwnerReference:
    refs = metadata.owner_references or []
    controllers = [ref for ref in refs if ref.controller]
    if len(controllers) == 1:
        return controllers[0]
    if not controllers and len(refs) == 1:
        return refs[0]
    raise BuildError(
        f"runtime groups must be owned by their controller for garbage collection: pass owner, "
        f"Workload {go_quote(metadata.name or '')} has {len(refs)} owner references and "
        f"{len(controllers)} controllers"
    )


def _check_names(groups: list[RuntimeGroup]) -> None:
    """Every name a valid DNS subdomain, and no name twice (a custom namer's, or a hash collision)."""
    seen: dict[str, RuntimeGroup] = {}
    for group in groups:
        problems = is_dns1123_subdomain(group.name)
        if problems:
            raise BuildError(
                f"runtime group name {go_quote(group.name)} of template {go_quote(group.template_name)} "
                f"is not a valid DNS subdomain: {'; '.join(problems)}"
            )
        first = seen.setdefault(group.name, group)
        if first is not group:
            raise BuildError(
                f"runtime group name {go_quote(group.name)} is given to template {go_quote(first.template_name)} "
                f"{list(first.indices)} and to template {go_quote(group.template_name)} {list(group.indices)}"
            )
