"""Input documents that know where they are from, and what is said of each: notices, skips, unknown kinds, plans.

A command reads manifests from files; a library user may hold them in
memory. Either way each document is a ``SourcedDocument``: the object and
its place (a source name, the document's number in it, its item in a
``List``), so every message about it can start ``file (document N)
Kind/name``. The functions here are the words every command and
``validate_documents`` say of such documents: a built-in kind with no
gang-scheduling content is skipped with a note, one no adapter knows with
an ``unknown-kind`` warning, and an adapter's warnings become ``Notice``
records a caller can filter by kind.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from workloadbuilder._internal import kinds
from workloadbuilder.adapters._shared.strict import has_schema
from workloadbuilder.adapters.base import Finding, Plan, adapter_for, planned_name
from workloadbuilder.errors import WorkloadBuilderError

__all__ = [
    "NO_SCHEDULING_CONTENT",
    "RELATED_KINDS",
    "DocumentRefusedError",
    "Notice",
    "SourcedDocument",
    "about_document",
    "plan_notices",
    "plans_of",
    "runtime_kind",
    "skipped_note",
    "unknown_kinds",
    "unknown_note",
]


NO_SCHEDULING_CONTENT: frozenset[tuple[str, str]] = frozenset(
    [
        ("", kind)
        for kind in (
            "ConfigMap",
            "Secret",
            "Service",
            "ServiceAccount",
            "PersistentVolumeClaim",
            "PersistentVolume",
            "Namespace",
            "Node",
            "Event",
            "Endpoints",
            "LimitRange",
            "ResourceQuota",
            "Pod",
            "PodTemplate",
            "ReplicationController",
        )
    ]
    + [("apps", kind) for kind in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ControllerRevision")]
    + [("batch", "CronJob"), ("autoscaling", "HorizontalPodAutoscaler"), ("policy", "PodDisruptionBudget")]
    + [("networking.k8s.io", kind) for kind in ("NetworkPolicy", "Ingress", "IngressClass")]
    + [("rbac.authorization.k8s.io", kind) for kind in ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding")]
    + [("scheduling.k8s.io", "PriorityClass"), ("node.k8s.io", "RuntimeClass"), ("storage.k8s.io", "StorageClass")]
    + [("resource.k8s.io", kind) for kind in ("ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "ResourceSlice")]
    + [("storage.k8s.io", kind) for kind in ("CSIDriver", "CSINode", "VolumeAttachment")]
    + [("discovery.k8s.io", "EndpointSlice"), ("events.k8s.io", "Event")]
    + [("apiextensions.k8s.io", "CustomResourceDefinition"), ("coordination.k8s.io", "Lease")]
    + [
        ("admissionregistration.k8s.io", kind)
        for kind in (
            "MutatingWebhookConfiguration",
            "ValidatingWebhookConfiguration",
            "ValidatingAdmissionPolicy",
            "ValidatingAdmissionPolicyBinding",
            "MutatingAdmissionPolicy",
            "MutatingAdmissionPolicyBinding",
        )
    ]
)
"""Built-in ``(group, kind)`` pairs with no gang-scheduling content: skipped with a note, never refused.

