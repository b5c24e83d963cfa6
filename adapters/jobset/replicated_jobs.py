"""ReplicatedJobs as JobSet runs them: pod counts, startup order, the groups they join and their pods' labels.

A JobSet (and the JobSet a Kubeflow TrainingRuntime renders) is a list of
ReplicatedJobs, each ``replicas`` Jobs of ``min(parallelism, completions)``
pods, some starting only after others (``dependsOn``, ``InOrder`` startup).
This module reads them with Kubernetes' defaults, says which of them can
never share a gang, records which leaf template each one's pods go to
(``Group``, ``Layout``) and turns that into pod assignments by the labels
JobSet puts on every pod. ``adapters.jobset.levels`` plans KEP-969's
``spec.scheduling`` over them; the JobSet and Trainer adapters plan their
derived defaults with the same pieces.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from workloadbuilder import ErrorList, FieldPath, Hierarchy, WorkloadItem
from workloadbuilder.adapters._shared.reading import GROUPS_BOUND, PODS_BOUND, at, member_name, read_int
from workloadbuilder.adapters.base import PodAssignment, job_pod_count
from workloadbuilder.adapters.kit import INT32_MAX, MAX_PODS, MAX_RUNTIME_GROUPS, go_quote, read_field, type_invalid

__all__ = [
    "JOBSET_NAME_LABEL",
    "JOB_INDEX_LABEL",
    "REPLICATED_JOB_NAME_LABEL",
    "Group",
    "Layout",
    "ReplicatedJob",
    "Sequencing",
    "assignments",
    "read_replicated_jobs",
]

JOBSET_NAME_LABEL = "jobset.sigs.k8s.io/jobset-name"
REPLICATED_JOB_NAME_LABEL = "jobset.sigs.k8s.io/replicatedjob-name"
JOB_INDEX_LABEL = "jobset.sigs.k8s.io/job-index"


@dataclass(frozen=True)
class ReplicatedJob:
    """One ReplicatedJob with Kubernetes' defaults applied.

    Attributes:
        index: its position in the list.
        name: ``name``.
        path: where it sits (``spec.replicatedJobs[i]``).
        replicas: how many Jobs (default 1).
        job_pods: pods of one Job, ``min(parallelism, completions)`` (a
            TrainJob's trainer overrides it with its node count).
        depends_on: the names in ``dependsOn``.
        priority_class_name: its pods' ``priorityClassName``.
    """

    index: int
    name: str
    path: FieldPath
    replicas: int
    job_pods: int
    depends_on: tuple[str, ...] = ()
    priority_class_name: str = ""

    @property
    def pods(self) -> int:
        """Every pod of the ReplicatedJob: ``replicas`` Jobs of ``job_pods``."""
        return self.replicas * self.job_pods

    @property
    def pod_template_path(self) -> FieldPath:
        """Its Jobs' pod template, ``<path>.template.spec.template``."""
        return self.path.child("template", "spec", "template")


def read_replicated_jobs(obj: Mapping[str, Any], base: FieldPath, errors: ErrorList) -> list[ReplicatedJob]:
    """The ReplicatedJobs listed at ``base`` inside ``obj`` (a JobSet, or a runtime's JobSet template).

    Names must be unique DNS labels (they name templates and child Jobs);
    counts must be non-negative integers. Each problem is an error at its
    path, and a ReplicatedJob without a usable name is left out.
    """
    listed = at(obj, base.elements())
    if listed is None:
        return []
    if not isinstance(listed, list):
        errors.append(type_invalid(base, listed, "must be of type array"))
        return []
    found: list[ReplicatedJob] = []
    seen: set[str] = set()
    for i, raw in enumerate(listed):
        path = base.index(i)
        if not isinstance(raw, Mapping):
            errors.append(type_invalid(path, raw, "must be of type object"))
            continue
        name = member_name(raw, path, seen, errors)
        if name is None:
            continue
        found.append(_replicated_job(obj, i, name, path, errors))
    return found


def _replicated_job(obj: Mapping[str, Any], index: int, name: str, path: FieldPath, errors: ErrorList) -> ReplicatedJob:
    elements = path.elements()
    replicas = read_int(obj, (*elements, "replicas"), errors, minimum=0, maximum=MAX_RUNTIME_GROUPS, why=GROUPS_BOUND)
    counts = {
        key: read_int(obj, (*elements, "template", "spec", key), errors, minimum=0, maximum=bound, why=why)
        for key, bound, why in (("parallelism", MAX_PODS, PODS_BOUND), ("completions", INT32_MAX, ""))
    }
    read_field(obj, (*elements, "template", "spec", "template", "spec"), "object", errors)
    depends = at(obj, (*elements, "dependsOn"))
    names = tuple(
        entry["name"]
        for entry in (depends if isinstance(depends, list) else [])
        if isinstance(entry, Mapping) and isinstance(entry.get("name"), str)
    )
    priority = at(obj, (*elements, "template", "spec", "template", "spec", "priorityClassName"))
    return ReplicatedJob(
        index=index,
        name=name,
        path=path,
        replicas=1 if replicas is None else replicas,
        job_pods=job_pod_count({key: value for key, value in counts.items() if value is not None}),
        depends_on=names,
        priority_class_name=priority if isinstance(priority, str) else "",
    )


class Sequencing:
    """Which ReplicatedJobs start only after others: ``dependsOn`` (transitively) or ``InOrder`` startup.

    Jobs that start after others are Ready or Complete cannot share a gang
    with them: the gang would wait for pods that wait for the gang.
    """

    def __init__(self, rjobs: list[ReplicatedJob], in_order: bool) -> None:
        self.in_order = in_order
        self.order = {rj.name: position for position, rj in enumerate(rjobs)}
        direct = {rj.name: set(rj.depends_on) & set(self.order) for rj in rjobs}
        self.after: dict[str, set[str]] = {}
        for name, first in direct.items():
            seen: set[str] = set()
            stack = list(first)
            while stack:
                other = stack.pop()
                if other not in seen:
                    seen.add(other)
                    stack.extend(direct.get(other, ()))
            self.after[name] = seen

    @property
    def sequenced(self) -> bool:
        """Whether any ReplicatedJob waits for another (KEP-969's "sequenced startup")."""
        return self.in_order or any(self.after.values())

    def conflict(self, a: str, b: str) -> str | None:
        """Why ``a`` and ``b`` cannot share a gang, or ``None`` when they can."""
        if b in self.after.get(a, ()):
            return f"{go_quote(a)} starts only after {go_quote(b)} (dependsOn)"
        if a in self.after.get(b, ()):
            return f"{go_quote(b)} starts only after {go_quote(a)} (dependsOn)"
        if self.in_order and a != b:
            first, then = sorted((a, b), key=lambda name: self.order.get(name, 0))
            return f"{go_quote(then)} starts only after {go_quote(first)} (InOrder startup)"
        return None


@dataclass(frozen=True)
class Group:
    """One leaf template and the ReplicatedJobs whose pods its groups hold.

    Attributes:
        template: the leaf template's name.
        targets: the ReplicatedJobs it holds.
        per_job: one group per Job of its one target (instantiated
            ``replicas`` times), rather than one group for all of them.
        parent_template: the composite template it sits under, when that
            composite has one group per object (its group is the parent of every group here).
    """

    template: str
    targets: tuple[ReplicatedJob, ...]
    per_job: bool = False
    parent_template: str | None = None


@dataclass
class Layout:
    """What a level of scheduling compiles to: roots, instances, and the groups the pods go to.

    ``constrained`` lists the pod templates whose Kueue required topology
    became their group's ``schedulingConstraints`` (``common.kueue_topology``).
    """

    roots: list[WorkloadItem] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    instances: dict[str, int] = field(default_factory=dict)
    constrained: list[FieldPath] = field(default_factory=list)

    def add(self, item: WorkloadItem, group: Group, count: int) -> None:
        """Add a root leaf; ``count`` groups of it (``instances`` records a replicated or empty template)."""
        self.roots.append(item)
        self.groups.append(group)
        if group.per_job or count == 0:
            self.instances[item.name] = count


def assignments(
    groups: list[Group],
    hierarchy: Hierarchy,
    jobset_name: str,
    stamp_path: Callable[[ReplicatedJob], str],
    pod_template: Callable[[ReplicatedJob, int | None], Mapping[str, Any] | None] = lambda _rj, _job: None,
) -> list[PodAssignment]:
    """Which pods of which Job go to which PodGroup, by the labels JobSet puts on every pod.

    A shared group takes every pod of its targets (selected by ReplicatedJob
    name); a per-Job group takes one Job's pods (and its ``job-index``).
    ``stamp_path`` says where the controller writes the stamp for a
    ReplicatedJob's pods, ``pod_template`` gives their template as the
    controller renders it (``PodAssignment.pod_template``), given the Job's
    index for a per-Job group and ``None`` for a group of all its Jobs.
    """
    out: list[PodAssignment] = []
    present = {group.template_name for group in hierarchy}
    for group in groups:
        if group.template not in present:
            continue  # no pod to place: the template has no runtime group
        for rj in group.targets:
            selector = {JOBSET_NAME_LABEL: jobset_name, REPLICATED_JOB_NAME_LABEL: rj.name}
            if not group.per_job:
                if rj.pods:
                    pod_group = hierarchy.find(group.template).name
                    out.append(
                        PodAssignment(
                            pod_group, selector, rj.pods, stamp_path(rj), group.template, pod_template(rj, None)
                        )
                    )
                continue
            for job in range(rj.replicas):
                pod_group = hierarchy.find(group.template, job).name
                per_job = {**selector, JOB_INDEX_LABEL: str(job)}
                out.append(
                    PodAssignment(
                        pod_group, per_job, rj.job_pods, stamp_path(rj), group.template, pod_template(rj, job)
                    )
                )
    return out
