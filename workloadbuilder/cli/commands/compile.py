"""``workloadbuilder compile``: the Workload, its runtime groups and the stamped input, for each input object."""

from __future__ import annotations

import argparse
from typing import TextIO

from workloadbuilder.cli.flags import add_files, add_gates, add_mapping, add_output, add_verbose, add_warnings

__all__ = ["HELP", "add_options", "run"]

HELP = "print the Workload, its runtime groups and the stamped input"
"""The command's one-line help, in ``workloadbuilder --help`` and atop its own."""


def add_options(parser: argparse.ArgumentParser) -> None:
    """The inputs, ``--mapping``, ``--gates``, the warning options, ``-o yaml|json|name`` and ``-v``."""
    add_files(parser)
    add_mapping(parser)
    add_gates(parser)
    add_warnings(parser)
    add_output(parser, ("yaml", "json", "name"))
    add_verbose(parser)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Compile every input object; returns the exit code (0; bad input is raised, exit 2)."""
    from workloadbuilder.cli.run_manifests import compile_command

    return compile_command(args, out, err)
