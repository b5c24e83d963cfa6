"""How ``compile``, ``validate``, ``diff`` and ``migrate`` run: the commands on manifests alone (no cluster).

Each takes the parsed command line and the two output streams and returns
its exit code; bad input is raised as a ``WorkloadBuilderError`` (a
``UsageError`` naming ``file (document N) Kind/name``), which ``main``
prints as one line with exit code 2. ``validate``'s checks are the
library's ``validate_documents``; this module reads, filters the warnings
and writes.
"""

from __future__ import annotations

import argparse
import io
import json
import math
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from workloadbuilder import (
    adapters,  # noqa: F401 - importing the package registers the built-in adapters
    check_update,
    manifests,
)
from workloadbuilder._internal import kinds
from workloadbuilder._internal.gofmt import capped, go_quote, render_bad_value
from workloadbuilder.adapters.base import PlanError, adapter_for, planned_name
from workloadbuilder.adapters.diff import update_findings
from workloadbuilder.adapters.document_reports import NothingCheckedError, ObjectReport, validate_documents
from workloadbuilder.adapters.sourced import Notice, plan_notices, plans_of, unknown_kinds, unknown_note
from workloadbuilder.cli.errors import UsageError
from workloadbuilder.cli.inputs import Document, about, checks_for, parse_gates, read_inputs, skip_notices
from workloadbuilder.cli.messages import WarningPolicy
from workloadbuilder.cli.positions import Positions
from workloadbuilder.cli.report import render
from workloadbuilder.errors import WorkloadBuilderError
from workloadbuilder.field import ErrorList, ErrorType, FieldError, FieldPath, first_few
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


def compile_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``workloadbuilder compile``: the Workload, the runtime groups and the stamped object, per input object."""
    documents = read_inputs(args.files, args.recursive, args.namespace)
    gates = parse_gates(args.gates)
    policy = WarningPolicy.parse(args.warning_options, args.quiet)
    plans = list(plans_of(documents))
    notices = skip_notices(documents, {ref for _, plan in plans for ref in plan.uses})
    if not plans:
        if all(doc.has_no_scheduling_content for doc in documents):  # only Services, RBAC and the like: nothing wrong
            err.writelines(f"Note: {notice.text}\n" for notice in policy.shown(notices))
            err.write("Note: nothing to compile: no object in the input has gang-scheduling content\n")
            return 0
        if args.verbose:  # the error is the one line unless -v asks for the warnings before it
            err.writelines(f"{_label(notice)}: {notice.text}\n" for notice in policy.shown(notices))
        raise UsageError(_nothing_to_compile(documents))
    objects: list[Any] = []
    for doc, plan in plans:
        with about(doc):
            try:
                compiled = plan.compile()
            except PlanError as problem:
                raise UsageError(_attributed(doc, documents, problem)) from None
        notices += plan_notices(doc.where(), compiled.warnings, plan.object_ref, doc.namespace)
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

    The checks are ``validate_documents``'s. An object of a kind no adapter
    knows is skipped with an ``unknown-kind`` warning, as every command skips
    it (``--strict`` fails on the warning); an input in which nothing was
    checked is refused (exit 2), so a CI job cannot pass on a directory of the
    wrong files: the ``error:`` line alone, the warnings too with ``-v``.
    """
    given = read_inputs(args.files, args.recursive, args.namespace, served_only=False)
    gates = parse_gates(args.gates)
    policy = WarningPolicy.parse(args.warning_options, args.quiet, args.strict)
    skip = _skip_kinds(args.skip)
    try:
        reports = validate_documents(given, gates, skip)
    except NothingCheckedError as nothing:
        if args.verbose:  # the error is the one line unless -v asks for the warnings before it
            err.writelines(f"Warning: {notice.text}\n" for notice in policy.shown(_notices(nothing.reports)))
        raise UsageError(str(nothing)) from None
    for report in reports:
        report.notices = policy.shown(report.notices)
    positions = {doc.source: Positions(doc.text) for doc in given} if args.output == "github" else {}
    out.write(render(reports, args.output, positions, checks_for(gates), args.summary))
    failing = [(r, n) for r in reports for n in r.notices if policy.fails([n])]
    if failing:
        err.write(_strict_failure(failing))
    return 1 if failing or any(r.errors for r in reports) else 0


