"""The Volcano Job adapter (``batch.volcano.sh/v1alpha1``): a way in to native gang scheduling for Volcano users.

A Volcano Job is a list of tasks, each ``replicas`` pods from its own
template, gang-scheduled by Volcano through one Volcano PodGroup whose
``minMember`` is the Job's ``minAvailable``. Volcano's webhook defaults a
task's ``minAvailable`` to its ``replicas`` and the Job's (when unset or
``0``) to the sum of the tasks', names a task without a name ``default<i>``
(``adapters._shared.defaults``), and refuses what its admission rules refuse
(``adapters.volcano.rules``, in Volcano's words). No upstream design maps a Volcano Job to the Workload API; this one
is ours (docs/adapters/volcano.md):

* by default, one PodGroup over every task's pods, a gang of the Job's
  ``minAvailable`` (Basic when that is ``0``: no task has pods); a task's own ``minAvailable``
  below its ``replicas`` cannot be said inside one PodGroup and is a warning;
* with CompositePodGroups, a root composite over one gang per task (its
  ``minAvailable``), the root waiting for every task with pods; a Job-level
  ``minAvailable`` other than the tasks' sum is then the warning.

``spec.priorityClassName`` becomes the groups' priority class; ``queue``,
``schedulerName: volcano``, ``networkTopology`` and task ``dependsOn`` have
no native equivalent and are warnings. Pods are assigned by Volcano's
``volcano.sh/job-name`` and ``volcano.sh/task-spec`` labels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from workloadbuilder import ErrorList, FieldPath, Hierarchy, WorkloadItem
from workloadbuilder._internal.arguments import check_type
from workloadbuilder.adapters._shared.blocks import (
    basic_config,
    fill_gang,
    gang_config,
    kueue_topology,
    kueue_warnings,
    lossy,
    plan_options,
    safe_template_name,
    scheduler_warnings,
)
from workloadbuilder.adapters._shared.defaults import defaulted
from workloadbuilder.adapters._shared.pod_rules import pod_template_errors
from workloadbuilder.adapters._shared.reading import Identity, at, identity_of, member_name, read_int
from workloadbuilder.adapters._shared.strict import with_schema_errors
from workloadbuilder.adapters.base import Finding, Plan, PodAssignment, as_dict
from workloadbuilder.adapters.kit import OMIT_VALUE, invalid, required
from workloadbuilder.adapters.volcano.pods import render_pod_template
from workloadbuilder.adapters.volcano.rules import io_errors, policy_errors

__all__ = ["DESIGN", "JOB_NAME_LABEL", "TASK_SPEC_LABEL", "VolcanoJobAdapter"]

DESIGN = "ours: one gang of spec.minAvailable (Volcano's PodGroup minMember); per-task gangs under CompositePodGroups"
"""The design this adapter follows (no upstream design maps Volcano Jobs to the Workload API)."""

JOB_NAME_LABEL = "volcano.sh/job-name"
TASK_SPEC_LABEL = "volcano.sh/task-spec"
TASKS = FieldPath("spec", "tasks")
MIN_AVAILABLE = FieldPath("spec", "minAvailable")


@dataclass(frozen=True)
class Task:
    """One task with Volcano's defaults: ``min_available`` is its ``minAvailable``, else its ``replicas``."""

    index: int
    name: str
    replicas: int
    min_available: int
    explicit_min: bool

    @property
    def path(self) -> FieldPath:
        """``spec.tasks[i]``."""
        return TASKS.index(self.index)

    @property
    def template(self) -> FieldPath:
        """``spec.tasks[i].template``: the pod template, where the controller stamps."""
        return self.path.child("template")


