"""tests/cli: the ``workloadbuilder`` command, run in-process and as a subprocess.

Exit codes (0 valid, 1 invalid, 2 bad input, 3 our bug), one-line messages
naming file, document and object, and the sessions docs/cli.md and the README show.
"""
