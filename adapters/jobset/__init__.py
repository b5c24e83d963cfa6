"""The JobSet adapter (``jobset.x-k8s.io/v1alpha2``): KEP-969's ``spec.scheduling`` over ReplicatedJobs.

``adapter`` plans the JobSet, ``replicated_jobs`` reads its ReplicatedJobs
as JobSet runs them, ``levels`` plans the three levels of
``spec.scheduling`` over them, and ``pods`` renders the Jobs' pods. The
Trainer adapter uses ``replicated_jobs`` and ``levels`` too: a Trainer
runtime renders a JobSet.
"""

from workloadbuilder.adapters.jobset.adapter import DESIGN, EXCLUSIVE_TOPOLOGY_ANNOTATION, JobSetAdapter

__all__ = ["DESIGN", "EXCLUSIVE_TOPOLOGY_ANNOTATION", "JobSetAdapter"]
