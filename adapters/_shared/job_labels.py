"""The labels the apiserver gives a batch Job's pod template, whoever makes the Job.

A Job written as such and the Jobs a JobSet makes both get them, so the Job
and the JobSet adapters render them from here. Read from k8s.io/kubernetes
v1.37.2 ``pkg/registry/batch/job/strategy.go`` (``generateSelector``):
``batch.kubernetes.io/job-name`` and ``job-name`` with the Job's name, and,
when the Job has a uid, ``batch.kubernetes.io/controller-uid`` and
``controller-uid`` with it first.
"""

from __future__ import annotations

__all__ = ["job_labels"]


def job_labels(name: str, uid: str | None) -> dict[str, str]:
    """The labels the apiserver gives a Job's pod template (``generateSelector``).

    Examples:
        >>> job_labels("train", None)
        {'batch.kubernetes.io/job-name': 'train', 'job-name': 'train'}
    """
    labels = {"batch.kubernetes.io/job-name": name, "job-name": name}
    if uid:
        labels = {"batch.kubernetes.io/controller-uid": uid, "controller-uid": uid, **labels}
    return labels
