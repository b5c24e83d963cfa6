"""Placement requests from manifest documents: what ``workloadbuilder place`` does with its files, as a library call.

Controller objects (Job, JobSet, LeaderWorkerSet, TrainJob, a mapped CRD)
go through their adapters, each compiled plan read by
``request_from_plan``; ready-made PodGroups and
CompositePodGroups are read by ``PlacementRequest.from_groups``, each
PodGroup with the Pods that name it in ``spec.schedulingGroup.podGroupName``
(or the pods of a controller object that brings its own PodGroup). Every
input object becomes one ``DocumentInput``; ``DocumentInputs.merged()`` is
the one request that places them all in one pass.

This module sits in the adapters' layer: it plans documents through them,
and placement, below it, never names the adapters.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from workloadbuilder._internal import kinds
from workloadbuilder._internal.objpath import elements_of, get_in
from workloadbuilder.adapters.base import (  # type: ignore[import-not-found,unused-ignore]
    Finding,
    PlanError,
    adapter_for,
    planned_name,
)
from workloadbuilder.errors import BuildError, InternalError, WorkloadBuilderError
from workloadbuilder.field import AggregateError, ErrorList, FieldPath, first_few, summarize, type_invalid
from workloadbuilder.placement.k8s.priorities import PriorityClass, read_priority_class
from workloadbuilder.placement.request.model import DeviceRequest, GroupRequest, PlacementRequest, Pods

__all__ = [
    "DocumentError",
    "DocumentInput",
    "DocumentInputs",
    "InvalidDocumentError",
    "request_from_documents",
    "request_from_plan",
    "requests_from_documents",
]

_GROUP_PATH = re.compile(r"^groups\[(\d+)\]\.?")


class DocumentError(WorkloadBuilderError, ValueError):
    """An input document that cannot be placed; the message names the document (``where``) and the object."""


class InvalidDocumentError(DocumentError):
    """An input object that does not validate (the apiserver would refuse it): the ``invalid`` verdict tier."""


@dataclass(frozen=True)
class DocumentInput:
    """One input object and the root groups it asks to place.

    ``index`` is the document's position in the input; ``label`` names the
    object (``LeaderWorkerSet serving/vllm``, ``PodGroup pg``).
    """

    index: int
    label: str
    request: PlacementRequest


@dataclass
class DocumentInputs:
    """Every input object's request, and the warnings about the input (adapter warnings, objects left out)."""

    inputs: list[DocumentInput] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    priority_classes: list[PriorityClass] = field(default_factory=list)
    """The input's PriorityClass objects, in document order, for the groups' ``priorityClassName``."""

    def merged(self, label: Callable[[DocumentInput], str] | None = None) -> PlacementRequest:
        """One request: every input's roots, in input order (a group name may appear in one input only).

        Args:
            label: how a message names an input (default: its ``label``).

        Raises:
            DocumentError: a group name in two inputs.
        """
        name = label or (lambda item: item.label)
        owner: dict[str, DocumentInput] = {}
        for item in self.inputs:
            for group in item.request.groups:
                if group.name in owner:
                    raise DocumentError(f"group {group.name!r} is in both {name(owner[group.name])} and {name(item)}")
                owner[group.name] = item
        warnings = [warning for item in self.inputs for warning in item.request.warnings]
        return PlacementRequest([root for item in self.inputs for root in item.request.roots], warnings)


@dataclass(frozen=True)
class _Doc:
    index: int
    data: Mapping[str, Any]
    where: str

    @property
    def kind(self) -> str:
        return str(self.data.get("kind", ""))

    @property
    def api_version(self) -> str:
        return str(self.data.get("apiVersion", ""))

    @property
    def name(self) -> str:
        """``metadata.name``, or for a ``generateName``-only object the name its plan uses (``planned_name``)."""
        metadata = self.data.get("metadata")
        return str(planned_name(metadata)[0] or "") if isinstance(metadata, Mapping) else ""

    @property
    def is_scheduling_object(self) -> bool:
        return self.api_version.startswith(kinds.GROUP + "/") and self.kind in kinds.PREFERRED_VERSION


