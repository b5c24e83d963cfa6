"""Runtime groups from an existing Workload: Go's lookup order, its (have [...]) lists and its omitempty copies."""

from __future__ import annotations

from typing import Any

import pytest

from workloadbuilder import Builder, BuildError, BuildOptions, to_dict

BASIC = {"basic": {}}


def _builder(spec: dict[str, Any]) -> Builder:
    workload = {"metadata": {"name": "wl", "namespace": "ns"}, "spec": spec}
    return Builder.from_existing_workload(workload, BuildOptions())


def _leaf(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "schedulingPolicy": BASIC, **fields}


def _composite(name: str, *leaves: dict[str, Any], composites: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    template: dict[str, Any] = {"name": name, "schedulingPolicy": BASIC, "podGroupTemplates": list(leaves)}
    if composites:
        template["compositePodGroupTemplates"] = composites
    return template


NOT_FOUND: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "leaf-repeats-listed",
        {"podGroupTemplates": [_leaf("t"), _leaf("t")]},
        "leaf",
        'podGroupTemplate "x" not found in workload "wl" (have [t t])',
    ),
    (
        "leaf-list-is-the-top-level-one",
        {"podGroupTemplates": [_leaf("b")], "compositePodGroupTemplates": [_composite("c", _leaf("a"), _leaf("b"))]},
        "leaf",
        'podGroupTemplate "x" not found in workload "wl" (have [b])',
    ),
    # issue 25: Go's list is its top-level templates; a nested leaf of the same name is not listed again.
    (
        "leaf-top-and-nested-of-one-name",
        {"podGroupTemplates": [_leaf("t")], "compositePodGroupTemplates": [_composite("c", _leaf("t"))]},
        "leaf",
        'podGroupTemplate "x" not found in workload "wl" (have [t])',
    ),
    (
        "leaf-only-nested-lists-none",
        {"compositePodGroupTemplates": [_composite("c", _leaf("a"))]},
        "leaf",
        'podGroupTemplate "x" not found in workload "wl" (have [])',
    ),
    (
        "composite-repeats-listed-pre-order",
        {
            "compositePodGroupTemplates": [
                _composite("c", _leaf("a"), composites=[_composite("c", _leaf("b"))]),
                _composite("d", _leaf("e")),
            ]
        },
        "composite",
        'compositePodGroupTemplate "x" not found in workload "wl" (have [c c d])',
    ),
    (
        "no-templates",
        {"podGroupTemplates": []},
        "composite",
        'compositePodGroupTemplate "x" not found in workload "wl" (have [])',
    ),
]


@pytest.mark.parametrize(("spec", "which", "message"), [c[1:] for c in NOT_FOUND], ids=[c[0] for c in NOT_FOUND])
def test_not_found_lists_every_template(spec: dict[str, Any], which: str, message: str) -> None:
    builder = _builder(spec)
    make = builder.new_pod_group if which == "leaf" else builder.new_composite_pod_group
    with pytest.raises(BuildError) as raised:
        make("g", "x")
    assert str(raised.value) == message


FOUND: list[tuple[str, dict[str, Any], str, int]] = [
    (
        "top-level-wins-over-nested",
        {
            "podGroupTemplates": [_leaf("t", priority=1)],
            "compositePodGroupTemplates": [_composite("c", _leaf("t", priority=2))],
        },
        "t",
        1,
    ),
    ("last-top-level-repeat-wins", {"podGroupTemplates": [_leaf("t", priority=1), _leaf("t", priority=2)]}, "t", 2),
    (
        "last-nested-repeat-wins",
        {
            "compositePodGroupTemplates": [
                _composite("c", _leaf("t", priority=1)),
                _composite("d", _leaf("t", priority=2)),
            ]
        },
        "t",
        2,
    ),
]


@pytest.mark.parametrize(("spec", "name", "priority"), [c[1:] for c in FOUND], ids=[c[0] for c in FOUND])
def test_which_leaf_a_name_finds(spec: dict[str, Any], name: str, priority: int) -> None:
    assert _builder(spec).new_pod_group("g", name).spec.priority == priority


def test_last_composite_repeat_wins() -> None:
    inner = {**_composite("c", _leaf("b")), "priority": 2}
    spec = {"compositePodGroupTemplates": [{**_composite("c", _leaf("a"), composites=[inner]), "priority": 1}]}
    assert _builder(spec).new_composite_pod_group("g", "c").spec.priority == 2


EMPTY: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("empty-claims-left-out", {"resourceClaims": []}, {"schedulingPolicy": BASIC}),
    ("empty-priority-class-left-out", {"priorityClassName": ""}, {"schedulingPolicy": BASIC}),
    (
        "empty-topology-leaves-empty-constraints",
        {"schedulingConstraints": {"topology": []}},
        {"schedulingPolicy": BASIC, "schedulingConstraints": {}},
    ),
    (
        "claims-kept",
        {"resourceClaims": [{"name": "c", "resourceClaimName": "r"}]},
        {"schedulingPolicy": BASIC, "resourceClaims": [{"name": "c", "resourceClaimName": "r"}]},
    ),
]


@pytest.mark.parametrize(("fields", "spec"), [c[1:] for c in EMPTY], ids=[c[0] for c in EMPTY])
def test_empty_template_fields_are_left_out_of_pod_groups(fields: dict[str, Any], spec: dict[str, Any]) -> None:
    group = to_dict(_builder({"podGroupTemplates": [_leaf("t", **fields)]}).new_pod_group("g", "t"))
    assert group["spec"] == {**spec, "workloadRef": {"workloadName": "wl", "templateName": "t"}}


def test_empty_fields_are_left_out_of_composite_pod_groups() -> None:
    template = {**_composite("c", _leaf("t")), "priorityClassName": "", "schedulingConstraints": {"topology": []}}
    group = to_dict(_builder({"compositePodGroupTemplates": [template]}).new_composite_pod_group("g", "c"))
    assert group["spec"] == {
        "schedulingPolicy": BASIC,
        "schedulingConstraints": {},
        "workloadRef": {"workloadName": "wl", "templateName": "c"},
    }
