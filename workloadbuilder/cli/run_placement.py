"""How ``workloadbuilder place`` and ``explain`` run: where each group of the input lands on a cluster, or why not.

The inputs are controller objects (each document an adapter claims becomes
a plan, compiled, and read by ``adapters.documents.request_from_plan``) or ready-made
runtime groups (PodGroups and CompositePodGroups with the Pods that name
them in ``spec.schedulingGroup.podGroupName``). Every input's root groups
are placed in one pass over the cluster, in kube-scheduler's queue order
(priority, then creation, then input order), each seeing what the earlier
ones took. The cluster comes from ``--cluster`` (a ``kubectl get
nodes -o json`` dump, with ``--pods``/``--groups``, or the compact YAML
format; the file says which) or from ``--generate``.

This module runs the two commands (their options are declared in
``cli.commands.place`` and ``cli.commands.explain``); reading the
inputs (``placement_inputs``), the cluster (``clusters``) and writing the
text output (``placement_text``) live in modules of their own.

Both end with the answer's verdict tier (``verdict: TIER`` in text, the
``verdict`` key in JSON; see ``workloadbuilder.placement.verdict``). Exit
codes: 0 for ``placeable`` (placed now, evicting nothing), and with
``--preempt`` for ``placeable-after-preemption`` when the evictions it made
place every input (the plan asked for holds); 1 for every other tier
(``placeable-after-preemption`` without ``--preempt``,
``waiting-for-capacity``, ``never``, ``undecided``, ``invalid``), 2 for bad
input.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from workloadbuilder.adapters.documents import InvalidDocumentError
from workloadbuilder.cli.clusters import (
    load_cluster,
    nodes_text,
)
from workloadbuilder.cli.deadline import Deadline
from workloadbuilder.cli.errors import UsageError
from workloadbuilder.cli.inputs import read_inputs
from workloadbuilder.cli.options import check_output, dump_answer, parse_claims
from workloadbuilder.cli.placement_inputs import NothingToPlace, PlacementInput, merge_requests, placement_inputs
from workloadbuilder.cli.placement_text import explain_text, place_text
from workloadbuilder.cli.progress import Progress
from workloadbuilder.cli.render_file import check_render_target, write_render
from workloadbuilder.limits import MAX_TIMEOUT
from workloadbuilder.placement import (
    DEFAULT_TIMEOUT,
    STRATEGIES,
    Cluster,
    Placement,
    PlacementRequest,
    Verdict,
    place,
    verdict,
)
from workloadbuilder.placement.k8s.priorities import PriorityError
from workloadbuilder.placement.render.svg import render_html, render_svg

__all__ = ["explain_command", "place_command"]


def place_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``workloadbuilder place``: where each group lands, capacity left, and why an input cannot be placed."""
    deadline = _deadline(args)
    render = _render_writer(args.render, args.force)
    with deadline.enforced("reading the inputs"):
        try:
            session = _Session.start(args, err, deadline)
        except InvalidDocumentError as problem:
            return _invalid(problem, args.output, out, deadline)
        except NothingToPlace as nothing:  # only Services, RBAC and the like (issue 26)
            err.write(f"Note: {nothing}\n")
            return 0
        if args.output != "text":
            answer = {**session.placement.to_dict(), "verdict": session.verdict.to_dict()}
            text = dump_answer(answer, args.output, deadline)
        else:
            deadline.check("writing the answer")
            text = session.place_text()
        drawing = None
        if render is not None:
            deadline.check(f"drawing {args.render}")
            with session.progress.step(f"drawing {args.render}"):
                drawing = render(session)
        deadline.check("writing the answer")
    out.write(text)
    if drawing is not None:
        drawing()
    return session.exit_code(args.preempt)


