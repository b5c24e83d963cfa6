"""The Kubeflow Trainer adapter (``trainer.kubeflow.org/v1alpha1`` TrainJob), resolved against its runtime.

A TrainJob's pods come from its runtime (a TrainingRuntime or
ClusterTrainingRuntime, passed in ``related``): the runtime's JobSet template
lists the ReplicatedJobs, the TrainJob scales the trainer. Pod counts follow
Trainer's own plugins: the trainer node count is ``spec.trainer.numNodes``,
else the runtime's ``spec.mlPolicy.numNodes``, else 1 (``numProcPerNode`` is
processes inside a pod, never pods); MPI runs that many ``node`` pods plus
the ``launcher``, or the launcher as one of them with ``runLauncherAsNode``.

* A runtime with ``spec.scheduling`` follows Kubeflow Trainer KEP-3015
  (kubeflow/trainer PR #3219, the revision with level-1 ``resourceClaims``
  and CEL rules, 073a488e): KEP-969's three levels over the runtime's
  ReplicatedJobs, with every ``minCount`` computed.
* Without it, the derived default: initializers in one Basic group (they run
  before the trainer), the trainer's ReplicatedJobs in one gang, except one
  that starts after another (an MPI launcher that ``dependsOn`` its nodes),
  which gets a gang of its own.

The pods each group places are the runtime's pod templates with the
TrainJob's trainer laid over them as Trainer renders its JobSet
(``adapters.trainer.pods``, kubeflow/trainer 8c0f5059): ``resourcesPerNode``
merged into the trainer step's ``node`` container, ``image``, ``command``,
``args`` and ``env`` overlaid; ``numProcPerNode`` is a ``lossy`` warning.

Errors say which object to fix: the TrainJob (``spec.trainer.numNodes``,
``spec.runtimeRef``) or the runtime (its ``spec.scheduling`` and template).
docs/adapters/trainer.md has the rules and what is lossy.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from workloadbuilder import ErrorList, FieldError, FieldPath, WorkloadItem
from workloadbuilder.adapters._shared.blocks import (
    basic_config,
    fill_gang,
    gang_config,
    is_gang,
    kueue_topology,
    kueue_warnings,
    lossy,
    mapping_at,
    plan_options,
    safe_template_name,
    scheduler_warnings,
)
from workloadbuilder.adapters._shared.pod_rules import pod_template_errors
from workloadbuilder.adapters._shared.reading import PODS_BOUND, at, identity_of, read_int
from workloadbuilder.adapters._shared.strategic_merge import UnsupportedPatch, merge
from workloadbuilder.adapters._shared.strict import with_schema_errors
from workloadbuilder.adapters.base import Finding, Plan, as_dict
from workloadbuilder.adapters.jobset.levels import Dialect, plan_scheduling
from workloadbuilder.adapters.jobset.replicated_jobs import (
    Group,
    Layout,
    ReplicatedJob,
    Sequencing,
    assignments,
    read_replicated_jobs,
)
from workloadbuilder.adapters.kit import MAX_PODS, OMIT_VALUE, ErrorType, forbidden, invalid, required
from workloadbuilder.adapters.trainer.pods import ancestor_container_errors, render_pod_template, resources_target
from workloadbuilder.placement.k8s.resources import read_quantity

__all__ = ["ANCESTOR_LABEL", "DESIGN", "TrainJobAdapter", "TrainJobPlan"]

DESIGN = "Kubeflow Trainer KEP-3015 (PR #3219) revision 073a488e: spec.scheduling on the runtime"
"""The design revision this adapter follows."""

API_GROUP = "trainer.kubeflow.org"
ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"
"""The Job template label saying which step of the TrainJob a ReplicatedJob runs."""
INITIALIZER_STEPS = ("dataset-initializer", "model-initializer")

REPLICATED_JOBS = FieldPath("spec", "template", "spec", "replicatedJobs")
SCHEDULING = FieldPath("spec", "scheduling")
NUM_NODES = FieldPath("spec", "trainer", "numNodes")
POLICY_NUM_NODES = FieldPath("spec", "mlPolicy", "numNodes")
OWNED = "must not be set, it is owned by the TrainJob controller"
DERIVED_GROUP = (
    "cannot be set directly when the TrainJob's groups are planned from its runtime; "
    "the TrainJob controller manages this field"
)


@dataclass
class TrainJobPlan(Plan):
    """A TrainJob's plan: its trees' paths point into the runtime, so their errors name the runtime.

    Attributes:
        runtime_ref: ``<Kind>/<name>`` of the runtime.
    """

    runtime_ref: str = ""

    @property
    def trees_object(self) -> str:
        """The runtime: the trees' blocks come from it, so their findings name it."""
        return self.runtime_ref or self.object_ref


