"""The JobSet adapter (``jobset.x-k8s.io/v1alpha2``): a JobSet's scheduling as WorkloadItem trees.

Which design applies depends on what the JobSet sets:

* ``spec.scheduling``: JobSet's accepted design, KEP-969 (kubernetes-sigs/jobset
  ``keps/969-WAS-integration``, PR #1253) as implemented by PR #1250
  (commit 5e28553e): level 1 (one gang over the JobSet), level 2
  (``replicatedJobs[i]`` entries, one group per entry) and level 3 (``job``,
  one group per child Job), with its validation messages at indexed paths;
* otherwise, a Job template's own ``spec.scheduling``
  (``spec.replicatedJobs[i].template.spec.scheduling``): KEP-6089's "Option A"
  (template delegation), which overrides that ReplicatedJob's per-Job leaf;
* otherwise, the structure-derived default: one gang per child Job, and with
  CompositePodGroups allowed the gang-of-gangs KAI's grouper uses, a root
  composite over one composite per ReplicatedJob (its ``replicas`` Jobs) over
  the per-Job leaves.

The JobSet controller makes every group and stamps each child Job it builds
(``PodAssignment.stamp_path`` names the Job template's pod template); the Job
templates carry ``scheduling.k8s.io/group-template-name`` (and the parent
CompositePodGroup) so each child Job says which template it instantiates.
docs/adapters/jobset.md has the rules and what is lossy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from workloadbuilder import ErrorList, FieldPath, Hierarchy, WorkloadItem
from workloadbuilder._internal.arguments import check_type
from workloadbuilder.adapters._shared.blocks import (
    BLOCKS,
    CLAIMS,
    basic_config,
    block_input,
    explicit_count,
    fill_gang,
    gang_config,
    kueue_topology,
    kueue_warnings,
    lossy,
    mapping_at,
    plan_options,
    safe_template_name,
    unknown_keys,
)
from workloadbuilder.adapters._shared.own_groups import Member, OwnGroups, bring_your_own, named_pod_group
from workloadbuilder.adapters._shared.pod_rules import pod_template_errors
from workloadbuilder.adapters._shared.reading import Identity, at, identity_of
from workloadbuilder.adapters._shared.strict import with_schema_errors
from workloadbuilder.adapters.base import Finding, Plan, as_dict
from workloadbuilder.adapters.jobset.levels import Dialect, plan_scheduling
from workloadbuilder.adapters.jobset.pods import render_job_pod_template
from workloadbuilder.adapters.jobset.replicated_jobs import (
    JOBSET_NAME_LABEL,
    REPLICATED_JOB_NAME_LABEL,
    Group,
    Layout,
    ReplicatedJob,
    Sequencing,
    assignments,
    read_replicated_jobs,
)
from workloadbuilder.adapters.kit import MAX_TEMPLATES, forbidden, go_quote, invalid, is_int, too_many
from workloadbuilder.runtime.delegation import delegate

__all__ = ["DESIGN", "EXCLUSIVE_TOPOLOGY_ANNOTATION", "JobSetAdapter"]

DESIGN = "JobSet KEP-969 (PR #1253) as implemented by PR #1250 @5e28553e; KEP-6089 Option A for Job templates"
"""The design revisions this adapter follows."""

EXCLUSIVE_TOPOLOGY_ANNOTATION = "alpha.jobset.sigs.k8s.io/exclusive-topology"
"""One child Job per topology domain, enforced by JobSet's pod affinities; the Workload API has no equivalent."""


SPEC_SCHEDULING = FieldPath("spec", "scheduling")
REPLICATED_JOBS = FieldPath("spec", "replicatedJobs")
CONFIGURED_GROUP = "cannot be set directly when spec.scheduling is configured; the JobSet controller manages this field"
TEMPLATE_WITH_SCHEDULING = (
    "must not be set when spec.scheduling is configured: the JobSet controller schedules its Jobs from spec.scheduling"
)


