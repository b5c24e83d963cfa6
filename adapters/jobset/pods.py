"""A JobSet's pods as the JobSet controller, its webhooks and the Job controller make them.

Read from kubernetes-sigs/jobset at commit ``08dfbdfd`` (2026-08-18), the
revision ``tests/data/upstream/jobset`` holds, and its unit tests
(``TestConstructJobsFromTemplate``, ``TestGlobalJobIndex``,
``TestGroupJobIndex``, the pod webhook's tests):

* the JobSet webhook's ``Default`` (``adapters._shared.defaults``): a pod template
  without ``restartPolicy`` gets ``OnFailure``, the child Jobs are
  ``Indexed`` and DNS hostnames are on;
* ``constructJob`` and ``labelAndAnnotateObject``
  (``pkg/controllers/jobset_controller.go``): the Job template's pod template
  is copied and gets JobSet's labels, each also as an annotation (JobSet name
  and uid, ReplicatedJob name and replicas, global replicas, job index, job
  key = SHA-1 of ``<namespace>/<job name>``, global job index, group name,
  group replicas, job index in its group, restart attempt); the exclusive
  topology annotation (the ReplicatedJob's over the JobSet's) and its
  node-selector strategy annotation are copied; with DNS hostnames the
  ``subdomain`` is ``spec.network.subdomain`` or the JobSet's name; with
  the node-selector strategy of exclusive placement, the node selector
  ``alpha.jobset.sigs.k8s.io/namespaced-job: <namespace>_<job name>`` and a
  toleration of ``alpha.jobset.sigs.k8s.io/no-schedule`` (``Exists``,
  ``NoSchedule``); each volume claim policy template the containers mount
  becomes a volume of claim ``<template>-<jobset>``;
* the pod webhook's ``Default`` (``pkg/webhooks/pod_webhook.go``): the
  ``jobset.sigs.k8s.io/priority`` label, and with exclusive placement (not
  the node-selector strategy) the Job's first pod gets a required pod
  affinity to its own job key and a required anti-affinity to any other job
  key of the same priority, both over the topology key; every later pod of
  the Job is given a node selector for the domain the first pod landed in;
* the Job controller (``pkg/registry/batch/job`` at k8s.io/kubernetes
  v1.37.2): the pod template's ``batch.kubernetes.io/job-name`` and
  ``job-name`` labels.

What is rendered differently, and why (each a ``lossy`` warning where the
manifest asks for it, see ``docs/adapters/jobset.md``): the later pods' node
selector names a domain known only once the first pod is bound, so every pod
of the Job carries the first pod's affinities instead (the same domain, the
same exclusion); the priority label's value is the pod's resolved priority,
known only to the apiserver: here ``0`` without a ``priorityClassName`` and
the class's name with one (pods of one class share it either way); the Job
controller's uid labels and each pod's completion index and hostname are
made per pod at run time and left out.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from typing import Any

from workloadbuilder.adapters._shared.defaults import defaulted
from workloadbuilder.adapters._shared.job_labels import job_labels
from workloadbuilder.adapters._shared.reading import at

__all__ = [
    "EXCLUSIVE_KEY",
    "JOBSET_REVISION",
    "JOB_KEY",
    "NODE_SELECTOR_STRATEGY_KEY",
    "PRIORITY_KEY",
    "job_name",
    "render_job_pod_template",
]

JOBSET_REVISION = "08dfbdfd682714a9ab929633eca8dc95315187e7"
"""The kubernetes-sigs/jobset commit whose rendering rules this module follows."""

EXCLUSIVE_KEY = "alpha.jobset.sigs.k8s.io/exclusive-topology"
NODE_SELECTOR_STRATEGY_KEY = "alpha.jobset.sigs.k8s.io/node-selector"
NAMESPACED_JOB_KEY = "alpha.jobset.sigs.k8s.io/namespaced-job"
NO_SCHEDULE_TAINT_KEY = "alpha.jobset.sigs.k8s.io/no-schedule"
JOB_KEY = "jobset.sigs.k8s.io/job-key"
PRIORITY_KEY = "jobset.sigs.k8s.io/priority"
_PREFIX = "jobset.sigs.k8s.io/"


def job_name(jobset_name: str, rjob_name: str, job_index: int) -> str:
    """A child Job's name, ``<jobset>-<replicatedJob>-<index>`` (``placement.GenJobName``)."""
    return f"{jobset_name}-{rjob_name}-{job_index}"


def _replicas(rjob: Mapping[str, Any]) -> int:
    value = rjob.get("replicas", 1)
    return value if isinstance(value, int) and not isinstance(value, bool) else 1


def _group(rjob: Mapping[str, Any]) -> str:
    value = rjob.get("groupName")
    return value if isinstance(value, str) and value else "default"


