"""``workloadbuilder validate``: every object judged as a Kubernetes 1.37 apiserver would (``validate_documents``)."""

from __future__ import annotations

import argparse
from typing import TextIO

from workloadbuilder.cli.flags import add_files, add_gates, add_mapping, add_output, add_verbose, add_warnings

__all__ = ["HELP", "add_options", "run"]

HELP = "report errors as a Kubernetes 1.37 apiserver would, with the --gates named (exit 1 when invalid)"
"""The command's one-line help, in ``workloadbuilder --help`` and atop its own."""


def add_options(parser: argparse.ArgumentParser) -> None:
    """The inputs, ``--mapping``, ``--gates``, the warning options, ``-o``, ``-v``, and the CI options (``--strict``,
    ``--skip``, ``--summary``)."""
    add_files(parser)
    add_mapping(parser)
    add_gates(parser)
    add_warnings(parser)
    add_output(parser, ("text", "json", "yaml", "github", "junit", "tap"))
    add_verbose(parser)
    parser.add_argument("--strict", action="store_true", help="a warning fails validation (exit 1) as an error does")
    parser.add_argument(
        "--allow-unknown",
        action="store_true",
        help="kept for old scripts: an object no adapter knows is always skipped, with an unknown-kind warning",
    )
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        metavar="KIND[,KIND]",
        help="kinds not to check (Kind, or apiVersion/Kind such as example.com/v1/Settings); repeatable",
    )
    parser.add_argument(
        "--summary",
        action="store_true",
        help="end with N objects: V valid, I invalid, S skipped (with -o text or github; junit and tap always count)",
    )


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Validate every input object; returns 1 when one is invalid (or, with ``--strict``, warned about), else 0."""
    from workloadbuilder.cli.run_manifests import validate_command

    return validate_command(args, out, err)
