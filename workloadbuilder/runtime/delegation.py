"""Handing groups down: delegation annotations on child objects, pods stamped with their group, group claims.

A parent controller (JobSet, LWS, Trainer) that owns the Workload tells each
child object (a Job) which template it is an instance of, and under which
CompositePodGroup, with two annotations; the child's controller then makes
its PodGroup from the parent's Workload (``delegated_pod_group``). Pods join a
group through ``spec.schedulingGroup.podGroupName``, which is immutable, so a
controller stamps it on the pod template before any pod exists
(``stamp_pod_template``), and a pod consumes the group's resource claims only
through pod claims that match them exactly (``pod_claims_for``).
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any, TypeVar

from kubernetes.client import (
    V1beta1PodGroup,
    V1beta1PodGroupTemplate,
    V1beta1Workload,
    V1OwnerReference,
    V1PodResourceClaim,
    V1PodSchedulingGroup,
)
from pydantic import BaseModel

from workloadbuilder._internal.decode import as_model
from workloadbuilder._internal.fields_read import read_field
from workloadbuilder._internal.gofmt import go_quote
from workloadbuilder._internal.kinds import KubeObject
from workloadbuilder._internal.objpath import (
    Location,
    annotations_of,
    elements_of,
    field_path_of,
    get_in,
    json_field,
    writable_annotations,
)
from workloadbuilder.errors import BuildError
from workloadbuilder.field import ErrorList, extend_path, invalid
from workloadbuilder.podgroup import TemplateIndex, new_pod_group
from workloadbuilder.runtime.hierarchy import RuntimeGroup
from workloadbuilder.runtime.naming import pod_group_name, require_str
from workloadbuilder.validation.formats import is_dns1123_label, is_dns1123_subdomain

__all__ = [
    "GROUP_TEMPLATE_NAME_ANNOTATION",
    "PARENT_COMPOSITE_POD_GROUP_ANNOTATION",
    "PARENT_COMPOSITE_POD_GROUP_ANNOTATION_ALIASES",
    "Delegation",
    "delegate",
    "delegated_pod_group",
    "delegation_of",
    "pod_claims_for",
    "stamp_pod_template",
]

GROUP_TEMPLATE_NAME_ANNOTATION = "scheduling.k8s.io/group-template-name"
"""On a child object: the template of the parent's Workload its PodGroup is made from."""

PARENT_COMPOSITE_POD_GROUP_ANNOTATION = "scheduling.k8s.io/parent-composite-podgroup"
"""On a child object: the CompositePodGroup its PodGroup belongs under."""

PARENT_COMPOSITE_POD_GROUP_ANNOTATION_ALIASES = ("scheduling.k8s.io/parent-compositepodgroup",)
"""Other spellings of the parent link, accepted when reading (Kubernetes' own constant and LWS use the first)."""


@dataclass(frozen=True)
class Delegation:
    """What a parent controller told a child object: its template and, below the root, its parent group."""

    template_name: str
    parent: str | None = None


K = TypeVar("K", bound=KubeObject)


