"""TaintToleration: ``ToleratesTaint`` for one toleration and one taint, the filter, and the raw PreferNoSchedule score.

``tolerates`` follows ``k8s.io/api/core/v1/toleration.go`` (its test table);
the filter rejects a node with a ``NoSchedule``/``NoExecute`` taint that no
toleration tolerates and gives the plugin's one reason (asserted through
``tainttoleration.REASON``, whose wording another change owns); the score
counts ``PreferNoSchedule`` taints untolerated by tolerations of that effect
or of none.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workloadbuilder.placement.filters import tainttoleration
from workloadbuilder.placement.k8s.constraints import Taint, Toleration

TOLERATES = [
    (
        "Exists, same key and effect, taint without value",
        Toleration("foo", "Exists", "", "NoSchedule"),
        Taint("foo", "", "NoSchedule"),
        True,
    ),
    (
        "Exists, same key and effect, taint with a value",
        Toleration("foo", "Exists", "", "NoSchedule"),
        Taint("foo", "bar", "NoSchedule"),
        True,
    ),
    (
        "Exists with an empty key: every key",
        Toleration("", "Exists", "", "NoSchedule"),
        Taint("foo", "bar", "NoSchedule"),
        True,
    ),
    (
        "Exists with an empty key, other effect",
        Toleration("", "Exists", "", "NoSchedule"),
        Taint("foo", "bar", "NoExecute"),
        False,
    ),
    ("empty key and effect with Exists: everything", Toleration("", "Exists"), Taint("foo", "bar", "NoExecute"), True),
    (
        "Equal, same key, value and effect",
        Toleration("foo", "Equal", "bar", "NoSchedule"),
        Taint("foo", "bar", "NoSchedule"),
        True,
    ),
    ("no operator means Equal", Toleration("foo", "", "bar", "NoSchedule"), Taint("foo", "bar", "NoSchedule"), True),
    (
        "Equal with another value",
        Toleration("foo", "Equal", "value1", "NoSchedule"),
        Taint("foo", "value2", "NoSchedule"),
        False,
    ),
    (
        "Equal, same key and value, another effect",
        Toleration("foo", "Equal", "bar", "NoExecute"),
        Taint("foo", "bar", "NoSchedule"),
        False,
    ),
    ("empty effect matches every effect", Toleration("foo", "Equal", "bar"), Taint("foo", "bar", "NoExecute"), True),
    ("another key", Toleration("foo", "Exists", "", "NoSchedule"), Taint("baz", "", "NoSchedule"), False),
    (
        "Equal with an empty key matches only the empty key",
        Toleration("", "Equal", "", "NoSchedule"),
        Taint("", "", "NoSchedule"),
        True,
    ),
    (
        "Gt: taint value above the toleration's",
        Toleration("sla", "Gt", "900", "NoSchedule"),
        Taint("sla", "950", "NoSchedule"),
        True,
    ),
    ("Gt is strict", Toleration("sla", "Gt", "950", "NoSchedule"), Taint("sla", "950", "NoSchedule"), False),
    (
        "Lt: taint value below the toleration's",
        Toleration("sla", "Lt", "900", "NoSchedule"),
        Taint("sla", "100", "NoSchedule"),
        True,
    ),
    (
        "Lt compares numbers, not text",
        Toleration("sla", "Lt", "900", "NoSchedule"),
        Taint("sla", "1000", "NoSchedule"),
        False,
    ),
    (
        "Lt with a taint value that is no integer",
        Toleration("sla", "Lt", "900", "NoSchedule"),
        Taint("sla", "high", "NoSchedule"),
        False,
    ),
    (
        "an unknown operator tolerates nothing",
        Toleration("foo", "In", "bar", "NoSchedule"),
        Taint("foo", "bar", "NoSchedule"),
        False,
    ),
]


@pytest.mark.parametrize(("toleration", "taint", "expected"), [c[1:] for c in TOLERATES], ids=[c[0] for c in TOLERATES])
def test_tolerates(toleration: Toleration, taint: Taint, expected: bool) -> None:
    assert tainttoleration.tolerates(toleration, taint) is expected
    assert tainttoleration.tolerated(taint, [Toleration("unrelated", "Exists"), toleration]) is expected


DEDICATED = Taint("dedicated", "user1", "NoSchedule")
EVICT = Taint("evict", "", "NoExecute")
PREFER = Taint("soft", "", "PreferNoSchedule")

FILTER = [
    ("no taints", (), (), None),
    ("an untolerated NoSchedule taint", (DEDICATED,), (), DEDICATED),
    ("an untolerated NoExecute taint", (EVICT,), (), EVICT),
    ("PreferNoSchedule never rejects", (PREFER,), (), None),
    ("the first untolerated taint in the node's order", (PREFER, EVICT, DEDICATED), (), EVICT),
    ("a tolerated taint is passed over", (EVICT, DEDICATED), (Toleration("evict", "Exists"),), DEDICATED),
    ("every taint tolerated", (EVICT, DEDICATED), (Toleration("", "Exists"),), None),
]


@pytest.mark.parametrize(("taints", "tolerations", "first"), [c[1:] for c in FILTER], ids=[c[0] for c in FILTER])
def test_untolerated_and_check(
    taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...], first: Taint | None
) -> None:
    assert tainttoleration.untolerated(taints, tolerations) == first
    assert tainttoleration.check(taints, tolerations) == (None if first is None else tainttoleration.REASON)


def test_the_reason_names_no_taint() -> None:
    """Since 1.35 every rejected node gives one reason, whichever taint it was."""
    assert tainttoleration.check((DEDICATED,), ()) == tainttoleration.check((EVICT,), ()) == tainttoleration.REASON
    assert tainttoleration.NAME == "TaintToleration"
    assert tainttoleration.FILTERED_EFFECTS == ("NoSchedule", "NoExecute")


SCORE = [
    ("no PreferNoSchedule taint", (DEDICATED, EVICT), (), 0),
    ("two untolerated preferences", (PREFER, Taint("soft2", "", "PreferNoSchedule")), (), 2),
    ("a toleration without effect counts", (PREFER,), (Toleration("soft", "Exists"),), 0),
    ("a toleration of that effect counts", (PREFER,), (Toleration("soft", "Exists", "", "PreferNoSchedule"),), 0),
    ("a NoSchedule toleration does not", (PREFER,), (Toleration("soft", "Exists", "", "NoSchedule"),), 1),
]


@pytest.mark.parametrize(("taints", "tolerations", "count"), [c[1:] for c in SCORE], ids=[c[0] for c in SCORE])
def test_intolerable_preferences(taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...], count: int) -> None:
    assert tainttoleration.intolerable_preferences(taints, tolerations) == count


@settings(max_examples=60, deadline=None)
@given(st.integers(-(2**63), 2**63 - 1), st.integers(-(2**63), 2**63 - 1))
def test_lt_and_gt_compare_int64_values(taint: int, bound: int) -> None:
    assert tainttoleration.tolerates(Toleration("k", "Lt", str(bound)), Taint("k", str(taint))) is (taint < bound)
    assert tainttoleration.tolerates(Toleration("k", "Gt", str(bound)), Taint("k", str(taint))) is (taint > bound)
