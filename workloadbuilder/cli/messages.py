"""What the commands say besides their results: field errors in one line, and warnings with a kind.

A manifest or cluster dump that fails validation can carry hundreds of
field errors (one per node, say); a usage error is one line on stderr, so
only the first few distinct ones are shown, with a count of the rest.

Every warning has a stable kind id (``WARNING_KINDS``), so a user can
silence one kind (``-W no-uid``), all of them (``--quiet``, ``-W ignore``)
or make them fail the command (``--strict``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workloadbuilder.cli.errors import UsageError

if TYPE_CHECKING:
    from workloadbuilder.adapters.sourced import Notice

__all__ = ["WARNING_KINDS", "WarningPolicy"]


WARNING_KINDS = {
    "uid": "an object without metadata.uid (a manifest never created): the names are not the controller's",
    "lossy": "an adapter mapped something with loss (an annotation it cannot express, say)",
    "unknown-kind": "an object of a kind no adapter knows and no --mapping describes: skipped by every command",
    "unused": "an object nothing in the input uses (a runtime without its TrainJob): only its fields were checked",
    "skipped": "a built-in kind with no gang-scheduling content (a Service, RBAC, ...): skipped, a note that never fails",
}
"""The kind of every warning the commands print, by its stable id (``-W no-<id>`` silences one)."""


@dataclass(frozen=True)
class WarningPolicy:
    """Which warnings are shown (``--quiet``, ``-W ignore``, ``-W no-<kind>``) and whether they fail (``--strict``)."""

    silenced: frozenset[str] = frozenset()
    strict: bool = False

    @classmethod
    def parse(cls, specs: Sequence[str], quiet: bool = False, strict: bool = False) -> WarningPolicy:
        """The policy of ``-W`` options (``ignore``, ``error``, ``no-<kind>``), ``--quiet`` and ``--strict``.

        Raises:
            UsageError: a ``-W`` value that is none of these.
        """
        silenced = set(WARNING_KINDS) if quiet else set()
        for spec in specs:
            if spec == "ignore":
                silenced |= set(WARNING_KINDS)
            elif spec == "error":
                strict = True
            elif spec.startswith("no-") and spec[3:] in WARNING_KINDS:
                silenced.add(spec[3:])
            else:
                choices = ", ".join(["ignore", "error", *(f"no-{kind}" for kind in WARNING_KINDS)])
                raise UsageError(f"-W: {spec!r} is not one of {choices}")
        return cls(frozenset(silenced), strict)

    def fails(self, notices: Iterable[Notice]) -> bool:
        """Whether ``--strict`` fails on these notices (a ``skipped`` note never does)."""
        return self.strict and any(notice.kind != "skipped" for notice in notices)

    def shown(self, notices: Iterable[Notice]) -> list[Notice]:
        """The notices not silenced, each text once, in order."""
        return list({n.text: n for n in notices if n.kind not in self.silenced}.values())