def delegate(child_obj: K, template_name: str, parent: str | RuntimeGroup | None = None) -> K:
    """Annotate a child object (a JobSet's Job, say) with the template and parent group it is delegated.

    Writes ``scheduling.k8s.io/group-template-name`` and, when ``parent`` is
    given, ``scheduling.k8s.io/parent-composite-podgroup``; any other parent
    link (an older spelling, or a parent from before) is removed, so the
    object carries exactly one. Works on a dict or a client model with
    ``metadata``, in place.

    Returns:
        ``child_obj``, annotated.

    Raises:
        BuildError: a template name that is not a DNS label, a parent name
            that is not a DNS subdomain, or an object without metadata.
        TypeError: a template name or parent of the wrong type.
    """
    require_str(template_name=template_name)
    if parent is not None and not isinstance(parent, (str, RuntimeGroup)):
        raise TypeError(f"parent must be a str or a RuntimeGroup, not {type(parent).__name__}")
    problems = is_dns1123_label(template_name)
    if problems:
        raise BuildError(f"cannot delegate template {go_quote(template_name)}: {'; '.join(problems)}")
    parent_name = parent.name if isinstance(parent, RuntimeGroup) else parent
    if parent_name is not None:
        problems = is_dns1123_subdomain(parent_name)
        if problems:
            raise BuildError(f"cannot delegate under parent {go_quote(parent_name)}: {'; '.join(problems)}")
    annotations = writable_annotations(child_obj)
    annotations[GROUP_TEMPLATE_NAME_ANNOTATION] = template_name
    for key in (PARENT_COMPOSITE_POD_GROUP_ANNOTATION, *PARENT_COMPOSITE_POD_GROUP_ANNOTATION_ALIASES):
        annotations.pop(key, None)
    if parent_name is not None:
        annotations[PARENT_COMPOSITE_POD_GROUP_ANNOTATION] = parent_name
    return child_obj


def delegation_of(child_obj: KubeObject) -> Delegation | None:
    """The delegation a child object carries, or ``None`` when it has no template annotation.

    The parent link is read from ``scheduling.k8s.io/parent-composite-podgroup``
    or, failing that, ``scheduling.k8s.io/parent-compositepodgroup``. An empty
    template name is kept: ``delegated_pod_group`` reads it as the Job
    controller does (the first leaf template).
    """
    annotations = annotations_of(child_obj)
    if GROUP_TEMPLATE_NAME_ANNOTATION not in annotations:
        return None
    parent = None
    for key in (PARENT_COMPOSITE_POD_GROUP_ANNOTATION, *PARENT_COMPOSITE_POD_GROUP_ANNOTATION_ALIASES):
        if annotations.get(key):
            parent = annotations[key]
            break
    return Delegation(annotations[GROUP_TEMPLATE_NAME_ANNOTATION], parent)


def delegated_pod_group(
    workload: V1beta1Workload | dict[str, Any],
    child_obj: KubeObject,
    owner: V1OwnerReference | dict[str, Any] | None = None,
    name: str | None = None,
) -> V1beta1PodGroup:
    """The PodGroup a delegated child makes for itself from its parent's Workload.

    The child side of delegation: the template named by the child's
    annotation is found at any depth of the Workload (the Job controller
    looks only at the top level), an empty name picks the first leaf
    template (top level first, as the Job controller does), and the parent
    annotation becomes ``spec.parentCompositePodGroupName``.

    Args:
        workload: the parent's Workload; a dict is decoded strictly.
        child_obj: the annotated child (dict or client model).
        owner: the PodGroup's owner; by default a controller reference to
            ``child_obj`` (which then needs ``apiVersion``, ``kind``, a name and a uid).
        name: the PodGroup's name; by default
            ``naming.pod_group_name(<child name>, <template>)``. The Job
            controller names it ``pod_group_name(<workload>, <template>)``,
            which gives every child delegated the same template (a JobSet's
            replicas) the same name; the child's name keeps them apart.

    Raises:
        BuildError: the child is not delegated, the template is not in the
            Workload, or no owner or name can be made.
    """
    workload = as_model(V1beta1Workload, workload)
    delegation = delegation_of(child_obj)
    if delegation is None:
        raise BuildError(f"the given {_kind(child_obj)} carries no {GROUP_TEMPLATE_NAME_ANNOTATION} annotation")
    index = TemplateIndex(workload)
    if delegation.template_name:
        template = index.leaf(delegation.template_name)
    elif index.leaves:
        template = next(iter(index.leaves.values()))
    else:
        name = workload.metadata.name if workload.metadata is not None else None
        raise BuildError(f"workload {go_quote(name or '')} has no PodGroupTemplates")
    ref = as_model(V1OwnerReference, owner) if owner is not None else _controller_ref(child_obj)
    group_name = name if name is not None else pod_group_name(_name_of(child_obj), template.name)
    pod_group = new_pod_group(workload, template, group_name, [ref])
    if delegation.parent:
        pod_group.spec.parent_composite_pod_group_name = delegation.parent
    return pod_group


