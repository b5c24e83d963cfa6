"""The input documents of ``place``/``explain`` as placement requests, one per input object.

Controller objects go through their adapters (each compiled plan is read by
``PlacementRequest.from_plan``); ready-made PodGroups and CompositePodGroups
are read by ``PlacementRequest.from_groups``, each PodGroup with the Pods
that name it in ``spec.schedulingGroup.podGroupName`` (or the pods of a
controller object that brings its own PodGroup). Each request keeps a label
saying where in the input it came from, so the output can name it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from workloadbuilder import BuildError
from workloadbuilder.adapters import Compiled, PlanError, adapter_for
from workloadbuilder.cli.inputs import Document, UsageError
from workloadbuilder.cli.messages import first_few, summarize
from workloadbuilder.field import AggregateError, ErrorList, FieldPath
from workloadbuilder.fields_read import read_field
from workloadbuilder.objpath import elements_of, get_in
from workloadbuilder.placement import DeviceRequest, PlacementRequest, Pods
from workloadbuilder.placement.resources import pod_requests

__all__ = ["PlacementInput", "merge_requests", "placement_inputs"]

_GROUP_PATH = re.compile(r"^groups\[(\d+)\]\.?")


@dataclass
class PlacementInput:
    """One input object and the root groups it asks to place."""

    label: str
    request: PlacementRequest


@dataclass(frozen=True)
class _Member:
    """A pod for a ready-made PodGroup: a Pod of the input, or one a root-less controller object makes."""

    where: str
    name: str
    spec: Any


def placement_inputs(
    documents: Sequence[Document], claims: Mapping[str, DeviceRequest], err: TextIO
) -> list[PlacementInput]:
    """Controller objects through their adapters, then ready-made runtime groups with their pods.

    Adapter warnings, and a note for an object that makes no runtime group
    of its own, go to ``err``: they do not stop the run.

    Raises:
        UsageError: an invalid object, a group without pods, or nothing to place at all.
    """
    inputs: list[PlacementInput] = []
    planned: set[str] = set()
    offered: dict[str, list[_Member]] = {}
    for doc in documents:
        compiled = _compile(doc, documents)
        if compiled is None:
            continue
        err.writelines(f"Warning: {warning}\n" for warning in compiled.warnings)
        groups = compiled.hierarchy.objects()
        if groups:
            planned.update(group.metadata.name for group in groups)
            request = _guarded(doc.where(), PlacementRequest.from_plan, compiled, claims=claims)
            namespace = (doc.data.get("metadata") or {}).get("namespace")
            name = f"{namespace}/{doc.name}" if namespace else doc.name
            inputs.append(PlacementInput(f"{doc.kind} {name} ({doc.source}, document {doc.number})", request))
        elif any(assignment.stamp_path is not None for assignment in compiled.pods):
            for member_group, members in _assigned(doc, compiled).items():
                offered.setdefault(member_group, []).extend(members)
        else:
            err.write(
                f"Warning: {doc.where()}: {doc.kind} {doc.name!r} makes no runtime group of its own; not placed\n"
            )
    for doc in documents:
        if doc.kind == "Pod" and doc.api_version == "v1":
            shape = ErrorList()
            target = read_field(doc.data, ("spec", "schedulingGroup", "podGroupName"), "string", shape)
            if shape:
                raise UsageError(f"{doc.where()}: Pod {doc.name!r}: {shape[0]}")
            if target is not None and target not in planned:
                offered.setdefault(target, []).append(_Member(doc.where(), doc.name, doc.data.get("spec") or {}))
    inputs += _runtime_inputs(documents, planned, offered, claims)
    if not inputs:
        raise UsageError(
            "nothing to place: give a controller object (Job, JobSet, LeaderWorkerSet, TrainJob, or one --mapping "
            "describes), or PodGroups with the Pods that name them"
        )
    return inputs


def merge_requests(inputs: list[PlacementInput]) -> PlacementRequest:
    """One request: every input's roots, in input order; a group name may appear once.

    All inputs are placed in one pass, each seeing what the earlier ones
    took, so two inputs naming the same group would be ambiguous.

    Raises:
        UsageError: a group name in two inputs.
    """
    owner: dict[str, str] = {}
    for item in inputs:
        for group in item.request.groups:
            if group.name in owner:
                raise UsageError(f"group {group.name!r} is in both {owner[group.name]} and {item.label}")
            owner[group.name] = item.label
    return PlacementRequest([root for item in inputs for root in item.request.roots])


def _compile(doc: Document, documents: Sequence[Document]) -> Compiled | None:
    """The compiled plan of a document an adapter claims (``None`` for any other document)."""
    adapter = adapter_for(doc.api_version, doc.kind)
    if adapter is None:
        return None
    related = [other.data for other in documents if other is not doc]
    try:
        return adapter.plan(doc.data, related).compile()
    except PlanError as problem:
        raise UsageError(f"{doc.where()}: {doc.kind} {doc.name!r} is invalid: {summarize(problem)}") from None
    except (BuildError, LookupError, ValueError) as problem:
        raise UsageError(f"{doc.where()}: {doc.kind} {doc.name!r}: {problem}") from None


def _assigned(doc: Document, compiled: Compiled) -> dict[str, list[_Member]]:
    """The pods a root-less object (a Job bringing its own PodGroup) makes, by the PodGroup they name."""
    out: dict[str, list[_Member]] = {}
    for assignment in compiled.pods:
        if assignment.stamp_path is None:
            continue
        template = get_in(compiled.source, elements_of(assignment.stamp_path))
        spec = template.get("spec") if isinstance(template, Mapping) else None
        out.setdefault(assignment.pod_group, []).extend(
            _Member(doc.where(), f"{doc.name}-{i}", spec or {}) for i in range(assignment.count)
        )
    return out


def _runtime_inputs(
    documents: Sequence[Document],
    planned: set[str],
    offered: dict[str, list[_Member]],
    claims: Mapping[str, DeviceRequest],
) -> list[PlacementInput]:
    """Ready-made PodGroups and CompositePodGroups, one input per root; each PodGroup with its pods.

    Groups a controller object of the input already makes (``compile``'s
    output piped back in) are left to that object.
    """
    groups = [
        doc
        for doc in documents
        if doc.is_scheduling_object and doc.kind in ("PodGroup", "CompositePodGroup") and doc.name not in planned
    ]
    seen: dict[str, Document] = {}
    for doc in groups:
        if doc.name in seen:
            raise UsageError(f"{doc.where()}: {doc.kind} {doc.name!r} is also in {seen[doc.name].where()}")
        seen[doc.name] = doc
    names = {doc.name for doc in groups if doc.kind == "PodGroup"}
    for target, members in offered.items():
        if target not in names:
            raise UsageError(
                f"{members[0].where}: {members[0].name!r} goes to PodGroup {target!r}, which is not in the input"
            )
    if not groups:
        return []
    pods = {doc.name: _pods_of(doc, offered.get(doc.name, [])) for doc in groups if doc.kind == "PodGroup"}
    try:
        request = PlacementRequest.from_groups([doc.data for doc in groups], pods, claims)
    except AggregateError as problem:  # errors at groups[i]: say which document that is
        texts = [
            _GROUP_PATH.sub(lambda m: _group_where(groups[int(m[1])]), str(error)) for error in problem.field_errors
        ]
        raise UsageError(first_few(texts)) from None
    where = {doc.name: doc for doc in groups}
    return [
        PlacementInput(
            f"{root.kind} {root.name} ({where[root.name].source}, document {where[root.name].number})",
            PlacementRequest([root]),
        )
        for root in request.roots
    ]


def _pods_of(group: Document, members: list[_Member]) -> Pods:
    """A PodGroup's pods, all of one shape: the placement model sizes a PodGroup by a single pod template."""
    if not members:
        raise UsageError(
            f"{group.where()}: PodGroup {group.name!r}: no Pod in the input names it in "
            "spec.schedulingGroup.podGroupName; give its Pods, or the controller object that makes it"
        )
    shapes = []
    for member in members:
        errors = ErrorList()
        shapes.append(pod_requests(member.spec, FieldPath("spec"), errors))
        if errors:
            raise UsageError(f"{member.where}: {member.name!r}: {summarize(AggregateError(errors))}")
        if shapes[-1] != shapes[0]:
            raise UsageError(
                f"{member.where}: {member.name!r} requests other resources than {members[0].name!r}: "
                f"one pod shape per PodGroup ({group.name!r}) is modelled"
            )
    return Pods(len(members), template={"spec": members[0].spec}, names=tuple(member.name for member in members))


def _guarded(where: str, read: Callable[..., PlacementRequest], *args: Any, **kwargs: Any) -> PlacementRequest:
    """``read(*args, **kwargs)``, its field errors made one line that says where."""
    try:
        return read(*args, **kwargs)
    except AggregateError as problem:
        hint = ""
        if any(str(error.field).startswith("claims[") for error in problem.field_errors):
            hint = " (size each group resource claim with --claim NAME=DEVICECLASS:COUNT)"
        raise UsageError(f"{where}: {summarize(problem)}{hint}") from None


def _group_where(doc: Document) -> str:
    """The prefix that replaces ``groups[i].`` in a field error: the file, document and group it is about."""
    return f"{doc.where()}: {doc.kind} {doc.name!r}: "
