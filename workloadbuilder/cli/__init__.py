"""The ``workloadbuilder`` command line; ``workloadbuilder.cli.app.main`` is the console script's entry point."""
