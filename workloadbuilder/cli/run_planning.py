"""How ``workloadbuilder capacity`` and ``simulate`` run: copies that fit and what to add; a queue over time.

``capacity FILE...`` treats every object of the input files as one unit and
asks ``placement.capacity``. ``simulate QUEUE.yaml`` reads a queue file::

    workloads:
    - file: jobset-training.yaml   # relative to the queue file; or object: {...} inline
      arrival: 0                   # seconds
      duration: 3600               # seconds
      count: 4                     # copies (default 1)
      priorityClassName: high      # optional; a PriorityClass in a workload file, or a built-in one

and asks ``placement.simulate``. Both take the cluster options of ``place``.
Exit codes: 0 done, 2 bad input; 1 for ``capacity`` when not one copy fits, and for
``simulate`` when a copy is undecided (``--timeout``, which bounds each whole command, was reached)
or never runs (each such copy's line gives the verdict ``place`` gives it; ``--exit-zero`` keeps 0).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from workloadbuilder import manifests
from workloadbuilder._internal.gofmt import render_bad_value
from workloadbuilder.adapters.sourced import unknown_kinds
from workloadbuilder.cli.clusters import load_cluster
from workloadbuilder.cli.deadline import Deadline
from workloadbuilder.cli.errors import UsageError
from workloadbuilder.cli.inputs import Document, read_inputs
from workloadbuilder.cli.options import check_output, dump_answer, parse_claims
from workloadbuilder.cli.placement_inputs import merge_requests, placement_inputs
from workloadbuilder.cli.progress import Progress
from workloadbuilder.cli.render_file import check_render_target, write_render
from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.field import ErrorList
from workloadbuilder.limits import MAX_COPIES, MAX_SECONDS, MAX_TIMEOUT
from workloadbuilder.placement import STRATEGIES, PlacementRequest
from workloadbuilder.placement.k8s.priorities import PriorityClass, read_priority_classes
from workloadbuilder.placement.planning.capacity import capacity
from workloadbuilder.placement.planning.simulate import QueueEntry, simulate
from workloadbuilder.placement.render.charts import capacity_svg, utilization_svg

__all__ = ["capacity_command", "read_queue", "simulate_command"]

_ENTRY_FIELDS = frozenset({"file", "object", "arrival", "duration", "count", "priorityClassName"})


def _check(args: argparse.Namespace) -> None:
    if args.render is not None:
        check_render_target(args.render, (".svg",), args.force)
    if args.strategy not in STRATEGIES:
        raise UsageError(f"--strategy: {args.strategy!r} is not one of {', '.join(STRATEGIES)}")
    check_output(args.output)
    if not (math.isfinite(args.timeout) and 0 < args.timeout <= MAX_TIMEOUT):
        raise UsageError(f"--timeout: must be a positive number of seconds up to {MAX_TIMEOUT:g}, got {args.timeout:g}")


def capacity_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``workloadbuilder capacity``: copies that fit, per domain, stranded capacity, nodes to add."""
    deadline = Deadline(args.timeout)
    _check(args)
    if args.target is not None and not 1 <= args.target <= MAX_COPIES:
        raise UsageError(f"--target: must be from 1 to {MAX_COPIES} copies, got {render_bad_value(args.target)}")
    if args.target is not None and args.add_nodes_like is None:
        raise UsageError("--target goes with --add-nodes-like NODE")
    progress = Progress(err)
    with deadline.enforced("reading the inputs"):
        documents = read_inputs(args.files, namespace=args.namespace)
        request = merge_requests(placement_inputs(documents, parse_claims(args.claim or []), err).inputs)
        deadline.check("reading the cluster")
        cluster, line = load_cluster(args, request, progress)
        if args.add_nodes_like is not None and args.add_nodes_like not in cluster.node_index:
            raise UsageError(f"--add-nodes-like: no node named {args.add_nodes_like!r} in the cluster")
        deadline.check("counting copies")
        with progress.step("counting copies"):
            answer = capacity(
                request,
                cluster,
                add_nodes_like=args.add_nodes_like,
                target=args.target,
                strategy=args.strategy,
                timeout=deadline.for_engine(),
            )
        deadline.check("writing the answer")
        text = (
            dump_answer(answer.to_dict(), args.output, deadline)
            if args.output != "text"
            else f"{line}\n{answer.text}\n"
        )
        drawing = _drawing(args, lambda: capacity_svg(answer), deadline)
    out.write(text)
    drawing()
    return 0 if answer.copies > 0 else 1