def _controller_ref(obj: Any) -> V1OwnerReference:
    if isinstance(obj, MutableMapping):
        given = obj.get("metadata")
        metadata: Any = given if isinstance(given, MutableMapping) else {}
        parts = (obj.get("apiVersion"), obj.get("kind"), metadata.get("name"), metadata.get("uid"))
    else:
        meta = getattr(obj, "metadata", None)
        parts = (
            getattr(obj, "api_version", None),
            getattr(obj, "kind", None),
            getattr(meta, "name", None),
            getattr(meta, "uid", None),
        )
    api_version, kind, name, uid = (part if isinstance(part, str) else "" for part in parts)
    if not (api_version and kind and name and uid):
        raise BuildError(
            f"cannot make an owner reference to the given {_kind(obj)}: it needs apiVersion, kind, "
            "metadata.name and metadata.uid; pass owner instead"
        )
    return V1OwnerReference(
        api_version=api_version, kind=kind, name=name, uid=uid, controller=True, block_owner_deletion=True
    )


def _name_of(obj: Any) -> str:
    metadata = obj.get("metadata") if isinstance(obj, MutableMapping) else getattr(obj, "metadata", None)
    name = metadata.get("name") if isinstance(metadata, MutableMapping) else getattr(metadata, "name", None)
    if not name:
        raise BuildError(f"the given {_kind(obj)} has no name to derive its PodGroup's name from: pass name")
    return str(name)


def _kind(obj: Any) -> str:
    kind = obj.get("kind") if isinstance(obj, MutableMapping) else getattr(obj, "kind", None)
    return kind if isinstance(kind, str) and kind else type(obj).__name__


# Where the pod template sits in objects that are not one themselves.
_TEMPLATE_PATHS: dict[str, tuple[str, ...]] = {
    "Job": ("spec", "template"),
    "CronJob": ("spec", "jobTemplate", "spec", "template"),
    "PodTemplate": ("template",),
}
# The client models of those kinds, by class name: naming the classes themselves would import the whole pod
# spec's models with this module, for every program that never stamps a Job model.
_TEMPLATE_KINDS: dict[str, str] = {"V1Job": "Job", "V1CronJob": "CronJob", "V1PodTemplate": "PodTemplate"}


def stamp_pod_template(pod_template: KubeObject, pod_group_name: str, path: Location | None = None) -> ErrorList:
    """Make the pods of a template members of a PodGroup: set ``spec.schedulingGroup.podGroupName``.

    The field is immutable on a Pod, so a controller stamps the template its
    pods are made from. ``pod_template`` is a dict or a client model: a Pod
    or a PodTemplateSpec, or an object holding one: a Job (its
    ``spec.template``), a CronJob (``spec.jobTemplate.spec.template``), a
    PodTemplate (``template``), or any object with ``path`` saying where the
    template is, as a ``FieldPath`` or a JSONPath in JSON spelling
    (``$.spec.replicatedJobs[0].template.spec.template``). The template is
    changed in place; stamping the same name again changes nothing.

    Returns:
        No error, or one: the template already names another group (a user
        bringing their own PodGroup), ``Invalid`` at
        ``<path>.spec.schedulingGroup.podGroupName``, or its
        ``schedulingGroup`` or ``podGroupName`` has the wrong type
        (``must be of type ...``); nothing is changed then.

    Raises:
        BuildError: ``pod_group_name`` is not a DNS subdomain, ``path`` names
            nothing, or the template there has no ``spec``.
        TypeError: ``pod_group_name`` is not a ``str``.
    """
    require_str(pod_group_name=pod_group_name)
    problems = is_dns1123_subdomain(pod_group_name)
    if problems:
        raise BuildError(f"cannot stamp PodGroup name {go_quote(pod_group_name)}: {'; '.join(problems)}")
    elements = elements_of(path) if path is not None else _default_template_path(pod_template)
    template = get_in(pod_template, elements)
    spec = _spec_of(template, elements)
    field = extend_path(field_path_of(elements), ["spec", "schedulingGroup", "podGroupName"])
    if isinstance(spec, MutableMapping):
        shape = ErrorList()
        base = extend_path(field_path_of(elements), ["spec"])
        current = read_field(spec, ("schedulingGroup", "podGroupName"), "string", shape, base)
        if shape:
            return shape
    else:
        current = _current_group(spec)
    if current and current != pod_group_name:
        detail = f"already names another PodGroup; cannot make the pods members of {go_quote(pod_group_name)}"
        return ErrorList([invalid(field, current, detail)])
    if isinstance(spec, MutableMapping):
        group = spec.get("schedulingGroup")
        if isinstance(group, MutableMapping):
            group["podGroupName"] = pod_group_name
        else:
            spec["schedulingGroup"] = {"podGroupName": pod_group_name}
    elif spec.scheduling_group is not None:
        spec.scheduling_group.pod_group_name = pod_group_name
    else:
        spec.scheduling_group = V1PodSchedulingGroup(pod_group_name=pod_group_name)
    return ErrorList()


