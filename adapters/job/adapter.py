"""The ``batch/v1`` Job adapter: what the in-tree Job controller of Kubernetes 1.37 makes of a Job.

A Job is one leaf at ``spec.scheduling``, named ``<job>-pgt-0``, Basic by
default, with the pod template's priority class, and a gang without
``minCount`` sized ``max(1, parallelism)``. What the controller makes depends
on the Job's management mode (``management_mode``):

* **root** (no controller owner): the Workload ``<job>-<hash of uid>`` and
  its PodGroup ``<workload>-<template>-<hash>``, both owned by the Job; the
  PodGroup also has a non-controller reference to the Workload once the
  Workload exists (pass the live one in ``related``);
* **delegated** (a controller owner and the
  ``scheduling.k8s.io/group-template-name`` annotation): only the PodGroup,
  from that template of the parent's Workload (pass it in ``related``);
* **bring your own** (the pod template names a PodGroup) and **parent
  managed** (a controller owner, no annotation): nothing.

In every mode the Job API's validation of ``spec.scheduling`` applies
(``adapters.job.api``); ``plan(job, old=previous)`` adds its update rules
and ``validate_update`` runs all of them. docs/adapters/job.md has the
details and the differences from the controller.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any

from kubernetes.client import V1beta1Workload, V1ObjectMeta
from pydantic import BaseModel

from workloadbuilder import (
    BuildError,
    BuildOptions,
    ErrorList,
    FieldError,
    FieldPath,
    Hierarchy,
    RuntimeGroup,
)
from workloadbuilder.adapters._shared.blocks import kueue_topology, kueue_warnings, plan_options
from workloadbuilder.adapters._shared.pod_rules import pod_template_errors
from workloadbuilder.adapters._shared.reading import Identity, at, identity_of, workloads_in
from workloadbuilder.adapters._shared.strict import with_schema_errors
from workloadbuilder.adapters.base import Finding, Plan, PodAssignment, as_dict, job_pod_count
from workloadbuilder.adapters.job.api import (
    SCHEDULING_PATH,
    scheduling_ignored,
    scheduling_of,
    validate_job,
    validate_job_scheduling,
    workload_item_for_job,
)
from workloadbuilder.adapters.job.pods import render_pod_template
from workloadbuilder.adapters.kit import (
    ErrorType,
    TemplateIndex,
    as_model,
    forbidden,
    go_quote,
    parse_group,
    read_count,
    required,
    walk,
)
from workloadbuilder.runtime.delegation import GROUP_TEMPLATE_NAME_ANNOTATION, delegated_pod_group, delegation_of
from workloadbuilder.runtime.hierarchy import materialize
from workloadbuilder.runtime.naming import job_template_name, pod_group_name

__all__ = ["CONTROLLER_UID_LABEL", "JOB_NAME_LABEL", "JobAdapter", "JobMode", "management_mode"]

JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid"
_POD_TEMPLATE = "spec.template"
_TEMPLATE_PATH = FieldPath("spec", "template")


class JobMode(str, enum.Enum):
    """Which scheduling objects the Job controller makes for a Job (its ``getManagementMode``)."""

    ROOT = "root"
    """``manageBoth``: no controller owner; the Workload and the PodGroup."""
    DELEGATED = "delegated"
    """``managePodGroupOnly``: a controller owner and the template annotation; the PodGroup only."""
    BRING_YOUR_OWN = "bring-your-own"
    """``manageNone``: the pod template already names a PodGroup."""
    PARENT_MANAGED = "parent-managed"
    """``manageNone``: a controller owner and no template annotation; the parent makes everything."""


def management_mode(job: Mapping[str, Any]) -> JobMode:
    """The Job's management mode, decided in the controller's order.

    A pod template ``schedulingGroup`` wins; then a Job without a controller
    owner is a root (a CronJob counts as an owner, as in the 1.37 code);
    then the template annotation, checked for presence only, delegates.
    """
    if at(job, ("spec", "template", "spec", "schedulingGroup")) is not None:
        return JobMode.BRING_YOUR_OWN
    if _controller_owner(job) is None:
        return JobMode.ROOT
    if delegation_of(job) is not None:
        return JobMode.DELEGATED
    return JobMode.PARENT_MANAGED


def _controller_owner(job: Mapping[str, Any]) -> tuple[int, Mapping[str, Any]] | None:
    refs = at(job, ("metadata", "ownerReferences"))
    for i, ref in enumerate(refs if isinstance(refs, list) else []):
        if isinstance(ref, Mapping) and ref.get("controller") is True:
            return i, ref
    return None


class JobAdapter:
    """Plans ``batch/v1`` Jobs as the 1.37 Job controller handles them; registered on import."""

    api_version = "batch/v1"
    kind = "Job"

    def plan(
        self,
        obj: Mapping[str, Any] | BaseModel,
        related: Sequence[Mapping[str, Any] | BaseModel] = (),
        *,
        old: Mapping[str, Any] | BaseModel | None = None,
    ) -> Plan:
        """Plan one Job.

        Args:
            obj: the Job, a dict or a typed object.
            related: Workloads the plan may need: for a root Job its own live
                Workload (for the PodGroup's reference to it), for a
                delegated Job the parent's Workload.
            old: the stored Job, on update: the Job API's update rules join
                ``plan.errors``. For the building blocks' ratcheting use
                ``validate_update``.
        """
        job = as_dict(obj)
        previous = as_dict(old) if old is not None else None
        errors, warnings = ErrorList(), ErrorList()
        ident = identity_of(job, errors, warnings)
        template = _template_name(ident)
        item = workload_item_for_job(job, template)
        mode = management_mode(job)
        options = plan_options(ident, name=None if mode is JobMode.ROOT else "")
        plan = Plan(source=job, roots=[], options=options)
        if mode is JobMode.ROOT:
            errors.extend(validate_job(job, previous))
            plan.roots = [item]
            mapped = kueue_topology(job, [_TEMPLATE_PATH], item)
            warnings.extend(kueue_warnings(job, [_TEMPLATE_PATH], mapped))
            self._root(plan, ident, related, warnings)
        else:
            old_item = workload_item_for_job(previous, template) if previous is not None else None
            errors.extend(validate_job_scheduling(job, item, previous, old_item))
            if mode is JobMode.DELEGATED:
                self._delegated(plan, ident, related, errors, warnings)
            elif mode is JobMode.BRING_YOUR_OWN:
                self._bring_your_own(plan, ident, warnings)
            else:
                owner_index = _controller_owner(job)[0]  # type: ignore[index]
                detail = (
                    f"the Job has a controller and no {GROUP_TEMPLATE_NAME_ANNOTATION} annotation: its parent "
                    "makes the Workload and the PodGroup, the Job controller makes neither"
                )
                warnings.append(forbidden(FieldPath("metadata", "ownerReferences").index(owner_index), detail))
        errors.extend(pod_template_errors(job))
        plan.errors = [Finding(ident.ref, err) for err in with_schema_errors(job, errors)] + plan.errors
        plan.warnings = [Finding(ident.ref, err) for err in warnings] + plan.warnings
        return plan

    def validate_update(
        self,
        old: Mapping[str, Any] | BaseModel,
        new: Mapping[str, Any] | BaseModel,
        related: Sequence[Mapping[str, Any] | BaseModel] = (),
    ) -> list[Finding]:
        """Everything the Job API checks when ``old`` becomes ``new``: its update rules, then the ratcheted blocks."""
        return self.plan(new, related, old=old).validate(old=self.plan(old, related))

    def _root(
        self, plan: Plan, ident: Identity, related: Sequence[Mapping[str, Any] | BaseModel], warnings: ErrorList
    ) -> None:
        count, selector = _pod_count(plan.source), _selector(ident)
        rendered = render_pod_template(plan.source)
        plan.assign_pods = lambda hierarchy: [
            PodAssignment(group.name, selector, count, _POD_TEMPLATE, group.template_name, rendered)
            for group in hierarchy.pod_groups()
        ]
        live = _live_workload(workloads_in(related, plan.errors), plan.options.name, plan.options.namespace)
        if live is not None:
            uid = live["metadata"]["uid"]
            plan.make_groups = lambda workload: _linked_groups(workload, uid, plan.options)
        elif plan.options.name:
            plan.warnings.append(
                Finding(
                    f"Workload/{plan.options.name}",
                    required(
                        FieldPath("metadata", "uid"),
                        "the PodGroup's owner reference to the Workload needs it: create the Workload, then plan "
                        "again with it in related; until then the PodGroup is owned by the Job alone",
                    ),
                )
            )

    def _delegated(
        self,
        plan: Plan,
        ident: Identity,
        related: Sequence[Mapping[str, Any] | BaseModel],
        errors: ErrorList,
        warnings: ErrorList,
    ) -> None:
        job = plan.source
        owner_index, owner = _controller_owner(job)  # type: ignore[misc]
        if scheduling_of(job) is not None:
            warnings.append(
                forbidden(SCHEDULING_PATH, "ignored: a delegated Job's PodGroup is made from its parent's Workload")
            )
        refused = len(plan.errors)
        parent = _parent_workload(workloads_in(related, plan.errors), owner, ident.namespace)
        if parent is None and len(plan.errors) > refused:
            return  # a related Workload could not be read: its own errors say why, not a missing parent
        if parent is None:
            errors.append(
                FieldError(
                    ErrorType.NOT_FOUND,
                    FieldPath("metadata", "ownerReferences").index(owner_index),
                    f"{owner.get('kind', '')}/{owner.get('name', '')}",
                    "no Workload whose spec.controllerRef names this owner was given in related",
                )
            )
            return
        annotation = delegation_of(job).template_name  # type: ignore[union-attr]
        template = _delegated_template(parent, annotation, errors)
        if template is None or not ident.nameable:
            return
        parent_name = parent.metadata.name if parent.metadata is not None else None
        name = pod_group_name(parent_name or "", template)
        plan.make_groups = lambda _: _delegated_groups(parent, job, ident, name, template)
        count, selector = _pod_count(job), _selector(ident)
        rendered = render_pod_template(job)
        plan.assign_pods = lambda _: [PodAssignment(name, selector, count, _POD_TEMPLATE, template, rendered)]

    def _bring_your_own(self, plan: Plan, ident: Identity, warnings: ErrorList) -> None:
        path = FieldPath("spec", "template", "spec", "schedulingGroup", "podGroupName")
        chosen = at(plan.source, path.elements())
        named = isinstance(chosen, str) and bool(chosen)
        group = f"the Job's own PodGroup {go_quote(chosen)}" if named else "a PodGroup the Job brings"
        detail = f"the pods join {group}: the Job controller makes no Workload and no PodGroup for it"
        warnings.append(forbidden(path, detail))
        warnings.extend(scheduling_ignored(plan.source))
        if named:
            count, selector = _pod_count(plan.source), _selector(ident)
            plan.assign_pods = lambda _: [PodAssignment(chosen, selector, count, _POD_TEMPLATE, "")]


def _template_name(ident: Identity) -> str:
    """``<job>-pgt-0``, shortened when not a DNS label; unshortened (for validation only) when the name is invalid."""
    return job_template_name(ident.name) if ident.nameable else f"{ident.name}-pgt-0"


def _pod_count(job: Mapping[str, Any]) -> int:
    """``job_pod_count`` of the Job's valid counts (a bad one is already an error, and counts as unset)."""
    counts = {key: at(job, ("spec", key)) for key in ("parallelism", "completions")}
    valid = {key: value for key, value in counts.items() if _is_count(key, value)}
    return job_pod_count(valid)


def _is_count(key: str, value: Any) -> bool:
    return read_count({key: value}, (key,), ErrorList(), minimum=0) is not None


def _selector(ident: Identity) -> dict[str, str]:
    """The labels the Job controller puts on every pod of the Job."""
    selector = {JOB_NAME_LABEL: ident.name}
    if ident.uid:
        selector[CONTROLLER_UID_LABEL] = ident.uid
    return selector


def _live_workload(workloads: Sequence[dict[str, Any]], name: str, namespace: str) -> dict[str, Any] | None:
    """The root Job's own Workload among the related ones, once it exists (has a uid)."""
    for workload in workloads:
        metadata = workload.get("metadata") or {}
        if metadata.get("name") == name and (metadata.get("namespace") or "") == namespace and metadata.get("uid"):
            return workload
    return None


def _linked_groups(workload: V1beta1Workload | None, uid: str, options: BuildOptions) -> Hierarchy:
    """The root Job's PodGroup, owned by the Job and referring to the live Workload, as the controller makes it."""
    live = workload.model_copy(deep=True)  # type: ignore[union-attr]
    live.metadata = live.metadata or V1ObjectMeta()
    live.metadata.uid = uid
    return materialize(live, {}, owner=options.owner, link_workload=True)


def _parent_workload(
    workloads: Sequence[dict[str, Any]], owner: Mapping[str, Any], namespace: str
) -> V1beta1Workload | None:
    """The first related Workload whose ``spec.controllerRef`` is the Job's controller, as ``findParentWorkload``."""
    group = parse_group(str(owner.get("apiVersion", "")))
    for workload in workloads:
        ref = at(workload, ("spec", "controllerRef")) or {}
        same_namespace = not namespace or at(workload, ("metadata", "namespace")) in (None, namespace)
        if same_namespace and (ref.get("apiGroup") or "", ref.get("kind"), ref.get("name")) == (
            group,
            owner.get("kind"),
            owner.get("name"),
        ):
            return as_model(V1beta1Workload, workload)
    return None


def _delegated_template(parent: V1beta1Workload, annotation: str, errors: ErrorList) -> str | None:
    """The template the annotation names (the first leaf for an empty one), or ``None`` with an error."""
    index = TemplateIndex(parent)
    if not annotation and index.leaves:
        return next(iter(index.leaves))
    try:
        return index.leaf(annotation).name
    except BuildError as err:
        path = FieldPath("metadata", "annotations").key(GROUP_TEMPLATE_NAME_ANNOTATION)
        errors.append(FieldError(ErrorType.NOT_FOUND, path, annotation, str(err)))
        return None


def _delegated_groups(
    parent: V1beta1Workload, job: Mapping[str, Any], ident: Identity, name: str, template: str
) -> Hierarchy:
    pod_group = delegated_pod_group(parent, job, owner=ident.controller_ref(), name=name)
    link = pod_group.spec.parent_composite_pod_group_name
    depth = _depth(parent, template)
    return Hierarchy([RuntimeGroup(name, template, link, (), depth, pod_group)])


def _depth(workload: V1beta1Workload, template: str) -> int:
    """How deep the leaf template sits in the Workload's tree: 1 at the top level."""
    found = (r.depth for r in walk(workload.spec) if not r.composite and r.node.name == template)
    return next(found, 1)


ADAPTER = JobAdapter()
"""The instance the default registry holds (``base.BUNDLED``), loaded when its kind is first read."""
