"""Explanation words: topology keys by their last segment, counted nouns, capped name lists, and claim pins."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workloadbuilder.placement.explain.wording import count_of, names_of, pin_text, short_key
from workloadbuilder.placement.framework.claims import ClaimPin

SHORT = [
    ("a prefixed key", "topology.example.com/rack", "rack"),
    ("a well-known key", "topology.kubernetes.io/zone", "zone"),
    ("a key without prefix", "block", "block"),
    ("only the last segment", "a/b/c", "c"),
    ("no key at all", None, "domain"),
]


@pytest.mark.parametrize(("key", "expected"), [c[1:] for c in SHORT], ids=[c[0] for c in SHORT])
def test_short_key(key: str | None, expected: str) -> None:
    assert short_key(key) == expected


@pytest.mark.parametrize(
    ("n", "expected"), [(0, "0 racks"), (1, "1 rack"), (2, "2 racks"), (10, "10 racks")], ids=["0", "1", "2", "10"]
)
def test_count_of(n: int, expected: str) -> None:
    assert count_of(n, "rack") == expected


NAMES = [
    ("none", [], 3, ""),
    ("one", ["a"], 3, "`a`"),
    ("exactly shown", ["a", "b", "c"], 3, "`a`, `b`, `c`"),
    ("one more than shown", ["a", "b", "c", "d"], 3, "`a`, `b`, `c` and 1 more"),
    ("a smaller cap", ["a", "b", "c", "d"], 1, "`a` and 3 more"),
]


@pytest.mark.parametrize(("names", "shown", "expected"), [c[1:] for c in NAMES], ids=[c[0] for c in NAMES])
def test_names_of(names: list[str], shown: int, expected: str) -> None:
    assert names_of(names, shown) == expected


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text("abc", min_size=1, max_size=3), max_size=7), st.integers(1, 4))
def test_names_of_shows_at_most_shown_names_and_counts_the_rest(names: list[str], shown: int) -> None:
    text = names_of(names, shown)
    assert text.count("`") == 2 * min(len(names), shown)
    assert text.endswith(f" and {len(names) - shown} more") is (len(names) > shown)


PINS = [
    (
        "allocated earlier",
        ClaimPin("nics", ("rack-r1-nics",), "rack r1", True),
        "it",
        "pins it to rack r1: it was allocated already, from `rack-r1-nics`",
    ),
    (
        "taken first-fit, two pools",
        ClaimPin("gpus", ("n1-gpus", "n1-more"), "node n1", False),
        "its pods",
        "pins its pods to node n1: first-fit for the first pod took `n1-gpus`, `n1-more`",
    ),
]


@pytest.mark.parametrize(("pin", "subject", "expected"), [c[1:] for c in PINS], ids=[c[0] for c in PINS])
def test_pin_text(pin: ClaimPin, subject: str, expected: str) -> None:
    assert pin_text(pin, subject) == expected
