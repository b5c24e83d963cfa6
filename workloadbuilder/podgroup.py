"""Runtime groups from templates: one PodGroup or CompositePodGroup from one template of a Workload.

The compiled Workload only holds templates; the scheduler acts on runtime
groups. Each runtime group is a deep copy of its template's scheduling fields
plus a ``workloadRef`` back to the template, so a caller may change the group
without touching the (cached) Workload.
"""

from __future__ import annotations

from typing import Any

from kubernetes.client import (
    V1alpha3CompositePodGroup,
    V1beta1CompositePodGroupTemplate,
    V1beta1PodGroup,
    V1beta1PodGroupTemplate,
    V1beta1Workload,
    V1OwnerReference,
)
from pydantic import BaseModel

from workloadbuilder._internal.gofmt import go_quote
from workloadbuilder._internal.kinds import COMPOSITE_POD_GROUP_API_VERSION, POD_GROUP_API_VERSION
from workloadbuilder._internal.walk import walk
from workloadbuilder.errors import BuildError

__all__ = [
    "TemplateIndex",
    "new_composite_pod_group",
    "new_pod_group",
]


def new_pod_group(
    workload: V1beta1Workload, template: V1beta1PodGroupTemplate, name: str, owners: list[V1OwnerReference]
) -> V1beta1PodGroup:
    """A PodGroup made from ``template`` of ``workload``, in the Workload's namespace.

    Every scheduling field of the template is copied, ``priority`` and
    ``preemptionPolicy`` included (upstream drops ``preemptionPolicy``; see
    docs/differences.md).
    """
    spec = _without_empty(template.model_dump(by_alias=True, exclude_none=True, exclude={"name"}))
    spec["workloadRef"] = {"workloadName": _workload_name(workload), "templateName": template.name}
    return V1beta1PodGroup.model_validate(
        {
            "apiVersion": POD_GROUP_API_VERSION,
            "kind": "PodGroup",
            "metadata": _metadata(workload, name, owners),
            "spec": spec,
        }
    )


def new_composite_pod_group(
    workload: V1beta1Workload, template: V1beta1CompositePodGroupTemplate, name: str, owners: list[V1OwnerReference]
) -> V1alpha3CompositePodGroup:
    """A CompositePodGroup (v1alpha3) made from ``template``; the parent link is left to the caller.

    The child templates are not copied: children are separate runtime groups.
    """
    spec = _without_empty(
        template.model_dump(
            by_alias=True, exclude_none=True, exclude={"name", "pod_group_templates", "composite_pod_group_templates"}
        )
    )
    spec["workloadRef"] = {"workloadName": _workload_name(workload), "templateName": template.name}
    return V1alpha3CompositePodGroup.model_validate(
        {
            "apiVersion": COMPOSITE_POD_GROUP_API_VERSION,
            "kind": "CompositePodGroup",
            "metadata": _metadata(workload, name, owners),
            "spec": spec,
        }
    )


def _without_empty(spec: dict[str, Any]) -> dict[str, Any]:
    """The copied template fields without the empty ones Go leaves out of a runtime group.

    Go copies ``resourceClaims`` only when there are some, and ``omitempty``
    drops an empty ``priorityClassName`` and an empty ``topology`` list (the
    ``schedulingConstraints`` around it stays, as ``{}``).
    """
    if spec.get("resourceClaims") == []:
        del spec["resourceClaims"]
    if spec.get("priorityClassName") == "":
        del spec["priorityClassName"]
    constraints = spec.get("schedulingConstraints")
    if isinstance(constraints, dict) and constraints.get("topology") == []:
        del constraints["topology"]
    return spec


def _workload_name(workload: V1beta1Workload) -> str:
    return workload.metadata.name if workload.metadata is not None and workload.metadata.name else ""


