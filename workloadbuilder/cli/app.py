"""The ``workloadbuilder`` command: compile, validate, place, explain, diff and migrate manifests.

The only code that touches argv, files, stdout and exit codes. Every
failure is one line on stderr and a non-zero exit (2 for bad input or usage,
1 for an invalid object or an infeasible placement, 3 for a bug of ours);
``--debug`` shows the traceback too.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import pydantic
import yaml

import workloadbuilder.adapters as adapters  # noqa: F401 - importing the package registers the built-in adapters
from workloadbuilder import BuildError, MissingDependencyError, check_update, kinds, manifests
from workloadbuilder.adapters import Plan, adapter_for, scoped_registry
from workloadbuilder.adapters.crd import register_mapping
from workloadbuilder.adapters.diff import update_findings
from workloadbuilder.adapters.strict import has_schema, schema_errors
from workloadbuilder.cli.inputs import Document, UsageError, parse_gates, read_inputs
from workloadbuilder.cli.place import add_options as add_place_options
from workloadbuilder.cli.place import explain_command, place_command
from workloadbuilder.cli.planning import add_capacity_options, add_simulate_options, capacity_command, simulate_command
from workloadbuilder.cli.report import Verdict, render
from workloadbuilder.field import AggregateError, ErrorList
from workloadbuilder.migrate import migrate
from workloadbuilder.migrate_gangs import (
    GangMigration,
    is_foreign_pod_group,
    is_kueue_pod,
    migrate_kueue_pods,
    migrate_pod_group,
)
from workloadbuilder.validation.gates import FeatureGates
from workloadbuilder.validation.objects import validate_composite_pod_group, validate_pod_group, validate_workload

__all__ = ["main"]

_VALIDATORS = {
    kinds.WORKLOAD: validate_workload,
    kinds.POD_GROUP: validate_pod_group,
    kinds.COMPOSITE_POD_GROUP: validate_composite_pod_group,
}


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run the command line; returns the exit code (``python -m workloadbuilder`` exits with it)."""
    out, err = stdout or sys.stdout, stderr or sys.stderr
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        with scoped_registry():  # a --mapping is this run's alone, whatever other threads run
            if args.mapping:
                _register_mapping(args.mapping)
            return int(args.run(args, out, err))
    except (
        UsageError,
        manifests.ManifestError,
        BuildError,
        AggregateError,
        MissingDependencyError,
        LookupError,
        ValueError,
    ) as problem:
        if args.debug:
            traceback.print_exc(file=err)
        err.write(f"error: {_one_line(problem)}\n")
        return 2
    except Exception as bug:  # noqa: BLE001 - a bug of ours still ends in one line, not a traceback
        if args.debug:
            traceback.print_exc(file=err)
        err.write(
            f"error: internal error: {type(bug).__name__}: {_one_line(bug)} (run with --debug for the traceback)\n"
        )
        return 3


