"""``compile``, ``validate``, ``diff`` and ``migrate``: the commands on manifests alone (no cluster).

Each takes the parsed command line and the two output streams and returns
its exit code; bad input is raised as a ``WorkloadBuilderError`` (a
``UsageError`` naming ``file (document N) Kind/name``), which ``main``
prints as one line with exit code 2.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any, TextIO

from workloadbuilder import (
    adapters,  # noqa: F401 - importing the package registers the built-in adapters
    check_update,
    manifests,
)
from workloadbuilder._internal import kinds
from workloadbuilder._internal.gofmt import capped, go_quote, render_bad_value
from workloadbuilder.adapters import Plan, adapter_for
from workloadbuilder.adapters._shared.pod_rules import pod_spec_errors, pod_spec_type_errors
from workloadbuilder.adapters._shared.strict import has_schema, schema_errors
from workloadbuilder.adapters.base import PlanError, planned_name
from workloadbuilder.adapters.diff import update_findings
from workloadbuilder.adapters.template_rules import template_errors
from workloadbuilder.cli.errors import UsageError
from workloadbuilder.cli.inputs import (
    Document,
    about,
    checks_for,
    parse_gates,
    read_inputs,
    skip_notices,
    skipped_note,
    unknown_kinds,
    unknown_note,
)
from workloadbuilder.cli.messages import Notice, WarningPolicy, plan_notices
from workloadbuilder.cli.positions import Positions
from workloadbuilder.cli.report import Verdict, render
from workloadbuilder.field import ErrorList, ErrorType, FieldError, FieldPath, first_few, type_invalid
from workloadbuilder.migration.gangs import (
    GangMigration,
    check_kueue_pod,
    is_foreign_pod_group,
    is_kueue_pod,
    member_keys,
    migrate_kueue_pods,
    migrate_pod_group,
    pod_group_members,
)
from workloadbuilder.migration.versions import migrate
from workloadbuilder.validation.gates import FeatureGates
from workloadbuilder.validation.objects import validate_composite_pod_group, validate_pod_group, validate_workload

__all__ = ["compile_command", "diff_command", "migrate_command", "validate_command"]

_VALIDATORS = {
    kinds.WORKLOAD: validate_workload,
    kinds.POD_GROUP: validate_pod_group,
    kinds.COMPOSITE_POD_GROUP: validate_composite_pod_group,
}

_KNOWN = (
    "Job, JobSet, LeaderWorkerSet, TrainJob, Volcano Job, a --mapping custom resource, Workload, PodGroup, "
    "CompositePodGroup"
)


def compile_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``workloadbuilder compile``: the Workload, the runtime groups and the stamped object, per input object."""
    documents = read_inputs(args.files, args.recursive, args.namespace)
    gates = parse_gates(args.gates)
    policy = WarningPolicy.parse(args.warning_options, args.quiet)
    plans = list(_each_plan(documents))
    notices = skip_notices(documents, {ref for _, plan in plans for ref in plan.uses})
    if not plans:
        if all(doc.has_no_scheduling_content for doc in documents):  # only Services, RBAC and the like: nothing wrong
            err.writelines(f"Note: {notice.text}\n" for notice in policy.shown(notices))
            err.write("Note: nothing to compile: no object in the input has gang-scheduling content\n")
            return 0
        err.writelines(f"{_label(notice)}: {notice.text}\n" for notice in policy.shown(notices))
        raise UsageError(_nothing_to_compile(documents))
    objects: list[Any] = []
    for doc, plan in plans:
        with about(doc):
            try:
                compiled = plan.compile()
            except PlanError as problem:
                raise UsageError(_attributed(doc, documents, problem)) from None
        notices += plan_notices(doc.where(), compiled.warnings, plan.object_ref)
        for obj in compiled.objects():
            _check_gates(doc, obj, gates)
            objects.append(obj)
        objects.append(compiled.source)
    err.writelines(f"{_label(notice)}: {notice.text}\n" for notice in policy.shown(notices))
    out.write(_formatted(objects, args.output))
    return 0