class VolcanoJobAdapter:
    """Plans ``batch.volcano.sh/v1alpha1`` Jobs as native Workloads; one is registered on import.

    Args:
        composite_pod_groups: whether the cluster serves CompositePodGroups
            (alpha in 1.37): one gang per task under a root composite,
            instead of one gang over every pod.
    """

    api_version = "batch.volcano.sh/v1alpha1"
    kind = "Job"

    def __init__(self, composite_pod_groups: bool = False) -> None:
        check_type("VolcanoJobAdapter", "composite_pod_groups", composite_pod_groups, bool)
        self.composite_pod_groups = composite_pod_groups

    def plan(self, obj: Mapping[str, Any] | BaseModel, related: Sequence[Mapping[str, Any]] = ()) -> Plan:
        """Plan one Volcano Job (``related`` is not read)."""
        job = as_dict(obj)
        errors, warnings = ErrorList(), ErrorList()
        ident = identity_of(job, errors, warnings)
        admitted = defaulted(job)  # what Volcano's mutating webhook makes of it: task names, minAvailable
        tasks = _read_tasks(admitted, errors)
        total = _total_replicas(admitted)
        given = at(job, MIN_AVAILABLE.elements()) is not None
        wanted = read_int(admitted, MIN_AVAILABLE.elements(), errors, minimum=0) if given else None
        if wanted is not None and wanted > total and tasks:
            detail = "job 'minAvailable' should not be greater than total replicas in tasks"
            errors.append(invalid(MIN_AVAILABLE, wanted, detail))
        errors.extend(policy_errors(admitted))
        gang = sum(task.min_available for task in tasks) if wanted is None else wanted
        priority = at(job, ("spec", "priorityClassName"))
        priority = priority if isinstance(priority, str) else ""
        if self.composite_pod_groups:
            roots, instances = self._per_task(ident, tasks, gang, wanted, priority, warnings)
            leaves = [child for root in roots for child in root.children if child is not None]
            constrained = [
                t for task, leaf in zip(tasks, leaves, strict=True) for t in kueue_topology(job, [task.template], leaf)
            ]
        else:
            roots, instances = self._one_gang(ident, tasks, gang, priority, warnings)
            constrained = kueue_topology(job, [task.template for task in tasks], roots[0]) if roots else []
        warnings.extend(_lossy_fields(job, tasks))
        templates = [task.template for task in tasks]
        warnings.extend(kueue_warnings(job, templates, constrained))
        warnings.extend(scheduler_warnings(job, templates))
        plan = Plan(
            source=job,
            roots=roots,
            options=plan_options(ident),
            instances=instances,
            errors=[
                Finding(ident.ref, err)
                for err in with_schema_errors(job, ErrorList([*errors, *pod_template_errors(job, [io_errors])]))
            ],
            warnings=[Finding(ident.ref, err) for err in warnings],
        )
        plan.assign_pods = lambda hierarchy: _assignments(job, ident, tasks, hierarchy)
        return plan

    def _one_gang(
        self, ident: Identity, tasks: list[Task], gang: int, priority: str, warnings: ErrorList
    ) -> tuple[list[WorkloadItem], dict[str, int]]:
        """Every pod in one PodGroup: a gang of ``gang`` pods (Basic when ``gang`` is 0)."""
        if not tasks:
            return [], {}
        for task in tasks:
            if task.explicit_min and task.min_available < task.replicas:
                warnings.append(
                    lossy(
                        task.path.child("minAvailable"),
                        task.min_available,
                        "one PodGroup holds every task's pods and its gang counts pods across tasks "
                        "(spec.minAvailable): a per-task minimum has no equivalent there; plan with "
                        "CompositePodGroups for one gang per task",
                    )
                )
        name = _whole_name(ident)
        default = gang_config(priority) if gang > 0 else basic_config(priority)
        item = WorkloadItem(name=name, path=MIN_AVAILABLE, default_config=default, callbacks=[fill_gang(gang)])
        total = sum(task.replicas for task in tasks)
        return [item], ({name: 0} if total == 0 else {})

    def _per_task(
        self,
        ident: Identity,
        tasks: list[Task],
        gang: int,
        wanted: int | None,
        priority: str,
        warnings: ErrorList,
    ) -> tuple[list[WorkloadItem], dict[str, int]]:
        """A root composite over one gang per task, waiting for every task that has pods."""
        if not tasks:
            return [], {}
        minima = sum(task.min_available for task in tasks)
        if wanted is not None and wanted != minima:
            warnings.append(
                lossy(
                    MIN_AVAILABLE,
                    wanted,
                    f"counts pods across tasks; each task's gang waits for its own minAvailable (together "
                    f"{minima}), and the root waits for every task: the Job-wide count is not carried",
                )
            )
        leaves: list[WorkloadItem | None] = []  # WorkloadItem.children admits None (Go's nil child)
        instances: dict[str, int] = {}
        for task in tasks:
            default = gang_config(priority) if task.min_available > 0 else basic_config(priority)
            leaves.append(
                WorkloadItem(
                    name=task.name,
                    path=task.path.child("minAvailable"),
                    default_config=default,
                    callbacks=[fill_gang(task.min_available)],
                )
            )
            if task.replicas == 0:
                instances[task.name] = 0
        running = sum(1 for task in tasks if task.replicas > 0)
        root_default = gang_config(priority) if gang > 0 and running else basic_config(priority)
        root = WorkloadItem(
            name=_whole_name(ident),
            path=TASKS,
            default_config=root_default,
            callbacks=[fill_gang(running)],
            children=leaves,
        )
        return [root], instances


def _whole_name(ident: Identity) -> str:
    """The Job-wide template's name: the Job's (shortened when not a DNS label)."""
    return safe_template_name(ident.name, "", FieldPath("metadata", "name"), ErrorList()) if ident.name else "job"