def _one_line(problem: Exception) -> str:
    text = str(problem).strip()
    return text.replace("\n", "; ") if text else type(problem).__name__


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="workloadbuilder",
        description="Compile, validate and place Kubernetes 1.37 gang-scheduling objects.",
    )
    parser.add_argument("--debug", action="store_true", help="show a traceback on failure")
    parser.set_defaults(mapping=None)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, run: Any, help: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=help)
        sub.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show a traceback on failure")
        sub.set_defaults(run=run)
        return sub

    def inputs(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("files", nargs="+", metavar="FILE", help="YAML or JSON manifests; - reads stdin")
        sub.add_argument("--mapping", help="a CRD mapping file, for custom resources")
        sub.add_argument("--gates", help="feature gates: all (default), defaults, or Gate=true,Gate=false")

    compile_ = command("compile", _compile, "print the Workload, its runtime groups and the stamped input")
    inputs(compile_)
    validate = command("validate", _validate, "report errors as the apiserver would (exit 1 when invalid)")
    inputs(validate)
    validate.add_argument("--output", choices=["text", "json", "github"], default="text")
    place = command("place", place_command, "where each group lands on a cluster, or why not (exit 1 when any is not)")
    place.add_argument("files", nargs="+", metavar="FILE", help="YAML or JSON manifests; - reads stdin")
    place.add_argument("--mapping", help="a CRD mapping file, for custom resources")
    add_place_options(place, render=True)
    explain = command("explain", explain_command, "only why (or where): the placement's explanation, level by level")
    explain.add_argument("files", nargs="+", metavar="FILE", help="YAML or JSON manifests; - reads stdin")
    explain.add_argument("--mapping", help="a CRD mapping file, for custom resources")
    add_place_options(explain, render=False)
    capacity = command("capacity", capacity_command, "how many copies of the input fit, per domain, and what to add")
    add_capacity_options(capacity)
    capacity.add_argument("--mapping", help="a CRD mapping file, for custom resources")
    simulate = command("simulate", simulate_command, "a queue of workloads played out over time on a cluster")
    add_simulate_options(simulate)
    simulate.add_argument("--mapping", help="a CRD mapping file, for custom resources")
    diff = command("diff", _diff, "the errors an apiserver would return for updating OLD to NEW")
    diff.add_argument("old", metavar="OLD")
    diff.add_argument("new", metavar="NEW")
    diff.add_argument("--gates", help="feature gates: all (default), defaults, or Gate=true,Gate=false")
    migrate_ = command("migrate", _migrate, "rewrite v1alpha1/v1alpha2 manifests for 1.37, with a report")
    migrate_.add_argument("files", nargs="+", metavar="FILE", help="YAML or JSON manifests; - reads stdin")
    return parser


def _register_mapping(path: str) -> None:
    if not Path(path).is_file():
        raise UsageError(f"{path}: no such file")
    try:
        register_mapping(Path(path))
    except pydantic.ValidationError as invalid:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or '(the mapping)'}: {error['msg']}"
            for error in invalid.errors()
        )
        raise UsageError(f"{path}: not a valid CRD mapping: {problems}") from None
    except yaml.YAMLError as bad:
        raise UsageError(f"{path}: not YAML: {_one_line(bad)}") from None


def _plans(documents: Sequence[Document]) -> list[tuple[Document, Plan]]:
    """A plan for each document an adapter claims; the other documents are the plans' related objects."""
    plans = []
    for doc in documents:
        adapter = adapter_for(doc.api_version, doc.kind)
        if adapter is None:
            continue
        related = [other.data for other in documents if other is not doc]
        plans.append((doc, adapter.plan(doc.data, related)))
    return plans


def _unclaimed(documents: Sequence[Document], plans: Sequence[tuple[Document, Plan]] = ()) -> list[Document]:
    """Documents no adapter plans and no plan read (a TrainJob's runtime is checked through the TrainJob)."""
    used = {ref for _, plan in plans for ref in plan.uses}
    return [
        doc
        for doc in documents
        if adapter_for(doc.api_version, doc.kind) is None
        and not doc.is_scheduling_object
        and f"{doc.kind}/{doc.name}" not in used
    ]


