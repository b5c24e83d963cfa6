"""NodeName: a pod with ``spec.nodeName`` fits that node only (``node_name.go``), with the plugin's exact reason."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workloadbuilder.placement.filters import nodename

CASES = [
    ("no nodeName: every node fits", "", "node-a", None),
    ("nodeName is this node", "node-a", "node-a", None),
    ("nodeName is another node", "node-b", "node-a", "node(s) didn't match the requested node name"),
    ("names compare exactly, case included", "Node-A", "node-a", "node(s) didn't match the requested node name"),
    ("a prefix is another name", "node", "node-a", "node(s) didn't match the requested node name"),
]


@pytest.mark.parametrize(("wanted", "node", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_check(wanted: str, node: str, expected: str | None) -> None:
    assert nodename.check(wanted, node) == expected


def test_name_and_reason_are_upstreams() -> None:
    assert nodename.NAME == "NodeName"
    assert nodename.REASON == "node(s) didn't match the requested node name"


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=8), st.text(max_size=8))
def test_rejects_exactly_when_a_name_is_set_and_differs(wanted: str, node: str) -> None:
    expected = nodename.REASON if wanted and wanted != node else None
    assert nodename.check(wanted, node) == expected
