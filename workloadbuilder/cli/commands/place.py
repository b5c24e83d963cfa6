"""``workloadbuilder place``: where each group of the input lands on a cluster, or why not, and the verdict."""

from __future__ import annotations

import argparse
from typing import TextIO

from workloadbuilder.cli.flags import add_files, add_mapping

__all__ = ["HELP", "add_options", "run"]

HELP = "where each group lands on a cluster, or why not (exit 1 unless the verdict is placeable)"
"""The command's one-line help, in ``workloadbuilder --help`` and atop its own."""


def add_options(parser: argparse.ArgumentParser) -> None:
    """The inputs, ``--mapping``, the cluster, strategy and output options, and ``--render``."""
    from workloadbuilder.cli.options import add_placing_options

    add_files(parser)
    add_mapping(parser)
    add_placing_options(parser, render=True)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Place the input; returns the verdict's exit code (0 for ``placeable``, 1 for every other tier)."""
    from workloadbuilder.cli.run_placement import place_command

    return place_command(args, out, err)