def _compile(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    documents = read_inputs(args.files)
    gates = parse_gates(args.gates)
    plans = _plans(documents)
    if not plans:
        raise UsageError("no object an adapter knows (Job, JobSet, LeaderWorkerSet, TrainJob, or --mapping)")
    objects: list[Any] = []
    for _doc, plan in plans:
        compiled = plan.compile()
        for warning in compiled.warnings:
            err.write(f"Warning: {warning}\n")
        for obj in compiled.objects():
            _check_gates(obj, gates)
            objects.append(obj)
        objects.append(compiled.source)
    out.write(manifests.to_yaml(objects))
    return 0


_OWNER_UID = "metadata.ownerReferences.uid"


def _check_gates(obj: Any, gates: FeatureGates) -> None:
    """Refuse an object the chosen feature gates would not serve, with the apiserver's errors.

    An owner without a uid is not refused here: a manifest not yet created has
    none, the plan has warned about it, and ``validate`` refuses the output.
    """
    kind = getattr(obj, "kind", None)
    errors = _VALIDATORS[kind](obj, gates=gates) if kind in _VALIDATORS else ErrorList()
    errors = ErrorList(e for e in errors if e.field != _OWNER_UID)
    if errors:
        name = obj.metadata.name if obj.metadata is not None else ""
        raise UsageError(Verdict("", 0, str(kind), name or "", errors).kubectl().strip().replace("\n", " "))


def _validate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    documents = read_inputs(args.files)
    gates = parse_gates(args.gates)
    verdicts = [_object_verdict(doc, gates) for doc in documents if doc.is_scheduling_object]
    plans = _plans(documents)
    for doc, plan in plans:
        verdicts.extend(_plan_verdicts(doc, plan))
    for doc in _unclaimed(documents, plans):
        if has_schema(doc.data):
            verdicts.append(_schema_verdict(doc))
            continue
        verdicts.append(
            Verdict(doc.source, doc.number, doc.kind or "object", doc.name, warnings=[_no_adapter(doc)], checked=False)
        )
    verdicts.sort(key=lambda v: (v.source, v.document))
    out.write(render(verdicts, args.output))
    return 1 if any(v.errors for v in verdicts) else 0


def _no_adapter(doc: Document) -> str:
    return f"{doc.where()}: no adapter for apiVersion {doc.api_version!r} kind {doc.kind!r}; not checked"


def _schema_verdict(doc: Document) -> Verdict:
    """An object with a schema but nothing to plan on its own (a runtime no TrainJob uses): its fields are checked."""
    note = f"{doc.where()}: no object in the input uses this {doc.kind}: only its fields were checked"
    if is_foreign_pod_group(doc.data):
        note = (
            f"{doc.where()}: another scheduler's PodGroup: only its fields were checked; "
            "workloadbuilder migrate turns it into a native Workload and PodGroup"
        )
    return Verdict(doc.source, doc.number, doc.kind, doc.name, schema_errors(doc.data), [note])


def _object_verdict(doc: Document, gates: FeatureGates) -> Verdict:
    errors = _VALIDATORS[doc.kind](doc.data, gates=gates)
    return Verdict(doc.source, doc.number, doc.kind, doc.name, errors)


def _plan_verdicts(doc: Document, plan: Plan) -> list[Verdict]:
    """One verdict per object a plan's findings are about (a TrainJob's runtime gets its own)."""
    # A used PodGroup has its own verdict as a scheduling object; a used runtime is checked only through the plan.
    used = [ref for ref in plan.uses if ref.partition("/")[0] not in kinds.PREFERRED_VERSION]
    by_object: dict[str, ErrorList] = {ref: ErrorList() for ref in (plan.object_ref, *used)}
    for finding in plan.validate():
        by_object.setdefault(finding.object, ErrorList()).append(finding.error)
    warnings = [str(w.error) for w in plan.warnings]
    verdicts = []
    for ref, errors in by_object.items():
        kind, _, name = ref.partition("/")
        mine = ref == plan.object_ref
        verdicts.append(Verdict(doc.source, doc.number, kind, name, errors, warnings if mine else []))
    return verdicts


def _diff(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    gates = parse_gates(args.gates)
    old, new = _single(args.old), _single(args.new)
    if (old.kind, old.name) != (new.kind, new.name):
        raise UsageError(f"OLD is {old.kind} {old.name!r} but NEW is {new.kind} {new.name!r}: an update keeps both")
    if old.is_scheduling_object:
        errors = check_update(old.data, new.data, gates)
    else:
        if adapter_for(new.api_version, new.kind) is None:
            raise UsageError(_no_adapter(new))
        errors = ErrorList(finding.error for finding in update_findings(old.data, new.data, gates=gates))
    verdict = Verdict(args.new, 1, new.kind, new.name, errors)
    out.write(verdict.kubectl() or f'{new.kind} "{new.name}": the update would be accepted\n')
    return 1 if errors else 0


def _single(path: str) -> Document:
    documents = read_inputs([path])
    if len(documents) != 1:
        raise UsageError(f"{path}: diff compares one object, found {len(documents)}")
    return documents[0]


def _migrate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    documents = read_inputs(args.files)
    results, incomplete = [], False
    kueue = [doc for doc in documents if is_kueue_pod(doc.data)]
    if kueue:
        pods = migrate_kueue_pods([doc.data for doc in kueue])
        _report_gang(pods, kueue[0], err)
        results.extend(pods.objects)
    for doc in documents:
        if is_foreign_pod_group(doc.data):
            gang = migrate_pod_group(doc.data)
            _report_gang(gang, doc, err)
            results.extend(gang.objects)
            continue
        if not doc.is_scheduling_object:
            if not is_kueue_pod(doc.data):
                results.append(doc.data)
            continue
        migration = migrate(doc.data)
        for note in migration.rewrites:
            err.write(f"{doc.where()}: {note}\n")
        for note in migration.untranslated:
            err.write(f"{doc.where()}: not translated: {note}\n")
        incomplete = incomplete or not migration.complete
        results.append(migration.manifest)
    out.write(manifests.to_yaml(results))
    return 1 if incomplete else 0


def _report_gang(migration: GangMigration, doc: Document, err: TextIO) -> None:
    err.writelines(f"{doc.where()}: {note}\n" for note in migration.rewrites)
    err.writelines(f"{doc.where()}: dropped: {note}\n" for note in migration.dropped)