def _rjobs(jobset: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    listed = at(jobset, ("spec", "replicatedJobs"))
    return [rj for rj in listed if isinstance(rj, Mapping)] if isinstance(listed, list) else []


def _indices(jobset: Mapping[str, Any], rjob: Mapping[str, Any], job_index: int) -> dict[str, str]:
    """Global index, global replicas, the job's index in its group and the group's replicas."""
    rjobs = _rjobs(jobset)
    before = 0
    for other in rjobs:
        if other.get("name") == rjob.get("name"):
            break
        before += _replicas(other)
    group = _group(rjob)
    mates = [other for other in rjobs if _group(other) == group]
    in_group = 0
    for other in mates:
        if other.get("name") == rjob.get("name"):
            break
        in_group += _replicas(other)
    return {
        "job-global-index": str(before + job_index),
        "global-replicas": str(sum(_replicas(other) for other in rjobs)),
        "job-group-index": str(in_group + job_index),
        "group-replicas": str(sum(_replicas(other) for other in mates)),
    }


def _jobset_metadata(
    jobset: Mapping[str, Any], rjob: Mapping[str, Any], job_index: int | None
) -> tuple[dict[str, str], dict[str, str]]:
    """The labels and annotations ``labelAndAnnotateObject`` gives every object of one Job (or of any Job)."""
    name = str(at(jobset, ("metadata", "name")) or "")
    namespace = str(at(jobset, ("metadata", "namespace")) or "default")
    common = {
        _PREFIX + "jobset-name": name,
        _PREFIX + "replicatedjob-name": str(rjob.get("name")),
        _PREFIX + "restart-attempt": "0",
        _PREFIX + "replicatedjob-replicas": str(_replicas(rjob)),
        _PREFIX + "group-name": _group(rjob),
    }
    uid = at(jobset, ("metadata", "uid"))
    if isinstance(uid, str) and uid:
        common[_PREFIX + "jobset-uid"] = uid
    if job_index is not None:
        child = job_name(name, str(rjob.get("name")), job_index)
        common[_PREFIX + "job-index"] = str(job_index)
        common[JOB_KEY] = hashlib.sha1(f"{namespace}/{child}".encode()).hexdigest()
        common.update({_PREFIX + key: value for key, value in _indices(jobset, rjob, job_index).items()})
    else:
        indices = _indices(jobset, rjob, 0)
        common[_PREFIX + "global-replicas"] = indices["global-replicas"]
        common[_PREFIX + "group-replicas"] = indices["group-replicas"]
    annotations = dict(common)
    for holder in (at(jobset, ("metadata", "annotations")), at(rjob, ("template", "metadata", "annotations"))):
        if isinstance(holder, Mapping) and EXCLUSIVE_KEY in holder:
            annotations[EXCLUSIVE_KEY] = str(holder[EXCLUSIVE_KEY])
            if NODE_SELECTOR_STRATEGY_KEY in holder:
                annotations[NODE_SELECTOR_STRATEGY_KEY] = str(holder[NODE_SELECTOR_STRATEGY_KEY])
    return common, annotations


def _job_annotations(jobset: Mapping[str, Any], rjob: Mapping[str, Any], job_index: int | None) -> dict[str, str]:
    """The child Job's own annotations: its template's, then JobSet's (the exclusive ones decide placement)."""
    own = at(rjob, ("template", "metadata", "annotations"))
    merged = {str(k): str(v) for k, v in own.items()} if isinstance(own, Mapping) else {}
    merged.update(_jobset_metadata(jobset, rjob, job_index)[1])
    return merged


def _merge(metadata: dict[str, Any], key: str, added: Mapping[str, str]) -> None:
    current = metadata.get(key)
    merged = dict(current) if isinstance(current, Mapping) else {}
    merged.update(added)
    metadata[key] = merged


def _mounts(pod_spec: Mapping[str, Any], volume: str) -> bool:
    containers = pod_spec.get("containers")
    for container in containers if isinstance(containers, list) else []:
        mounts = container.get("volumeMounts") if isinstance(container, Mapping) else None
        listed = mounts if isinstance(mounts, list) else []  # another type is the schema check's error
        if any(isinstance(m, Mapping) and m.get("name") == volume for m in listed):
            return True
    return False


def _claim_volumes(jobset: Mapping[str, Any], pod_spec: dict[str, Any]) -> None:
    """``addVolumes``: each volume claim policy template the containers mount, as a volume of its PVC."""
    name = str(at(jobset, ("metadata", "name")) or "")
    policies = at(jobset, ("spec", "volumeClaimPolicies"))
    for policy in policies if isinstance(policies, list) else []:
        templates = policy.get("templates") if isinstance(policy, Mapping) else None
        for template in templates if isinstance(templates, list) else []:
            volume = at(template, ("metadata", "name"))
            if not isinstance(volume, str) or not _mounts(pod_spec, volume):
                continue
            volumes = pod_spec.setdefault("volumes", [])
            if isinstance(volumes, list):
                volumes.append({"name": volume, "persistentVolumeClaim": {"claimName": f"{volume}-{name}"}})


def _exclusive_affinities(pod_spec: dict[str, Any], topology: str, job_key: str, priority: str) -> None:
    """The pod webhook's ``setExclusiveAffinities``: with its own Job's pods, apart from every other Job's."""
    affinity = pod_spec.get("affinity")
    affinity = dict(affinity) if isinstance(affinity, Mapping) else {}
    together = {
        "labelSelector": {"matchExpressions": [{"key": JOB_KEY, "operator": "In", "values": [job_key]}]},
        "topologyKey": topology,
        "namespaceSelector": {},
    }
    apart = {
        "labelSelector": {
            "matchExpressions": [
                {"key": JOB_KEY, "operator": "Exists"},
                {"key": JOB_KEY, "operator": "NotIn", "values": [job_key]},
                {"key": PRIORITY_KEY, "operator": "In", "values": [priority]},
            ]
        },
        "topologyKey": topology,
        "namespaceSelector": {},
    }
    for kind, term in (("podAffinity", together), ("podAntiAffinity", apart)):
        block = affinity.get(kind)
        block = dict(block) if isinstance(block, Mapping) else {}
        terms = block.get("requiredDuringSchedulingIgnoredDuringExecution")
        block["requiredDuringSchedulingIgnoredDuringExecution"] = [*(terms if isinstance(terms, list) else []), term]
        affinity[kind] = block
    pod_spec["affinity"] = affinity


def render_job_pod_template(
    jobset: Mapping[str, Any], rjob_index: int, job_index: int | None
) -> Mapping[str, Any] | None:
    """The pod template of one child Job (``job_index``), or of every Job of the ReplicatedJob (``None``).

    Without a job index, what differs from Job to Job (its index, job key,
    and what exclusive placement derives from them) is left out.

    Returns ``None`` when the ReplicatedJob has no pod template (already an
    error of the adapter).
    """
    js = defaulted(jobset)
    rjobs = at(js, ("spec", "replicatedJobs"))
    rjob = at(rjobs, (rjob_index,)) if isinstance(rjobs, list) else None
    template = at(rjob, ("template", "spec", "template"))
    if not isinstance(rjob, Mapping) or not isinstance(template, Mapping):
        return None
    rendered = copy.deepcopy(dict(template))
    metadata = rendered.get("metadata")
    metadata = dict(metadata) if isinstance(metadata, Mapping) else {}
    rendered["metadata"] = metadata
    pod_spec = rendered.get("spec")
    if not isinstance(pod_spec, dict):
        return rendered
    labels, annotations = _jobset_metadata(js, rjob, job_index)
    name = str(at(js, ("metadata", "name")) or "")
    if job_index is not None:
        child = job_name(name, str(rjob.get("name")), job_index)
        labels = {**labels, **job_labels(child, None)}
    network = at(js, ("spec", "network"))
    if isinstance(network, Mapping) and network.get("enableDNSHostnames") is True:
        subdomain = network.get("subdomain")
        pod_spec["subdomain"] = subdomain if isinstance(subdomain, str) and subdomain else name
    job_annotations = _job_annotations(js, rjob, job_index)
    topology = job_annotations.get(EXCLUSIVE_KEY)
    strategy = NODE_SELECTOR_STRATEGY_KEY in job_annotations
    if topology is not None and strategy and job_index is not None:
        namespace = str(at(js, ("metadata", "namespace")) or "default")
        selector = pod_spec.get("nodeSelector")
        pod_spec["nodeSelector"] = {
            **(selector if isinstance(selector, Mapping) else {}),
            NAMESPACED_JOB_KEY: f"{namespace}_{job_name(name, str(rjob.get('name')), job_index)}",
        }
        tolerations = pod_spec.get("tolerations")
        pod_spec["tolerations"] = [
            *(tolerations if isinstance(tolerations, list) else []),
            {"key": NO_SCHEDULE_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"},
        ]
    if at(js, ("spec", "volumeClaimPolicies")):
        _claim_volumes(js, pod_spec)
    if not strategy:
        priority_class = pod_spec.get("priorityClassName")
        priority = priority_class if isinstance(priority_class, str) and priority_class else "0"
        labels = {**labels, PRIORITY_KEY: priority}
        if topology is not None and job_index is not None:
            _exclusive_affinities(pod_spec, topology, labels[JOB_KEY], priority)
    _merge(metadata, "labels", labels)
    _merge(metadata, "annotations", annotations)
    return rendered