def simulate_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``workloadbuilder simulate``: the queue played out; one line per copy and the makespan, or JSON."""
    deadline = Deadline(args.timeout)
    _check(args)
    if len(args.files) != 1:
        raise UsageError(f"simulate plays one QUEUE file, got {len(args.files)}: {', '.join(args.files[:3])}")
    args.queue = args.files[0]
    progress = Progress(err)
    claims = parse_claims(args.claim or [])

    def to_request(documents: list[Document]) -> PlacementRequest:
        deadline.check("reading the queue's workloads")
        return merge_requests(placement_inputs(documents, claims, err).inputs)

    with deadline.enforced("reading the queue's workloads"):
        workloads, classes = read_queue(args.queue, to_request, args.recursive, args.namespace)
        every = PlacementRequest(
            [root for w in {id(w.request): w for w in workloads}.values() for root in w.request.roots]
        )
        deadline.check("reading the cluster")
        cluster, line = load_cluster(args, every, progress)
        deadline.check("simulating")
        with progress.step(f"simulating {len(workloads)} workload(s)"):
            try:
                result = simulate(
                    workloads,
                    cluster,
                    seed=args.seed,
                    strategy=args.strategy,
                    priority_classes=classes,
                    timeout=deadline.for_engine(),
                )
            except InvalidArgumentError as problem:
                raise UsageError(f"{args.queue}: {problem}") from None
        deadline.check("writing the answer")
        if args.output != "text":
            text = dump_answer(result.to_dict(), args.output, deadline)
        else:
            # the tie-break seed, beside the generator's own `seed=` of the cluster line: they are not the same
            copies = sum(workload.count for workload in workloads)
            queue = f"queue: {args.queue}, {copies} {'copy' if copies == 1 else 'copies'}, tie-break seed {result.seed}"
            text = f"{line}\n{queue}\n{result.text}\n"
        drawing = _drawing(args, lambda: utilization_svg(result), deadline)
    out.write(text)
    drawing()
    if result.undecided:
        return 1
    return 0 if args.exit_zero or not result.never_placed else 1


def _drawing(args: argparse.Namespace, draw: Callable[[], str], deadline: Deadline) -> Callable[[], None]:
    """``--render``'s chart drawn now, within ``deadline``; what writes its file (``render_file``) once the answer
    is out (nothing without ``--render``)."""
    if args.render is None:
        return lambda: None
    deadline.check(f"drawing {args.render}")
    svg = draw()
    deadline.check(f"drawing {args.render}")
    return lambda: write_render(args.render, svg, args.force)


def read_queue(
    path: str,
    to_request: Callable[[list[Document]], PlacementRequest],
    recursive: bool = False,
    namespace: str | None = None,
) -> tuple[list[QueueEntry], list[PriorityClass]]:
    """The workloads of a queue file and the PriorityClasses among their documents.

    ``to_request`` turns a file's documents into one placement request;
    an entry's ``file`` is read as ``-f`` reads it, with ``-R``
    (``recursive``) and ``-n`` (``namespace``).

    Entries that name the same file share one request, so the simulation
    knows their copies are alike.

    Raises:
        UsageError: the file is missing, or an entry is malformed (named as ``QUEUE: workloads[i].field: ...``).
    """
    queue = Path(path)
    if not queue.is_file():
        raise UsageError(f"{path}: no such file")
    parsed = [doc for doc in manifests.read_documents(queue) if doc is not None]
    if len(parsed) != 1 or not isinstance(parsed[0], Mapping) or set(parsed[0]) != {"workloads"}:
        raise UsageError(f"{path}: a queue file is one mapping with one key, workloads (a list)")
    entries = parsed[0]["workloads"]
    if not isinstance(entries, list) or not entries:
        raise UsageError(f"{path}: workloads: a non-empty list of entries")
    requests: dict[str, tuple[PlacementRequest, list[Document]]] = {}
    read: list[tuple[int, Mapping[str, Any], PlacementRequest, list[Document]]] = []
    for i, entry in enumerate(entries):
        where = f"{path}: workloads[{i}]"
        if not isinstance(entry, Mapping):
            raise UsageError(f"{where}: an entry is a mapping")
        unknown = sorted(str(key) for key in entry if key not in _ENTRY_FIELDS)
        if unknown:
            raise UsageError(f"{where}.{unknown[0]}: unknown field")
        if ("file" in entry) == ("object" in entry):
            raise UsageError(f"{where}: give one of file and object")
        if "file" in entry:
            if not isinstance(entry["file"], str):
                raise UsageError(f"{where}.file: a path relative to the queue file")
            target = str(queue.parent / entry["file"])
            if target not in requests:
                documents = read_inputs([target], recursive, namespace)
                requests[target] = (to_request(documents), documents)
            request, documents = requests[target]
        else:
            if not isinstance(entry["object"], Mapping):
                raise UsageError(f"{where}.object: a manifest is a mapping")
            documents = [Document(f"{where}.object", 1, dict(entry["object"]))]
            request = to_request(documents)
        read.append((i, entry, request, documents))
    names = [_workload_name(documents) for *_, documents in read]
    workloads = [
        _workload(f"{path}: workloads[{i}]", name if names.count(name) == 1 else f"{name}-{i}", entry, request)
        for (i, entry, request, _), name in zip(read, names, strict=True)
    ]
    errors = ErrorList()
    objects = [doc.data for *_, documents in read for doc in documents if doc.kind == "PriorityClass"]
    classes = read_priority_classes(objects, "priorityClasses", errors)
    errors.raise_if_any()
    return workloads, classes


def _workload_name(documents: Sequence[Document]) -> str:
    """A queue entry's name: its first placed object's (not a PriorityClass, a skipped object or an unknown kind's)."""
    unknown = {id(doc) for doc in unknown_kinds(documents)}
    placed = (
        doc
        for doc in documents
        if doc.kind != "PriorityClass" and not doc.has_no_scheduling_content and id(doc) not in unknown and doc.name
    )
    return next((doc.name for doc in placed), "workload")


def _workload(where: str, name: str, entry: Mapping[str, Any], request: PlacementRequest) -> QueueEntry:
    numbers = {}
    for key, least, most in (("arrival", 0, MAX_SECONDS), ("duration", 0, MAX_SECONDS), ("count", 1, MAX_COPIES)):
        value = entry.get(key, 1 if key == "count" else None)
        if value is None:
            raise UsageError(f"{where}.{key}: Required value")
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or (key == "count" and not isinstance(value, int))
        ):
            raise UsageError(f"{where}.{key}: must be {'an integer' if key == 'count' else 'a number of seconds'}")
        if isinstance(value, float) and not math.isfinite(value):
            raise UsageError(f"{where}.{key}: must be a finite number, got {value}")
        if not least <= value <= most:
            raise UsageError(f"{where}.{key}: must be from {least} to {most}, got {render_bad_value(value)}")
        numbers[key] = value
    class_name = entry.get("priorityClassName")
    if class_name is not None and (not isinstance(class_name, str) or not class_name):
        raise UsageError(f"{where}.priorityClassName: the name of a PriorityClass")
    return QueueEntry(
        name, request, numbers["arrival"], numbers["duration"], int(numbers["count"]), priority_class_name=class_name
    )