def _metadata(workload: V1beta1Workload, name: str, owners: list[V1OwnerReference]) -> dict[str, Any]:
    """Name, the Workload's namespace and the owners; empty values are left out, as Go's omitempty does."""
    metadata: dict[str, Any] = {}
    if name:
        metadata["name"] = name
    namespace = workload.metadata.namespace if workload.metadata is not None else None
    if namespace:
        metadata["namespace"] = namespace
    if owners:
        metadata["ownerReferences"] = [owner.model_dump(by_alias=True, exclude_none=True) for owner in owners]
    return metadata


def _gather(holder: BaseModel, leaves: list[Any], nested: list[Any], composites: list[Any]) -> None:
    """The templates under a client model ``holder`` in ``walk``'s order: pre-order, its leaves before its composites.

    Leaves go to ``leaves`` and the leaves of the composites below to
    ``nested``; ``None`` entries name no template, as in ``walk``.
    """
    for list_name, is_composite in (("pod_group_templates", False), ("composite_pod_group_templates", True)):
        entries = getattr(holder, list_name, None)
        if not entries or not isinstance(entries, list | tuple):
            continue
        for entry in entries:
            if entry is None:
                continue
            if not is_composite:
                leaves.append(entry)
            elif isinstance(entry, BaseModel):
                composites.append(entry)
                _gather(entry, nested, nested, composites)
            else:  # a composite that is not a client model: the general walk reads it
                composites.append(entry)
                for record in walk(entry):
                    (composites if record.composite else nested).append(record.node)


class TemplateIndex:
    """Every template of a Workload by name, built once and reused for each lookup.

    As in Go, a name held by several templates finds the last of them.
    Composite templates are searched in pre-order. Leaf templates are
    searched at the top level first, as Go does, then (beyond Go, see
    docs/differences.md) inside the composite templates, in pre-order. The
    ``(have [...])`` list of a failed lookup is the one Go builds: every
    composite template, or every top-level leaf template, repeats included
    (a nested leaf is found but not listed, as Go never sees it).
    """

    def __init__(self, workload: V1beta1Workload) -> None:
        self.workload = workload
        top_level: list[V1beta1PodGroupTemplate] = []
        nested: list[V1beta1PodGroupTemplate] = []
        composites: list[V1beta1CompositePodGroupTemplate] = []
        if isinstance(workload.spec, BaseModel):
            _gather(workload.spec, top_level, nested, composites)
        else:  # a spec that is not a client model: the general walk reads it
            for record in walk(workload.spec):
                if record.composite:
                    composites.append(record.node)
                else:
                    (nested if record.parent is not None else top_level).append(record.node)
        self._leaf_names = [t.name for t in top_level]
        self._composite_names = [t.name for t in composites]
        self.leaves: dict[str, V1beta1PodGroupTemplate] = {t.name: t for t in top_level}
        """The leaf template each name finds, top-level names first."""
        for name, template in {t.name: t for t in nested}.items():
            self.leaves.setdefault(name, template)
        self.composites: dict[str, V1beta1CompositePodGroupTemplate] = {t.name: t for t in composites}
        """The composite template each name finds."""

    def leaf(self, template_name: str) -> V1beta1PodGroupTemplate:
        """The leaf template of that name.

        Raises:
            BuildError: with the Go library's message listing the available names.
        """
        template = self.leaves.get(template_name)
        if template is None:
            raise BuildError(
                f"podGroupTemplate {go_quote(template_name)} not found in workload "
                f"{go_quote(_workload_name(self.workload))} (have [{' '.join(self._leaf_names)}])"
            )
        return template

    def composite(self, template_name: str) -> V1beta1CompositePodGroupTemplate:
        """The composite template of that name, at any depth.

        Raises:
            BuildError: with the Go library's message listing the available names.
        """
        template = self.composites.get(template_name)
        if template is None:
            raise BuildError(
                f"compositePodGroupTemplate {go_quote(template_name)} not found in workload "
                f"{go_quote(_workload_name(self.workload))} (have [{' '.join(self._composite_names)}])"
            )
        return template