class JobSetAdapter:
    """Plans ``jobset.x-k8s.io/v1alpha2`` JobSets; one is registered on import.

    Args:
        composite_pod_groups: whether the cluster serves CompositePodGroups
            (alpha in 1.37, off by default): the derived default becomes the
            gang-of-gangs tree instead of independent per-Job gangs.
    """

    api_version = "jobset.x-k8s.io/v1alpha2"
    kind = "JobSet"

    def __init__(self, composite_pod_groups: bool = False) -> None:
        check_type("JobSetAdapter", "composite_pod_groups", composite_pod_groups, bool)
        self.composite_pod_groups = composite_pod_groups

    def plan(self, obj: Mapping[str, Any] | BaseModel, related: Sequence[Mapping[str, Any]] = ()) -> Plan:
        """Plan one JobSet; ``related`` holds the PodGroups its pod templates may name (bring your own).

        Without ``spec.scheduling``, a ReplicatedJob whose pod template names
        a PodGroup (``spec.schedulingGroup.podGroupName``) gets no group of
        its own: its pods join that PodGroup, checked against it when it is
        in ``related`` (``adapters._shared.own_groups``).

        Returns:
            The plan: its errors at the JobSet's own paths, warnings for
            what the Workload API cannot carry.
        """
        jobset = as_dict(obj)
        errors, warnings = ErrorList(), ErrorList()
        ident = identity_of(jobset, errors, warnings)
        rjobs = read_replicated_jobs(jobset, REPLICATED_JOBS, errors)
        order = at(jobset, ("spec", "startupPolicy", "startupPolicyOrder"))
        sequencing = Sequencing(rjobs, in_order=order == "InOrder")
        if at(jobset, SPEC_SCHEDULING.elements()) is not None:
            errors.extend(_pod_groups_set(jobset, rjobs, CONFIGURED_GROUP))
            errors.extend(_template_scheduling_set(jobset, rjobs))
            dialect = Dialect(whole_template=_whole_name(ident), replicated_jobs_path=REPLICATED_JOBS)
            layout = plan_scheduling(jobset, SPEC_SCHEDULING, rjobs, sequencing, dialect, errors)
            own = OwnGroups([], [], ErrorList(), ErrorList())
        else:
            mine = [rj for rj in rjobs if named_pod_group(jobset, rj.pod_template_path) is None]
            theirs = [rj for rj in rjobs if rj not in mine]
            warnings.extend(_template_scheduling_with_own_group(jobset, theirs))
            layout = self._derived(jobset, ident, mine, sequencing, errors)
            members = [Member(rj.pod_template_path, _selector(ident, rj), rj.pods) for rj in theirs]
            own = bring_your_own(jobset, members, ident.namespace, related, "the JobSet controller")
            errors.extend(own.errors)
            warnings.extend(own.warnings)
        warnings.extend(_exclusive_topology(jobset, rjobs))
        warnings.extend(_exclusive_priority(jobset, rjobs))
        warnings.extend(kueue_warnings(jobset, [rj.pod_template_path for rj in rjobs], layout.constrained))
        plan = Plan(
            source=jobset,
            roots=layout.roots,
            options=plan_options(ident),
            instances=layout.instances,
            errors=[
                Finding(ident.ref, err)
                for err in with_schema_errors(jobset, ErrorList([*errors, *pod_template_errors(jobset)]))
            ],
            warnings=[Finding(ident.ref, err) for err in warnings],
            uses=own.uses,
        )
        groups = layout.groups
        plan.assign_pods = lambda hierarchy: [
            *assignments(groups, hierarchy, ident.name, _stamp_path, lambda rj, job: _rendered(jobset, rj, job)),
            *own.pods,
        ]
        plan.mutate_source = lambda source, hierarchy: _annotate_templates(source, groups, hierarchy)
        return plan

    def _derived(
        self,
        jobset: Mapping[str, Any],
        ident: Identity,
        rjobs: list[ReplicatedJob],
        sequencing: Sequencing,
        errors: ErrorList,
    ) -> Layout:
        """One gang per child Job (KEP-6089 Option A blocks override it); under composites, gangs of gangs."""
        layout = Layout()
        composite = self.composite_pod_groups
        leaves = [_job_leaf(jobset, rj, composite, errors) for rj in rjobs]
        for rj, leaf in zip(rjobs, leaves, strict=True):
            layout.constrained.extend(kueue_topology(jobset, [rj.pod_template_path], leaf))
        if not composite:
            for rj, leaf in zip(rjobs, leaves, strict=True):
                layout.add(leaf, Group(leaf.name, (rj,), per_job=True), rj.replicas)
            return layout
        if len(rjobs) > MAX_TEMPLATES:
            errors.append(too_many(REPLICATED_JOBS, len(rjobs), MAX_TEMPLATES))
        children = []
        for rj, leaf in zip(rjobs, leaves, strict=True):
            children.append(
                WorkloadItem(
                    name=rj.name,
                    path=rj.path,
                    default_config=gang_config(rj.priority_class_name),
                    callbacks=[fill_gang(rj.replicas)],
                    children=[leaf],
                )
            )
            layout.groups.append(Group(leaf.name, (rj,), per_job=True, parent_template=rj.name))
            layout.instances[leaf.name] = rj.replicas
            if rj.replicas == 0:
                layout.instances[rj.name] = 0
        running = sum(1 for rj in rjobs if rj.replicas > 0)
        priorities = {rj.priority_class_name for rj in rjobs}
        priority = priorities.pop() if len(priorities) == 1 else ""
        # Jobs started one after another cannot all be waited for at once: the root only groups them.
        root_default = basic_config(priority) if sequencing.sequenced or not running else gang_config(priority)
        if rjobs:
            layout.roots.append(
                WorkloadItem(
                    name=_whole_name(ident),
                    path=REPLICATED_JOBS,
                    default_config=root_default,
                    callbacks=[fill_gang(running)],
                    children=children,
                )
            )
        return layout


