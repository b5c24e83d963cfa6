"""The ``workloadbuilder`` command line; ``main`` is the console script's entry point."""

from workloadbuilder.cli.app import main

__all__ = ["main"]
