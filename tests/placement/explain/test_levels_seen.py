"""What failed attempts saw, domain by domain (``levels._seen``), against the rule read candidate by candidate.

A domain tried in several attempts (or several times in one) stands once,
at its first try, with the most pods that fit there: the first attempt
that saw that many gives its note, its trace and the groups placed before
it. The reference walks every ``(domain, pods, note)`` of every attempt
in order and keeps a dict by uid, replacing an entry only when more fit.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from placement_helpers import COLUMNAR_SETTINGS

from workloadbuilder.placement.cluster.topology import Domain
from workloadbuilder.placement.explain.levels import _seen
from workloadbuilder.placement.framework.outcome import GroupTrace
from workloadbuilder.placement.request.model import GroupRequest

ROOT = Domain(None, None, [0, 1, 2, 3], 0)
DOMAINS = [Domain("rack", f"r{k}", [k], 100 + k) for k in range(4)]
PG = GroupRequest("pg", "PodGroup", None, None, True, 2, "rack", 0, "single", count=4)

batches = st.lists(
    st.lists(
        st.tuples(st.sampled_from(DOMAINS), st.integers(0, 3), st.sampled_from(["", "note", "other"])), max_size=4
    ),
    max_size=3,
)


def _attempt(
    records: list[list[tuple[Domain, int, str]]], before: tuple[str, ...]
) -> tuple[GroupTrace, tuple[str, ...]]:
    trace = GroupTrace(PG, ROOT)
    for batch in records:
        trace.record_fits([d for d, _, _ in batch], [n for _, n, _ in batch], [note for _, _, note in batch])
    return trace, before


def _reference(attempts: list[tuple[GroupTrace, tuple[str, ...]]]) -> list[tuple[Any, ...]]:
    seen: dict[int, tuple[Any, ...]] = {}
    for trace, before in attempts:
        for domain, placed, note in trace.fits:
            if domain.uid not in seen or placed > seen[domain.uid][1]:
                seen[domain.uid] = (domain, placed, note, id(trace), before)
    return list(seen.values())


@COLUMNAR_SETTINGS
@given(st.lists(batches, max_size=4))
def test_each_domain_once_as_the_attempt_that_fit_the_most_saw_it(records: list[Any]) -> None:
    attempts = [_attempt(batch, (f"g{k}",)) for k, batch in enumerate(records)]
    seen = _seen(attempts)
    rows = []
    for k in range(len(seen.counts)):
        trace, before = seen.attempt(k)
        rows.append((seen.counts.domains[k], int(seen.counts.placed[k]), seen.notes[k], id(trace), before))
    assert rows == _reference(attempts)
    for domain in DOMAINS:
        row = seen.find(domain)
        assert (row is None) == all(item[0] is not domain for item in rows)
        if row is not None:
            assert seen.counts.domains[row] is domain


def test_no_attempt_sees_nothing() -> None:
    seen = _seen([])
    assert (len(seen.counts), seen.notes, seen.find(DOMAINS[0])) == (0, [], None)