def _whole_name(ident: Identity) -> str:
    """The JobSet-wide template's name: the JobSet's (shortened with a hash when it is not a DNS label).

    A missing or invalid name is already an error of the identity check.
    """
    return safe_template_name(ident.name, "", FieldPath("metadata", "name"), ErrorList()) if ident.name else "jobset"


def _job_leaf(jobset: Mapping[str, Any], rj: ReplicatedJob, composite: bool, errors: ErrorList) -> WorkloadItem:
    """The per-Job gang of one ReplicatedJob, with its Job template's ``spec.scheduling`` (Option A) as input."""
    path = rj.path.child("template", "spec", "scheduling")
    block = mapping_at(jobset, path, errors)
    if block is not None:
        errors.extend(unknown_keys(block, path, (*BLOCKS, CLAIMS)))
        count = explicit_count(block)
        if is_int(count) and count > rj.job_pods:
            errors.append(
                invalid(
                    path.child("schedulingPolicy", "gang", "minCount"),
                    count,
                    f"cannot exceed the per-Job pod count (parallelism) of replicatedJob {go_quote(rj.name)} "
                    f"({rj.job_pods})",
                )
            )
    name = safe_template_name(rj.name, "job", rj.path.child("name"), errors) if composite else rj.name
    return WorkloadItem(
        name=name,
        path=path,
        default_config=gang_config(rj.priority_class_name),
        input=block_input(block),
        callbacks=[fill_gang(rj.job_pods)],
    )


def _selector(ident: Identity, rj: ReplicatedJob) -> dict[str, str]:
    return {JOBSET_NAME_LABEL: ident.name, REPLICATED_JOB_NAME_LABEL: rj.name}


def _template_scheduling_with_own_group(jobset: Mapping[str, Any], rjobs: list[ReplicatedJob]) -> ErrorList:
    """A warning per Job template ``spec.scheduling`` beside its own PodGroup: 1.37 accepts it and ignores it."""
    warnings = ErrorList()
    detail = (
        "has no effect while spec.template.spec.schedulingGroup is set: the JobSet controller makes no Workload "
        "and no PodGroup for these pods"
    )
    for rj in rjobs:
        path = rj.path.child("template", "spec", "scheduling")
        if at(jobset, path.elements()) is not None:
            warnings.append(forbidden(path, detail))
    return warnings