@dataclass(frozen=True)
class _Nodes:
    """The trainer's node count and where it came from."""

    count: int
    path: FieldPath
    on_train_job: bool


class TrainJobAdapter:
    """Plans ``trainer.kubeflow.org/v1alpha1`` TrainJobs against the runtime given in ``related``; registered on
    import.
    """

    api_version = f"{API_GROUP}/v1alpha1"
    kind = "TrainJob"

    def plan(self, obj: Mapping[str, Any] | BaseModel, related: Sequence[Mapping[str, Any]] = ()) -> Plan:
        """Plan one TrainJob.

        Args:
            obj: the TrainJob.
            related: objects it refers to; its runtime (by ``spec.runtimeRef``) must be among them.
        """
        job = as_dict(obj)
        errors, warnings = ErrorList(), ErrorList()
        ident = identity_of(job, errors, warnings)
        errors.extend(_quantity_errors(job))
        runtime = _runtime_of(job, related, errors)
        plan = TrainJobPlan(source=job, roots=[], options=plan_options(ident))
        if runtime is None:
            plan.errors = [
                Finding(ident.ref, err)
                for err in with_schema_errors(job, ErrorList([*errors, *pod_template_errors(job)]))
            ]
            return plan
        runtime_ref = f"{runtime.get('kind')}/{at(runtime, ('metadata', 'name'))}"
        runtime_errors, runtime_warnings = ErrorList(), ErrorList()
        nodes = _nodes(job, runtime, errors, runtime_errors)
        rjobs = [
            _counted(runtime, rj, nodes.count) for rj in read_replicated_jobs(runtime, REPLICATED_JOBS, runtime_errors)
        ]
        layout = _layout(runtime, ident.name, rjobs, runtime_errors, runtime_warnings)
        (errors if nodes.on_train_job else runtime_errors).extend(_empty_gang(layout, runtime, nodes))
        rendered_from, unapplied = _patched(job, runtime)
        if unapplied is not None:
            warnings.append(lossy(FieldPath("spec", "runtimePatches"), OMIT_VALUE, unapplied))
        warnings.extend(_trainer_warnings(job, runtime, rjobs))
        templates = [rj.pod_template_path for rj in rjobs]
        runtime_warnings.extend(kueue_warnings(runtime, templates, layout.constrained))
        runtime_warnings.extend(scheduler_warnings(runtime, templates))
        plan.roots, plan.instances, plan.runtime_ref = layout.roots, layout.instances, runtime_ref
        plan.uses = [runtime_ref]
        errors.extend(pod_template_errors(job))
        runtime_errors.extend(pod_template_errors(runtime, [ancestor_container_errors]))
        errors, runtime_errors = with_schema_errors(job, errors), with_schema_errors(runtime, runtime_errors)
        plan.errors = [Finding(ident.ref, e) for e in errors] + [Finding(runtime_ref, e) for e in runtime_errors]
        plan.warnings = [Finding(ident.ref, w) for w in warnings] + [Finding(runtime_ref, w) for w in runtime_warnings]
        groups = layout.groups
        trainer = mapping_at(job, FieldPath("spec", "trainer"), ErrorList()) or {}
        plan.assign_pods = lambda hierarchy: assignments(
            groups,
            hierarchy,
            ident.name,
            _rendered_pod_template,
            lambda rj, _job: render_pod_template(rendered_from, rj.path.elements(), rj.name, trainer),
        )
        return plan


def _layout(
    runtime: Mapping[str, Any], job_name: str, rjobs: list[ReplicatedJob], errors: ErrorList, warnings: ErrorList
) -> Layout:
    """KEP-3015's levels when the runtime sets ``spec.scheduling``, the derived groups otherwise."""
    order = at(runtime, (*REPLICATED_JOBS.elements()[:-1], "startupPolicy", "startupPolicyOrder"))
    sequencing = Sequencing(rjobs, in_order=order == "InOrder")
    errors.extend(_owned(runtime, rjobs))
    if at(runtime, SCHEDULING.elements()) is None:
        errors.extend(_pod_groups_set(runtime, rjobs))
        warnings.extend(_legacy_gang(runtime))
        return _derived(runtime, rjobs, sequencing)
    if at(runtime, ("spec", "podGroupPolicy")) is not None:
        errors.append(invalid(FieldPath("spec"), "object", "scheduling and podGroupPolicy are mutually exclusive"))
    dialect = Dialect(
        whole_template=safe_template_name(job_name or "trainjob", "", FieldPath("metadata", "name"), ErrorList()),
        replicated_jobs_path=REPLICATED_JOBS,
        whole_claims=True,
        computed_min_count=True,
    )
    return plan_scheduling(runtime, SCHEDULING, rjobs, sequencing, dialect, errors)


