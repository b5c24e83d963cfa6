"""What each controller's defaulting webhook sets before the apiserver checks an object, from the newest upstream.

An apiserver decodes a custom resource, applies the CRD's defaults, then
calls the controller's mutating webhook, and only then validates the
result against the schema (``Required`` fields included) and the
validating webhooks. A manifest ``kubectl apply`` accepts may therefore
leave out what a webhook fills in: JobSet names its failure-policy rules,
Volcano names its tasks and sets ``minAvailable``. ``defaulted`` makes the
same object here, so the strict checks see what the apiserver sees.

Sources (read at the commits ``tests/data/upstream/*/SOURCE`` name):

* JobSet ``pkg/webhooks/jobset_webhook.go`` ``Default``: success policy
  ``All``, startup policy ``AnyOrder``, each child Job ``Indexed`` with pod
  restart policy ``OnFailure``, network DNS hostnames and not-ready
  addresses on, rules named ``failurePolicyRule<i>``, volume claim
  retention ``Delete``;
* LeaderWorkerSet ``pkg/webhooks/leaderworkerset_webhook.go`` ``Default``:
  restart policy ``RecreateGroupOnPodRestart`` (the deprecated ``Default``
  becomes ``None``), rollout ``RollingUpdate`` with maxUnavailable 1,
  maxSurge 0, partition 0, subdomain policy ``Shared``;
* Kubeflow Trainer ``pkg/webhooks/trainjob_webhook.go``: on create, each
  runtime patch without a ``time`` gets the request's time;
* Volcano ``pkg/webhooks/admission/jobs/mutate/mutate_job.go``: queue
  ``default``, maxRetry 3, tasks named ``default<i>``, a task's
  ``minAvailable`` its replicas (or minPartitions x partitionSize), the Job's
  ``minAvailable`` the sum of its tasks', the ``svc`` plugin for tf, mpi,
  pytorch and ray and ``ssh`` for mpi.

The input is never changed; a value of the wrong type is left for the
schema check to report, and a missing required parent (a ReplicatedJob's
``template``) is not made up, so its ``Required value`` still shows.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["JOBSET_RULE_NAME", "RUNTIME_PATCH_TIME", "VOLCANO_TASK_NAME", "defaulted"]

JOBSET_RULE_NAME = "failurePolicyRule{}"
"""The name JobSet's webhook gives the i-th failure-policy rule that has none (``defaultRuleNameFmt``)."""

VOLCANO_TASK_NAME = "default{}"
"""The name Volcano's webhook gives the i-th task that has none (``v1alpha1.DefaultTaskSpec`` + index)."""

RUNTIME_PATCH_TIME = "1970-01-01T00:00:00Z"
"""The ``time`` offline defaulting gives a TrainJob's runtime patch (the webhook uses the request's time)."""

_VOLCANO_MAX_RETRY = 3
_VOLCANO_SVC_PLUGINS = ("tensorflow", "mpi", "pytorch", "ray")


