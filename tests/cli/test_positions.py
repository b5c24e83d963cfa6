"""Where a field is in a manifest's text (cli/positions.py): the line and column GitHub annotations point at."""

from __future__ import annotations

import pytest

from workloadbuilder.cli.positions import Positions

POSITIONS = [
    ("top-level-key", "a: 1\nb: 2\n", 1, ("b",), (2, 1)),
    ("nested-key", "a:\n  b:\n    c: 1\n", 1, ("a", "b", "c"), (3, 5)),
    ("sequence-item", "a:\n- x: 1\n- x: 2\n", 1, ("a", 1, "x"), (3, 3)),
    ("missing-field-points-at-its-parent", "a:\n  b: 1\n", 1, ("a", "missing"), (1, 1)),
    ("second-document", "a: 1\n---\nb:\n  c: 2\n", 2, ("b", "c"), (4, 3)),
    ("flow-style", "spec: {gang: {minCount: 4}}\n", 1, ("spec", "gang", "minCount"), (1, 15)),
    ("json", '{\n  "spec": {\n    "x": 1\n  }\n}\n', 1, ("spec", "x"), (3, 5)),
    ("the-whole-document", "a: 1\n", 1, (), (1, 1)),
]


@pytest.mark.parametrize(
    ("text", "document", "loc", "expected"), [case[1:] for case in POSITIONS], ids=[case[0] for case in POSITIONS]
)
def test_positions_find_the_deepest_part_of_a_path_in_the_text(text, document, loc, expected) -> None:
    assert Positions(text).find(document, loc) == expected


@pytest.mark.parametrize(
    ("text", "document"), [("a: [unclosed\n", 1), ("a: 1\n", 2)], ids=["not-yaml", "no-such-document"]
)
def test_positions_of_text_that_has_none_are_none(text, document) -> None:
    assert Positions(text).find(document, ("a",)) is None
