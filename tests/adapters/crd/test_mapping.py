"""``adapters/crd_mapping.py``: JSONPath reads of a mapping, at the edges of what an index can be."""

from __future__ import annotations

import pytest

from workloadbuilder.adapters.crd.mapping import find_all

ROLES = {"spec": {"roles": [{"name": "a"}, {"name": "b"}]}}


@pytest.mark.parametrize(
    ("expression", "names"),
    [
        ("$.spec.roles[*].name", ["a", "b"]),
        ("$.spec.roles[2].name", []),
        ("$.spec.roles[-99999999999999999999].name", []),
        ("$.spec.roles[99999999999999999999].name", []),
    ],
    ids=["wildcard", "past-the-end", "huge-negative", "huge-positive"],
)
def test_an_index_past_either_end_matches_nothing(expression: str, names: list[str]) -> None:
    assert [value for _, value in find_all(expression, ROLES, (), ROLES)] == names