@dataclass(frozen=True)
class _Member:
    """A pod for a ready-made PodGroup: a Pod of the input, or one a root-less controller object makes."""

    where: str
    name: str
    spec: Any


def requests_from_documents(
    documents: Sequence[Mapping[str, Any]],
    related: Sequence[Mapping[str, Any]] = (),
    claims: Mapping[str, DeviceRequest] | None = None,
    where: Sequence[str] | None = None,
) -> DocumentInputs:
    """Every placeable object of ``documents`` as a request of its own.

    Args:
        documents: parsed manifests (Kubernetes JSON dicts), in input order.
        related: more objects the adapters may refer to (a TrainJob's
            runtime) that are not themselves placed; the other documents
            are related too.
        claims: the size of each group resource claim, by claim or template name.
        where: how messages name each document (default ``document N``, from 1).

    Each adapter warning is said of its document (``where`` then
    ``Kind/name``); warnings only about names (no ``metadata.uid``, a
    ``generateName`` placeholder) are left out: where the pods go does not
    depend on them.

    Raises:
        InvalidDocumentError: an object that does not validate.
        DocumentError: another object that cannot be placed, a PodGroup
            without pods, or nothing to place at all.
    """
    labels = list(where) if where is not None else [f"document {i + 1}" for i in range(len(documents))]
    docs = [_Doc(i, data, labels[i]) for i, data in enumerate(documents)]
    out = DocumentInputs()
    planned: set[str] = set()
    offered: dict[str, list[_Member]] = {}
    for doc in docs:
        if doc.kind == "PriorityClass":
            out.priority_classes.append(_priority_class(doc))
            continue
        compiled = _compile(doc, docs, related)
        if compiled is None:
            continue
        out.warnings += [f"{doc.where} {warning}" for warning in compiled.warnings if not _about_names(warning)]
        groups = compiled.hierarchy.objects()
        if groups:
            planned.update(group.metadata.name for group in groups)
            request = _guarded(doc.where, lambda c=compiled: request_from_plan(c, claims=claims or {}))
            namespace = (doc.data.get("metadata") or {}).get("namespace")
            name = f"{namespace}/{doc.name}" if namespace else doc.name
            out.inputs.append(DocumentInput(doc.index, f"{doc.kind} {name}", request))
        elif any(assignment.stamp_path is not None for assignment in compiled.pods):
            for member_group, members in _assigned(doc, compiled).items():
                offered.setdefault(member_group, []).extend(members)
        else:
            out.warnings.append(f"{doc.where}: {doc.kind} {doc.name!r} makes no runtime group of its own; not placed")
    for doc in docs:
        if doc.kind == "Pod" and doc.api_version == "v1":
            target = _pod_group_of(doc)
            if target is not None and target not in planned:
                offered.setdefault(target, []).append(_Member(doc.where, doc.name, doc.data.get("spec") or {}))
        elif (_group_of(doc), doc.kind) in _REPLICATED:
            target = _pod_group_of(doc, ("spec", "template", "spec"))
            if target is not None and target not in planned:
                offered.setdefault(target, []).extend(_replicas(doc))
        elif (_group_of(doc), doc.kind) in _UNCOUNTED:
            target = _pod_group_of(doc, _UNCOUNTED[(_group_of(doc), doc.kind)])
            if target is not None:
                out.warnings.append(
                    f"{doc.where}: {doc.kind} {doc.name!r}: its pods join PodGroup {target!r}, but how many it makes "
                    f"depends on {'the nodes' if doc.kind == 'DaemonSet' else 'its schedule'}; not placed"
                )
    out.inputs += _runtime_inputs(docs, planned, offered, claims or {})
    if not out.inputs:
        raise DocumentError(
            "nothing to place: give a controller object (Job, JobSet, LeaderWorkerSet, TrainJob, Volcano Job, or one "
            "--mapping describes), or PodGroups with the Pods that name them"
        )
    return out


_NAME_FIELDS = frozenset({"metadata.uid", "metadata.generateName"})


def _about_names(warning: Finding) -> bool:
    """Whether a plan's warning is only about names (no uid, a ``generateName`` placeholder, a Workload not created).

    A placement does not depend on the names of the objects, so these are
    left out of a request's warnings; ``compile``, whose output is the names,
    is where they are said.
    """
    return str(warning.error.field) in _NAME_FIELDS


