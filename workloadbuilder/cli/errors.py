"""The words every CLI module shares: ``UsageError`` and ``one_line``; the lowest module of the command line."""

from __future__ import annotations

from workloadbuilder.errors import WorkloadBuilderError

__all__ = ["UsageError", "one_line"]


class UsageError(WorkloadBuilderError):
    """A problem with the command line or its files: printed as one line, exit code 2."""


def one_line(problem: BaseException) -> str:
    """An exception's message on one line (its type's name when it has none)."""
    text = str(problem).strip()
    return text.replace("\n", "; ") if text else type(problem).__name__
