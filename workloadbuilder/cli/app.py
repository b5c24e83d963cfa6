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

Every command is a module of ``cli.commands`` in one shape (``HELP``,
``add_options``, ``run``), imported here by name. Start-up is kept to about
a bare Python start: those modules import only ``argparse`` and
``cli.flags``, only the chosen command's options are defined, and the
command's work is imported when it runs.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, NoReturn, TextIO, cast

from workloadbuilder._internal.gofmt import capped
from workloadbuilder.cli.commands import capacity, diff, doctor, explain, migrate, place, simulate, validate
from workloadbuilder.cli.commands import compile as compile_
from workloadbuilder.cli.errors import one_line
from workloadbuilder.cli.terminal import EscapedStream
from workloadbuilder.errors import WorkloadBuilderError
from workloadbuilder.limits import MAX_MESSAGE_VALUE

__all__ = ["COMMANDS", "Command", "main"]


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
    except Exception as bug:  # a bug of ours still ends in one line, not a traceback
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
    run = COMMANDS[args.command].run
    from workloadbuilder.adapters import scoped_registry

    with scoped_registry():  # a --mapping is this run's alone, whatever other threads run
        if getattr(args, "mapping", None):
            from workloadbuilder.cli.mapping import register_mapping_file

            register_mapping_file(args.mapping)
        return int(run(args, out, err))


class Command(NamedTuple):
    """A subcommand, as its module (``cli.commands.*``) exports it: its one-line help, its options, what runs it."""

    help: str
    add_options: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, TextIO, TextIO], int]


COMMANDS: dict[str, Command] = {
    "compile": Command(compile_.HELP, compile_.add_options, compile_.run),
    "validate": Command(validate.HELP, validate.add_options, validate.run),
    "place": Command(place.HELP, place.add_options, place.run),
    "explain": Command(explain.HELP, explain.add_options, explain.run),
    "capacity": Command(capacity.HELP, capacity.add_options, capacity.run),
    "simulate": Command(simulate.HELP, simulate.add_options, simulate.run),
    "doctor": Command(doctor.HELP, doctor.add_options, doctor.run),
    "diff": Command(diff.HELP, diff.add_options, diff.run),
    "migrate": Command(migrate.HELP, migrate.add_options, migrate.run),
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

_QUOTED = re.compile(rf"'([^']{{{MAX_MESSAGE_VALUE + 1},}})'")
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
            command.add_options(sub)
    return parser