def _priority_class(doc: _Doc) -> PriorityClass:
    """A PriorityClass document, read as admission reads it.

    Raises:
        DocumentError: a malformed PriorityClass, naming its document.
    """
    errors = ErrorList()
    record = read_priority_class(doc.data, None, errors)
    if record is None:
        raise DocumentError(f"{doc.where}: PriorityClass {doc.name!r}: {summarize(AggregateError(errors))}")
    return record


_REPLICATED = frozenset(
    {("", "ReplicationController"), *(("apps", k) for k in ("Deployment", "ReplicaSet", "StatefulSet"))}
)
"""Built-in controllers of a counted number of pods (``spec.replicas``), which may join a native PodGroup."""


_UNCOUNTED = {
    ("apps", "DaemonSet"): ("spec", "template", "spec"),
    ("batch", "CronJob"): ("spec", "jobTemplate", "spec", "template", "spec"),
}
"""Built-in controllers whose pods may join a native PodGroup, in a number no manifest says."""


def _group_of(doc: _Doc) -> str:
    return doc.api_version.rpartition("/")[0]


def _pod_group_of(doc: _Doc, spec_at: Sequence[str] = ("spec",)) -> str | None:
    """The PodGroup a Pod (or a controller's pod template, at ``spec_at``) names in
    ``schedulingGroup.podGroupName`` of its pod spec (``None``: none)."""
    value: Any = doc.data
    path = None
    for name in spec_at:
        value = value.get(name)
        path = FieldPath(name) if path is None else path.child(name)
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise DocumentError(
                f"{doc.where}: {doc.kind} {doc.name!r}: {type_invalid(path, value, 'must be of type object')}"
            )
    for name, kind in (("schedulingGroup", Mapping), ("podGroupName", str)):
        value = value.get(name)
        path = FieldPath(name) if path is None else path.child(name)
        if value is None:
            return None
        if not isinstance(value, kind):
            detail = "must be of type object" if kind is Mapping else "must be of type string"
            raise DocumentError(f"{doc.where}: {doc.kind} {doc.name!r}: {type_invalid(path, value, detail)}")
    return str(value)


def _replicas(doc: _Doc) -> list[_Member]:
    """The pods a ReplicaSet, Deployment, StatefulSet or ReplicationController makes: ``spec.replicas`` (default 1)
    of its pod template, each named ``<name>-<i>``."""
    spec = doc.data["spec"]
    count = spec.get("replicas", 1)
    if count is None:
        count = 1
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        detail = "must be of type integer" if not isinstance(count, int) or isinstance(count, bool) else "must be >= 0"
        raise DocumentError(
            f"{doc.where}: {doc.kind} {doc.name!r}: {type_invalid(FieldPath('spec', 'replicas'), count, detail)}"
        )
    pod_spec = spec["template"]["spec"]
    return [_Member(doc.where, f"{doc.name}-{i}", pod_spec) for i in range(count)]


def _compile(doc: _Doc, docs: Sequence[_Doc], related: Sequence[Mapping[str, Any]]) -> Any:
    """The compiled plan of a document an adapter claims (``None`` for any other document)."""
    adapter = adapter_for(doc.api_version, doc.kind)
    if adapter is None:
        return None
    others = [other.data for other in docs if other is not doc] + list(related)
    try:
        return adapter.plan(doc.data, others).compile()
    except PlanError as problem:  # said of the document the first error is in (a TrainJob's runtime, say)
        ref = problem.findings[0].object if problem.findings else f"{doc.kind}/{doc.name}"
        home = next((d for d in docs if f"{d.kind}/{d.name}" == ref), doc)
        mine = [str(f.error) for f in problem.findings if f.object == ref] or [str(problem)]
        raise InvalidDocumentError(
            f'{home.where}: The {home.kind} "{home.name}" is invalid: {first_few(mine)}'
        ) from None
    except (BuildError, LookupError, ValueError) as problem:
        raise DocumentError(f"{doc.where}: {doc.kind} {doc.name!r}: {problem}") from None