def defaulted(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``obj`` with its controller's webhook defaults set (an unknown kind: a plain copy).

    Examples:
        >>> js = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        ...       "spec": {"failurePolicy": {"rules": [{"action": "FailJobSet"}]}}}
        >>> defaulted(js)["spec"]["failurePolicy"]["rules"]
        [{'action': 'FailJobSet', 'name': 'failurePolicyRule0'}]
    """
    data = copy.deepcopy(dict(obj))
    group = str(data.get("apiVersion") or "").rpartition("/")[0]
    fill = _BY_KIND.get((group, str(data.get("kind") or "")))
    spec = data.get("spec")
    if fill is not None and isinstance(spec, dict):
        fill(spec)
    return data


def _dict_at(holder: dict[str, Any], key: str) -> dict[str, Any] | None:
    """``holder[key]``, set to ``{}`` when absent; ``None`` when it is there but no object."""
    value = holder.setdefault(key, {})
    if value is None:
        value = holder[key] = {}
    return value if isinstance(value, dict) else None


def _members(holder: Mapping[str, Any], key: str) -> list[tuple[int, dict[str, Any]]]:
    listed = holder.get(key)
    if not isinstance(listed, list):
        return []
    return [(i, member) for i, member in enumerate(listed) if isinstance(member, dict)]


def _jobset(spec: dict[str, Any]) -> None:
    if spec.get("successPolicy") is None:
        spec["successPolicy"] = {"operator": "All"}
    if spec.get("startupPolicy") is None:
        spec["startupPolicy"] = {"startupPolicyOrder": "AnyOrder"}
    for _, rjob in _members(spec, "replicatedJobs"):
        job_spec = _path(rjob, "template", "spec")
        if job_spec is None:
            continue
        if job_spec.get("completionMode") is None:
            job_spec["completionMode"] = "Indexed"
        pod_spec = _path(job_spec, "template", "spec")
        if pod_spec is not None and not pod_spec.get("restartPolicy"):
            pod_spec["restartPolicy"] = "OnFailure"
    network = _dict_at(spec, "network")
    if network is not None:
        network.setdefault("enableDNSHostnames", True)
        network.setdefault("publishNotReadyAddresses", True)
    policy = spec.get("failurePolicy")
    if isinstance(policy, dict):
        for i, rule in _members(policy, "rules"):
            if not rule.get("name"):
                rule["name"] = JOBSET_RULE_NAME.format(i)
    for _, claim_policy in _members(spec, "volumeClaimPolicies"):
        if claim_policy.get("retentionPolicy") is None:
            claim_policy["retentionPolicy"] = {"whenDeleted": "Delete"}


def _path(holder: dict[str, Any], *keys: str) -> dict[str, Any] | None:
    """The object at ``keys`` below ``holder``; ``None`` where one is missing (a missing template stays missing)."""
    current: Any = holder
    for key in keys:
        current = current.get(key) if isinstance(current, dict) else None
    return current if isinstance(current, dict) else None


def _lws(spec: dict[str, Any]) -> None:
    template = _path(spec, "leaderWorkerTemplate")
    if template is not None:
        if not template.get("restartPolicy"):
            template["restartPolicy"] = "RecreateGroupOnPodRestart"
        if template.get("restartPolicy") == "Default":
            template["restartPolicy"] = "None"
    rollout = _dict_at(spec, "rolloutStrategy")
    if rollout is not None:
        if not rollout.get("type"):
            rollout["type"] = "RollingUpdate"
        if rollout.get("type") == "RollingUpdate" and rollout.get("rollingUpdateConfiguration") is None:
            rollout["rollingUpdateConfiguration"] = {"maxUnavailable": 1, "maxSurge": 0, "partition": 0}
    network = _dict_at(spec, "networkConfig")
    if network is not None and network.get("subdomainPolicy") is None:
        network["subdomainPolicy"] = "Shared"


def _train_job(spec: dict[str, Any]) -> None:
    for _, patch in _members(spec, "runtimePatches"):
        if patch.get("time") is None:
            patch["time"] = RUNTIME_PATCH_TIME


def _volcano_job(spec: dict[str, Any]) -> None:
    if not spec.get("queue"):
        spec["queue"] = "default"
    if not spec.get("maxRetry"):
        spec["maxRetry"] = _VOLCANO_MAX_RETRY
    tasks = _members(spec, "tasks")
    for i, task in tasks:
        if not task.get("name"):
            task["name"] = VOLCANO_TASK_NAME.format(i)
        pod_spec = _path(task, "template", "spec")
        if pod_spec is not None and pod_spec.get("hostNetwork") is True and not pod_spec.get("dnsPolicy"):
            pod_spec["dnsPolicy"] = "ClusterFirstWithHostNet"
        minimum = _task_minimum(task) if task.get("minAvailable") is None else None
        if minimum is not None:  # a replicas of the wrong type is the schema's error, not copied into a second one
            task["minAvailable"] = minimum
        if not task.get("maxRetry"):
            task["maxRetry"] = _VOLCANO_MAX_RETRY
    if not spec.get("minAvailable") and all(_int(task.get("minAvailable")) is not None for _, task in tasks):
        spec["minAvailable"] = sum(_int(task["minAvailable"]) or 0 for _, task in tasks)
    plugins = spec.get("plugins")
    if isinstance(plugins, dict):
        if any(name in plugins for name in _VOLCANO_SVC_PLUGINS):
            plugins.setdefault("svc", [])
        if "mpi" in plugins:
            plugins.setdefault("ssh", [])


def _task_minimum(task: Mapping[str, Any]) -> int | None:
    """A task's defaulted ``minAvailable``: minPartitions x partitionSize when minPartitions is set, else replicas.

    ``None`` when ``replicas`` is not an integer: the webhook sees a decoded
    object, so such a task never reaches it; the schema check reports it.
    """
    partition = task.get("partitionPolicy")
    if isinstance(partition, Mapping):
        partitions, size = _int(partition.get("minPartitions")), _int(partition.get("partitionSize"))
        if partitions and size is not None:
            return partitions * size
    replicas = task.get("replicas", 0)
    return 0 if replicas is None else _int(replicas)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


_BY_KIND: dict[tuple[str, str], Callable[[dict[str, Any]], None]] = {
    ("jobset.x-k8s.io", "JobSet"): _jobset,
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): _lws,
    ("trainer.kubeflow.org", "TrainJob"): _train_job,
    ("batch.volcano.sh", "Job"): _volcano_job,
}
