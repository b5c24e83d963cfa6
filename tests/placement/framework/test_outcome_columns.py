"""A PodGroup trace's candidates in columns (``GroupTrace.columns``): what ``fits`` lists, one column per field.

The columns are made once and handed out again until the trace records
another candidate; a batch whose counts or notes do not match its domains
is refused when read, as ``fits`` refuses it.
"""

from __future__ import annotations

import numpy as np
import pytest

from workloadbuilder.placement.cluster.topology import Domain
from workloadbuilder.placement.framework.outcome import GroupTrace
from workloadbuilder.placement.request.model import GroupRequest

ROOT = Domain(None, None, [0, 1, 2, 3], 0)
R1 = Domain("rack", "r1", [0, 1], 11)
R2 = Domain("rack", "r2", [2], 12)
R3 = Domain("rack", "r3", [3], 13)
PG = GroupRequest("pg", "PodGroup", None, None, True, 2, "rack", 0, "single", count=2)


def _trace() -> GroupTrace:
    trace = GroupTrace(PG, ROOT)
    trace.record_fit(R3, 0, "cordoned")
    trace.record_fits([R1, R2], np.array([2, 1], dtype=np.int64))
    trace.record_fits([R2], [1], ["again"])
    return trace


def test_the_columns_hold_what_fits_lists() -> None:
    trace = _trace()
    columns = trace.columns()
    assert list(zip(columns.domains, columns.placed.tolist(), columns.notes, strict=True)) == trace.fits
    assert columns.domains == [R3, R1, R2, R2]
    assert columns.placed.dtype == np.int64
    assert columns.placed.tolist() == [0, 2, 1, 1]
    assert columns.notes == ["cordoned", "", "", "again"]
    assert columns.uids.tolist() == [13, 11, 12, 12]
    assert len(columns) == 4


def test_the_columns_are_kept_until_another_candidate_is_recorded() -> None:
    trace = _trace()
    first = trace.columns()
    assert trace.columns() is first
    trace.record_fit(R1, 1)
    again = trace.columns()
    assert again is not first
    assert (len(first), len(again)) == (4, 5)
    assert (again.domains[-1], int(again.placed[-1]), again.notes[-1]) == (R1, 1, "")


def test_a_trace_without_candidates_has_empty_columns() -> None:
    columns = GroupTrace(PG, ROOT).columns()
    assert (columns.domains, columns.notes, len(columns)) == ([], [], 0)
    assert columns.placed.dtype == np.int64
    assert columns.uids.dtype == np.int64
    assert (columns.placed.size, columns.uids.size) == (0, 0)


@pytest.mark.parametrize(
    ("counts", "notes"),
    [([1], None), ([1, 2, 3], None), ([1, 2], ["only one"]), ([1, 2], ["a", "b", "c"])],
    ids=["fewer counts", "more counts", "fewer notes", "more notes"],
)
def test_a_ragged_batch_is_refused_when_read(counts: list[int], notes: list[str] | None) -> None:
    trace = GroupTrace(PG, ROOT)
    trace.record_fits([R1, R2], counts, notes)
    with pytest.raises(ValueError, match="zip"):
        trace.columns()
    with pytest.raises(ValueError, match="zip"):
        _ = trace.fits