def _assigned(doc: _Doc, compiled: Any) -> dict[str, list[_Member]]:
    """The pods a root-less object (a Job bringing its own PodGroup) makes, by the PodGroup they name."""
    out: dict[str, list[_Member]] = {}
    for assignment in compiled.pods:
        if assignment.stamp_path is None:
            continue
        template = get_in(compiled.source, elements_of(assignment.stamp_path))
        spec = template.get("spec") if isinstance(template, Mapping) else None
        out.setdefault(assignment.pod_group, []).extend(
            _Member(doc.where, f"{doc.name}-{i}", spec or {}) for i in range(assignment.count)
        )
    return out


def _runtime_inputs(
    docs: Sequence[_Doc],
    planned: set[str],
    offered: dict[str, list[_Member]],
    claims: Mapping[str, DeviceRequest],
) -> list[DocumentInput]:
    """Ready-made PodGroups and CompositePodGroups, one input per root; each PodGroup with its pods.

    Groups a controller object of the input already makes (``compile``'s
    output piped back in) are left to that object.
    """
    groups = [
        doc
        for doc in docs
        if doc.is_scheduling_object and doc.kind in ("PodGroup", "CompositePodGroup") and doc.name not in planned
    ]
    seen: dict[str, _Doc] = {}
    for doc in groups:
        if doc.name in seen:
            raise DocumentError(f"{doc.where}: {doc.kind} {doc.name!r} is also in {seen[doc.name].where}")
        seen[doc.name] = doc
    names = {doc.name for doc in groups if doc.kind == "PodGroup"}
    for target, members in offered.items():
        if target not in names:
            raise DocumentError(
                f"{members[0].where}: {members[0].name!r} goes to PodGroup {target!r}, which is not in the input"
            )
    if not groups:
        return []
    pods: dict[str, Any] = {
        doc.name: _pods_of(doc, offered.get(doc.name, [])) for doc in groups if doc.kind == "PodGroup"
    }
    try:
        request = PlacementRequest.from_groups([doc.data for doc in groups], pods, claims)
    except AggregateError as problem:  # errors at groups[i]: say which document that is
        texts = [
            _GROUP_PATH.sub(lambda m: _group_where(groups[int(m[1])]), str(error)) for error in problem.field_errors
        ]
        raise DocumentError(first_few(texts)) from None
    where = {doc.name: doc for doc in groups}
    return [
        DocumentInput(where[root.name].index, f"{root.kind} {root.name}", PlacementRequest([root], _own(request, root)))
        for root in request.roots
    ]


def _own(request: PlacementRequest, root: GroupRequest) -> list[str]:
    """The request's warnings about ``root``'s PodGroups (each warning starts ``PodGroup <name>: ``)."""
    prefixes = tuple(f"PodGroup {group.name}: " for group in root.walk())
    return [warning for warning in request.warnings if warning.startswith(prefixes)]


def _pods_of(group: _Doc, members: list[_Member]) -> list[Pods]:
    """A PodGroup's pods, one pod set per distinct pod spec, in input order."""
    if not members:
        raise DocumentError(
            f"{group.where}: PodGroup {group.name!r}: no Pod in the input names it in "
            "spec.schedulingGroup.podGroupName; give its Pods, or the controller object that makes it"
        )
    runs: list[tuple[Any, list[_Member]]] = []
    for member in members:
        if runs and runs[-1][0] == member.spec:
            runs[-1][1].append(member)
        else:
            runs.append((member.spec, [member]))
    return [Pods(len(run), template={"spec": spec}, names=tuple(member.name for member in run)) for spec, run in runs]


def _guarded(where: str, read: Any) -> PlacementRequest:
    """``read()``, its field errors made one line that says where."""
    try:
        request: PlacementRequest = read()
    except AggregateError as problem:
        hint = ""
        if any(str(error.field).startswith("claims[") for error in problem.field_errors):
            hint = " (size each group resource claim with --claim NAME=DEVICECLASS:COUNT)"
        raise DocumentError(f"{where}: {summarize(problem)}{hint}") from None
    return request


