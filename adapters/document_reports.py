"""Validating a set of manifest documents as ``workloadbuilder validate`` does, as a library call.

``validate_documents`` judges every object of the input the way a
Kubernetes 1.37 apiserver (and the controllers' webhooks) would, one
``ObjectReport`` per object in input order: Workloads, PodGroups and
CompositePodGroups with the apiserver's rules; each object an adapter plans
(Job, JobSet, LeaderWorkerSet, TrainJob, Volcano Job, a mapped custom
resource) through its plan, a finding about another object (a TrainJob's
runtime) reported at that object's document; an object with a bundled
schema nothing uses by its fields alone; a Pod or built-in controller whose
pods join a PodGroup with the pod rules. A built-in kind with no
gang-scheduling content, a kind the caller skips, and a kind no adapter
knows are reported as not checked, each with its note.

This is the adapters' layer (it plans documents through them), beside
``adapters.documents``, which makes placement requests of the same
documents.

Example:
    >>> from workloadbuilder.adapters.sourced import SourcedDocument
    >>> pod = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}
    >>> job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "uid": "u"},
    ...        "spec": {"parallelism": -1, "template": {"spec": pod}}}
    >>> (report,) = validate_documents([SourcedDocument("jobs.yaml", 1, job)])
    >>> report.about(), [str(error) for error in report.errors]
    ('jobs.yaml (document 1) Job/j', ['spec.parallelism: Invalid value: -1: must be greater than or equal to 0'])
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from workloadbuilder._internal import kinds
from workloadbuilder._internal.gofmt import WholeValue, go_quote, render_bad_value
from workloadbuilder.adapters._shared.pod_rules import pod_spec_errors, pod_spec_type_errors
from workloadbuilder.adapters._shared.strict import has_schema, schema_errors
from workloadbuilder.adapters.base import Plan, adapter_for
from workloadbuilder.adapters.sourced import (
    RELATED_KINDS,
    DocumentRefusedError,
    Notice,
    SourcedDocument,
    about_document,
    plan_notices,
    plans_of,
    runtime_kind,
    skipped_note,
    unknown_kinds,
    unknown_note,
)
from workloadbuilder.adapters.template_rules import template_errors
from workloadbuilder.field import ErrorList, ErrorType, FieldError, FieldPath, type_invalid
from workloadbuilder.limits import MAX_MESSAGE_VALUE, MAX_WHOLE_MESSAGE_VALUE
from workloadbuilder.migration.gangs import is_foreign_pod_group
from workloadbuilder.validation.gates import FeatureGates
from workloadbuilder.validation.objects import validate_composite_pod_group, validate_pod_group, validate_workload

__all__ = ["KNOWN_KINDS", "NothingCheckedError", "ObjectReport", "json_bad_value", "validate_documents"]

_VALIDATORS = {
    kinds.WORKLOAD: validate_workload,
    kinds.POD_GROUP: validate_pod_group,
    kinds.COMPOSITE_POD_GROUP: validate_composite_pod_group,
}

KNOWN_KINDS = (
    "Job, JobSet, LeaderWorkerSet, TrainJob, Volcano Job, a --mapping custom resource, Workload, PodGroup, "
    "CompositePodGroup"
)
"""The kinds ``validate_documents`` checks, as its refusal of an input with none of them names them."""


@dataclass
class ObjectReport:
    """The result of validating one object; ``checked`` is false for an object that was skipped, not judged."""

    source: str
    document: int
    kind: str
    name: str
    errors: ErrorList = field(default_factory=ErrorList)
    notices: list[Notice] = field(default_factory=list)
    checked: bool = True
    item: int | None = None
    """The object's position in its document's ``List`` (from 1), if the document is a list."""

    def about(self) -> str:
        """``file (document N) Kind/name`` (``file (document N, item M) ...`` in a list), for messages about it."""
        return f"{self.source} ({self.document_place()}) {self.kind}/{self.name}"

    def document_place(self) -> str:
        """``document N`` (``document N, item M`` in a list)."""
        return f"document {self.document}" + ("" if self.item is None else f", item {self.item}")

    def kubectl(self) -> str:
        """kubectl's message for a rejected object (``MultilineError`` layout), or ``""`` when valid."""
        if not self.errors:
            return ""
        prefix = f'The {self.kind} "{self.name}" is invalid: '
        texts = list(dict.fromkeys(str(err) for err in self.errors))
        if len(texts) == 1:
            return prefix + texts[0] + "\n"
        return prefix + "\n" + "".join(f"* {text}\n" for text in texts)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready record: where the object is, and each error with its ``loc``."""
        return {
            "source": self.source,
            "document": self.document,
            "kind": self.kind,
            "name": self.name,
            "valid": not self.errors,
            "checked": self.checked,
            "errors": [_error_dict(err) for err in self.errors],
            "warnings": [notice.text for notice in self.notices],
        }


def _error_dict(err: FieldError) -> dict[str, Any]:
    return {
        "type": err.type.value,
        "field": err.field,
        "loc": list(err.loc()),
        "detail": err.detail,
        "badValue": json_bad_value(err.bad_value),
        "message": str(err),
    }


def json_bad_value(value: Any) -> Any:
    """A field error's bad value as JSON keeps it: of its own type, within the cap every echo has.

    ``null``, booleans, numbers and strings stay what they are (``5``, not
    ``"5"``); a list or mapping stays one when the message's rendering of it
    is whole. What JSON cannot hold or the cap cuts is the message's text of
    it: a longer string is its first ``limits.MAX_MESSAGE_VALUE`` characters
    and ``...``, NaN and the infinities Go's words (``NaN``, ``+Inf``), a
    cut list or mapping its rendering up to the cap.

    Examples:
        >>> json_bad_value(5), json_bad_value("5"), json_bad_value(None), json_bad_value([1, {"a": True}])
        (5, '5', None, [1, {'a': True}])
        >>> json_bad_value(float("nan")), json_bad_value("x" * 2000)[-5:]
        ('NaN', 'xx...')
    """
    whole = value.value if isinstance(value, WholeValue) else value
    if whole is None or isinstance(whole, bool):
        return whole
    text = render_bad_value(value)
    if isinstance(whole, str):
        cap = MAX_WHOLE_MESSAGE_VALUE if isinstance(value, WholeValue) else MAX_MESSAGE_VALUE
        return whole if len(whole) <= cap else f"{whole[:cap]}..."
    if isinstance(whole, float):
        return whole if math.isfinite(whole) else text
    if text.endswith("...") or isinstance(whole, BaseException):
        return text
    if isinstance(whole, int):
        return whole
    try:
        return json.loads(text)
    except ValueError:
        return text


class NothingCheckedError(DocumentRefusedError):
    """No object of the input was of a kind that is checked: a set that cannot pass by being the wrong files.

    ``reports`` holds the objects of unknown kinds, each with its ``unknown-kind`` notice.
    """

    def __init__(self, message: str, reports: Sequence[ObjectReport]) -> None:
        super().__init__(message)
        self.reports = list(reports)


def validate_documents(
    documents: Sequence[SourcedDocument],
    gates: FeatureGates | None = None,
    skip: Collection[str] = (),
) -> list[ObjectReport]:
    """One report per object of ``documents``, in their order: the apiserver's verdict, or why it was not checked.

    Args:
        documents: the input, each document with where it is from.
        gates: the Kubernetes 1.37 feature gates the checks run with (default: all on).
        skip: kinds (``Kind`` or ``apiVersion/Kind``) reported as not checked, with a ``skipped`` note.

    Raises:
        NothingCheckedError: no object is of a kind that is checked (only unknown kinds, say).
        DocumentRefusedError: an adapter refused an object outright, named by its document.
    """
    gates = gates or FeatureGates.all()
    kept = [doc for doc in documents if _skipped_by(doc, skip) is None]
    reports = [_object_report(doc, gates) for doc in kept if doc.is_scheduling_object]
    used: set[str] = set()
    by_name: dict[tuple[str, str], SourcedDocument] = {}
    for doc in kept:
        by_name.setdefault((doc.kind, doc.name), doc)  # the first of a name, where a plan's findings about it go
    shadowed = _shadowed(kept, by_name)
    users: dict[str, list[SourcedDocument]] = {}
    for doc, plan in plans_of(kept):
        # Each plan is judged and let go: kept until the end, the plans of N documents cost the collector
        # a walk over all of them at every full collection, so validating grew faster than its input.
        reports.extend(_plan_reports(doc, plan, by_name))
        used.update(plan.uses)
        for ref in plan.uses:
            if ref in shadowed:
                users.setdefault(ref, []).append(doc)
    for ref, copies in shadowed.items():
        reports.extend(_shadow_report(copy, by_name, kept, users.get(ref, [])) for copy in copies)
    reports = _merged(reports)
    judged = {id(copy) for listed in shadowed.values() for copy in listed}
    unclaimed = [doc for doc in _unclaimed(kept, used) if id(doc) not in judged]  # judged above
    reports.extend(_skipped_report(doc) for doc in unclaimed if doc.has_no_scheduling_content)
    reports.extend(_skipped_report(doc, by) for doc in documents if (by := _skipped_by(doc, skip)) is not None)
    unclaimed = [doc for doc in unclaimed if not doc.has_no_scheduling_content]
    reports.extend(_schema_report(doc) for doc in unclaimed if has_schema(doc.data))
    reports.extend(_member_report(doc) for doc in unclaimed if doc.pod_spec_path is not None)
    unknown = [_unknown_report(doc) for doc in unknown_kinds(unclaimed, used)]
    if not reports:
        sources = ", ".join(dict.fromkeys(doc.source for doc in documents))
        raise NothingCheckedError(
            f"{sources}: no object was checked: none is of a kind validate knows ({KNOWN_KINDS})", unknown
        )
    reports.extend(unknown)
    order = {(doc.source, doc.number, doc.item): i for i, doc in enumerate(documents)}
    reports.sort(key=lambda r: order.get((r.source, r.document, r.item), len(order)))  # in input order
    return reports


def _unknown_report(doc: SourcedDocument) -> ObjectReport:
    notice = Notice("unknown-kind", unknown_note(doc))
    return ObjectReport(doc.source, doc.number, doc.kind or "object", doc.name, ErrorList(), [notice], False, doc.item)


def _unclaimed(documents: Sequence[SourcedDocument], used: Collection[str] = ()) -> list[SourcedDocument]:
    """Documents no adapter plans and no plan read: ``used`` holds the ``Kind/name`` of every object a plan read.

    A TrainJob's runtime is checked through the TrainJob, so it is not unclaimed.
    """
    return [
        doc
        for doc in documents
        if adapter_for(doc.api_version, doc.kind) is None
        and not doc.is_scheduling_object
        and f"{doc.kind}/{doc.name}" not in used
    ]


def _schema_report(doc: SourcedDocument) -> ObjectReport:
    """An object with a schema but nothing to plan on its own (a runtime no TrainJob uses): its fields are checked."""
    note = Notice("unused", f"{doc.about()}: no object in the input uses this {doc.kind}: only its fields were checked")
    if is_foreign_pod_group(doc.data):
        text = (
            f"{doc.about()}: another scheduler's PodGroup: only its fields were checked; "
            "workloadbuilder migrate turns it into a native Workload and PodGroup"
        )
        note = Notice("unused", text)
    errors = schema_errors(doc.data)
    errors.extend(template_errors(doc.data))  # a runtime's webhook and its pods' rules apply whoever uses it
    return ObjectReport(doc.source, doc.number, doc.kind, doc.name, errors, [note], item=doc.item)


def _member_report(doc: SourcedDocument) -> ObjectReport:
    """A Pod, or a built-in controller's pod template, that joins a PodGroup (``schedulingGroup`` in the pod spec):
    its group reference and its pod spec, as the apiserver judges a pod's spec, at the object's own paths."""
    errors = ErrorList()
    spec: Any = doc.data
    path: FieldPath | None = None
    for key in doc.pod_spec_path or ():
        path = FieldPath(key) if path is None else path.child(key)
        spec = spec.get(key)
        if not isinstance(spec, Mapping):
            errors.append(type_invalid(path, spec, "must be of type object"))
            return ObjectReport(doc.source, doc.number, doc.kind, doc.name, errors, item=doc.item)
    assert path is not None
    group = spec.get("schedulingGroup")
    at = path.child("schedulingGroup")
    if not isinstance(group, Mapping):
        errors.append(type_invalid(at, group, "must be of type object"))
    elif not isinstance(group.get("podGroupName"), str | None):
        errors.append(type_invalid(at.child("podGroupName"), group.get("podGroupName"), "must be of type string"))
    errors.extend(pod_spec_type_errors(spec, path))  # no bundled schema says these: a Pod's kinds have none
    errors.extend(pod_spec_errors(spec, path))
    return ObjectReport(doc.source, doc.number, doc.kind, doc.name, errors, item=doc.item)


def _skipped_report(doc: SourcedDocument, by: str = "") -> ObjectReport:
    """A built-in object with no gang-scheduling content, or one ``skip`` names (``by``): not checked, one note,
    never a failure."""
    note = Notice("skipped", f"{doc.about()}: not checked (--skip {by})" if by else skipped_note(doc))
    return ObjectReport(doc.source, doc.number, doc.kind, doc.name, ErrorList(), [note], False, doc.item)


def _skipped_by(doc: SourcedDocument, skip: Collection[str]) -> str | None:
    """The ``skip`` entry that names the document's kind (``Kind`` or ``apiVersion/Kind``), or None."""
    for spec in (doc.kind, f"{doc.api_version}/{doc.kind}"):
        if doc.kind and spec in skip:
            return spec
    return None


