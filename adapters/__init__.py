"""Adapters from controller APIs (Job, JobSet, LeaderWorkerSet, Kubeflow Trainer, any CRD) to WorkloadItem trees.

Each adapter will live in its own module and import only ``workloadbuilder``;
none is implemented yet (see the adapters issue).
"""