def _group_where(doc: _Doc) -> str:
    """The prefix that replaces ``groups[i].`` in a field error: the document and group it is about."""
    return f"{doc.where}: {doc.kind} {doc.name!r}: "


def request_from_documents(
    docs: Sequence[Mapping[str, Any]],
    related: Sequence[Mapping[str, Any]] = (),
    claims: Mapping[str, DeviceRequest] | None = None,
) -> PlacementRequest:
    """What ``workloadbuilder place`` places for these manifest documents, as one request.

    Controller objects go through their adapters; PodGroups and
    CompositePodGroups are read with the Pods that name them. Every
    object's roots are in the request, in document order; the adapters'
    warnings are in ``warnings``. ``requests_from_documents`` gives the same per object.

    Raises:
        DocumentError: an invalid object, a PodGroup without pods, a group in
            two objects, or nothing to place; the message names the document.
    """
    found = requests_from_documents(docs, related, claims)
    merged = found.merged()
    merged.warnings = [*found.warnings, *merged.warnings]
    return merged


def request_from_plan(
    plan: Any,
    requests: Mapping[str, Mapping[str, Any]] | None = None,
    claims: Mapping[str, DeviceRequest | Mapping[str, Any]] | None = None,
) -> PlacementRequest:
    """A request from an adapter's plan in one call: its runtime groups and its pod assignments.

    Args:
        plan: an ``adapters.Plan`` (compiled here) or its ``Compiled``
            result: ``hierarchy.objects()`` are the groups, each of
            ``pods`` (``PodAssignment``) gives a PodGroup's pod count and,
            through ``stamp_path``, the pod template in ``source`` whose
            requests each pod makes.
        requests: per PodGroup, requests to use instead of the pod
            template's (needed where a child controller stamps the pods).
        claims: as in ``PlacementRequest.from_groups``.

    A PodGroup fed by several pod templates (an LWS leader and its
    workers) gets one pod set per template, each filtered and fitted with
    its own spec.

    Raises:
        TypeError: ``plan`` is neither a plan nor a compiled plan (a dict, say).
        AggregateError: as ``PlacementRequest.from_groups``.
    """
    if hasattr(plan, "hierarchy"):
        compiled = plan
    elif callable(getattr(plan, "compile", None)):
        compiled = plan.compile()
    else:
        raise TypeError(f"request_from_plan(): plan must be a Plan or its Compiled, not {type(plan).__name__}")
    pods: dict[str, list[dict[str, Any]]] = {}
    templates: dict[str, Any] = {}  # by stamp path: every pod of a 100,000-pod LWS names the same template
    for assignment in compiled.pods:
        name = assignment.pod_group
        given = (requests or {}).get(name)
        if given is not None:
            spec: dict[str, Any] = {"count": assignment.count, "requests": given}
        elif assignment.stamp_path is not None:
            template = getattr(assignment, "pod_template", None)  # a TrainJob's pods come from its runtime
            if template is None:
                path = assignment.stamp_path
                template = templates.get(path)
                if template is None:
                    template = templates[path] = _template_at(compiled, path)
            spec = {"count": assignment.count, "template": template}
        else:
            continue
        sets = pods.setdefault(name, [])
        same = next((entry for entry in sets if _same_pods(entry, spec)), None)
        if same is None:
            sets.append(spec)
        else:
            same["count"] += spec["count"]
    return PlacementRequest.from_groups(
        compiled.hierarchy.objects(), {name: _one_or_many(sets) for name, sets in pods.items()}, claims
    )


def _template_at(compiled: Any, path: str) -> Any:
    """The pod template a plan's stamp path names; a path into nothing is the adapter's bug, not the user's."""
    try:
        return get_in(compiled.source, elements_of(path))
    except BuildError as bug:
        raise InternalError(
            f"the plan's pod assignment points at {path}, where it has no pod template: {bug}"
        ) from None


def _same_pods(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two pod entries describe the same pods (the same template or the same requests)."""
    if a.get("template") is not None or b.get("template") is not None:
        return a.get("template") is b.get("template") or a.get("template") == b.get("template")
    return a.get("requests") == b.get("requests")


def _one_or_many(sets: list[dict[str, Any]]) -> Any:
    return sets[0] if len(sets) == 1 else sets
