"""Adapters from controller APIs (Job, JobSet, LeaderWorkerSet, Kubeflow Trainer, any CRD) to WorkloadItem trees.

``adapters.base`` holds the contract every adapter implements and the
registry that picks one by a manifest's ``apiVersion`` and ``kind``. Each
adapter lives in its own module and imports only ``workloadbuilder``.
"""

from adapters.base import (
    Adapter,
    Compiled,
    Finding,
    Plan,
    PlanError,
    PodAssignment,
    adapter_for,
    as_dict,
    job_pod_count,
    plan_object,
    register,
    registered,
)

__all__ = [
    "Adapter",
    "Compiled",
    "Finding",
    "Plan",
    "PlanError",
    "PodAssignment",
    "adapter_for",
    "as_dict",
    "job_pod_count",
    "plan_object",
    "register",
    "registered",
]
