"""PodTopologySpread (``DoNotSchedule``): ``count(d) + self - min <= maxSkew``, min taken as 0 below ``minDomains``.

Follows ``filtering.go``: a node without the topology key is
``... (missing required label)``; the minimum is over every domain that
counts (zero-count domains included), and 0 while fewer than
``minDomains`` domains exist.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workloadbuilder.placement.filters import podtopologyspread
from workloadbuilder.placement.k8s.constraints import LabelSelector, SpreadConstraint

REASON = "node(s) didn't match pod topology spread constraints"
MISSING = "node(s) didn't match pod topology spread constraints (missing required label)"


def spread(max_skew: int = 1, min_domains: int = 1) -> SpreadConstraint:
    return SpreadConstraint(max_skew, "zone", LabelSelector((("app", "a"),)), min_domains)


CASES = [
    ("node without the key", spread(), None, {"z1": 0}, True, MISSING),
    ("no pods anywhere", spread(), "z1", {"z1": 0, "z2": 0}, True, None),
    ("no domain counted yet: min is 0", spread(), "z1", {}, True, None),
    ("the fuller domain would reach skew 2", spread(), "z1", {"z1": 1, "z2": 0}, True, REASON),
    ("the emptier domain keeps skew 1", spread(), "z2", {"z1": 1, "z2": 0}, True, None),
    ("a pod that does not match itself adds nothing", spread(), "z1", {"z1": 1, "z2": 0}, False, None),
    ("maxSkew 2 allows skew 2", spread(2), "z1", {"z1": 1, "z2": 0}, True, None),
    ("maxSkew 2 rejects skew 3", spread(2), "z1", {"z1": 2, "z2": 0}, True, REASON),
    ("balanced domains: any takes one more", spread(), "z2", {"z1": 3, "z2": 3}, True, None),
    ("minDomains above the domain count: min is 0", spread(1, 3), "z1", {"z1": 1, "z2": 1}, True, REASON),
    ("minDomains met: the real minimum", spread(1, 2), "z1", {"z1": 1, "z2": 1}, True, None),
    ("a domain no pod counts in has 0", spread(), "z3", {"z1": 2, "z2": 2}, True, None),
]


@pytest.mark.parametrize(
    ("constraint", "value", "counts", "self_match", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_check(
    constraint: SpreadConstraint, value: str | None, counts: dict[str, int], self_match: bool, expected: str | None
) -> None:
    assert podtopologyspread.check(constraint, value, counts, self_match) == expected


def test_name_and_reasons_are_upstreams() -> None:
    assert (podtopologyspread.NAME, podtopologyspread.REASON, podtopologyspread.MISSING_LABEL_REASON) == (
        "PodTopologySpread",
        REASON,
        MISSING,
    )


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["z1", "z2", "z3"]), st.integers(0, 5), min_size=1),
    st.integers(1, 3),
    st.booleans(),
)
def test_some_least_loaded_domain_always_accepts(counts: dict[str, int], max_skew: int, self_match: bool) -> None:
    """With minDomains met, a domain holding the minimum count never rejects the pod (skew is at most 1)."""
    lowest = min(counts, key=lambda d: counts[d])
    assert podtopologyspread.check(spread(max_skew), lowest, counts, self_match) is None
    for value, count in counts.items():
        rejected = count + self_match - counts[lowest] > max_skew
        assert (podtopologyspread.check(spread(max_skew), value, counts, self_match) == REASON) == rejected
