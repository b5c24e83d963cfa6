"""``workloadbuilder migrate``: v1alpha1/v1alpha2 objects and other schedulers' gangs rewritten for 1.37."""

from __future__ import annotations

import argparse
from typing import TextIO

from workloadbuilder.cli.flags import add_files, add_output, add_verbose

__all__ = ["HELP", "add_options", "run"]

HELP = "rewrite v1alpha1/v1alpha2 manifests for 1.37, with a report"
"""The command's one-line help, in ``workloadbuilder --help`` and atop its own."""


def add_options(parser: argparse.ArgumentParser) -> None:
    """The inputs, ``-o yaml|json`` and ``-v``."""
    add_files(parser)
    add_output(parser, ("yaml", "json"))
    add_verbose(parser)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Rewrite the input; returns 1 when something was left untranslated, else 0."""
    from workloadbuilder.cli.run_manifests import migrate_command

    return migrate_command(args, out, err)