Pods and the workload controllers here (Deployment, StatefulSet, CronJob, ...)
make pods, but no Workload or PodGroup; a Pod that names a PodGroup
(``spec.schedulingGroup``) is not skipped: ``place`` reads it with that group.
"""


@dataclass(frozen=True)
class Notice:
    """One warning or note: its kind, its text, and the field it is about (``()``: the object).

    The kinds are stable ids a caller may filter on: ``uid``, ``lossy``,
    ``unknown-kind``, ``unused`` and ``skipped`` (a note, never a failure).
    """

    kind: str
    text: str
    loc: tuple[str | int, ...] = ()


@dataclass(frozen=True)
class SourcedDocument:
    """One parsed document and where it came from.

    Attributes:
        source: the file name (``<stdin>`` for standard input), or any name a caller gives its documents.
        number: the document's number in its source, from 1.
        data: the parsed document.
        item: the object's position in its document's ``List`` (from 1), if the document is a list.
    """

    source: str
    number: int
    data: Any
    item: int | None = None

    @property
    def kind(self) -> str:
        """The document's ``kind`` ("" when it has none)."""
        return str(self.data.get("kind", "")) if isinstance(self.data, dict) else ""

    @property
    def api_version(self) -> str:
        """The document's ``apiVersion`` ("" when it has none)."""
        return str(self.data.get("apiVersion", "")) if isinstance(self.data, dict) else ""

    @property
    def name(self) -> str:
        """The document's ``metadata.name`` ("" when it has none).

        An object with only ``generateName`` is named as its plan names it
        (``planned_name``: the prefix and a placeholder suffix), in messages
        as in the compiled objects.
        """
        metadata = self.data.get("metadata") if isinstance(self.data, dict) else None
        return str(planned_name(metadata)[0] or "") if isinstance(metadata, dict) else ""

    @property
    def namespace(self) -> str:
        """The document's ``metadata.namespace`` ("" when it names none)."""
        metadata = self.data.get("metadata") if isinstance(self.data, dict) else None
        namespace = metadata.get("namespace") if isinstance(metadata, dict) else None
        return namespace if isinstance(namespace, str) else ""

    @property
    def is_scheduling_object(self) -> bool:
        """Whether this is a Workload, PodGroup or CompositePodGroup (of a served or removed version)."""
        return self.api_version.startswith(kinds.GROUP + "/") and self.kind in kinds.PREFERRED_VERSION

    @property
    def has_no_scheduling_content(self) -> bool:
        """Whether this is a built-in kind of ``NO_SCHEDULING_CONTENT`` (a Service, a ConfigMap, RBAC, ...)."""
        group, slash, _ = self.api_version.rpartition("/")
        path = self.pod_spec_path
        if path is not None and (_malformed(self.data, path) or _has(self.data, *path, "schedulingGroup")):
            return False  # a member of a PodGroup, or malformed: its reader says so, rather than skipping it
        return bool(slash or self.api_version) and (group, self.kind) in NO_SCHEDULING_CONTENT

    @property
    def pod_spec_path(self) -> tuple[str, ...] | None:
        """Where the pod spec is in a Pod, or in a built-in controller whose pods may join a PodGroup (``None``: no
        such kind).

        Such an object that sets ``spec.schedulingGroup`` there is checked with
        the pod rules (``validate``); without it, it is a built-in kind with no
        gang-scheduling content.
        """
        if not self.api_version:
            return None
        return _POD_SPECS.get((self.api_version.rpartition("/")[0], self.kind))

    def where(self) -> str:
        """``file (document N)`` (``file (document N, item M)`` in a list), for messages."""
        inside = "" if self.item is None else f", item {self.item}"
        return f"{self.source} (document {self.number}{inside})"

    def about(self) -> str:
        """``file (document N) Kind/name``: the document and the object it holds, for messages about it."""
        what = f"{self.kind or 'object'}/{self.name}" if self.name else self.kind or "object"
        return f"{self.where()} {what}"


class DocumentRefusedError(WorkloadBuilderError, ValueError):
    """The library refused one document's object; the message starts with ``file (document N) Kind/name``."""


@contextmanager
def about_document(doc: SourcedDocument) -> Iterator[None]:
    """Turn the library's refusal of one document's object into an error that names the document.

    Raises:
        DocumentRefusedError: ``file (document N) Kind/name: <the library's message on one line>``.
    """
    try:
        yield
    except DocumentRefusedError:
        raise
    except WorkloadBuilderError as problem:
        text = str(problem).strip()
        said = text.replace("\n", "; ") if text else type(problem).__name__
        raise DocumentRefusedError(f"{doc.about()}: {said}") from problem


def skipped_note(doc: SourcedDocument) -> str:
    """The note for a document of ``NO_SCHEDULING_CONTENT``: what it is, and that it was skipped."""
    return f"{doc.about()}: {doc.kind} ({doc.api_version}) has no gang-scheduling content; skipped"


def unknown_kinds(documents: Sequence[SourcedDocument], used: Collection[str] = ()) -> list[SourcedDocument]:
    """The documents no command reads, in input order: every command skips each with ``unknown_note``.

    A document is of an unknown kind when no adapter plans it (``--mapping``
    registers one), it is no Workload, PodGroup or CompositePodGroup, no
    built-in kind without gang-scheduling content (those get ``skipped_note``),
    no object with a bundled schema (a runtime, another scheduler's PodGroup),
    no Pod or built-in controller of pods (one whose pods join a PodGroup is
    checked with it) and not the ``Kind/name`` of an object a plan read
    (``used``).
    """
    return [
        doc
        for doc in documents
        if adapter_for(doc.api_version, doc.kind) is None
        and not doc.is_scheduling_object
        and not doc.has_no_scheduling_content
        and not has_schema(doc.data)
        and doc.pod_spec_path is None
        and f"{doc.kind}/{doc.name}" not in used
    ]