def _read_tasks(job: Mapping[str, Any], errors: ErrorList) -> list[Task]:
    """The tasks with Volcano's defaults; names are required, unique DNS labels (they name templates and pods)."""
    listed = at(job, TASKS.elements())
    if listed is None or listed == []:
        errors.append(required(TASKS, "No task specified in job spec"))
        return []
    if not isinstance(listed, list):
        return []  # the schema check reports the type
    tasks: list[Task] = []
    seen: set[str] = set()
    for i, raw in enumerate(listed):
        path = TASKS.index(i)
        if not isinstance(raw, Mapping):
            continue
        if raw.get("name") in seen:  # Volcano's message, where a generic one would say Duplicate value
            errors.append(invalid(path.child("name"), raw["name"], f"duplicated task name {raw['name']}"))
            continue
        name = member_name(raw, path, seen, errors, "every task's pods and group are named after it")
        if name is None:
            continue
        replicas = read_int(job, (*path.elements(), "replicas"), errors, minimum=0)
        replicas = 0 if replicas is None else replicas
        minimum = read_int(job, (*path.elements(), "minAvailable"), errors, minimum=0)
        if minimum is not None and minimum > replicas:
            detail = f"'minAvailable' is greater than 'replicas' in task: {name}, job: {_job_name(job)}"
            errors.append(invalid(path.child("minAvailable"), minimum, detail))
            minimum = replicas
        if not isinstance(raw.get("template"), Mapping):
            errors.append(required(path.child("template"), "the task's pods are made from it"))
        tasks.append(Task(i, name, replicas, replicas if minimum is None else minimum, minimum is not None))
    return tasks


def _total_replicas(job: Mapping[str, Any]) -> int:
    """Every task's replicas, a task refused for its name too (Volcano counts them before it checks names)."""
    listed = at(job, TASKS.elements())
    members = listed if isinstance(listed, list) else []
    counts = [task.get("replicas") for task in members if isinstance(task, Mapping)]
    return sum(count for count in counts if isinstance(count, int) and not isinstance(count, bool) and count > 0)


def _job_name(job: Mapping[str, Any]) -> str:
    name = at(job, ("metadata", "name"))
    return name if isinstance(name, str) else ""


def _lossy_fields(job: Mapping[str, Any], tasks: list[Task]) -> ErrorList:
    """What a Volcano Job says that the Workload API cannot carry."""
    warnings = ErrorList()
    queue = at(job, ("spec", "queue"))
    if queue is not None:
        warnings.append(
            lossy(
                FieldPath("spec", "queue"),
                queue,
                "Volcano's queue has no equivalent in the Workload API: quota and queueing are Kueue's "
                "(a LocalQueue and the kueue.x-k8s.io/queue-name label)",
            )
        )
    scheduler = at(job, ("spec", "schedulerName"))
    if isinstance(scheduler, str) and scheduler not in ("", "default-scheduler"):
        warnings.append(
            lossy(
                FieldPath("spec", "schedulerName"),
                scheduler,
                "the Workload and its groups are read by kube-scheduler; pods this scheduler places ignore them: "
                "remove schedulerName to schedule the pods natively",
            )
        )
    if at(job, ("spec", "networkTopology")) is not None:
        warnings.append(
            lossy(
                FieldPath("spec", "networkTopology"),
                OMIT_VALUE,
                "Volcano's HyperNode tiers have no equivalent: a Workload's topology constraint names a node label "
                "key (schedulingConstraints.topology)",
            )
        )
    for task in tasks:
        if at(job, (*task.path.elements(), "dependsOn")) is not None:
            warnings.append(
                lossy(
                    task.path.child("dependsOn"),
                    OMIT_VALUE,
                    "Volcano starts this task after the tasks it depends on; the Workload's groups do not order "
                    "tasks, and a gang over tasks started one after another waits for pods not yet created",
                )
            )
    return warnings


def _assignments(
    job: Mapping[str, Any], ident: Identity, tasks: list[Task], hierarchy: Hierarchy
) -> list[PodAssignment]:
    """Each task's pods, by Volcano's labels, to the one PodGroup or to their task's.

    Their template is the one Volcano's controller renders (``adapters.volcano.pods``).
    """
    out: list[PodAssignment] = []
    groups = {group.template_name: group for group in hierarchy.pod_groups()}
    whole = _whole_name(ident)
    for task in tasks:
        group = groups.get(task.name) or groups.get(whole)
        if group is None or task.replicas == 0:
            continue
        selector = {JOB_NAME_LABEL: ident.name, TASK_SPEC_LABEL: task.name}
        rendered = render_pod_template(job, task.index)
        out.append(
            PodAssignment(group.name, selector, task.replicas, str(task.template), group.template_name, rendered)
        )
    return out


ADAPTER = VolcanoJobAdapter()
"""The instance the default registry holds (``base.BUNDLED``), loaded when its kind is first read."""