def _nothing_to_compile(documents: Sequence[Document]) -> str:
    """Why ``compile`` found nothing to compile: each object no adapter knows, at its file and document, and
    the command that helps with it (``migrate``, ``--mapping``, ``validate``)."""
    unknown = [doc for doc in documents if not doc.has_no_scheduling_content]
    said = first_few([f"{doc.about()} ({doc.api_version}): {_compile_hint(doc)}" for doc in unknown], limit=2)
    return f"no object an adapter knows (Job, JobSet, LeaderWorkerSet, TrainJob, Volcano Job, or --mapping): {said}"


def _compile_hint(doc: Document) -> str:
    """What to run instead for an object ``compile`` does not compile."""
    if is_foreign_pod_group(doc.data):
        return "another scheduler's gang: workloadbuilder migrate turns it into a native Workload and PodGroup"
    if doc.is_scheduling_object:
        return "already a scheduling object: workloadbuilder validate checks it, place places it"
    return "a custom resource: --mapping FILE says where its gangs are"


def _attributed(doc: Document, documents: Sequence[Document], problem: PlanError) -> str:
    """A plan's refusal said of the document its first error is in (a TrainJob's runtime has its own)."""
    ref = problem.findings[0].object if problem.findings else f"{doc.kind}/{doc.name}"
    home = next((d for d in documents if f"{d.kind}/{d.name}" == ref), doc)
    errors = [str(finding.error) for finding in problem.findings if finding.object == ref]
    return f"{home.about()}: {first_few(errors or [str(problem)])}"


def _label(notice: Notice) -> str:
    return "Note" if notice.kind == "skipped" else "Warning"


