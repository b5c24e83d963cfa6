"""``workloadbuilder explain``: only why (or where): the placement's explanation, level by level."""

from __future__ import annotations

import argparse
from typing import TextIO

from workloadbuilder.cli.flags import add_files, add_mapping

__all__ = ["HELP", "add_options", "run"]

HELP = "only why (or where): the placement's explanation, level by level"
"""The command's one-line help, in ``workloadbuilder --help`` and atop its own."""


def add_options(parser: argparse.ArgumentParser) -> None:
    """The inputs, ``--mapping``, and ``place``'s cluster, strategy and output options (no ``--render``)."""
    from workloadbuilder.cli.options import add_placing_options

    add_files(parser)
    add_mapping(parser)
    add_placing_options(parser, render=False)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Explain the placement of the input; returns the verdict's exit code, as ``place`` does."""
    from workloadbuilder.cli.run_placement import explain_command

    return explain_command(args, out, err)
