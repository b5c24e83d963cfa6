"""Resizing a gang: the patches that change ``minCount`` on a template and on every PodGroup made from it.

``minCount`` is the one scheduling field that may change after creation (a
Job's parallelism changes, an elastic JobSet scales). The template in the
Workload and each PodGroup already made from it hold their own copies, so a
resize touches all of them; like the Job controller, only the objects whose
value differs are patched. ``resize`` gives JSON Patches for a Workload and
its PodGroups together; ``gang_resize_patch`` gives the strategic-merge patch
for one object, as the Job controller sends it for a running gang Job.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from kubernetes.client import (
    V1alpha3CompositePodGroup,
    V1beta1PodGroup,
    V1beta1Workload,
    V1ObjectMeta,
)

from workloadbuilder._internal import kinds
from workloadbuilder._internal.decode import as_model, is_int
from workloadbuilder._internal.gofmt import go_quote
from workloadbuilder._internal.kinds import POD_GROUP_API_VERSION, WORKLOAD_API_VERSION, KubeObject
from workloadbuilder._internal.walk import walk
from workloadbuilder.errors import InvalidArgumentError, ResizeError
from workloadbuilder.podgroup import TemplateIndex
from workloadbuilder.validation.objects import read_object

__all__ = ["JSON_PATCH", "Patch", "gang_resize_patch", "resize"]

JSON_PATCH = "application/json-patch+json"


@dataclass(frozen=True)
class Patch:
    """One patch to send: which object, and an RFC 6902 JSON Patch body.

    The kubernetes client sends a list body as a JSON Patch, so
    ``patch_namespaced_pod_group(patch.name, patch.namespace, patch.body)``
    works as is.
    """

    api_version: str
    kind: str
    name: str
    namespace: str | None
    body: list[dict[str, Any]]
    patch_type: str = JSON_PATCH


def resize(
    workload: V1beta1Workload | dict[str, Any],
    pod_groups: Iterable[V1beta1PodGroup | V1alpha3CompositePodGroup | dict[str, Any]],
    template: str,
    new_min_count: int,
) -> list[Patch]:
    """The patches that set a gang template's ``minCount`` to ``new_min_count`` everywhere it lives.

    One patch for the template inside the Workload (at any depth; it first
    tests the template's name at that position, so a reordered list fails
    instead of changing another template), then one per PodGroup made from
    the template (``spec.workloadRef`` names this Workload and template, in
    the Workload's namespace), in the given order. Objects already at the new
    value get no patch, so an empty list means there is nothing to do.
    ``pod_groups`` may hold other PodGroups, and CompositePodGroups (all of
    ``Hierarchy.objects()``, say): they are skipped.

    Raises:
        ResizeError: the template is not a leaf template of the Workload, it
            is basic (it has no count), a PodGroup made from it is not a gang,
            or ``new_min_count`` is not an integer >= 1.
        AggregateError: a dict that does not decode.
    """
    workload = as_model(V1beta1Workload, workload)
    # A Workload without metadata is still resizable (it names nothing, so no PodGroup matches it).
    metadata = workload.metadata or V1ObjectMeta()
    index = TemplateIndex(workload)
    if template in index.composites and template not in index.leaves:
        raise ResizeError(
            f"cannot resize compositePodGroupTemplate {go_quote(template)}: "
            "only a PodGroup's minCount may change after creation"
        )
    leaf = index.leaf(template)
    gang = leaf.scheduling_policy.gang if leaf.scheduling_policy is not None else None
    if gang is None:
        raise ResizeError(f"cannot resize podGroupTemplate {go_quote(template)}: its scheduling policy is basic")
    if not is_int(new_min_count) or new_min_count < 1:
        raise ResizeError(
            f"cannot resize podGroupTemplate {go_quote(template)}: minCount must be >= 1, got {new_min_count!r}"
        )
    patches: list[Patch] = []
    if gang.min_count != new_min_count:
        pointer = _pointer(workload, template)
        body: list[dict[str, Any]] = [
            {"op": "test", "path": f"{pointer}/name", "value": template},
            {"op": "replace", "path": f"{pointer}/schedulingPolicy/gang/minCount", "value": new_min_count},
        ]
        patches.append(Patch(WORKLOAD_API_VERSION, "Workload", metadata.name or "", metadata.namespace, body))
    for pod_group in _made_from(metadata, pod_groups, template):
        policy = pod_group.spec.scheduling_policy
        group_meta = pod_group.metadata or V1ObjectMeta()
        if policy is None or policy.gang is None:
            raise ResizeError(
                f"PodGroup {go_quote(group_meta.name or '')} made from podGroupTemplate "
                f"{go_quote(template)} has no gang policy to resize"
            )
        if policy.gang.min_count != new_min_count:
            body = [{"op": "replace", "path": "/spec/schedulingPolicy/gang/minCount", "value": new_min_count}]
            patches.append(Patch(POD_GROUP_API_VERSION, "PodGroup", group_meta.name or "", group_meta.namespace, body))
    return patches


def _made_from(metadata: V1ObjectMeta, pod_groups: Iterable[Any], template: str) -> Iterator[V1beta1PodGroup]:
    namespace = metadata.namespace
    for given in pod_groups:
        if isinstance(given, V1alpha3CompositePodGroup) or (
            isinstance(given, dict) and given.get("kind") == "CompositePodGroup"
        ):
            continue
        pod_group = as_model(V1beta1PodGroup, given)
        ref = pod_group.spec.workload_ref if pod_group.spec is not None else None
        if ref is None or ref.workload_name != metadata.name or ref.template_name != template:
            continue
        if namespace and pod_group.metadata is not None and pod_group.metadata.namespace not in (None, namespace):
            continue
        yield pod_group


def _pointer(workload: V1beta1Workload, template: str) -> str:
    """The JSON Pointer to the first leaf template of that name (it exists: the index found it)."""
    found = next(r for r in walk(workload.spec) if not r.composite and r.node.name == template)
    return f"/spec{found.json_pointer}"


def gang_resize_patch(obj: KubeObject, new_min_count: int, template: str | None = None) -> dict[str, Any]:
    """The strategic-merge patch body that sets a gang's ``minCount`` and changes nothing else.

    For a PodGroup it is ``{"spec": {"schedulingPolicy": {"gang": {"minCount": N}}}}``.
    For a Workload it is what ``CreateTwoWayMergePatch`` gives, as the Job
    controller sends it: template lists carry no patch strategy, so the
    changed list is sent whole, with only the one ``minCount`` changed. Send
    it with ``Content-Type: application/strategic-merge-patch+json``. An
    object already at ``new_min_count`` gives ``{}``.

    Args:
        obj: a PodGroup or Workload (client model or dict).
        new_min_count: the new ``minCount``, at least 1.
        template: for a Workload, the name of the gang template to resize (at
            any depth); may be left out when the Workload has one gang template.

    Raises:
        ResizeError: ``new_min_count`` is below 1, the object (or template) is
            not a gang (basic and gang cannot flip), or the template is not
            found or not named when it must be.
        InvalidArgumentError: the object is of another kind.
    """
    if not is_int(new_min_count) or new_min_count < 1:
        raise ResizeError(f"minCount must be an integer of at least 1, not {new_min_count!r}")
    kind = kinds.kind_of(obj)
    if kind == kinds.POD_GROUP:
        data, errs = read_object(obj, kind)
        errs.raise_if_any()
        gang = ((data.get("spec") or {}).get("schedulingPolicy") or {}).get("gang")
        if gang is None:
            raise ResizeError("the PodGroup is not a gang: only a gang's minCount can change")
        return (
            {}
            if gang.get("minCount") == new_min_count
            else {"spec": {"schedulingPolicy": {"gang": {"minCount": new_min_count}}}}
        )
    if kind == kinds.WORKLOAD:
        return _workload_patch(obj, new_min_count, template)
    raise InvalidArgumentError(
        "gang_resize_patch resizes a PodGroup or a Workload's template (a client model, or a dict with its kind), "
        f"not {kind}"
    )


def _workload_patch(obj: KubeObject, new_min_count: int, template: str | None) -> dict[str, Any]:
    data, errs = read_object(obj, kinds.WORKLOAD)
    errs.raise_if_any()
    spec = copy.deepcopy(data.get("spec") or {})
    gangs = [(top, t) for top, t in _leaves(spec) if (t.get("schedulingPolicy") or {}).get("gang") is not None]
    if template is None:
        if len(gangs) != 1:
            names = " ".join(t.get("name") or "" for _, t in gangs)
            raise ResizeError(f"name the template to resize: the Workload has {len(gangs)} gang templates ({names})")
        top, target = gangs[0]
    else:
        found = [(top, t) for top, t in _leaves(spec) if t.get("name") == template]
        if not found:
            raise ResizeError(f"podGroupTemplate {go_quote(template)} not found in the Workload")
        top, target = found[0]
        if (target.get("schedulingPolicy") or {}).get("gang") is None:
            raise ResizeError(f"podGroupTemplate {go_quote(template)} is not a gang: only a gang's minCount can change")
    gang = target["schedulingPolicy"]["gang"]
    if gang.get("minCount") == new_min_count:
        return {}
    gang["minCount"] = new_min_count
    return {"spec": {top: spec[top]}}


def _leaves(spec: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every leaf template with the top-level list it sits in (the list a patch must carry).

    A ``null`` entry (which decodes, as Go's JSON reads it, to an empty
    template) names no template and is skipped; the list is still sent whole.
    """
    return [(record.lineage()[0].list_name, record.node) for record in walk(spec) if not record.composite]
