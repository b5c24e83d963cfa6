"""The options the commands share, each declared once: kubectl's inputs (``-f``, ``-R``, ``-n``), ``-o`` and the rest.

Every command that reads objects takes them as ``kubectl apply`` does and
every command that prints a result takes ``-o/--output``; the commands add
these options through the functions here, so a flag is spelt, helped and
checked the same way everywhere. Only ``argparse`` is imported: the parser
is built before any command's modules are.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

__all__ = ["add_files", "add_gates", "add_mapping", "add_namespace", "add_output", "add_verbose", "add_warnings"]


def add_files(
    sub: argparse.ArgumentParser,
    metavar: str = "FILE",
    what: str = "a manifest (YAML or JSON), a directory, or - for stdin",
) -> None:
    """kubectl's inputs: ``FILE`` arguments and ``-f``, files, directories or ``-``, with ``-R`` and ``-n``.

    The paths land in ``args.files`` (the arguments, then each ``-f``), and
    ``main`` expands directories (``-R``: their subdirectories too) before
    the command runs.
    """
    sub.add_argument("files", nargs="*", metavar=metavar, help=what)
    sub.add_argument("-f", "--filename", action="append", metavar=metavar, help=f"as {metavar}; repeatable")
    sub.add_argument("-R", "--recursive", action="store_true", help="read directories' subdirectories too")
    add_namespace(sub)
    sub.set_defaults(input_name=metavar)


def add_namespace(sub: argparse.ArgumentParser, what: str = "the namespace of every object that names none") -> None:
    """``-n/--namespace NAMESPACE``, as kubectl spells it."""
    sub.add_argument("-n", "--namespace", metavar="NAMESPACE", help=what)


def add_output(sub: argparse.ArgumentParser, outputs: Sequence[str], default: str | None = None) -> None:
    """``-o/--output``, one of ``outputs``; the first is the default unless ``default`` says otherwise.

    Another value is a one-line usage error naming the choices (exit 2).
    """
    chosen = default or outputs[0]
    listed = ", ".join(f"{output} (default)" if output == chosen else output for output in outputs)
    sub.add_argument(
        "-o", "--output", choices=list(outputs), default=chosen, metavar="|".join(outputs), help=f"one of {listed}"
    )


def add_mapping(sub: argparse.ArgumentParser) -> None:
    """``--mapping FILE``: a CRD mapping file, registered for this run alone before the command runs (``main``)."""
    sub.add_argument("--mapping", metavar="FILE", help="a CRD mapping file, for custom resources")


def add_gates(sub: argparse.ArgumentParser) -> None:
    """``--gates``: the feature gates the apiserver's checks run with (``inputs.parse_gates`` reads it)."""
    sub.add_argument(
        "--gates",
        help="the Kubernetes 1.37 feature gates the checks run with: all (default), defaults (1.37 as shipped), "
        "or Gate=true,Gate=false over all",
    )


def add_warnings(sub: argparse.ArgumentParser) -> None:
    """``-W WHAT`` (repeatable) and ``-q/--quiet``: which warnings are shown, and whether they fail
    (``messages.WarningPolicy`` reads them)."""
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


def add_verbose(sub: argparse.ArgumentParser) -> None:
    """``-v/--verbose``: on an error that exits 2, print the warnings and notes made before it too (without it the
    ``error:`` line is the only one)."""
    sub.add_argument(
        "-v", "--verbose", action="store_true", help="print the warnings and notes made before an error, too (exit 2)"
    )