def validate_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``workloadbuilder validate``: the apiserver's verdict on every object; exit 1 when any is invalid.

    An object of a kind no adapter knows is skipped with an ``unknown-kind``
    warning, as every command skips it (``--strict`` fails on the warning);
    an input in which nothing was checked is refused (exit 2), so a CI job
    cannot pass on a directory of the wrong files.
    """
    given = read_inputs(args.files, args.recursive, args.namespace, served_only=False)
    gates = parse_gates(args.gates)
    policy = WarningPolicy.parse(args.warning_options, args.quiet, args.strict)
    skip = _skip_kinds(args.skip)
    documents = [doc for doc in given if _skipped_by(doc, skip) is None]
    verdicts = [_object_verdict(doc, gates) for doc in documents if doc.is_scheduling_object]
    used: set[str] = set()
    by_name: dict[tuple[str, str], Document] = {}
    for doc in documents:
        by_name.setdefault((doc.kind, doc.name), doc)  # the first of a name, where a plan's findings about it go
    shadowed = _shadowed(documents, by_name)
    users: dict[str, list[Document]] = {}
    for doc, plan in _each_plan(documents):
        # Each plan is judged and let go: kept until the end, the plans of N documents cost the collector
        # a walk over all of them at every full collection, so validate grew faster than its input.
        verdicts.extend(_plan_verdicts(doc, plan, by_name))
        used.update(plan.uses)
        for ref in plan.uses:
            if ref in shadowed:
                users.setdefault(ref, []).append(doc)
    for ref, copies in shadowed.items():
        verdicts.extend(_shadow_verdict(copy, by_name, documents, users.get(ref, [])) for copy in copies)
    verdicts = _merged(verdicts)
    judged = {id(copy) for listed in shadowed.values() for copy in listed}
    unclaimed = [doc for doc in _unclaimed(documents, used) if id(doc) not in judged]  # judged above
    verdicts.extend(_skipped_verdict(doc) for doc in unclaimed if doc.has_no_scheduling_content)
    verdicts.extend(_skipped_verdict(doc, by) for doc in given if (by := _skipped_by(doc, skip)) is not None)
    unclaimed = [doc for doc in unclaimed if not doc.has_no_scheduling_content]
    verdicts.extend(_schema_verdict(doc) for doc in unclaimed if has_schema(doc.data))
    verdicts.extend(_member_verdict(doc) for doc in unclaimed if doc.pod_spec_path is not None)
    unknown = [(doc, Notice("unknown-kind", unknown_note(doc))) for doc in unknown_kinds(unclaimed, used)]
    if not verdicts:
        err.writelines(f"Warning: {notice.text}\n" for notice in policy.shown(n for _, n in unknown))
        raise UsageError(f"{_sources(given)}: no object was checked: none is of a kind validate knows ({_KNOWN})")
    for doc, notice in unknown:
        verdicts.append(
            Verdict(doc.source, doc.number, doc.kind or "object", doc.name, ErrorList(), [notice], False, doc.item)
        )
    for verdict in verdicts:
        verdict.notices = policy.shown(verdict.notices)
    order = {(doc.source, doc.number, doc.item): i for i, doc in enumerate(given)}
    verdicts.sort(key=lambda v: order.get((v.source, v.document, v.item), len(order)))  # in input order
    positions = {doc.source: Positions(doc.text) for doc in given} if args.output == "github" else {}
    out.write(render(verdicts, args.output, positions, checks_for(gates), args.summary))
    failing = [(v, n) for v in verdicts for n in v.notices if policy.fails([n])]
    if failing:
        err.write(_strict_failure(failing))
    return 1 if failing or any(v.errors for v in verdicts) else 0


def _strict_failure(failing: Sequence[tuple[Verdict, Notice]]) -> str:
    """The one line that says which warning ``--strict`` failed on: its kind, and the object it is about."""
    verdict, notice = failing[0]
    more = len(failing) - 1
    kinds_left = ", ".join(dict.fromkeys(n.kind for _, n in failing[1:]))
    tail = f" (and {more} more warning{'s' if more > 1 else ''}: {kinds_left})" if more else ""
    hint = f"-W no-{notice.kind} hides it"
    return f"error: {verdict.about()}: --strict: its {notice.kind} warning fails the run{tail}; {hint}\n"


def diff_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``workloadbuilder diff OLD NEW``: the errors an apiserver returns for the update; exit 1 when refused.

    Each file holds the object compared and, beside it, the objects it is
    planned with (a TrainJob's runtime): OLD's for the old version, NEW's
    for the new one. Errors are reported per object, each at its file and
    document (a runtime's own errors at the runtime's).
    """
    gates = parse_gates(args.gates)
    old_documents = read_inputs([args.old], namespace=args.namespace)
    new_documents = read_inputs([args.new], namespace=args.namespace)
    old, new = _compared(args.old, old_documents), _compared(args.new, new_documents)
    if (old.kind, old.name) != (new.kind, new.name):
        raise UsageError(f"OLD is {old.kind} {old.name!r} but NEW is {new.kind} {new.name!r}: an update keeps both")
    verdicts = {id(new): Verdict(new.source, new.number, new.kind, new.name, item=new.item)}
    if old.is_scheduling_object:
        verdicts[id(new)].errors = check_update(old.data, new.data, gates)
    else:
        if adapter_for(new.api_version, new.kind) is None:
            raise UsageError(_no_adapter(new) + "; --mapping FILE describes a custom resource")
        related = [doc.data for doc in new_documents if doc is not new]
        old_related = [doc.data for doc in old_documents if doc is not old]
        with about(new):
            findings = update_findings(old.data, new.data, related, gates, old_related)
        by_name = {f"{doc.kind}/{doc.name}": doc for doc in reversed(new_documents)}  # the first of a name
        for finding in findings:
            home = by_name.get(finding.object, new)
            if id(home) not in verdicts:
                verdicts[id(home)] = Verdict(home.source, home.number, home.kind, home.name, item=home.item)
            verdicts[id(home)].errors.append(finding.error)
    return _report_update(list(verdicts.values()), new, args.output, out)


def _report_update(verdicts: Sequence[Verdict], new: Document, output: str, out: TextIO) -> int:
    """``diff``'s report: each refusing object's errors (text: at its ``file (document N) Kind/name``)."""
    if output != "text":
        out.write(render(verdicts, output))
    elif any(verdict.errors for verdict in verdicts):
        out.write("".join(f"{v.about()}: {v.kubectl()}" for v in verdicts if v.errors))
    else:
        out.write(f'{new.kind} "{new.name}": the update would be accepted\n')
    return 1 if any(verdict.errors for verdict in verdicts) else 0