def _patched(job: Mapping[str, Any], runtime: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The runtime whose pods the TrainJob's JobSet makes: its ``spec.runtimePatches`` merged in, as Trainer does.

    Trainer v2.3.0 (``pkg/runtime/core/trainingruntime.go``,
    ``mergeRuntimePatches``) merges each patch's
    ``trainingRuntimeSpec.template.spec`` into the runtime's JobSet spec,
    in order, as a strategic merge patch (``_shared.strategic_merge``), then
    puts the ReplicatedJobs back in the runtime's order. The pods are
    rendered from the merged templates. The groups are still sized from the
    runtime as written, so the second answer is the ``lossy`` reason when
    a patch changes more than the pod templates (or holds what the port does
    not apply); ``None`` when the pods say everything the patches do.
    """
    patches = at(job, ("spec", "runtimePatches"))
    spec = at(runtime, ("spec", "template", "spec"))
    if not isinstance(patches, list) or not patches or not isinstance(spec, Mapping):
        return runtime, None
    merged: Any = spec
    try:
        for patch in patches:
            body = at(patch, ("trainingRuntimeSpec", "template", "spec")) if isinstance(patch, Mapping) else None
            if isinstance(body, Mapping):
                merged = merge(merged, body)
    except UnsupportedPatch as error:
        return runtime, f"not applied when planning ({error}): the pods and groups follow the runtime as written"
    order = {rj.get("name"): i for i, rj in enumerate(spec.get("replicatedJobs") or []) if isinstance(rj, Mapping)}
    rjobs = merged.get("replicatedJobs") if isinstance(merged, Mapping) else None
    if isinstance(rjobs, list):
        merged["replicatedJobs"] = sorted(rjobs, key=lambda rj: order.get(rj.get("name"), 0))  # Go's map gives 0
    template = dict(at(runtime, ("spec", "template")) or {})
    patched = {**runtime, "spec": {**runtime["spec"], "template": {**template, "spec": merged}}}
    if _without_pod_templates(merged) != _without_pod_templates(spec):
        reason = "applied to the pods; what they change beyond the pod templates is not: the groups are sized from"
        return patched, f"{reason} the runtime as written"
    return patched, None


def _without_pod_templates(spec: Any) -> Any:
    """A JobSet spec with each ReplicatedJob's pod template left out (what sizes the groups)."""
    if not isinstance(spec, Mapping):
        return spec
    rjobs = []
    for rj in spec.get("replicatedJobs") or []:
        job_spec = at(rj, ("template", "spec"))
        if isinstance(rj, Mapping) and isinstance(job_spec, Mapping):
            job_spec = {key: value for key, value in job_spec.items() if key != "template"}
            rj = {**rj, "template": {**rj["template"], "spec": job_spec}}
        rjobs.append(rj)
    return {**spec, "replicatedJobs": rjobs}


def _runtime_of(
    job: Mapping[str, Any], related: Sequence[Mapping[str, Any] | BaseModel], errors: ErrorList
) -> dict[str, Any] | None:
    """The runtime ``spec.runtimeRef`` names, among the related objects (a TrainingRuntime in the TrainJob's
    namespace).
    """
    name = at(job, ("spec", "runtimeRef", "name"))
    path = FieldPath("spec", "runtimeRef", "name")
    if not isinstance(name, str) or not name:
        errors.append(required(path))
        return None
    kind = at(job, ("spec", "runtimeRef", "kind")) or "ClusterTrainingRuntime"
    group = at(job, ("spec", "runtimeRef", "apiGroup")) or API_GROUP
    namespace = at(job, ("metadata", "namespace"))
    for candidate in related:
        data = as_dict(candidate)
        if (
            data.get("kind") == kind
            and str(data.get("apiVersion", "")).split("/")[0] == group
            and at(data, ("metadata", "name")) == name
            and (kind != "TrainingRuntime" or at(data, ("metadata", "namespace")) in (None, namespace))
        ):
            return data
    errors.append(
        FieldError(ErrorType.NOT_FOUND, path, name, f"no {kind} of that name was given alongside the TrainJob")
    )
    return None


def _nodes(job: Mapping[str, Any], runtime: Mapping[str, Any], errors: ErrorList, runtime_errors: ErrorList) -> _Nodes:
    """``spec.trainer.numNodes``, else the runtime's ``spec.mlPolicy.numNodes``, else 1."""
    count = read_int(job, NUM_NODES.elements(), errors, minimum=0, maximum=MAX_PODS, why=PODS_BOUND)
    if count is not None:
        return _Nodes(count, NUM_NODES, True)
    count = read_int(runtime, POLICY_NUM_NODES.elements(), runtime_errors, minimum=0, maximum=MAX_PODS, why=PODS_BOUND)
    if count is not None:
        return _Nodes(count, POLICY_NUM_NODES, False)
    return _Nodes(1, NUM_NODES, True)


def _step(runtime: Mapping[str, Any], rj: ReplicatedJob) -> str | None:
    step = at(runtime, (*rj.path.elements(), "template", "metadata", "labels", ANCESTOR_LABEL))
    return step if isinstance(step, str) else None


def _counted(runtime: Mapping[str, Any], rj: ReplicatedJob, nodes: int) -> ReplicatedJob:
    """The ReplicatedJob with the pods Trainer's plugins give it: the trainer's nodes, MPI's node and launcher."""
    mpi = at(runtime, ("spec", "mlPolicy", "mpi"))
    if isinstance(mpi, Mapping):
        if rj.name == "node":
            count = max(nodes - 1, 1) if mpi.get("runLauncherAsNode") is True else nodes
            return dataclasses.replace(rj, job_pods=count)
        return rj
    if _step(runtime, rj) == "trainer":
        return dataclasses.replace(rj, job_pods=nodes)
    return rj


def _is_trainer(runtime: Mapping[str, Any], rj: ReplicatedJob) -> bool:
    """A ReplicatedJob whose pods train: the trainer step, or MPI's node and launcher."""
    mpi = isinstance(at(runtime, ("spec", "mlPolicy", "mpi")), Mapping)
    return _step(runtime, rj) == "trainer" or (mpi and rj.name in ("node", "launcher"))


def _derived(runtime: Mapping[str, Any], rjobs: list[ReplicatedJob], sequencing: Sequencing) -> Layout:
    """Initializers in one Basic group; the trainer in one gang, split where one part starts after another."""
    layout = Layout()
    initializers = [rj for rj in rjobs if _step(runtime, rj) in INITIALIZER_STEPS]
    if initializers:
        item = WorkloadItem(name="initializer", path=initializers[0].path, default_config=basic_config())
        layout.add(item, Group(item.name, tuple(initializers)), 1)
    trainers: list[ReplicatedJob] = []
    alone: list[ReplicatedJob] = []
    for rj in rjobs:
        if rj in initializers:
            continue
        if _is_trainer(runtime, rj) and not any(sequencing.conflict(rj.name, t.name) for t in trainers):
            trainers.append(rj)
        else:
            alone.append(rj)
    if trainers:
        _gang(runtime, layout, "trainer", trainers)
    for rj in alone:
        _gang(runtime, layout, rj.name, [rj])
    return layout


def _gang(runtime: Mapping[str, Any], layout: Layout, name: str, rjobs: list[ReplicatedJob]) -> None:
    """A gang over ``rjobs``' pods; Kueue's required topology on all their pod templates is its constraint."""
    total = sum(rj.pods for rj in rjobs)
    item = WorkloadItem(
        name=name,
        path=rjobs[0].path,
        default_config=gang_config(rjobs[0].priority_class_name),
        callbacks=[fill_gang(total)],
    )
    layout.constrained.extend(kueue_topology(runtime, [rj.pod_template_path for rj in rjobs], item))
    layout.add(item, Group(name, tuple(rjobs)), 0 if total == 0 else 1)


def _empty_gang(layout: Layout, runtime: Mapping[str, Any], nodes: _Nodes) -> ErrorList:
    """``numNodes: 0`` leaves a trainer gang with no pod to wait for: a gang's count must be at least 1."""
    if nodes.count != 0:
        return ErrorList()
    for item, group in zip(layout.roots, layout.groups, strict=True):
        if any(_is_trainer(runtime, rj) and rj.job_pods == 0 for rj in group.targets) and is_gang(item):
            return ErrorList(
                [invalid(nodes.path, 0, "must be greater than or equal to 1 when the trainer is gang-scheduled")]
            )
    return ErrorList()


def _owned(runtime: Mapping[str, Any], rjobs: list[ReplicatedJob]) -> ErrorList:
    """KEP-3015's CEL rules: the TrainJob controller owns the JobSet's, the Jobs' and the pods' scheduling fields."""
    errors = ErrorList()
    spec = FieldPath("spec")
    if at(runtime, (*REPLICATED_JOBS.elements()[:-1], "scheduling")) is not None:
        errors.append(invalid(spec, "object", f"JobSet scheduling {OWNED}"))
    if any(at(runtime, (*rj.path.elements(), "template", "spec", "scheduling")) is not None for rj in rjobs):
        errors.append(invalid(spec, "object", f"Job scheduling {OWNED}"))
    if at(runtime, SCHEDULING.elements()) is not None and any(_pod_group(runtime, rj) is not None for rj in rjobs):
        errors.append(invalid(spec, "object", f"Pod schedulingGroup {OWNED}"))
    return errors


def _pod_group(runtime: Mapping[str, Any], rj: ReplicatedJob) -> Any:
    return at(runtime, (*rj.pod_template_path.elements(), "spec", "schedulingGroup"))


def _pod_groups_set(runtime: Mapping[str, Any], rjobs: list[ReplicatedJob]) -> ErrorList:
    return ErrorList(
        forbidden(rj.pod_template_path.child("spec", "schedulingGroup"), DERIVED_GROUP)
        for rj in rjobs
        if _pod_group(runtime, rj) is not None
    )


def _legacy_gang(runtime: Mapping[str, Any]) -> ErrorList:
    """The runtime's coscheduling or Volcano gang is replaced by the Workload; what it set beyond that is lost."""
    policy = mapping_at(runtime, FieldPath("spec", "podGroupPolicy"), ErrorList()) or {}
    lost = {"coscheduling": "scheduleTimeoutSeconds", "volcano": "networkTopology"}
    warnings = ErrorList()
    for source, field_name in lost.items():
        if source in policy:
            warnings.append(
                lossy(
                    FieldPath("spec", "podGroupPolicy", source),
                    OMIT_VALUE,
                    f"its one PodGroup (every pod, initializers included) is replaced by the Workload's groups; "
                    f"{field_name} has no equivalent in the Workload API",
                )
            )
    return warnings


def _trainer_warnings(job: Mapping[str, Any], runtime: Mapping[str, Any], rjobs: list[ReplicatedJob]) -> ErrorList:
    """What of ``spec.trainer`` the rendered pods lack: ``numProcPerNode``, a ``resourcesPerNode`` no container gets."""
    warnings = ErrorList()
    trainer = mapping_at(job, FieldPath("spec", "trainer"), ErrorList()) or {}
    if trainer.get("numProcPerNode") is not None:
        warnings.append(
            lossy(
                FieldPath("spec", "trainer", "numProcPerNode"),
                OMIT_VALUE,
                "not rendered: Trainer's ML plugins turn it into environment variables of the node container "
                "(PET_NPROC_PER_NODE, MPI slots); it does not change what a pod requests",
            )
        )
    if isinstance(trainer.get("resourcesPerNode"), Mapping) and not any(
        resources_target(runtime, rj.path.elements(), rj.name) and _has_node_container(runtime, rj) for rj in rjobs
    ):
        warnings.append(
            lossy(
                FieldPath("spec", "trainer", "resourcesPerNode"),
                OMIT_VALUE,
                "not applied: Trainer merges it only into the container named node of the runtime's trainer "
                "step, and only when the runtime sets spec.mlPolicy; this runtime offers no such container, so "
                "its pods request what its templates say",
            )
        )
    return warnings


def _quantity_errors(job: Mapping[str, Any]) -> ErrorList:
    """``resourcesPerNode``'s requests and limits must be quantities: the pods will ask for them."""
    errors = ErrorList()
    base = FieldPath("spec", "trainer", "resourcesPerNode")
    for key in ("requests", "limits"):
        listed = at(job, (*base.elements(), key))
        if not isinstance(listed, Mapping):
            continue  # a wrong type is the schema's error
        for resource, raw in listed.items():
            if isinstance(raw, (str, int, float)) and not isinstance(raw, bool):
                read_quantity(str(resource), raw, base.child(key).key(str(resource)), errors)
    return errors


def _has_node_container(runtime: Mapping[str, Any], rj: ReplicatedJob) -> bool:
    containers = at(runtime, (*rj.pod_template_path.elements(), "spec", "containers"))
    return isinstance(containers, list) and any(isinstance(c, Mapping) and c.get("name") == "node" for c in containers)


def _rendered_pod_template(rj: ReplicatedJob) -> str:
    """Where the TrainJob controller stamps: the pod template of the JobSet it renders from the runtime."""
    return str(FieldPath("spec", "replicatedJobs").index(rj.index).child("template", "spec", "template"))


ADAPTER = TrainJobAdapter()
"""The instance the default registry holds (``base.BUNDLED``), loaded when its kind is first read."""
