"""A Job's pods as the apiserver and the Job controller make them: its template with the Job's labels.

Read from k8s.io/kubernetes v1.37.2: ``pkg/registry/batch/job/strategy.go``
(``generateSelector``: unless ``spec.manualSelector`` is true, the pod
template gets the labels ``batch.kubernetes.io/controller-uid`` and
``controller-uid`` with the Job's uid and ``batch.kubernetes.io/job-name``
and ``job-name`` with its name, each kept when the template already sets
it), ``pkg/apis/batch/v1/defaults.go`` (``SetDefaults_Job`` changes nothing
in the pod template) and ``pkg/controller/job`` (an Indexed Job's pods each
get their completion index as annotation, label, hostname and
``JOB_COMPLETION_INDEX``: per pod, at run time, and placed by none of them,
so not rendered). The uid labels are there only when the manifest gives a
uid (the apiserver makes it on create).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from workloadbuilder.adapters._shared.job_labels import job_labels
from workloadbuilder.adapters._shared.reading import at

__all__ = ["render_pod_template"]


def render_pod_template(job: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The Job's pod template with the labels the apiserver adds; ``None`` without a template."""
    template = at(job, ("spec", "template"))
    if not isinstance(template, Mapping):
        return None
    rendered = copy.deepcopy(dict(template))
    if at(job, ("spec", "manualSelector")) is True:
        return rendered
    name, uid = at(job, ("metadata", "name")), at(job, ("metadata", "uid"))
    metadata = rendered.get("metadata")
    metadata = dict(metadata) if isinstance(metadata, Mapping) else {}
    labels = metadata.get("labels")
    labels = dict(labels) if isinstance(labels, Mapping) else {}
    for key, value in job_labels(str(name or ""), uid if isinstance(uid, str) else None).items():
        labels.setdefault(key, value)
    metadata["labels"] = labels
    rendered["metadata"] = metadata
    return rendered