def unknown_note(doc: SourcedDocument) -> str:
    """The warning for a document of an unknown kind (``unknown_kinds``): what it is, that it was skipped, what helps.

    Every command says these words of such a document, and goes on with the others.
    """
    return (
        f"{doc.about()}: no adapter for apiVersion {doc.api_version!r} kind {doc.kind!r}; skipped "
        "(--mapping FILE describes a custom resource)"
    )


def plan_notices(where: str, findings: Iterable[Finding], object_ref: str, namespace: str = "") -> list[Notice]:
    """An adapter's warnings about one planned object, in words a user can act on.

    ``where`` is ``file (document N)``, ``object_ref`` the planned object's
    ``Kind/name``, ``namespace`` its namespace (for the ``kubectl get``
    the uid notice suggests). A missing uid on the object itself becomes one plain
    ``uid`` notice; the warning that the Workload does not exist yet (a root
    Job's PodGroups are then owned by the Job alone) is left out: offline, no
    Workload ever exists, and the object's own uid is all a manifest can
    carry. Every other warning is ``lossy``.
    """
    about = f"{where} {object_ref}"
    notices = []
    for finding in findings:
        mine = finding.object == object_ref
        if str(finding.error.field) == "metadata.uid":
            if mine:
                kind, _, name = object_ref.partition("/")
                notices.append(Notice("uid", _no_uid(about, kind, name, namespace), ("metadata",)))
            continue
        text = f"{about}: {finding.error if mine else finding}"
        notices.append(Notice("lossy", text, finding.error.loc() if mine else ()))
    return notices


def _no_uid(about: str, kind: str, name: str, namespace: str) -> str:
    where = f" -n {namespace}" if namespace else ""
    return (
        f"{about}: no metadata.uid (the object was never created), so the Workload and group names are not the "
        f"ones the controller will use; for those, run on the object as the cluster returns it "
        f"(kubectl get {kind.lower()} {name}{where} -o yaml); -W no-uid hides this warning"
    )


_Doc = TypeVar("_Doc", bound=SourcedDocument)

RELATED_KINDS = frozenset({"Workload", "PodGroup", "ClusterTrainingRuntime", "TrainingRuntime"})
"""The kinds a plan reads among its related objects (a Job's Workloads, the PodGroups a JobSet or LWS names,
a TrainJob's runtime), besides the kinds a ``spec.runtimeRef`` names."""


def plans_of(documents: Sequence[_Doc]) -> Iterator[tuple[_Doc, Plan]]:
    """A plan for each document an adapter claims, made when asked for; the other documents are its related objects.

    Only the documents of a kind some plan reads are handed over as related
    objects (a plan skips the others by kind), so that N Jobs cost N plans,
    not N plans each passed over N-1 documents.

    Raises:
        DocumentRefusedError: an adapter refused a document's object (``about_document``).
    """
    wanted = set(RELATED_KINDS)
    for doc in documents:
        spec = doc.data.get("spec") if isinstance(doc.data, dict) else None
        reference = spec.get("runtimeRef") if isinstance(spec, dict) else None
        if isinstance(reference, dict) and isinstance(reference.get("kind"), str):
            wanted.add(reference["kind"])
    readable = [doc for doc in documents if doc.kind in wanted]
    for doc in documents:
        adapter = adapter_for(doc.api_version, doc.kind)
        if adapter is None:
            continue
        related = [other.data for other in readable if other is not doc]
        with about_document(doc):
            plan = adapter.plan(doc.data, related)
        yield doc, plan


def runtime_kind(doc: SourcedDocument) -> str:
    """The kind a document's ``spec.runtimeRef`` names (a TrainJob's runtime), or ``""``."""
    spec = doc.data.get("spec") if isinstance(doc.data, dict) else None
    reference = spec.get("runtimeRef") if isinstance(spec, dict) else None
    kind = reference.get("kind") if isinstance(reference, dict) else None
    return kind if isinstance(kind, str) else ""


_TEMPLATE = ("spec", "template", "spec")
_POD_SPECS: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "Pod"): ("spec",),
    ("", "ReplicationController"): _TEMPLATE,
    **{("apps", kind): _TEMPLATE for kind in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet")},
    ("batch", "CronJob"): ("spec", "jobTemplate", "spec", "template", "spec"),
}
"""Where the pod spec is, by ``(group, kind)``, in the built-in objects whose pods may join a native PodGroup."""


def _malformed(data: Any, keys: Sequence[str]) -> bool:
    """Whether a value on the way to ``keys`` is there but no mapping."""
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
        if data is None:
            return False
        if not isinstance(data, dict):
            return True
    return False


def _has(data: Any, *keys: str) -> bool:
    for key in keys:
        if not isinstance(data, dict) or data.get(key) is None:
            return False
        data = data[key]
    return True
