"""The ``workloadbuilder`` command: compile, validate, place, explain, diff and migrate manifests.

The only code that touches argv, stdout and exit codes. Exit codes:

* 0: done (valid, placed, accepted, translated);
* 1: the answer is no (an invalid object, an infeasible placement, a refused
  update, something left untranslated; with ``--strict``, a warning);
* 2: bad input or usage: the library refused the input (a
  ``WorkloadBuilderError``, ``UsageError`` included) or the command line is
  wrong; one line on stderr starting ``error:``;
* 3: a bug of ours: any other exception; one line, and ``--debug`` shows
  the traceback.

Start-up is kept to about a bare Python start: this module imports only
the standard library's ``argparse``, only the chosen command's options are
defined, and a command's modules are imported when it runs.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from importlib import import_module
from typing import Any, NamedTuple, NoReturn, TextIO, cast

from workloadbuilder._internal.gofmt import capped
from workloadbuilder.cli.errors import one_line
from workloadbuilder.cli.terminal import EscapedStream
from workloadbuilder.errors import WorkloadBuilderError
from workloadbuilder.limits import MAX_MESSAGE_VALUE

__all__ = ["COMMANDS", "main"]

_Options = Callable[[argparse.ArgumentParser], None]


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run the command line; returns the exit code (``python -m workloadbuilder`` exits with it).

    Every line any command writes to ``stdout`` or ``stderr`` passes one rule (``cli.terminal``): a character a
    terminal must not get raw (ESC, NUL, U+0085, U+2028, a lone surrogate, U+202E) is written escaped as Go's
    ``strconv.Quote`` writes it.
    """
    out = cast(TextIO, EscapedStream(stdout or sys.stdout))
    err = cast(TextIO, EscapedStream(stderr or sys.stderr))
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        args = _parser(arguments, out).parse_args(arguments)
    except _Exit as done:
        err.write(done.message)
        return done.status
    try:
        return _run(args, out, err)
    except WorkloadBuilderError as problem:
        _traceback(args, err)
        err.write(f"error: {one_line(problem)}\n")
        return 2
    except BrokenPipeError:  # the reader went away (`| head`): nothing left to say to it
        return 1
    except Exception as bug:  # noqa: BLE001 - a bug of ours still ends in one line, not a traceback
        _traceback(args, err)
        err.write(
            f"error: internal error: {type(bug).__name__}: {one_line(bug)} (run with --debug for the traceback)\n"
        )
        return 3


