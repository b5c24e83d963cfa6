"""Adapters from controller APIs (Job, JobSet, LeaderWorkerSet, Trainer, Volcano, any CRD) to WorkloadItem trees.

``adapters.base`` holds the contract every adapter implements and the
registry that picks one by a manifest's ``apiVersion`` and ``kind``. Each
bundled adapter is a package of its own (``adapters.job``, ``adapters.jobset``,
``adapters.lws``, ``adapters.trainer``, ``adapters.volcano``, ``adapters.crd``)
whose ``__init__`` exports its public names; what several of them use is in
the private ``adapters._shared``.

The bundled adapters are loaded when first needed: the registry imports an
adapter's package the first time a manifest of its kind is read, and the
names below that live in an adapter's module (``JobSetAdapter``,
``CRDMapping``, ...) are imported on first use (PEP 562), so reading a Job
does not load the JobSet, LWS, Trainer, Volcano and CRD adapters.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from workloadbuilder.adapters.crd.adapter import CRDAdapter, register_mapping
    from workloadbuilder.adapters.crd.mapping import BlockPaths, CRDMapping, GroupMapping, PodsMapping
    from workloadbuilder.adapters.job.adapter import JobAdapter, JobMode, management_mode
    from workloadbuilder.adapters.jobset.adapter import JobSetAdapter
    from workloadbuilder.adapters.lws.adapter import LeaderWorkerSetAdapter
    from workloadbuilder.adapters.trainer.adapter import TrainJobAdapter, TrainJobPlan
    from workloadbuilder.adapters.volcano.adapter import VolcanoJobAdapter

_LAZY: dict[str, str] = {
    "BlockPaths": "workloadbuilder.adapters.crd.mapping",
    "CRDAdapter": "workloadbuilder.adapters.crd.adapter",
    "CRDMapping": "workloadbuilder.adapters.crd.mapping",
    "GroupMapping": "workloadbuilder.adapters.crd.mapping",
    "JobAdapter": "workloadbuilder.adapters.job.adapter",
    "JobMode": "workloadbuilder.adapters.job.adapter",
    "JobSetAdapter": "workloadbuilder.adapters.jobset.adapter",
    "LeaderWorkerSetAdapter": "workloadbuilder.adapters.lws.adapter",
    "PodsMapping": "workloadbuilder.adapters.crd.mapping",
    "TrainJobAdapter": "workloadbuilder.adapters.trainer.adapter",
    "TrainJobPlan": "workloadbuilder.adapters.trainer.adapter",
    "VolcanoJobAdapter": "workloadbuilder.adapters.volcano.adapter",
    "management_mode": "workloadbuilder.adapters.job.adapter",
    "register_mapping": "workloadbuilder.adapters.crd.adapter",
}
"""The public names defined in an adapter's own module, with that module: imported on first use."""

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


def __getattr__(name: str) -> object:
    """Import a public name of an adapter's module on first use and keep it."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value: object = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The package's attributes, the not yet imported public names included."""
    return sorted(globals().keys() | _LAZY.keys())
