"""Read what ``doctor`` needs from a cluster, read-only, through the official kubernetes client.

``read_live(api_client, kind, name, namespace)`` issues only GET (list and
read) requests and returns a ``LiveState``: plain Kubernetes JSON dicts, as
``kubectl get -o json`` prints them (each list item carries its ``kind`` and
``apiVersion``), so the diagnosis in ``workloadbuilder.doctor.diagnose`` can
be tested without a server.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from kubernetes.client import (
    ApiClient,
    BatchV1Api,
    CoreV1Api,
    CustomObjectsApi,
    PolicyV1Api,
    SchedulingV1Api,
)
from kubernetes.client.exceptions import ApiException

from workloadbuilder.errors import WorkloadBuilderError

__all__ = ["KINDS", "DoctorInputError", "LiveState", "ObjectKind", "parse_target", "read_live"]


class DoctorInputError(WorkloadBuilderError, LookupError):
    """A target ``doctor`` cannot look at: an unknown kind, or no such object (one line, exit 2)."""


@dataclass(frozen=True)
class ObjectKind:
    """A kind ``doctor`` reads: its API group, version, resource plural and ``Kind``."""

    group: str
    version: str
    plural: str
    kind: str

    @property
    def api_version(self) -> str:
        """``group/version`` (just ``version`` for the core group)."""
        return f"{self.group}/{self.version}" if self.group else self.version


_SCHEDULING = "scheduling.k8s.io"
WORKLOAD = ObjectKind(_SCHEDULING, "v1beta1", "workloads", "Workload")
POD_GROUP = ObjectKind(_SCHEDULING, "v1beta1", "podgroups", "PodGroup")
COMPOSITE_POD_GROUP = ObjectKind(_SCHEDULING, "v1alpha3", "compositepodgroups", "CompositePodGroup")
RESOURCE_SLICE = ObjectKind("resource.k8s.io", "v1", "resourceslices", "ResourceSlice")

KINDS: Mapping[str, ObjectKind] = {
    "job": ObjectKind("batch", "v1", "jobs", "Job"),
    "jobset": ObjectKind("jobset.x-k8s.io", "v1alpha2", "jobsets", "JobSet"),
    "leaderworkerset": ObjectKind("leaderworkerset.x-k8s.io", "v1", "leaderworkersets", "LeaderWorkerSet"),
    "lws": ObjectKind("leaderworkerset.x-k8s.io", "v1", "leaderworkersets", "LeaderWorkerSet"),
    "trainjob": ObjectKind("trainer.kubeflow.org", "v1alpha1", "trainjobs", "TrainJob"),
    "workload": WORKLOAD,
    "podgroup": POD_GROUP,
}
"""What ``KIND`` in ``KIND/NAME`` may be (case-insensitive; a plural or ``kind.group`` works too)."""


def parse_target(target: str) -> tuple[ObjectKind, str]:
    """``KIND/NAME`` as kubectl spells it (``jobset/x``, ``JobSets/x``, ``jobsets.jobset.x-k8s.io/x``).

    Raises:
        DoctorInputError: not ``KIND/NAME``, or a kind ``doctor`` does not read.
    """
    kind_text, slash, name = target.partition("/")
    if not slash or not kind_text or not name or "/" in name:
        raise DoctorInputError(f"{target!r}: expected KIND/NAME, e.g. jobset/llm-pretrain")
    word = kind_text.lower().split(".", 1)[0]
    for key, kind in KINDS.items():
        if word in (key, kind.plural, kind.kind.lower()):
            return kind, name
    known = ", ".join(sorted({kind.kind for kind in KINDS.values()}))
    raise DoctorInputError(f"unknown kind {kind_text!r}: doctor reads {known}")


@dataclass(frozen=True)
class LiveState:
    """Everything ``diagnose`` looks at, as Kubernetes JSON dicts.

    Attributes:
        target: the object asked about (a Job, JobSet, LeaderWorkerSet, TrainJob, Workload or PodGroup).
        workloads / pod_groups / composite_pod_groups: the scheduling objects of the target's namespace.
        pods: every pod of the cluster (the target's and the ones that take capacity).
        events: the events of the target's namespace.
        nodes, priority_classes, disruption_budgets, resource_slices: the cluster.
    """

    target: dict[str, Any]
    workloads: list[dict[str, Any]]
    pod_groups: list[dict[str, Any]]
    composite_pod_groups: list[dict[str, Any]]
    pods: list[dict[str, Any]]
    events: list[dict[str, Any]]
    nodes: list[dict[str, Any]]
    priority_classes: list[dict[str, Any]]
    disruption_budgets: list[dict[str, Any]]
    resource_slices: list[dict[str, Any]]


def read_live(api_client: ApiClient, kind: ObjectKind, name: str, namespace: str) -> LiveState:
    """Read the target and its surroundings with GET requests only.

    A list whose API the server does not serve (404, e.g. no v1alpha3 or no
    DRA) reads as empty.

    Raises:
        DoctorInputError: the target does not exist (the apiserver's 404 message).
        ApiException: any other refusal (403 Forbidden...), as the client raises it.
    """
    custom = CustomObjectsApi(api_client)
    core = CoreV1Api(api_client)
    try:
        if kind.group == "batch":
            target = _json(BatchV1Api(api_client).read_namespaced_job(name, namespace, _preload_content=False))
        else:
            target = _json(
                custom.get_namespaced_custom_object(
                    kind.group, kind.version, namespace, kind.plural, name, _preload_content=False
                )
            )
    except ApiException as err:
        if err.status == 404:
            raise DoctorInputError(_not_found(err, kind, name, namespace)) from None
        raise

    def scheduling(of: ObjectKind) -> list[dict[str, Any]]:
        return _items(lambda: custom.list_namespaced_custom_object(of.group, of.version, namespace, of.plural), of)

    return LiveState(
        target=target,
        workloads=scheduling(WORKLOAD),
        pod_groups=scheduling(POD_GROUP),
        composite_pod_groups=scheduling(COMPOSITE_POD_GROUP),
        pods=_items(lambda: _json(core.list_pod_for_all_namespaces(_preload_content=False)), _core("Pod")),
        events=_items(lambda: _json(core.list_namespaced_event(namespace, _preload_content=False)), _core("Event")),
        nodes=_items(lambda: _json(core.list_node(_preload_content=False)), _core("Node")),
        priority_classes=_items(
            lambda: _json(SchedulingV1Api(api_client).list_priority_class(_preload_content=False)),
            ObjectKind(_SCHEDULING, "v1", "priorityclasses", "PriorityClass"),
        ),
        disruption_budgets=_items(
            lambda: _json(
                PolicyV1Api(api_client).list_pod_disruption_budget_for_all_namespaces(_preload_content=False)
            ),
            ObjectKind("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget"),
        ),
        resource_slices=_items(
            lambda: custom.list_cluster_custom_object(
                RESOURCE_SLICE.group, RESOURCE_SLICE.version, RESOURCE_SLICE.plural
            ),
            RESOURCE_SLICE,
        ),
    )


def _core(kind: str) -> ObjectKind:
    return ObjectKind("", "v1", kind.lower() + "s", kind)


def _json(response: Any) -> dict[str, Any]:
    """The body of a response read with ``_preload_content=False``: the server's JSON, untouched."""
    body: dict[str, Any] = json.loads(response.data)
    return body


def _items(read: Callable[[], Any], kind: ObjectKind) -> list[dict[str, Any]]:
    """A list's items, each with its ``kind`` and ``apiVersion`` (as kubectl adds them); [] when not served."""
    try:
        answer = read()
    except ApiException as err:
        if err.status == 404:
            return []
        raise
    items = answer.get("items") or [] if isinstance(answer, Mapping) else []
    return [{"apiVersion": kind.api_version, "kind": kind.kind, **item} for item in items]


def _not_found(err: ApiException, kind: ObjectKind, name: str, namespace: str) -> str:
    try:
        message = json.loads(err.body or "")["message"]
    except (ValueError, KeyError, TypeError):
        resource = f"{kind.plural}.{kind.group}" if kind.group else kind.plural
        message = f'{resource} "{name}" not found'
    return f"{message} in namespace {namespace!r}"