def _default_template_path(obj: Any) -> tuple[str, ...]:
    kind = obj.get("kind") if isinstance(obj, MutableMapping) else _TEMPLATE_KINDS.get(type(obj).__name__)
    return _TEMPLATE_PATHS.get(kind, ()) if isinstance(kind, str) else ()


def _spec_of(template: Any, elements: tuple[str | int, ...]) -> Any:
    if isinstance(template, MutableMapping):
        spec = template.get("spec")
        ok = isinstance(spec, MutableMapping)
    else:
        spec = getattr(template, "spec", None) if isinstance(template, BaseModel) else None
        ok = spec is not None and json_field(spec, "schedulingGroup") is not None
    if not ok:
        where = field_path_of(elements) or "the given object"
        raise BuildError(f"no pod template with a spec at {where}")
    return spec


def _current_group(spec: Any) -> str | None:
    """The group a client model's pod spec already names."""
    return spec.scheduling_group.pod_group_name if spec.scheduling_group is not None else None


def pod_claims_for(pod_group: V1beta1PodGroup | V1beta1PodGroupTemplate | dict[str, Any]) -> list[V1PodResourceClaim]:
    """The pod-level ``resourceClaims`` a member pod needs to share its PodGroup's claims.

    A pod uses a group's claim only when it declares a pod claim with the
    same name and the same reference (``resourceClaimName`` or
    ``resourceClaimTemplateName``); anything else gives the pod a claim of
    its own. Add these to the pod template's ``spec.resourceClaims`` (and
    refer to them from containers by name).

    Args:
        pod_group: a PodGroup, or the template it is made from; a dict is decoded strictly.

    Returns:
        One ``V1PodResourceClaim`` per group claim, in the group's order (empty when it has none).

    Raises:
        AggregateError: a dict that does not decode.
        TypeError: anything but a PodGroup, a PodGroupTemplate or a dict.
    """
    group: V1beta1PodGroup | V1beta1PodGroupTemplate
    if isinstance(pod_group, dict):
        if "spec" in pod_group:
            group = as_model(V1beta1PodGroup, pod_group)
        else:
            group = as_model(V1beta1PodGroupTemplate, pod_group)
    elif isinstance(pod_group, (V1beta1PodGroup, V1beta1PodGroupTemplate)):
        group = pod_group
    else:
        raise TypeError(f"pod_claims_for takes a PodGroup or a PodGroupTemplate, not {type(pod_group).__name__}")
    holder = group.spec if isinstance(group, V1beta1PodGroup) else group
    claims = (holder.resource_claims if holder is not None else None) or []
    return [
        V1PodResourceClaim(
            name=claim.name,
            resource_claim_name=claim.resource_claim_name,
            resource_claim_template_name=claim.resource_claim_template_name,
        )
        for claim in claims
    ]
