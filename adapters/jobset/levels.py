"""KEP-969's ``spec.scheduling`` over ReplicatedJobs: JobSet's design, which Kubeflow Trainer's KEP-3015 mirrors.

Three levels, each a different grouping of the same pods:

* level 1, ``spec.scheduling.{schedulingPolicy,...}``: one PodGroup over
  every pod, or one per ReplicatedJob when startup is sequenced (a gang over
  Jobs created one after another could never fill);
* level 2, ``spec.scheduling.replicatedJobs[i]``: one PodGroup per entry,
  shared by its ``targetReplicatedJobs``;
* level 3, ``spec.scheduling.replicatedJobs[i].job``: one PodGroup per Job
  of the entry's one target.

Where upstream compiles one template per Job index (and so hits the
Workload's eight-template cap at nine replicas), level 3 here is one
template per ReplicatedJob instantiated ``replicas`` times. The messages and
their paths are PR #1250's (kubernetes-sigs/jobset, 5e28553e), with list
indexes where it writes names; ``Dialect`` holds what KEP-3015 changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from workloadbuilder import ErrorList, FieldPath, WorkloadInput, WorkloadItem
from workloadbuilder.adapters._shared.blocks import (
    BLOCKS,
    CLAIMS,
    block_input,
    explicit_count,
    fill_gang,
    gang_config,
    go_strings,
    is_gang,
    mapping_at,
    safe_template_name,
    unknown_keys,
    without_count,
)
from workloadbuilder.adapters.jobset.replicated_jobs import Group, Layout, ReplicatedJob, Sequencing
from workloadbuilder.adapters.kit import duplicate, forbidden, go_quote, invalid, is_int, required, type_invalid
from workloadbuilder.resolve import resolve_config

__all__ = ["Dialect", "plan_scheduling"]

MIXED_LEVELS = (
    "cannot set schedulingPolicy, schedulingConstraints, or disruptionMode together with replicatedJobs; "
    "use exactly one of the top-level scheduling API or the per-ReplicatedJob (replicatedJobs) scheduling API"
)
UNCOVERED = (
    "must be targeted by a replicatedJobs entry when spec.scheduling does not set a top-level schedulingPolicy, "
    "schedulingConstraints, or disruptionMode"
)
JOB_WITH_LEAF_FIELDS = (
    "cannot be set together with schedulingPolicy, schedulingConstraints, disruptionMode, or resourceClaims on the "
    "same replicatedJobs entry; job replaces the single shared PodGroup those fields configure with one PodGroup "
    "per Job"
)
SEQUENCED_MIN_COUNT = (
    "cannot be set when DependsOn or InOrder StartupPolicy is used; use per-ReplicatedJob gang policies instead"
)
COMPUTED_MIN_COUNT = "gang.minCount is computed from numNodes and must not be set"


@dataclass(frozen=True)
class Dialect:
    """What differs between JobSet's ``spec.scheduling`` (KEP-969) and a TrainingRuntime's (KEP-3015).

    Attributes:
        whole_template: the level-1 template's name (the JobSet's, the TrainJob's).
        whole_claims: whether level 1 may hold ``resourceClaims`` (KEP-3015 only).
        computed_min_count: whether every ``gang.minCount`` is computed and an
            explicit one refused (KEP-3015), rather than bounded by the pods
            it represents (KEP-969).
        replicated_jobs_path: where the ReplicatedJobs are listed, for errors.
    """

    whole_template: str
    replicated_jobs_path: FieldPath
    whole_claims: bool = False
    computed_min_count: bool = False


def plan_scheduling(
    obj: Mapping[str, Any],
    path: FieldPath,
    rjobs: list[ReplicatedJob],
    sequencing: Sequencing,
    dialect: Dialect,
    errors: ErrorList,
) -> Layout:
    """The layout ``spec.scheduling`` at ``path`` asks for; its problems are appended to ``errors``.

    Level 1 and level 2 are mutually exclusive (KEP-969 alpha, KEP-3015
    without ``TrainJobCompositePodGroup``); with only level 2, every
    ReplicatedJob must be targeted.
    """
    scheduling = mapping_at(obj, path, errors)
    if scheduling is None:
        return Layout()
    top = (*BLOCKS, CLAIMS) if dialect.whole_claims else BLOCKS
    errors.extend(unknown_keys(scheduling, path, (*top, "replicatedJobs")))
    if not rjobs:
        errors.append(
            invalid(
                dialect.replicated_jobs_path,
                [],
                "must contain at least one replicatedJob when scheduling is configured",
            )
        )
        return Layout()
    entries = scheduling.get("replicatedJobs")
    if entries is not None and not isinstance(entries, list):
        errors.append(type_invalid(path.child("replicatedJobs"), entries, "must be of type array"))
        return Layout()
    if entries and any(scheduling.get(key) is not None for key in top):
        errors.append(forbidden(path, MIXED_LEVELS))
        return Layout()
    if entries:
        return _PerEntry(path, rjobs, sequencing, dialect, errors).plan(entries)
    block = {key: scheduling.get(key) for key in top}
    return _whole(block, path, rjobs, sequencing, dialect, errors)


def _prepared(block: Mapping[str, Any] | None, dialect: Dialect) -> dict[str, Any]:
    """The block as the builder should read it: ``minCount: 0`` means "computed", a refused count is left out."""
    return without_count(block, lambda count: dialect.computed_min_count or count == 0)


def _check_count(
    block: Mapping[str, Any] | None, path: FieldPath, bound: int, detail: str, dialect: Dialect, errors: ErrorList
) -> None:
    """An explicit ``minCount`` is refused (KEP-3015) or must not exceed the pods it represents (KEP-969)."""
    count = explicit_count(block)
    if count is None:
        return
    if dialect.computed_min_count:
        errors.append(invalid(path.child("schedulingPolicy"), "object", COMPUTED_MIN_COUNT))
    elif is_int(count) and count > bound:
        errors.append(invalid(path.child("schedulingPolicy", "gang", "minCount"), count, detail))


def _whole(
    block: dict[str, Any],
    path: FieldPath,
    rjobs: list[ReplicatedJob],
    sequencing: Sequencing,
    dialect: Dialect,
    errors: ErrorList,
) -> Layout:
    """Level 1: one group over every pod, or one per ReplicatedJob under sequenced startup."""
    if sequencing.sequenced:
        count = explicit_count(block)
        if dialect.computed_min_count:
            _check_count(block, path, 0, "", dialect, errors)
        elif count is not None and count != 0:
            errors.append(invalid(path.child("schedulingPolicy", "gang", "minCount"), count, SEQUENCED_MIN_COUNT))
        every_count = without_count(block, lambda _: True)
        return _per_replicated_job(block_input(every_count, claims=dialect.whole_claims), path, rjobs)
    given = block_input(_prepared(block, dialect), claims=dialect.whole_claims)
    total = sum(rj.pods for rj in rjobs)
    detail = f"cannot exceed the total number of JobSet pods ({total})"
    _check_count(block, path, total, detail, dialect, errors)
    item = WorkloadItem(
        name=dialect.whole_template,
        path=path,
        default_config=gang_config(rjobs[0].priority_class_name),
        input=given,
        callbacks=[fill_gang(total)],
    )
    if is_gang(item):
        expected = rjobs[0].priority_class_name
        for rj in rjobs[1:]:
            if rj.priority_class_name != expected:
                errors.append(
                    invalid(
                        rj.pod_template_path.child("spec", "priorityClassName"),
                        rj.priority_class_name,
                        f"must match {go_quote(expected)} when top-level gang scheduling is used",
                    )
                )
    layout = Layout()
    layout.add(item, Group(item.name, tuple(rjobs)), 0 if total == 0 else 1)
    return layout


def _per_replicated_job(given: WorkloadInput, path: FieldPath, rjobs: list[ReplicatedJob]) -> Layout:
    """KEP-969's sequenced-startup fallback: level 1's blocks, one group per ReplicatedJob.

    Every item points at ``spec.scheduling``; only the first carries the
    user's blocks (so a mistake in them is reported once), the others start
    from what those blocks resolve to.
    """
    shared = resolve_config(WorkloadItem(name="level-1", default_config=gang_config(), input=given))
    if shared.policy is not None and shared.policy.gang is not None:
        shared.policy.gang.min_count = None
    layout = Layout()
    for position, rj in enumerate(rjobs):
        if position == 0:
            default, item_input = gang_config(rj.priority_class_name), given
        else:
            default = shared.model_copy(deep=True, update={"priority_class_name": rj.priority_class_name})
            item_input = WorkloadInput()
        item = WorkloadItem(
            name=rj.name, path=path, default_config=default, input=item_input, callbacks=[fill_gang(rj.pods)]
        )
        layout.add(item, Group(rj.name, (rj,)), 0 if rj.pods == 0 else 1)
    return layout


class _PerEntry:
    """Levels 2 and 3: ``spec.scheduling.replicatedJobs[i]``, each entry a group of its targets or of each Job."""

    def __init__(
        self, path: FieldPath, rjobs: list[ReplicatedJob], sequencing: Sequencing, dialect: Dialect, errors: ErrorList
    ) -> None:
        self.path = path.child("replicatedJobs")
        self.by_name = {rj.name: rj for rj in rjobs}
        self.rjobs = rjobs
        self.sequencing = sequencing
        self.dialect = dialect
        self.errors = errors
        self.targeted: set[str] = set()
        self.layout = Layout()

    def plan(self, entries: list[Any]) -> Layout:
        for i, entry in enumerate(entries):
            self._entry(self.path.index(i), entry)
        for rj in self.rjobs:
            if rj.name not in self.targeted:
                self.errors.append(invalid(rj.path.child("name"), rj.name, UNCOVERED))
        return self.layout

    def _entry(self, path: FieldPath, entry: Any) -> None:
        if not isinstance(entry, Mapping):
            self.errors.append(type_invalid(path, entry, "must be of type object"))
            return
        self.errors.extend(unknown_keys(entry, path, ("targetReplicatedJobs", *BLOCKS, CLAIMS, "job")))
        names = entry.get("targetReplicatedJobs")
        targets_path = path.child("targetReplicatedJobs")
        if not isinstance(names, list) or not names:
            if names is None or names == []:
                self.errors.append(required(targets_path, "must target at least one replicatedJob"))
            else:
                self.errors.append(type_invalid(targets_path, names, "must be of type array"))
            return
        targets = self._targets(names, targets_path)
        if not targets:
            return
        if entry.get("job") is not None:
            self._per_job(path, entry, names, targets)
        else:
            self._shared(path, entry, names, targets)

    def _targets(self, names: list[Any], path: FieldPath) -> list[tuple[int, ReplicatedJob]]:
        targets: list[tuple[int, ReplicatedJob]] = []
        mine: set[str] = set()
        for j, name in enumerate(names):
            if not isinstance(name, str) or name not in self.by_name:
                self.errors.append(invalid(path.index(j), name, "does not reference a valid replicatedJob name"))
            elif name in mine:
                self.errors.append(duplicate(path.index(j), name))
            elif name in self.targeted:
                self.errors.append(invalid(path.index(j), name, "is targeted by more than one replicatedJobs entry"))
            else:
                mine.add(name)
                self.targeted.add(name)
                targets.append((j, self.by_name[name]))
        return targets

    def _per_job(
        self, path: FieldPath, entry: Mapping[str, Any], names: list[Any], targets: list[tuple[int, ReplicatedJob]]
    ) -> None:
        job_path = path.child("job")
        job = entry["job"]
        if not isinstance(job, Mapping):
            self.errors.append(type_invalid(job_path, job, "must be of type object"))
            return
        self.errors.extend(unknown_keys(job, job_path, (*BLOCKS, CLAIMS)))
        usable = True
        if len(names) != 1:
            self.errors.append(
                invalid(
                    path.child("targetReplicatedJobs"), names, "must target exactly one replicatedJob when job is set"
                )
            )
            usable = False
        if any(entry.get(key) is not None for key in (*BLOCKS, CLAIMS)):
            self.errors.append(invalid(job_path, True, JOB_WITH_LEAF_FIELDS))
            usable = False
        if not usable:
            return
        rj = targets[0][1]
        detail = (
            f"cannot exceed the per-Job pod count (parallelism) of replicatedJob {go_quote(rj.name)} ({rj.job_pods})"
        )
        _check_count(job, job_path, rj.job_pods, detail, self.dialect, self.errors)
        item = WorkloadItem(
            name=rj.name,
            path=job_path,
            default_config=gang_config(rj.priority_class_name),
            input=block_input(_prepared(job, self.dialect)),
            callbacks=[fill_gang(rj.job_pods)],
        )
        self.layout.add(item, Group(rj.name, (rj,), per_job=True), rj.replicas)

    def _shared(
        self, path: FieldPath, entry: Mapping[str, Any], names: list[Any], targets: list[tuple[int, ReplicatedJob]]
    ) -> None:
        rjobs = [rj for _, rj in targets]
        block = {key: entry.get(key) for key in (*BLOCKS, CLAIMS)}
        joined = "-".join(rj.name for rj in rjobs)
        name = (
            joined
            if len(rjobs) == 1
            else safe_template_name(joined, "", path.child("targetReplicatedJobs"), self.errors)
        )
        total = sum(rj.pods for rj in rjobs)
        shown = go_strings(str(name) for name in names)
        detail = f"cannot exceed the number of pods across the targeted ReplicatedJobs {shown} ({total})"
        _check_count(block, path, total, detail, self.dialect, self.errors)
        item = WorkloadItem(
            name=name,
            path=path,
            default_config=gang_config(rjobs[0].priority_class_name),
            input=block_input(_prepared(block, self.dialect)),
            callbacks=[fill_gang(total)],
        )
        if len(targets) > 1:
            self._check_shared(path.child("targetReplicatedJobs"), targets, is_gang(item))
        self.layout.add(item, Group(name, tuple(rjobs)), 0 if total == 0 else 1)

    def _check_shared(self, path: FieldPath, targets: list[tuple[int, ReplicatedJob]], gang: bool) -> None:
        """ReplicatedJobs sharing a PodGroup share one priority class and, in a gang, start together."""
        first = targets[0][1]
        for j, rj in targets[1:]:
            if rj.priority_class_name != first.priority_class_name:
                self.errors.append(
                    invalid(
                        path.index(j),
                        rj.name,
                        f"priorityClassName {go_quote(rj.priority_class_name)} must match "
                        f"{go_quote(first.priority_class_name)} of the other ReplicatedJobs sharing this PodGroup",
                    )
                )
        if not gang:
            return
        for position, (j, rj) in enumerate(targets):
            for _, earlier in targets[:position]:
                why = self.sequencing.conflict(earlier.name, rj.name)
                if why is not None:
                    self.errors.append(
                        invalid(
                            path.index(j),
                            rj.name,
                            f"must not share a gang with replicatedJob {go_quote(earlier.name)}: {why}, "
                            "so the gang could never fill",
                        )
                    )
                    break
