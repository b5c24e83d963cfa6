"""``workloadbuilder capacity``: how many copies of the input fit, per domain, and what to add."""

from __future__ import annotations

import argparse
from typing import TextIO

from workloadbuilder.cli.flags import add_files, add_mapping

__all__ = ["HELP", "add_options", "run"]

HELP = "how many copies of the input fit, per domain, and what to add"
"""The command's one-line help, in ``workloadbuilder --help`` and atop its own."""

TIMEOUT = 60.0
"""``--timeout``'s default: seconds of wall clock for the whole command."""


def add_options(parser: argparse.ArgumentParser) -> None:
    """The inputs (one unit), the cluster options, ``--add-nodes-like``, ``--target``, the planning options and
    ``--mapping``."""
    from workloadbuilder.cli.options import add_cluster_options, add_planning_options
    from workloadbuilder.limits import MAX_COPIES

    add_files(parser, what="a manifest (YAML or JSON), a directory, or - for stdin; together one unit")
    add_cluster_options(parser)
    parser.add_argument("--add-nodes-like", metavar="NODE", help="a node whose labels and allocatable new nodes copy")
    parser.add_argument(
        "--target",
        type=int,
        help=f"the copies --add-nodes-like aims for, at most {MAX_COPIES} (default: one more than fit)",
    )
    add_planning_options(parser, TIMEOUT)
    add_mapping(parser)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Count the copies that fit; returns 1 when not one does, else 0."""
    from workloadbuilder.cli.run_planning import capacity_command

    return capacity_command(args, out, err)
