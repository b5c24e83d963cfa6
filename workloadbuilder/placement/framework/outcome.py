"""What a strategy hands back: where each group landed, and a trace of what it tried.

These are the engine's internal records, in node indexes and domains; the
answer module turns them into the documented ``Placement``. The trace is what
explanations are made of: for every group, each scope it was tried in, and
for each candidate domain how many pods (or child groups) fit there.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from workloadbuilder.placement.cluster.topology import Domain
from workloadbuilder.placement.framework.snapshot import Allocation
from workloadbuilder.placement.request.model import GroupRequest

__all__ = ["CandidateTrace", "Devices", "FitColumns", "GroupResult", "GroupTrace", "Outcome"]

Devices = tuple[tuple[str, int], ...]
"""A claim's devices: ``(pool name, count)`` pairs."""


@dataclass
class GroupResult:
    """Where one group landed: its domain at every level above and at its own, and each pod's node.

    ``domain`` is the node set the group was placed in (its own topology
    domain, or the one it inherited).
    """

    domains: dict[str, str]
    domain: Domain
    nodes: list[int] = field(default_factory=list)
    claims: dict[str, Allocation] = field(default_factory=dict)
    names: list[str] | None = None
    """The placed pods' names, one per node, when they are not the group's first pods in order (mixed shapes)."""


@dataclass
class Outcome:
    """A (sub)hierarchy's result: whether its gang is satisfied, and where everything in it landed.

    ``score_request`` adds up the scored resources of every placed pod, for
    the placement score of the domain around it.
    """

    success: bool
    placed: int = 0
    results: dict[str, GroupResult] = field(default_factory=dict)
    score_request: tuple[int, ...] = (0, 0)


@dataclass
class CandidateTrace:
    """One candidate domain for a group: what fit there.

    ``placed`` counts pods for a PodGroup and satisfied child groups for a
    CompositePodGroup; ``skipped`` marks a composite candidate that a
    capacity bound showed could not satisfy its gang, so it was never
    simulated (``placed`` is then that bound).
    """

    domain: Domain
    placed: int
    success: bool
    note: str = ""
    children: list[GroupTrace] = field(default_factory=list)
    skipped: bool = False


@dataclass(frozen=True)
class FitColumns:
    """A PodGroup's candidate domains in columns, in the order tried: ``placed[k]`` pods fit ``domains[k]``.

    ``notes[k]`` is the note on ``domains[k]``. Read the columns, do not
    change them: a trace hands out the same ones until it records more.
    """

    domains: list[Domain]
    placed: npt.NDArray[np.int64]
    notes: list[str]  # "" where a candidate has no note

    def __len__(self) -> int:
        return len(self.domains)

    @functools.cached_property
    def uids(self) -> npt.NDArray[np.int64]:
        """Each domain's ``uid``, as an array (made on first read)."""
        return np.array([domain.uid for domain in self.domains], dtype=np.int64)


@dataclass
class GroupTrace:
    """One attempt to place a group inside ``scope`` (the whole cluster, or its parent's candidate).

    A PodGroup's candidates are ``(domain, pods that fit, note)`` triples in
    ``fits`` (and the same in columns, ``columns()``), recorded a whole
    batch of domains at a time and built only when read (cheap for
    thousands of racks); a CompositePodGroup's are ``CandidateTrace``
    records in ``candidates``. ``claim_devices`` holds, per candidate domain
    (by ``uid``) of a claim-holding PodGroup where fewer than ``minCount``
    pods fit, the devices of its claims by claim name: those allocated
    before it was tried, and those taken first-fit for its first pod there.
    """

    group: GroupRequest
    scope: Domain
    candidates: list[CandidateTrace] = field(default_factory=list)
    chosen: Domain | None = None
    claim_devices: dict[int, tuple[Mapping[str, Devices], Mapping[str, Devices]]] = field(default_factory=dict)
    # every record_fit(s) call's (domains, counts, notes or None), in order
    _batches: list[tuple[Sequence[Domain], Sequence[int], Sequence[str] | None]] = field(
        default_factory=list, repr=False
    )
    # ``_batches`` read as columns: made by the first ``columns()`` call, dropped when a batch is recorded
    _columns: FitColumns | None = field(default=None, repr=False, compare=False)

    def record_fit(self, domain: Domain, placed: int, note: str = "") -> None:
        """Record that ``placed`` pods fit in the candidate ``domain``."""
        self.record_fits((domain,), (placed,), (note,))

    def record_fits(self, domains: Sequence[Domain], placed: Sequence[int], notes: Sequence[str] | None = None) -> None:
        """Record how many pods fit in each of the candidate ``domains`` (and a note on each, when given)."""
        self._batches.append((domains, placed, notes))
        self._columns = None

    def columns(self) -> FitColumns:
        """Every candidate domain recorded, in the order tried, as columns (one pass per batch, not per domain).

        Raises ``ValueError`` when a batch recorded fewer or more counts or
        notes than domains.
        """
        if self._columns is None:
            for domains, counts, notes in self._batches:
                if len(counts) != len(domains) or (notes is not None and len(notes) != len(domains)):
                    raise ValueError(
                        f"record_fits zipped {len(domains)} domains with {len(counts)} counts"
                        + ("" if notes is None else f" and {len(notes)} notes")
                    )
            batches, chain = self._batches, itertools.chain.from_iterable
            placed = [np.asarray(counts, dtype=np.int64) for _, counts, _ in batches]
            self._columns = FitColumns(
                list(chain(domains for domains, _, _ in batches)),
                np.concatenate(placed) if placed else np.zeros(0, dtype=np.int64),
                list(chain([""] * len(domains) if notes is None else notes for domains, _, notes in batches)),
            )
        return self._columns

    @property
    def fits(self) -> list[tuple[Domain, int, str]]:
        """``(domain, pods that fit, note)`` for every candidate domain, in the order they were tried."""
        columns = self.columns()
        return list(zip(columns.domains, columns.placed.tolist(), columns.notes, strict=True))
