"""Read what ``doctor`` needs from a cluster, read-only, with every request bounded.

``read_live(client, kind, name, namespace)`` issues only GET (list and read)
requests, through ``workloadbuilder.doctor.transport.ApiReader`` (timeouts,
no redirects, bounded answers, credentials never echoed), and returns a
``LiveState``: plain Kubernetes JSON dicts, as ``kubectl get -o json`` prints
them (each list item carries its ``kind`` and ``apiVersion``), so the
diagnosis in ``workloadbuilder.doctor.diagnose`` can be tested without a
server. An answer of the wrong shape (a list where an object belongs, items
that are not objects, an object of another kind) is refused with the path it
came from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from workloadbuilder._internal.gofmt import capped
from workloadbuilder.doctor.transport import ApiReader, ApiReadError, ReadLimits, type_name
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
    "vcjob": ObjectKind("batch.volcano.sh", "v1alpha1", "jobs", "Job"),
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
        raise DoctorInputError(f"{capped(repr(target))}: expected KIND/NAME, e.g. jobset/llm-pretrain")
    word = kind_text.lower().split(".", 1)[0]
    for key, kind in KINDS.items():
        if word in (key, kind.plural, kind.kind.lower()):
            return kind, name
    known = ", ".join(sorted({kind.kind for kind in KINDS.values()}))
    raise DoctorInputError(f"unknown kind {capped(repr(kind_text))}: doctor reads {known}")


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


def read_live(client: Any, kind: ObjectKind, name: str, namespace: str, limits: ReadLimits | None = None) -> LiveState:
    """Read the target and its surroundings with GET requests only.

    Args:
        client: an ``ApiReader``, or a kubernetes client ``ApiClient`` (or ``Configuration``) to read
            through a new one (with ``limits``).
        kind: the target's kind (``parse_target`` gives it, with its name).
        name: the target's name.
        namespace: the target's namespace.
        limits: the bounds of the requests when ``client`` is not an ``ApiReader`` (defaults otherwise).

    A list whose API the server does not serve (404, e.g. no v1alpha3 or no
    DRA) reads as empty.

    Raises:
        DoctorInputError: the target does not exist (the apiserver's 404 message).
        ApiReadError: any other failure: the server refused a read (403 names what), did not answer in
            time, redirected, sent too much, or sent what is not JSON of the expected shape.
    """
    if not isinstance(kind, ObjectKind):
        raise TypeError(f"read_live(): kind must be an ObjectKind, not {type(kind).__name__}")
    for label, value in (("name", name), ("namespace", namespace)):
        if not isinstance(value, str):
            raise TypeError(f"read_live(): {label} must be a str, not {type(value).__name__}")
    if isinstance(client, ApiReader):
        return _read(client, kind, name, namespace)
    configuration = getattr(client, "configuration", client)
    if not hasattr(configuration, "host"):
        raise TypeError(
            f"read_live(): client must be an ApiReader, ApiClient or Configuration, not {type(client).__name__}"
        )
    with ApiReader(configuration, limits) as reader:
        return _read(reader, kind, name, namespace)


def _read(reader: ApiReader, kind: ObjectKind, name: str, namespace: str) -> LiveState:
    ns = quote(namespace, safe="")
    target_path = f"{_prefix(kind)}/namespaces/{ns}/{kind.plural}/{quote(name, safe='')}"
    status, target = reader.get(target_path)
    if status == 404:
        raise DoctorInputError(_not_found(reader, target, kind, name, namespace))
    _check_status(reader, status, target, target_path, f"read {_resource(kind)} {name!r} in namespace {namespace!r}")
    target = _object(reader, target, target_path, kind)

    def listed(of: ObjectKind, path: str, scope: str) -> list[dict[str, Any]]:
        return _items(reader, of, path, scope)

    in_namespace = f"in namespace {namespace!r}"
    return LiveState(
        target=target,
        workloads=listed(WORKLOAD, f"{_prefix(WORKLOAD)}/namespaces/{ns}/workloads", in_namespace),
        pod_groups=listed(POD_GROUP, f"{_prefix(POD_GROUP)}/namespaces/{ns}/podgroups", in_namespace),
        composite_pod_groups=listed(
            COMPOSITE_POD_GROUP, f"{_prefix(COMPOSITE_POD_GROUP)}/namespaces/{ns}/compositepodgroups", in_namespace
        ),
        pods=listed(_core("Pod"), "/api/v1/pods", "in all namespaces"),
        events=listed(_core("Event"), f"/api/v1/namespaces/{ns}/events", in_namespace),
        nodes=listed(_core("Node"), "/api/v1/nodes", "at the cluster scope"),
        priority_classes=listed(_PRIORITY_CLASS, f"{_prefix(_PRIORITY_CLASS)}/priorityclasses", "at the cluster scope"),
        disruption_budgets=listed(_PDB, f"{_prefix(_PDB)}/poddisruptionbudgets", "in all namespaces"),
        resource_slices=listed(RESOURCE_SLICE, f"{_prefix(RESOURCE_SLICE)}/resourceslices", "at the cluster scope"),
    )


_PRIORITY_CLASS = ObjectKind(_SCHEDULING, "v1", "priorityclasses", "PriorityClass")
_PDB = ObjectKind("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget")


def _core(kind: str) -> ObjectKind:
    return ObjectKind("", "v1", kind.lower() + "s", kind)


def _prefix(kind: ObjectKind) -> str:
    """The URL path of a kind's API: ``/api/v1`` for the core group, ``/apis/GROUP/VERSION`` otherwise."""
    return f"/apis/{kind.group}/{kind.version}" if kind.group else f"/api/{kind.version}"


def _resource(kind: ObjectKind) -> str:
    """``plural.group`` as the apiserver names a resource (``pods`` for the core group)."""
    return f"{kind.plural}.{kind.group}" if kind.group else kind.plural


def _server_message(reader: ApiReader, body: Any) -> str | None:
    """A ``Status`` answer's ``message``, redacted and capped; ``None`` when there is none."""
    message = body.get("message") if isinstance(body, Mapping) else None
    return reader.redact(message) if isinstance(message, str) and message.strip() else None


_REASONS = {401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 429: "Too Many Requests"}


def _check_status(reader: ApiReader, status: int, body: Any, path: str, what: str) -> None:
    """Refuse any answer but a 2xx: a 401 or 403 says what was refused, anything else its status."""
    if 200 <= status < 300:
        return
    where = reader.redact(f"GET {reader.server}{path}")
    message = _server_message(reader, body)
    said = f": {message}" if message else ""
    if status in (401, 403):
        words = "did not accept the credentials" if status == 401 else "refused"
        raise ApiReadError(
            f"{where}: the apiserver {words} ({status} {_REASONS[status]}) to {reader.redact(what)}{said}", status
        )
    reason = _REASONS.get(status, "error" if status >= 400 else "unexpected status")
    raise ApiReadError(f"{where}: the apiserver answered {status} ({reason}) to {reader.redact(what)}{said}", status)


def _object(reader: ApiReader, body: Any, path: str, kind: ObjectKind) -> dict[str, Any]:
    """The target as a JSON object of the asked kind."""
    where = reader.redact(f"GET {reader.server}{path}")
    if not isinstance(body, dict):
        raise ApiReadError(f"{where}: expected a {kind.kind} object, the apiserver sent {type_name(body)}", 200)
    found = body.get("kind")
    if found is not None and found != kind.kind:
        shown = reader.redact(found, 200) if isinstance(found, str) else type_name(found)
        raise ApiReadError(f"{where}: expected a {kind.kind}, the apiserver sent kind {shown!r}", 200)
    if not isinstance(body.get("metadata", {}), dict):
        raise ApiReadError(f"{where}: metadata: expected an object, found {type_name(body['metadata'])}", 200)
    return {"apiVersion": kind.api_version, "kind": kind.kind, **body}


def _items(reader: ApiReader, kind: ObjectKind, path: str, scope: str) -> list[dict[str, Any]]:
    """A list's items, each with its ``kind`` and ``apiVersion`` (as kubectl adds them); [] when not served."""
    status, answer = reader.get(path)
    if status == 404:
        return []
    _check_status(reader, status, answer, path, f"list {_resource(kind)} {scope}")
    where = reader.redact(f"GET {reader.server}{path}")
    if not isinstance(answer, dict):
        raise ApiReadError(f"{where}: expected a {kind.kind}List object, the apiserver sent {type_name(answer)}", 200)
    items = answer.get("items")
    if items is None:
        return []
    if not isinstance(items, list):
        raise ApiReadError(f"{where}: items: expected a list, found {type_name(items)}", 200)
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise ApiReadError(f"{where}: items[{index}]: expected a {kind.kind} object, found {type_name(item)}", 200)
    return [{"apiVersion": kind.api_version, "kind": kind.kind, **item} for item in items]


def _not_found(reader: ApiReader, body: Any, kind: ObjectKind, name: str, namespace: str) -> str:
    message = _server_message(reader, body) or reader.redact(f'{_resource(kind)} "{name}" not found')
    return f"{message} in namespace {reader.redact(repr(namespace))}"