def _compared(path: str, documents: Sequence[Document]) -> Document:
    """The one object of a ``diff`` input that an update compares: a scheduling object or one an adapter plans.

    The input's other documents are its related objects (a TrainJob's runtime).

    Raises:
        UsageError: no such object (and more than one document), or more than one.
    """
    compared = [doc for doc in documents if doc.is_scheduling_object or adapter_for(doc.api_version, doc.kind)]
    if len(compared) == 1 or len(documents) == 1:
        return compared[0] if compared else documents[0]
    found = ", ".join(f"{doc.kind}/{doc.name}" for doc in (compared or documents)[:3])
    more = "" if len(compared or documents) <= 3 else ", ..."
    raise UsageError(
        f"{path}: diff compares one object (given with the objects it uses, a TrainJob's runtime, say), "
        f"found {len(compared) or len(documents)}: {found}{more}"
    )


def migrate_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``workloadbuilder migrate``: v1alpha1/v1alpha2 objects rewritten for 1.37; exit 1 when something is left."""
    documents = read_inputs(args.files, args.recursive, args.namespace, served_only=False)
    results: list[Any] = []
    kueue = [doc for doc in documents if is_kueue_pod(doc.data)]
    for doc in kueue:  # a refusal names the Pod's own document
        with about(doc):
            check_kueue_pod(doc.data)
    if kueue:
        with about(kueue[0]):
            pods = migrate_kueue_pods([doc.data for doc in kueue])
        _report_gang(pods, kueue[0], err)
        results.extend(pods.objects)
    joined, said, incomplete = _join_members(documents)
    for doc in documents:
        if is_foreign_pod_group(doc.data):
            with about(doc):
                gang = migrate_pod_group(doc.data)
            _report_gang(gang, doc, err)
            err.writelines(said.get(id(doc), []))
            results.extend(gang.objects)
            continue
        if not doc.is_scheduling_object:
            if not is_kueue_pod(doc.data):
                results.append(joined.get(id(doc), doc.data))
            continue
        with about(doc):
            migration = migrate(doc.data)
        err.writelines(f"{doc.about()}: {note}\n" for note in migration.rewrites)
        err.writelines(f"{doc.about()}: not translated: {note}\n" for note in migration.untranslated)
        incomplete = incomplete or not migration.complete
        results.append(migration.manifest)
    out.write(_formatted(results, args.output))
    return 1 if incomplete else 0


def _join_members(documents: Sequence[Document]) -> tuple[dict[int, Any], dict[int, list[str]], bool]:
    """Each foreign PodGroup's members (by label or annotation) rewritten to join the native PodGroup.

    Returns the rewritten objects by ``id`` of their document, the lines to
    print after each PodGroup's own (by ``id`` of its document), and whether
    a member of the input was left as it is (a kind whose templates migrate
    does not rewrite, a template naming another group). A rewrite is said
    of the member's document; a PodGroup no object of the input is a member
    of is warned about, as its pods' controller must then be changed by hand.
    """
    joined: dict[int, Any] = {}
    said: dict[int, list[str]] = {}
    left = False
    data = [doc.data for doc in documents]
    for doc in documents:
        if not is_foreign_pod_group(doc.data):
            continue
        members = pod_group_members(doc.data, data)
        lines = said.setdefault(id(doc), [])
        for member in members:
            home = documents[member.index]
            if member.rewritten:
                joined[id(home)] = member.object
            left = left or member.left
            lines.append(f"{home.about()}: {'not translated: ' if member.left else ''}{member.note}\n")
        if not members:
            where, keys = member_keys(doc.data)
            lines.append(
                f"Warning: {doc.about()}: no object in the input makes its pods (the {where[:-1]} {keys[0]}: "
                f"{doc.name}): "
                f"set spec.schedulingGroup.podGroupName: {go_quote(doc.name)} in the pod template of the ReplicaSet, "
                "Deployment or Job that does\n"
            )
    return joined, said, left


def _report_gang(migration: GangMigration, doc: Document, err: TextIO) -> None:
    err.writelines(f"{doc.about()}: {note}\n" for note in migration.rewrites)
    err.writelines(f"{doc.about()}: dropped: {note}\n" for note in migration.dropped)


_RELATED_KINDS = frozenset({"Workload", "PodGroup", "ClusterTrainingRuntime", "TrainingRuntime"})
"""The kinds a plan reads among its related objects (a Job's Workloads, the PodGroups a JobSet or LWS names,
a TrainJob's runtime), besides the kinds a ``spec.runtimeRef`` names."""


def _each_plan(documents: Sequence[Document]) -> Iterator[tuple[Document, Plan]]:
    """A plan for each document an adapter claims, made when asked for; the other documents are its related objects.

    Only the documents of a kind some plan reads are handed over as related
    objects (a plan skips the others by kind), so that N Jobs cost N plans,
    not N plans each passed over N-1 documents.
    """
    kinds = set(_RELATED_KINDS)
    for doc in documents:
        spec = doc.data.get("spec") if isinstance(doc.data, dict) else None
        reference = spec.get("runtimeRef") if isinstance(spec, dict) else None
        if isinstance(reference, dict) and isinstance(reference.get("kind"), str):
            kinds.add(reference["kind"])
    readable = [doc for doc in documents if doc.kind in kinds]
    for doc in documents:
        adapter = adapter_for(doc.api_version, doc.kind)
        if adapter is None:
            continue
        related = [other.data for other in readable if other is not doc]
        with about(doc):
            plan = adapter.plan(doc.data, related)
        yield doc, plan


def _unclaimed(documents: Sequence[Document], used: Collection[str] = ()) -> list[Document]:
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


def _group(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def _no_adapter(doc: Document) -> str:
    return f"{doc.about()}: no adapter for apiVersion {doc.api_version!r} kind {doc.kind!r}"


def _sources(documents: Sequence[Document]) -> str:
    return ", ".join(dict.fromkeys(doc.source for doc in documents))


def _empty_owner_uid(error: FieldError) -> bool:
    """``metadata.ownerReferences[i].uid: Required value``, at any index: the uid a manifest never created lacks."""
    loc = error.loc()
    return (
        error.type is ErrorType.REQUIRED
        and len(loc) == 4
        and loc[:2] == ("metadata", "ownerReferences")
        and isinstance(loc[2], int)
        and loc[3] == "uid"
    )


def _check_gates(doc: Document, obj: Any, gates: FeatureGates) -> None:
    """Refuse an object the chosen feature gates would not serve, with the apiserver's errors.

    An owner without a uid is not refused here: a manifest not yet created has
    none, the plan has warned about it, and ``validate`` refuses the output.
    """
    kind = getattr(obj, "kind", None)
    errors = _VALIDATORS[kind](obj, gates=gates) if kind in _VALIDATORS else ErrorList()
    errors = ErrorList(e for e in errors if not _empty_owner_uid(e))
    if errors:
        name = obj.metadata.name if obj.metadata is not None else ""
        message = Verdict(doc.source, doc.number, str(kind), name or "", errors).kubectl()
        raise UsageError(f"{doc.about()}: {message.strip()}")


def _schema_verdict(doc: Document) -> Verdict:
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
    return Verdict(doc.source, doc.number, doc.kind, doc.name, errors, [note], item=doc.item)


def _member_verdict(doc: Document) -> Verdict:
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
            return Verdict(doc.source, doc.number, doc.kind, doc.name, errors, item=doc.item)
    assert path is not None
    group = spec.get("schedulingGroup")
    at = path.child("schedulingGroup")
    if not isinstance(group, Mapping):
        errors.append(type_invalid(at, group, "must be of type object"))
    elif not isinstance(group.get("podGroupName"), str | None):
        errors.append(type_invalid(at.child("podGroupName"), group.get("podGroupName"), "must be of type string"))
    errors.extend(pod_spec_type_errors(spec, path))  # no bundled schema says these: a Pod's kinds have none
    errors.extend(pod_spec_errors(spec, path))
    return Verdict(doc.source, doc.number, doc.kind, doc.name, errors, item=doc.item)


def _skipped_verdict(doc: Document, by: str = "") -> Verdict:
    """A built-in object with no gang-scheduling content, or one ``--skip`` names (``by``): not checked, one note,
    never a failure."""
    note = Notice("skipped", f"{doc.about()}: not checked (--skip {by})" if by else skipped_note(doc))
    return Verdict(doc.source, doc.number, doc.kind, doc.name, ErrorList(), [note], False, doc.item)


def _skip_kinds(specs: Sequence[str]) -> frozenset[str]:
    """``--skip KIND[,KIND]`` options (repeatable): the kinds, or ``apiVersion/Kind``, validate leaves alone.

    Raises:
        UsageError: an empty entry (``--skip Job,``).
    """
    names = [part.strip() for spec in specs for part in spec.split(",")]
    if "" in names:
        bad = next(spec for spec in specs if "" in (part.strip() for part in spec.split(",")))
        raise UsageError(f"--skip: expected KIND[,KIND] (Kind or apiVersion/Kind), got {capped(repr(bad))}")
    return frozenset(names)


def _skipped_by(doc: Document, skip: Collection[str]) -> str | None:
    """The ``--skip`` entry that names the document's kind (``Kind`` or ``apiVersion/Kind``), or None."""
    for spec in (doc.kind, f"{doc.api_version}/{doc.kind}"):
        if doc.kind and spec in skip:
            return spec
    return None


def _object_verdict(doc: Document, gates: FeatureGates) -> Verdict:
    errors = _VALIDATORS[doc.kind](doc.data, gates=gates)
    return Verdict(doc.source, doc.number, doc.kind, doc.name, errors, item=doc.item)


def _plan_verdicts(doc: Document, plan: Plan, by_name: Mapping[tuple[str, str], Document]) -> list[Verdict]:
    """One verdict per object a plan's findings are about (a TrainJob's runtime gets its own).

    ``by_name`` is the first input document of each ``(kind, name)``: a
    finding about another object is reported at its document.
    """
    # A used PodGroup has its own verdict as a scheduling object; a used runtime is checked only through the plan.
    used = [ref for ref in plan.uses if ref.partition("/")[0] not in kinds.PREFERRED_VERSION]
    by_object: dict[str, ErrorList] = {ref: ErrorList() for ref in (plan.object_ref, *used)}
    for finding in plan.validate():
        by_object.setdefault(finding.object, ErrorList()).append(finding.error)
    notices = plan_notices(doc.where(), plan.warnings, plan.object_ref)
    verdicts = []
    for ref, errors in by_object.items():
        kind, _, name = ref.partition("/")
        mine = ref == plan.object_ref
        home = doc if mine else by_name.get((kind, name), doc)
        verdicts.append(Verdict(home.source, home.number, kind, name, errors, notices if mine else [], item=home.item))
    return verdicts


def _shadowed(documents: Sequence[Document], by_name: Mapping[tuple[str, str], Document]) -> dict[str, list[Document]]:
    """The runtimes (objects a plan reads, with no verdict of their own) given again after the first of their name.

    A plan reads the first of a name (``by_name``); each later one is judged
    apart (``_shadow_verdict``), by ``Kind/name``.
    """
    kinds = set(_RELATED_KINDS) | {_runtime_kind(doc) for doc in documents} - {""}
    shadowed: dict[str, list[Document]] = {}
    for doc in documents:
        if doc.kind not in kinds or doc.is_scheduling_object or adapter_for(doc.api_version, doc.kind) is not None:
            continue
        if by_name.get((doc.kind, doc.name)) is not doc:
            shadowed.setdefault(f"{doc.kind}/{doc.name}", []).append(doc)
    return shadowed


def _runtime_kind(doc: Document) -> str:
    """The kind a document's ``spec.runtimeRef`` names (a TrainJob's runtime), or ``""``."""
    spec = doc.data.get("spec") if isinstance(doc.data, dict) else None
    reference = spec.get("runtimeRef") if isinstance(spec, dict) else None
    kind = reference.get("kind") if isinstance(reference, dict) else None
    return kind if isinstance(kind, str) else ""


def _namespace(doc: Document) -> str:
    metadata = doc.data.get("metadata") if isinstance(doc.data, dict) else None
    namespace = metadata.get("namespace") if isinstance(metadata, dict) else None
    return namespace if isinstance(namespace, str) else ""


def _shadow_verdict(
    copy: Document, by_name: Mapping[tuple[str, str], Document], documents: Sequence[Document], users: list[Document]
) -> Verdict:
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
        with about(user):
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
        verdict = _schema_verdict(copy)
        errors, notices = verdict.errors, verdict.notices
    else:
        notices = []
    if copy.data != first.data and (copy.kind == "ClusterTrainingRuntime" or _namespace(copy) == _namespace(first)):
        detail = (
            f"{copy.kind} {go_quote(copy.name)} is defined differently in {first.where()} and in {copy.where()}: "
            "the cluster keeps one object of a name"
        )
        if judged:
            detail += f", and the objects that use it were checked against the one in {first.where()}"
        errors.append(FieldError(ErrorType.DUPLICATE, FieldPath("metadata", "name"), copy.name, detail))
    return Verdict(copy.source, copy.number, copy.kind, copy.name, errors, notices, item=copy.item)


def _merged(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """One verdict per object of the input: a runtime two plans judged is reported once, with both their findings."""
    merged: dict[tuple[str, int, int | None, str, str], Verdict] = {}
    for verdict in verdicts:
        key = (verdict.source, verdict.document, verdict.item, verdict.kind, verdict.name)
        same = merged.get(key)
        if same is None:
            merged[key] = verdict
            continue
        seen = {str(error) for error in same.errors}
        same.errors.extend(error for error in verdict.errors if str(error) not in seen)
        texts = {notice.text for notice in same.notices}
        same.notices = [*same.notices, *(notice for notice in verdict.notices if notice.text not in texts)]
    return list(merged.values())


def _formatted(objects: Sequence[Any], output: str) -> str:
    """Objects as kubectl's ``-o yaml``, ``-o json`` (one object, or a ``v1`` ``List``) or ``-o name`` prints them.

    ``-o name`` gives a ``generateName``-only object the name its plan used
    (``planned_name``: ``generateName`` and the placeholder suffix), as the
    other names in the output do.
    """
    if output == "yaml":
        return manifests.to_yaml(objects)
    dicts = [manifests.to_dict(obj) for obj in objects]
    if output == "name":
        return "".join(f"{_resource(data)}/{planned_name(data.get('metadata') or {})[0] or ''}\n" for data in dicts)
    listed = {"apiVersion": "v1", "items": dicts, "kind": "List", "metadata": {"resourceVersion": ""}}
    try:
        return json.dumps(dicts[0] if len(dicts) == 1 else listed, indent=4, allow_nan=False) + "\n"
    except ValueError:  # NaN or an infinity somewhere: say where
        for data in dicts:
            _check_json_numbers(data)
        raise


def _check_json_numbers(data: dict[str, Any]) -> None:
    """Refuse an object holding NaN or an infinity (YAML's ``.nan``, ``.inf``): JSON has no such number.

    Raises:
        UsageError: naming the object and the first such field, in document order.
    """
    pending: list[tuple[FieldPath | None, Any]] = [(None, data)]
    while pending:  # a stack of its own: no nesting can overflow it
        path, value = pending.pop()
        if isinstance(value, float) and not math.isfinite(value):
            metadata = data.get("metadata")
            name = (planned_name(metadata)[0] if isinstance(metadata, dict) else None) or ""
            raise UsageError(
                f"{data.get('kind')}/{capped(name)}: {path}: {render_bad_value(value)} is not a JSON number:"
                " -o json cannot write it (-o yaml can; the API server accepts neither)"
            )
        if isinstance(value, dict):
            pending += [
                (FieldPath(str(key)) if path is None else path.child(str(key)), item)
                for key, item in reversed(value.items())
            ]
        elif isinstance(value, list) and path is not None:
            pending += [(path.index(i), item) for i, item in reversed(list(enumerate(value)))]


def _resource(data: dict[str, Any]) -> str:
    """``kind.group`` as kubectl's ``-o name`` spells it (``job.batch``, ``workload.scheduling.k8s.io``, ``pod``)."""
    group = _group(str(data.get("apiVersion", "")))
    kind = str(data.get("kind", "")).lower()
    return f"{kind}.{group}" if group else kind
