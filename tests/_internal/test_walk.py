"""The one template walk: order, null entries, depth and paths, on dicts and on client models alike."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes.client import V1beta1WorkloadSpec

from workloadbuilder._internal.decode import as_model
from workloadbuilder._internal.walk import walk
from workloadbuilder.field import FieldPath


def _leaf(name: str) -> dict[str, Any]:
    return {"name": name, "schedulingPolicy": {"basic": {}}}


def _composite(name: str, *children: dict[str, Any], composites: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    node: dict[str, Any] = {"name": name, "schedulingPolicy": {"basic": {}}, "podGroupTemplates": list(children)}
    if composites:
        node["compositePodGroupTemplates"] = list(composites)
    return node


_TREE = {
    "podGroupTemplates": [_leaf("a")],
    "compositePodGroupTemplates": [
        _composite("c1", _leaf("b"), composites=(_composite("c2", _leaf("d")),)),
        _composite("c3", _leaf("e")),
    ],
}

_PREORDER = [
    ("spec.podGroupTemplates[0]", "a", 1, False, "/podGroupTemplates/0"),
    ("spec.compositePodGroupTemplates[0]", "c1", 1, True, "/compositePodGroupTemplates/0"),
    (
        "spec.compositePodGroupTemplates[0].podGroupTemplates[0]",
        "b",
        2,
        False,
        "/compositePodGroupTemplates/0/podGroupTemplates/0",
    ),
    (
        "spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0]",
        "c2",
        2,
        True,
        "/compositePodGroupTemplates/0/compositePodGroupTemplates/0",
    ),
    (
        "spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].podGroupTemplates[0]",
        "d",
        3,
        False,
        "/compositePodGroupTemplates/0/compositePodGroupTemplates/0/podGroupTemplates/0",
    ),
    ("spec.compositePodGroupTemplates[1]", "c3", 1, True, "/compositePodGroupTemplates/1"),
    (
        "spec.compositePodGroupTemplates[1].podGroupTemplates[0]",
        "e",
        2,
        False,
        "/compositePodGroupTemplates/1/podGroupTemplates/0",
    ),
]


def _name(node: Any) -> str:
    return str(node["name"] if isinstance(node, dict) else node.name)


def _summary(spec: Any, **kwargs: Any) -> list[tuple[str, str, int, bool, str]]:
    return [(str(r.path), _name(r.node), r.depth, r.composite, r.json_pointer) for r in walk(spec, **kwargs)]


@pytest.mark.parametrize(
    ("spec", "kwargs", "expected"),
    [
        (_TREE, {}, _PREORDER),
        (as_model(V1beta1WorkloadSpec, _TREE), {}, _PREORDER),
        (_TREE, {"max_depth": 1}, [_PREORDER[0], _PREORDER[1], _PREORDER[5]]),
        (_TREE, {"max_depth": 2}, [row for row in _PREORDER if row[2] <= 2]),
        (
            {"podGroupTemplates": [None, 3, _leaf("x")]},
            {},
            [("spec.podGroupTemplates[2]", "x", 1, False, "/podGroupTemplates/2")],
        ),
        ({"podGroupTemplates": "not a list", "compositePodGroupTemplates": {"name": "x"}}, {}, []),
        (None, {}, []),
        (
            {"podGroupTemplates": [_leaf("x")]},
            {"path": FieldPath("w", "spec")},
            [("w.spec.podGroupTemplates[0]", "x", 1, False, "/podGroupTemplates/0")],
        ),
    ],
    ids=[
        "dict",
        "client-model",
        "max-depth-1",
        "max-depth-2",
        "null-entries-skipped",
        "non-lists-skipped",
        "no-spec",
        "given-path",
    ],
)
def test_walk(spec: Any, kwargs: dict[str, Any], expected: list[tuple[str, str, int, bool, str]]) -> None:
    assert _summary(spec, **kwargs) == expected


def test_records_know_their_parent_and_list() -> None:
    records = list(walk(_TREE))
    d = records[4]
    assert [_name(r.node) for r in d.lineage()] == ["c1", "c2", "d"]
    assert d.parent is records[3]
    assert str(d.list_path) == "spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].podGroupTemplates"
    assert (d.list_name, d.position) == ("podGroupTemplates", 0)


def test_deep_tree_does_not_exhaust_the_stack() -> None:
    spec: dict[str, Any] = {}
    holder = spec
    for i in range(5000):
        child: dict[str, Any] = {"name": f"c{i}"}
        holder["compositePodGroupTemplates"] = [child]
        holder = child
    depths = [r.depth for r in walk(spec)]
    assert depths == list(range(1, 5001))