def _object_report(doc: SourcedDocument, gates: FeatureGates) -> ObjectReport:
    errors = _VALIDATORS[doc.kind](doc.data, gates=gates)
    return ObjectReport(doc.source, doc.number, doc.kind, doc.name, errors, item=doc.item)


def _plan_reports(
    doc: SourcedDocument, plan: Plan, by_name: Mapping[tuple[str, str], SourcedDocument]
) -> list[ObjectReport]:
    """One report per object a plan's findings are about (a TrainJob's runtime gets its own).

    ``by_name`` is the first input document of each ``(kind, name)``: a
    finding about another object is reported at its document.
    """
    # A used PodGroup has its own report as a scheduling object; a used runtime is checked only through the plan.
    used = [ref for ref in plan.uses if ref.partition("/")[0] not in kinds.PREFERRED_VERSION]
    by_object: dict[str, ErrorList] = {ref: ErrorList() for ref in (plan.object_ref, *used)}
    for finding in plan.validate():
        by_object.setdefault(finding.object, ErrorList()).append(finding.error)
    notices = plan_notices(doc.where(), plan.warnings, plan.object_ref, doc.namespace)
    reports = []
    for ref, errors in by_object.items():
        kind, _, name = ref.partition("/")
        mine = ref == plan.object_ref
        home = doc if mine else by_name.get((kind, name), doc)
        reports.append(
            ObjectReport(home.source, home.number, kind, name, errors, notices if mine else [], item=home.item)
        )
    return reports