def _pod_groups_set(jobset: Mapping[str, Any], rjobs: list[ReplicatedJob], detail: str) -> ErrorList:
    """A pod template that already names a PodGroup: the controller's own stamp would conflict with it."""
    errors = ErrorList()
    for rj in rjobs:
        path = rj.pod_template_path.child("spec", "schedulingGroup")
        if at(jobset, path.elements()) is not None:
            errors.append(forbidden(path, detail))
    return errors


def _template_scheduling_set(jobset: Mapping[str, Any], rjobs: list[ReplicatedJob]) -> ErrorList:
    """KEP-969: "If scheduling api is specified then there can be no scheduling api on the job api itself"."""
    errors = ErrorList()
    for rj in rjobs:
        path = rj.path.child("template", "spec", "scheduling")
        if at(jobset, path.elements()) is not None:
            errors.append(forbidden(path, TEMPLATE_WITH_SCHEDULING))
    return errors


def _exclusive_topology(jobset: Mapping[str, Any], rjobs: list[ReplicatedJob]) -> ErrorList:
    """A warning per exclusive-topology annotation: JobSet keeps enforcing it, the Workload cannot express it."""
    warnings = ErrorList()
    detail = (
        "has no equivalent in the Workload API: WAS topology co-locates a group's pods but cannot keep a domain "
        "to one Job; JobSet's own pod affinities still enforce it, the Workload does not carry it"
    )
    for metadata in [FieldPath("metadata"), *(rj.path.child("template", "metadata") for rj in rjobs)]:
        value = at(jobset, (*metadata.elements(), "annotations", EXCLUSIVE_TOPOLOGY_ANNOTATION))
        if value is not None:
            warnings.append(lossy(metadata.child("annotations").key(EXCLUSIVE_TOPOLOGY_ANNOTATION), value, detail))
    return warnings


def _rendered(jobset: Mapping[str, Any], rj: ReplicatedJob, job: int | None) -> Mapping[str, Any] | None:
    """The pods' template as the JobSet controller and its webhooks make it (``adapters.jobset.pods``)."""
    return render_job_pod_template(jobset, rj.index, job)


def _exclusive_priority(jobset: Mapping[str, Any], rjobs: list[ReplicatedJob]) -> ErrorList:
    """With exclusive placement, JobSet's anti-affinity matches the pods' resolved priority, unknown offline."""
    warnings = ErrorList()
    detail = (
        "JobSet's exclusive anti-affinity keeps out the Jobs of the same resolved priority (the "
        "jobset.sigs.k8s.io/priority label), which only the apiserver knows: the pods are planned with the "
        "class's name in its place"
    )
    for rj in rjobs:
        rendered = render_job_pod_template(jobset, rj.index, 0)
        affinity = at(rendered, ("spec", "affinity", "podAntiAffinity")) if rendered is not None else None
        if affinity is not None and rj.priority_class_name:
            path = rj.pod_template_path.child("spec", "priorityClassName")
            warnings.append(lossy(path, rj.priority_class_name, detail))
    return warnings


def _stamp_path(rj: ReplicatedJob) -> str:
    """The JobSet controller stamps each child Job built from this pod template."""
    return str(rj.pod_template_path)


def _annotate_templates(source: dict[str, Any], groups: list[Group], hierarchy: Hierarchy) -> ErrorList:
    """Give each ReplicatedJob's Job template the delegation annotations its child Jobs inherit."""
    listed = at(source, REPLICATED_JOBS.elements())
    for group in groups:
        parent = None
        if group.parent_template is not None and _has(hierarchy, group.parent_template):
            parent = hierarchy.find(group.parent_template)
        for rj in group.targets:
            template = listed[rj.index].get("template") if isinstance(listed, list) else None
            if isinstance(template, dict):
                delegate(template, group.template, parent)
    return ErrorList()


def _has(hierarchy: Hierarchy, template: str) -> bool:
    return any(group.template_name == template for group in hierarchy)


ADAPTER = JobSetAdapter()
"""The instance the default registry holds (``base.BUNDLED``), loaded when its kind is first read."""
