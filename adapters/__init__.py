"""Adapters from controller APIs (Job, JobSet, LeaderWorkerSet, Trainer, Volcano, any CRD) to WorkloadItem trees.

``adapters.base`` holds the contract every adapter implements and the
registry that picks one by a manifest's ``apiVersion`` and ``kind``. Each
adapter lives in its own module and imports only ``workloadbuilder``.
"""

# Importing each adapter module registers it for its apiVersion and kind.
from workloadbuilder.adapters import job, jobset, lws, trainer, volcano  # noqa: F401
from workloadbuilder.adapters.base import (
    Adapter,
    Compiled,
    Finding,
    Plan,
    PlanError,
    PodAssignment,
    Registry,
    adapter_for,
    as_dict,
    current_registry,
    job_pod_count,
    plan_object,
    register,
    registered,
    scoped_registry,
)
from workloadbuilder.adapters.crd import CRDAdapter, register_mapping
from workloadbuilder.adapters.crd_mapping import BlockPaths, CRDMapping, GroupMapping, PodsMapping
from workloadbuilder.adapters.job import JobAdapter, JobMode, management_mode
from workloadbuilder.adapters.jobset import JobSetAdapter
from workloadbuilder.adapters.lws import LeaderWorkerSetAdapter
from workloadbuilder.adapters.trainer import TrainJobAdapter, TrainJobPlan
from workloadbuilder.adapters.volcano import VolcanoJobAdapter

__all__ = [
    "Adapter",
    "BlockPaths",
    "CRDAdapter",
    "CRDMapping",
    "Compiled",
    "Finding",
    "GroupMapping",
    "JobAdapter",
    "JobMode",
    "JobSetAdapter",
    "LeaderWorkerSetAdapter",
    "Plan",
    "PlanError",
    "PodAssignment",
    "PodsMapping",
    "Registry",
    "TrainJobAdapter",
    "TrainJobPlan",
    "VolcanoJobAdapter",
    "adapter_for",
    "as_dict",
    "current_registry",
    "job_pod_count",
    "management_mode",
    "plan_object",
    "register",
    "register_mapping",
    "registered",
    "scoped_registry",
]
