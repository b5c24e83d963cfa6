"""``workloadbuilder diff OLD NEW``: the errors an apiserver would return for updating OLD to NEW."""

from __future__ import annotations

import argparse
from typing import TextIO

from workloadbuilder.cli.flags import add_gates, add_mapping, add_namespace, add_output, add_verbose

__all__ = ["HELP", "add_options", "run"]

HELP = "the errors an apiserver would return for updating OLD to NEW"
"""The command's one-line help, in ``workloadbuilder --help`` and atop its own."""


def add_options(parser: argparse.ArgumentParser) -> None:
    """``OLD`` and ``NEW``, ``-n``, ``--mapping``, ``--gates``, ``-o text|json|yaml`` and ``-v``."""
    parser.add_argument("old", metavar="OLD", help="the object as it is (a TrainJob may come with its runtime)")
    parser.add_argument("new", metavar="NEW", help="the object as it would be (likewise)")
    add_namespace(parser)
    add_mapping(parser)
    add_gates(parser)
    add_output(parser, ("text", "json", "yaml"))
    add_verbose(parser)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Check the update; returns 1 when the apiserver would refuse it, else 0."""
    from workloadbuilder.cli.run_manifests import diff_command

    return diff_command(args, out, err)
