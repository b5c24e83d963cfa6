"""``workloadbuilder simulate``: a queue of workloads played out over time on a cluster."""

from __future__ import annotations

import argparse
from typing import TextIO

from workloadbuilder.cli.flags import add_files, add_mapping

__all__ = ["HELP", "add_options", "run"]

HELP = "a queue of workloads played out over time on a cluster"
"""The command's one-line help, in ``workloadbuilder --help`` and atop its own."""

TIMEOUT = 60.0
"""``--timeout``'s default: seconds of wall clock for the whole command."""


def add_options(parser: argparse.ArgumentParser) -> None:
    """The queue file, the cluster options, ``--seed``, ``--exit-zero``, the planning options and ``--mapping``."""
    from workloadbuilder.cli.options import add_cluster_options, add_planning_options

    add_files(parser, "QUEUE", "the queue file (YAML or JSON); -n and -R apply to the workload files it names")
    add_cluster_options(parser)
    parser.add_argument("--seed", type=int, default=0, help="tie-breaks between equal arrivals (default 0)")
    parser.add_argument(
        "--exit-zero",
        action="store_true",
        help="exit 0 even when a copy never runs (for reports); undecided copies still exit 1",
    )
    add_planning_options(parser, TIMEOUT)
    add_mapping(parser)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Play the queue; returns 1 when a copy is undecided or (without ``--exit-zero``) never runs, else 0."""
    from workloadbuilder.cli.run_planning import simulate_command

    return simulate_command(args, out, err)