def _traceback(args: argparse.Namespace, err: TextIO) -> None:
    if args.debug:
        import traceback

        traceback.print_exc(file=err)


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Prepare what every command shares (inputs, a CRD mapping), then run the chosen one."""
    if hasattr(args, "files"):
        from workloadbuilder.cli.errors import UsageError
        from workloadbuilder.cli.inputs import expand_paths

        paths = [*args.files, *(getattr(args, "filename", None) or [])]
        if not paths:
            name = getattr(args, "input_name", "FILE")
            raise UsageError(f"workloadbuilder {args.command}: give the input as {name} or -f {name} (- reads stdin)")
        args.files = expand_paths(paths, getattr(args, "recursive", False))
    module, _, function = COMMANDS[args.command].run.partition(":")
    run: Callable[[argparse.Namespace, TextIO, TextIO], int] = getattr(import_module(module), function)
    from workloadbuilder.adapters import scoped_registry

    with scoped_registry():  # a --mapping is this run's alone, whatever other threads run
        if getattr(args, "mapping", None):
            from workloadbuilder.cli.mapping import register_mapping_file

            register_mapping_file(args.mapping)
        return int(run(args, out, err))


class Command(NamedTuple):
    """A subcommand: its one-line help, what runs it (``module:function``) and how its options are defined."""

    help: str
    run: str
    options: _Options


def _files(sub: argparse.ArgumentParser) -> None:
    from workloadbuilder.cli.flags import add_files

    add_files(sub)


def _mapping(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--mapping", metavar="FILE", help="a CRD mapping file, for custom resources")


def _gates(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--gates",
        help="the Kubernetes 1.37 feature gates the checks run with: all (default), defaults (1.37 as shipped), "
        "or Gate=true,Gate=false over all",
    )


def _warnings(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "-W",
        dest="warning_options",
        action="append",
        default=[],
        metavar="WHAT",
        help="ignore (no warning), error (warnings fail), or no-KIND to silence one kind: no-uid, no-lossy, no-unused, "
        "no-unknown-kind",
    )
    sub.add_argument("-q", "--quiet", action="store_true", help="print no warning")


def _compile_options(sub: argparse.ArgumentParser) -> None:
    _files(sub)
    _mapping(sub)
    _gates(sub)
    _warnings(sub)
    _output(sub, "yaml", "json", "name")


def _validate_options(sub: argparse.ArgumentParser) -> None:
    _files(sub)
    _mapping(sub)
    _gates(sub)
    _warnings(sub)
    _output(sub, "text", "json", "yaml", "github", "junit", "tap")
    sub.add_argument("--strict", action="store_true", help="a warning fails validation (exit 1) as an error does")
    sub.add_argument(
        "--allow-unknown",
        action="store_true",
        help="kept for old scripts: an object no adapter knows is always skipped, with an unknown-kind warning",
    )
    sub.add_argument(
        "--skip",
        action="append",
        default=[],
        metavar="KIND[,KIND]",
        help="kinds not to check (Kind, or apiVersion/Kind such as example.com/v1/Settings); repeatable",
    )
    sub.add_argument(
        "--summary",
        action="store_true",
        help="end with N objects: V valid, I invalid, S skipped (with -o text or github; junit and tap always count)",
    )


def _placement_options(render: bool) -> _Options:
    def options(sub: argparse.ArgumentParser) -> None:
        from workloadbuilder.cli.commands.place import add_options

        _files(sub)
        _mapping(sub)
        add_options(sub, render=render)

    return options


def _capacity_options(sub: argparse.ArgumentParser) -> None:
    from workloadbuilder.cli.commands.planning import add_capacity_options
    from workloadbuilder.cli.flags import add_files

    add_files(sub, what="a manifest (YAML or JSON), a directory, or - for stdin; together one unit")
    add_capacity_options(sub)
    _mapping(sub)


def _simulate_options(sub: argparse.ArgumentParser) -> None:
    from workloadbuilder.cli.commands.planning import add_simulate_options
    from workloadbuilder.cli.flags import add_files

    add_files(sub, "QUEUE", "the queue file (YAML or JSON); -n and -R apply to the workload files it names")
    add_simulate_options(sub)
    _mapping(sub)


def _doctor_options(sub: argparse.ArgumentParser) -> None:
    from workloadbuilder.cli.commands.doctor import add_options

    add_options(sub)


def _diff_options(sub: argparse.ArgumentParser) -> None:
    from workloadbuilder.cli.flags import add_namespace

    sub.add_argument("old", metavar="OLD", help="the object as it is (a TrainJob may come with its runtime)")
    sub.add_argument("new", metavar="NEW", help="the object as it would be (likewise)")
    add_namespace(sub)
    _mapping(sub)
    _gates(sub)
    _output(sub, "text", "json", "yaml")


def _migrate_options(sub: argparse.ArgumentParser) -> None:
    _files(sub)
    _output(sub, "yaml", "json")


def _output(sub: argparse.ArgumentParser, *outputs: str) -> None:
    from workloadbuilder.cli.flags import add_output

    add_output(sub, outputs)


COMMANDS: dict[str, Command] = {
    "compile": Command(
        "print the Workload, its runtime groups and the stamped input",
        "workloadbuilder.cli.commands.manifests:compile_command",
        _compile_options,
    ),
    "validate": Command(
        "report errors as a Kubernetes 1.37 apiserver would, with the --gates named (exit 1 when invalid)",
        "workloadbuilder.cli.commands.manifests:validate_command",
        _validate_options,
    ),
    "place": Command(
        "where each group lands on a cluster, or why not (exit 1 unless the verdict is placeable)",
        "workloadbuilder.cli.commands.place:place_command",
        _placement_options(render=True),
    ),
    "explain": Command(
        "only why (or where): the placement's explanation, level by level",
        "workloadbuilder.cli.commands.place:explain_command",
        _placement_options(render=False),
    ),
    "capacity": Command(
        "how many copies of the input fit, per domain, and what to add",
        "workloadbuilder.cli.commands.planning:capacity_command",
        _capacity_options,
    ),
    "simulate": Command(
        "a queue of workloads played out over time on a cluster",
        "workloadbuilder.cli.commands.planning:simulate_command",
        _simulate_options,
    ),
    "doctor": Command(
        "why a live gang is pending: reason, evidence, next step",
        "workloadbuilder.cli.commands.doctor:doctor_command",
        _doctor_options,
    ),
    "diff": Command(
        "the errors an apiserver would return for updating OLD to NEW",
        "workloadbuilder.cli.commands.manifests:diff_command",
        _diff_options,
    ),
    "migrate": Command(
        "rewrite v1alpha1/v1alpha2 manifests for 1.37, with a report",
        "workloadbuilder.cli.commands.manifests:migrate_command",
        _migrate_options,
    ),
}
"""Every subcommand, in the order ``--help`` lists them."""


class _Exit(Exception):
    """argparse is done: help or the version was printed (status 0), or the command line is wrong (status 2)."""

    def __init__(self, status: int, message: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class _Parser(argparse.ArgumentParser):
    """argparse, with help on the command's stdout and a usage error as one ``error:`` line, exit 2."""

    def __init__(self, *args: Any, out: TextIO, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.out = out
        self.usage_hint = f"{self.prog} --help"

    def _print_message(self, message: str, file: Any = None) -> None:
        if message:
            self.out.write(message)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise _Exit(status, message or "")

    def error(self, message: str) -> NoReturn:
        raise _Exit(2, f"error: {_capped_quotes(message)} (see {self.usage_hint})\n")


def _capped_quotes(message: str) -> str:
    """argparse's ``message`` with every value it quotes (``invalid int value: '999...'``) capped as other echoes are.

    argparse quotes the argument it refuses whole, however long; the rest of
    the message is argparse's own words and the command's choices. The
    arguments it lists unquoted (``unrecognized arguments: ...``) are capped
    word by word.
    """
    quoted = _QUOTED.sub(lambda found: repr(capped(found.group(1))), message)
    return " ".join(word if len(word) <= _QUOTED_CAP else capped(word) for word in quoted.split(" "))


_QUOTED_CAP = MAX_MESSAGE_VALUE + len("'...'")
"""The length of a capped quoted value: a word that long is left whole by the word-by-word cap."""

_QUOTED = re.compile(r"'([^']{%d,})'" % (MAX_MESSAGE_VALUE + 1))
"""A quoted value longer than an echo may be (shorter ones are left exactly as argparse wrote them)."""


class _Version(argparse.Action):
    """``--version``: the installed distribution's version (read only when asked for)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from importlib.metadata import version

        parser._print_message(f"workloadbuilder {version('workloadbuilder')}\n")
        parser.exit()


def _parser(argv: Sequence[str], out: TextIO) -> _Parser:
    """The command line's parser; only the chosen command (the first argument that names one) gets its options."""
    parser = _Parser(
        prog="workloadbuilder",
        description="Compile, validate and place Kubernetes 1.37 gang-scheduling objects.",
        out=out,
    )
    parser.add_argument("--debug", action="store_true", help="show a traceback on failure")
    parser.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = next((arg for arg in argv if not arg.startswith("-")), None)
    if chosen in COMMANDS:  # what argparse leaves over is the command's
        parser.usage_hint = f"workloadbuilder {chosen} --help"
    for name, command in COMMANDS.items():
        sub = commands.add_parser(name, help=command.help, description=command.help, out=out)
        sub.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show a traceback on failure")
        if name == chosen:
            command.options(sub)
    return parser
