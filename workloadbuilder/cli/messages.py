"""Field errors as one line of a usage message, for the ``place`` and ``explain`` inputs.

A manifest or cluster dump that fails validation can carry hundreds of
field errors (one per node, say); a usage error is one line on stderr, so
only the first few distinct ones are shown, with a count of the rest.
"""

from __future__ import annotations

from collections.abc import Sequence

from workloadbuilder.field import AggregateError

__all__ = ["first_few", "summarize"]


def summarize(problem: AggregateError) -> str:
    """The first few errors of an aggregate, in one line (its own message when it lists none)."""
    return first_few([str(error) for error in problem.field_errors] or [str(problem)])


def first_few(texts: Sequence[str], limit: int = 3) -> str:
    """The first ``limit`` distinct texts joined with ``; ``, and how many more there are, so a message stays one line."""
    unique = list(dict.fromkeys(texts))
    more = f" (and {len(unique) - limit} more)" if len(unique) > limit else ""
    return "; ".join(unique[:limit]) + more