def _notices(reports: Sequence[ObjectReport]) -> Iterator[Notice]:
    return (notice for report in reports for notice in report.notices)


def _strict_failure(failing: Sequence[tuple[ObjectReport, Notice]]) -> str:
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
    document (a runtime's own errors at the runtime's). An object of a kind
    no adapter knows is skipped with the ``unknown-kind`` warning, as every
    command skips it; a file with nothing else is bad input (exit 2), its
    ``error:`` line alone unless ``-v``.
    """
    gates = parse_gates(args.gates)
    old_documents, old_skipped = _known(read_inputs([args.old], namespace=args.namespace))
    new_documents, new_skipped = _known(read_inputs([args.new], namespace=args.namespace))
    warned = [f"Warning: {unknown_note(doc)}\n" for doc in old_skipped + new_skipped]
    for documents, skipped in ((old_documents, old_skipped), (new_documents, new_skipped)):
        if not documents:  # nothing left to compare: the error is the one line unless -v asks for the warnings
            if args.verbose:
                err.writelines(warned)
            raise UsageError(_no_adapter(skipped[0]) + "; --mapping FILE describes a custom resource")
    err.writelines(warned)
    old, new = _compared(args.old, old_documents), _compared(args.new, new_documents)
    if (old.kind, old.name) != (new.kind, new.name):
        raise UsageError(f"OLD is {old.kind} {old.name!r} but NEW is {new.kind} {new.name!r}: an update keeps both")
    verdicts = {id(new): ObjectReport(new.source, new.number, new.kind, new.name, item=new.item)}
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
                verdicts[id(home)] = ObjectReport(home.source, home.number, home.kind, home.name, item=home.item)
            verdicts[id(home)].errors.append(finding.error)
    return _report_update(list(verdicts.values()), new, args.output, out)


def _known(documents: list[Document]) -> tuple[list[Document], list[Document]]:
    """A ``diff`` input's documents an update can use, and those of a kind no adapter knows (``unknown_kinds``),
    which ``diff`` skips with the warning every command gives them."""
    unknown = {id(doc) for doc in unknown_kinds(documents)}
    return [doc for doc in documents if id(doc) not in unknown], [doc for doc in documents if id(doc) in unknown]


def _report_update(verdicts: Sequence[ObjectReport], new: Document, output: str, out: TextIO) -> int:
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
    """``workloadbuilder migrate``: v1alpha1/v1alpha2 objects rewritten for 1.37; exit 1 when something is left.

    The notes on what was rewritten go to ``err`` once the output is made: an
    input refused on the way (exit 2) gets its one ``error:`` line alone,
    unless ``-v`` asks for the notes made before it.
    """
    notes = io.StringIO()
    try:
        code, text = _migrated(args, notes)
    except WorkloadBuilderError:
        if args.verbose:
            err.write(notes.getvalue())
        raise
    err.write(notes.getvalue())
    out.write(text)
    return code


def _migrated(args: argparse.Namespace, err: TextIO) -> tuple[int, str]:
    """The exit code and the output of ``migrate``; the notes are written to ``err`` as they are made."""
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
    return (1 if incomplete else 0), _formatted(results, args.output)


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


def _group(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def _no_adapter(doc: Document) -> str:
    return f"{doc.about()}: no adapter for apiVersion {doc.api_version!r} kind {doc.kind!r}"


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
        message = ObjectReport(doc.source, doc.number, str(kind), name or "", errors).kubectl()
        raise UsageError(f"{doc.about()}: {message.strip()}")


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
