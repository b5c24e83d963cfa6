"""The Kubeflow Trainer adapter (``trainer.kubeflow.org/v1alpha1`` TrainJob): its runtime's JobSet, KEP-3015's levels.

``adapter`` plans a TrainJob with the runtime it names, and ``pods`` renders
the runtime's pod templates with the TrainJob's trainer. A runtime renders a
JobSet, so this package plans with ``adapters.jobset``'s ReplicatedJobs and
levels.
"""

from workloadbuilder.adapters.trainer.adapter import ANCESTOR_LABEL, DESIGN, TrainJobAdapter, TrainJobPlan

__all__ = ["ANCESTOR_LABEL", "DESIGN", "TrainJobAdapter", "TrainJobPlan"]
