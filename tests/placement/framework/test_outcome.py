"""A strategy's records: results and outcomes with their defaults, and a PodGroup trace's fits, batch by batch.

``GroupTrace.fits`` is every ``(domain, pods that fit, note)`` in the order
recorded, one candidate at a time or a whole batch of domains at once
(counts may be numpy integers; they come out as ``int``, notes as ``""``
when a batch has none).
"""

from __future__ import annotations

import numpy as np
import pytest

from workloadbuilder.placement.cluster.topology import Domain
from workloadbuilder.placement.framework.outcome import CandidateTrace, GroupResult, GroupTrace, Outcome
from workloadbuilder.placement.request.model import GroupRequest

ROOT = Domain(None, None, [0, 1, 2, 3], 0)
R1 = Domain("rack", "r1", [0, 1], 1)
R2 = Domain("rack", "r2", [2], 2)
R3 = Domain("rack", "r3", [3], 3)
PG = GroupRequest("pg", "PodGroup", None, None, True, 2, "rack", 0, "single", count=2)


def test_defaults() -> None:
    outcome = Outcome(False)
    assert (outcome.placed, outcome.results, outcome.score_request) == (0, {}, (0, 0))
    result = GroupResult({"rack": "r1"}, R1)
    assert (result.nodes, result.claims, result.names) == ([], {}, None)
    candidate = CandidateTrace(R1, 1, False)
    assert (candidate.note, candidate.children, candidate.skipped) == ("", [], False)
    trace = GroupTrace(PG, ROOT)
    assert (trace.candidates, trace.chosen, trace.claim_devices, trace.fits) == ([], None, {}, [])


def test_mutable_defaults_are_not_shared() -> None:
    a, b = Outcome(True), Outcome(True)
    a.results["x"] = GroupResult({}, ROOT)
    assert b.results == {}


FITS = [
    ("one at a time", [("one", R1, 2, "note"), ("one", R2, 0, "")], [(R1, 2, "note"), (R2, 0, "")]),
    ("a batch without notes", [("many", [R1, R2, R3], [2, 1, 0], None)], [(R1, 2, ""), (R2, 1, ""), (R3, 0, "")]),
    ("a batch with notes", [("many", [R2, R3], [1, 1], ["a", "b"])], [(R2, 1, "a"), (R3, 1, "b")]),
    (
        "batches and singles keep their order",
        [("one", R3, 0, "cordoned"), ("many", [R1, R2], [2, 1], None), ("one", R1, 1, "")],
        [(R3, 0, "cordoned"), (R1, 2, ""), (R2, 1, ""), (R1, 1, "")],
    ),
]


@pytest.mark.parametrize(("records", "expected"), [c[1:] for c in FITS], ids=[c[0] for c in FITS])
def test_fits(records: list[tuple[object, ...]], expected: list[tuple[Domain, int, str]]) -> None:
    trace = GroupTrace(PG, ROOT)
    for kind, domains, placed, notes in records:
        if kind == "one":
            trace.record_fit(domains, placed, notes)  # type: ignore[arg-type]
        else:
            trace.record_fits(domains, placed, notes)  # type: ignore[arg-type]
    assert trace.fits == expected


def test_numpy_counts_come_out_as_ints() -> None:
    trace = GroupTrace(PG, ROOT)
    trace.record_fits([R1, R2], np.array([3, 0], dtype=np.int64))
    fits = trace.fits
    assert fits == [(R1, 3, ""), (R2, 0, "")]
    assert [type(placed) for _, placed, _ in fits] == [int, int]


def test_a_batch_of_unequal_lengths_is_refused_when_read() -> None:
    trace = GroupTrace(PG, ROOT)
    trace.record_fits([R1, R2], [1])
    with pytest.raises(ValueError, match="zip"):
        _ = trace.fits