def _shadowed(
    documents: Sequence[SourcedDocument], by_name: Mapping[tuple[str, str], SourcedDocument]
) -> dict[str, list[SourcedDocument]]:
    """The runtimes (objects a plan reads, with no report of their own) given again after the first of their name.

    A plan reads the first of a name (``by_name``); each later one is judged
    apart (``_shadow_report``), by ``Kind/name``.
    """
    wanted = set(RELATED_KINDS) | {runtime_kind(doc) for doc in documents} - {""}
    shadowed: dict[str, list[SourcedDocument]] = {}
    for doc in documents:
        if doc.kind not in wanted or doc.is_scheduling_object or adapter_for(doc.api_version, doc.kind) is not None:
            continue
        if by_name.get((doc.kind, doc.name)) is not doc:
            shadowed.setdefault(f"{doc.kind}/{doc.name}", []).append(doc)
    return shadowed


def _shadow_report(
    copy: SourcedDocument,
    by_name: Mapping[tuple[str, str], SourcedDocument],
    documents: Sequence[SourcedDocument],
    users: list[SourcedDocument],
) -> ObjectReport:
    """A later definition of a runtime's name, judged on its own at its own file and document.

    Each object that used the name is planned again against this definition
    (the others of the name left out), and the findings about it are kept;
    when no object can use it, only its fields are checked. A definition that
    differs from the first one in the same namespace is an error naming both.
    """
    ref = f"{copy.kind}/{copy.name}"
    first = by_name[(copy.kind, copy.name)]
    errors = ErrorList()
    judged = False
    related = [copy.data] + [d.data for d in documents if d is not copy and (d.kind, d.name) != (copy.kind, copy.name)]
    for user in users:
        adapter = adapter_for(user.api_version, user.kind)
        if adapter is None:
            continue
        with about_document(user):
            plan = adapter.plan(user.data, [data for data in related if data is not user.data])
        if ref not in plan.uses:
            continue  # it cannot use this definition (another namespace)
        judged = True
        seen = {str(error) for error in errors}
        for finding in plan.validate():
            if finding.object == ref and str(finding.error) not in seen:
                seen.add(str(finding.error))
                errors.append(finding.error)
    if not judged:
        report = _schema_report(copy)
        errors, notices = report.errors, report.notices
    else:
        notices = []
    if copy.data != first.data and (copy.kind == "ClusterTrainingRuntime" or copy.namespace == first.namespace):
        detail = (
            f"{copy.kind} {go_quote(copy.name)} is defined differently in {first.where()} and in {copy.where()}: "
            "the cluster keeps one object of a name"
        )
        if judged:
            detail += f", and the objects that use it were checked against the one in {first.where()}"
        errors.append(FieldError(ErrorType.DUPLICATE, FieldPath("metadata", "name"), copy.name, detail))
    return ObjectReport(copy.source, copy.number, copy.kind, copy.name, errors, notices, item=copy.item)


def _merged(reports: Sequence[ObjectReport]) -> list[ObjectReport]:
    """One report per object of the input: a runtime two plans judged is reported once, with both their findings."""
    merged: dict[tuple[str, int, int | None, str, str], ObjectReport] = {}
    for report in reports:
        key = (report.source, report.document, report.item, report.kind, report.name)
        same = merged.get(key)
        if same is None:
            merged[key] = report
            continue
        seen = {str(error) for error in same.errors}
        same.errors.extend(error for error in report.errors if str(error) not in seen)
        texts = {notice.text for notice in same.notices}
        same.notices = [*same.notices, *(notice for notice in report.notices if notice.text not in texts)]
    return list(merged.values())
