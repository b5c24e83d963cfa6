"""A Volcano Job's pods as Volcano's job controller and webhook make them.

Read from volcano-sh/volcano at commit ``ed72c7c8`` (2026-08-20), the
revision ``tests/data/upstream/volcano`` holds, and its unit tests
(``TestCreateJobPod`` in ``pkg/controllers/job/job_controller_util_test.go``,
the mutate webhook's ``TestCreatePatchExecution``, the svc plugin's tests):

* the mutate webhook (``pkg/webhooks/admission/jobs/mutate/mutate_job.go``,
  ``adapters._shared.defaults``): queue ``default``, tasks named ``default<i>``,
  ``dnsPolicy: ClusterFirstWithHostNet`` for a host-network task without
  one, the ``svc`` plugin for tensorflow, mpi, pytorch and ray;
* ``createJobPod`` (``pkg/controllers/job/job_controller_util.go``): the
  task's template is copied; without a ``schedulerName`` the pod takes the
  Job's, without a ``priorityClassName`` the Job's; every ``spec.volumes``
  claim (once per claim name) becomes a volume mounted at its
  ``mountPath`` in every container, its name ``<job>-<12 random
  characters>``, a claim without a name getting one ``<job>-volume-<random>``
  (``createOrGetPVC``) first; the annotations ``volcano.sh/task-spec``,
  ``scheduling.k8s.io/group-name`` (``<job>-<uid>``), ``volcano.sh/job-name``,
  ``volcano.sh/queue-name``, ``volcano.sh/job-version``,
  ``volcano.sh/template-uid``, ``volcano.sh/job-retry-count``, the task's NUMA
  policy and the Job's preemptable, cooldown, revocable-zone and
  JobDisruptionBudget annotations; the labels job name, task, namespace and
  queue, and the Job's preemptable and cooldown labels;
* the ``svc`` plugin's ``OnPodCreate``: a pod without a ``subdomain`` gets
  the Job's name.

Rendered differently (``docs/adapters/volcano.md``): the webhook's default
``schedulerName`` (``volcano``) is not applied, as the plan's pods are the
ones kube-scheduler places with the Workload (an explicit
``spec.schedulerName`` is applied and warned about); the random parts of
volume and claim names are ``x``; each pod's task index, partition, hostname
and the plugins' environment, ConfigMap and SSH volumes are left out
(nothing is placed by them).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from workloadbuilder.adapters._shared.defaults import defaulted
from workloadbuilder.adapters._shared.reading import at

__all__ = ["VOLCANO_REVISION", "render_pod_template"]

VOLCANO_REVISION = "ed72c7c815a9fd547a787134676f73d42e9d049c"
"""The volcano-sh/volcano commit whose rendering rules this module follows."""

_RANDOM = "x" * 12
_SVC_PLUGINS = ("svc", "tensorflow", "mpi", "pytorch", "ray")
_JOB_ANNOTATIONS = (
    "volcano.sh/preemptable",
    "volcano.sh/cooldown-time",
    "volcano.sh/revocable-zone",
)
_BUDGET = ("volcano.sh/jdb-min-available", "volcano.sh/jdb-max-unavailable")
_JOB_LABELS = ("volcano.sh/preemptable", "volcano.sh/cooldown-time")


def _claim_volumes(job: Mapping[str, Any], name: str, pod_spec: dict[str, Any]) -> None:
    """Each ``spec.volumes`` claim as a volume of the pod, mounted in every container."""
    volumes = at(job, ("spec", "volumes"))
    seen: set[str] = set()
    for volume in volumes if isinstance(volumes, list) else []:
        if not isinstance(volume, Mapping):
            continue
        claim = volume.get("volumeClaimName")
        claim = claim if isinstance(claim, str) and claim else f"{name}-volume-{_RANDOM}"
        if claim in seen:
            continue
        seen.add(claim)
        volume_name = f"{name}-{_RANDOM}"
        listed = pod_spec.get("volumes")
        pod_spec["volumes"] = [
            *(listed if isinstance(listed, list) else []),
            {"name": volume_name, "persistentVolumeClaim": {"claimName": claim}},
        ]
        containers = pod_spec.get("containers")
        for container in containers if isinstance(containers, list) else []:
            if isinstance(container, dict):
                mounts = container.get("volumeMounts")
                container["volumeMounts"] = [
                    *(mounts if isinstance(mounts, list) else []),
                    {"mountPath": volume.get("mountPath"), "name": volume_name},
                ]


def _copied(holder: Any, keys: tuple[str, ...]) -> dict[str, str]:
    return {key: str(holder[key]) for key in keys if isinstance(holder, Mapping) and key in holder}


def render_pod_template(job: Mapping[str, Any], task_index: int) -> Mapping[str, Any] | None:
    """The template of task ``task_index``'s pods as Volcano creates them; ``None`` without one."""
    obj = defaulted(job)
    task = at(obj, ("spec", "tasks", task_index))
    template = at(task, ("template",))
    if not isinstance(task, Mapping) or not isinstance(template, Mapping):
        return None
    rendered = copy.deepcopy(dict(template))
    metadata = rendered.get("metadata")
    metadata = dict(metadata) if isinstance(metadata, Mapping) else {}
    rendered["metadata"] = metadata
    pod_spec = rendered.get("spec")
    if not isinstance(pod_spec, dict):
        return rendered
    spec = at(obj, ("spec",))
    name = str(at(obj, ("metadata", "name")) or "")
    namespace = str(at(obj, ("metadata", "namespace")) or "default")
    scheduler = spec.get("schedulerName")
    if not pod_spec.get("schedulerName") and isinstance(scheduler, str) and scheduler:
        pod_spec["schedulerName"] = scheduler
    priority = spec.get("priorityClassName")
    if not pod_spec.get("priorityClassName") and isinstance(priority, str) and priority:
        pod_spec["priorityClassName"] = priority
    if spec.get("volumes"):
        _claim_volumes(obj, name, pod_spec)
    task_name = str(task.get("name") or "default")
    queue = str(spec.get("queue") or "")
    owner_annotations = at(obj, ("metadata", "annotations"))
    annotations = {
        "volcano.sh/task-spec": task_name,
        "scheduling.k8s.io/group-name": f"{name}-{at(obj, ('metadata', 'uid')) or ''}",
        "volcano.sh/job-name": name,
        "volcano.sh/queue-name": queue,
        "volcano.sh/job-version": "0",
        "volcano.sh/template-uid": f"{name}-{task_name}",
        "volcano.sh/job-retry-count": "0",
    }
    policy = task.get("topologyPolicy")
    if isinstance(policy, str) and policy:
        annotations["volcano.sh/numa-topology-policy"] = policy
    annotations.update(_copied(owner_annotations, _JOB_ANNOTATIONS))
    annotations.update(dict(list(_copied(owner_annotations, _BUDGET).items())[:1]))
    labels = {
        "volcano.sh/job-name": name,
        "volcano.sh/task-spec": task_name,
        "volcano.sh/job-namespace": namespace,
        "volcano.sh/queue-name": queue,
        **_copied(at(obj, ("metadata", "labels")), _JOB_LABELS),
    }
    plugins = spec.get("plugins")
    if (
        isinstance(plugins, Mapping)
        and any(plugin in plugins for plugin in _SVC_PLUGINS)
        and not pod_spec.get("subdomain")
    ):
        pod_spec["subdomain"] = name
    metadata["annotations"] = {**(metadata.get("annotations") or {}), **annotations}
    metadata["labels"] = {**(metadata.get("labels") or {}), **labels}
    return rendered