def explain_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``workloadbuilder explain``: only the explanation, root by root and level by level."""
    deadline = _deadline(args)
    with deadline.enforced("reading the inputs"):
        try:
            session = _Session.start(args, err, deadline)
        except InvalidDocumentError as problem:
            return _invalid(problem, args.output, out, deadline)
        except NothingToPlace as nothing:
            err.write(f"Note: {nothing}\n")
            return 0
        if args.output != "text":
            answer = {**session.placement.explanation, "verdict": session.verdict.to_dict()}
            text = dump_answer(answer, args.output, deadline)
        else:
            deadline.check("writing the answer")
            text = explain_text(session.inputs, session.placement, session.cluster_line) + session.verdict.text + "\n"
        deadline.check("writing the answer")
    out.write(text)
    return session.exit_code(args.preempt)


def _deadline(args: argparse.Namespace) -> Deadline:
    """The command's ``--timeout``, checked first: the bound of everything the command does from here on."""
    if args.timeout is not None and not (math.isfinite(args.timeout) and 0 < args.timeout <= MAX_TIMEOUT):
        raise UsageError(f"--timeout: must be a positive number of seconds up to {MAX_TIMEOUT:g}, got {args.timeout:g}")
    return Deadline(args.timeout, engine_default=DEFAULT_TIMEOUT)


def _invalid(problem: InvalidDocumentError, output: str, out: TextIO, deadline: Deadline) -> int:
    """An input that does not validate: nothing is placed, the ``invalid`` verdict is the whole answer."""
    answer = Verdict.invalid(problem)
    out.write(answer.text + "\n" if output == "text" else dump_answer({"verdict": answer.to_dict()}, output, deadline))
    return answer.exit_code


@dataclass
class _Session:
    """The inputs, the cluster and the answer of one ``place``/``explain`` run."""

    inputs: list[PlacementInput]
    request: PlacementRequest
    cluster: Cluster
    cluster_line: str
    placement: Placement
    verdict: Verdict
    progress: Progress

    def exit_code(self, preempt: bool) -> int:
        """The command's exit code: the verdict's (0 only for ``placeable``), except that with ``--preempt`` a
        placement that holds by the evictions it made is the plan asked for, so 0 too (as ``kubectl`` exits 0 when
        what it was told to do was done)."""
        if preempt and self.verdict.tier == "placeable-after-preemption" and self.placement.feasible:
            return 0
        return self.verdict.exit_code

    def place_text(self) -> str:
        """``place``'s text answer: each input's groups, the summary, and the verdict line last."""
        return place_text(self.inputs, self.placement, self.cluster_line) + self.verdict.text + "\n"

    @classmethod
    def start(cls, args: argparse.Namespace, err: TextIO, deadline: Deadline) -> _Session:
        """Check the options, read the inputs and the cluster, and place: everything both commands share.

        The cheap option checks come first, so a typo fails before a large
        cluster dump is read; ``deadline`` (``--timeout``) bounds the rest.
        """
        if args.strategy not in STRATEGIES:
            raise UsageError(f"--strategy: {args.strategy!r} is not one of {', '.join(STRATEGIES)}")
        check_output(args.output)
        progress = Progress(err)
        deadline.check("reading the inputs")
        documents = read_inputs(args.files, namespace=args.namespace)
        found = placement_inputs(documents, parse_claims(args.claim or []), err)
        inputs, classes = found.inputs, found.priority_classes
        request = merge_requests(inputs)
        deadline.check("reading the cluster")
        cluster, line = load_cluster(args, request, progress)
        deadline.check(f"placing on {nodes_text(len(cluster))}")
        with progress.step(f"placing on {nodes_text(len(cluster))} ({args.strategy})"):
            try:
                started, bound = time.monotonic(), deadline.for_engine()
                placement = place(request, cluster, args.strategy, args.preempt, bound, classes)
                # places again (with the same strategy) only when not placeable, within what is left of the bound
                tier = verdict(request, cluster, placement, classes, bound, since=started)
            except PriorityError as problem:
                owner = next((item.label for item in inputs for g in item.request.groups if g.name == problem.obj), "")
                raise UsageError(f"{owner}: {problem}" if owner else str(problem)) from None
        return cls(inputs, request, cluster, line, placement, tier, progress)


def _render_writer(path: str | None, force: bool = False) -> Callable[[_Session], Callable[[], None]] | None:
    """What ``--render PATH`` draws (``render_file``), chosen (and checked) before any work is done: given the
    session, it draws and returns what writes the file."""
    if path is None:
        return None
    suffix = check_render_target(path, (".svg", ".html", ".htm"), force)

    def draw(session: _Session) -> Callable[[], None]:
        drawn = (session.request, session.cluster, session.placement)
        # the page carries the whole text answer beside the drawing
        text = render_svg(*drawn) if suffix == ".svg" else render_html(*drawn, text=session.place_text())
        return lambda: write_render(path, text, force)

    return draw
