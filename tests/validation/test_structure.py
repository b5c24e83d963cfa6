"""Structural checks of a WorkloadItem tree (``validation.structure``): the Go library's messages, the blocks' paths."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from kubernetes.client import V1alpha3WorkloadPodGroupResourceClaim, V1alpha3WorkloadPodGroupSchedulingPolicy

from workloadbuilder import (
    ConstraintsInput,
    DisruptionModeInput,
    PolicyInput,
    ResourceClaimsInput,
    WorkloadInput,
    WorkloadItem,
)
from workloadbuilder.field import FieldPath
from workloadbuilder.types import WorkloadCompositePodGroupSchedulingPolicy
from workloadbuilder.validation.structure import (
    BLOCK_MODELS,
    block_path,
    check_item,
    given_blocks,
    tree_error,
    undecodable_input_errors,
    undecodable_tree_errors,
)


def composite(name: str, given: WorkloadInput | None = None) -> WorkloadItem:
    return WorkloadItem(name=name, input=given or WorkloadInput(), children=[WorkloadItem(name=f"{name}-child")])


@pytest.mark.parametrize(
    ("root", "expected"),
    [
        (WorkloadItem(name="w"), None),
        (None, "workload item cannot be nil"),
        (WorkloadItem(), "workload item name cannot be empty"),
        (
            WorkloadItem(name="r", children=[WorkloadItem(name="a"), WorkloadItem(name="r")]),
            'duplicate workload item name "r": template names must be unique across the Workload',
        ),
        (
            WorkloadItem(name="r", children=[WorkloadItem(name="a", children=[WorkloadItem()]), None]),
            "workload item name cannot be empty",
        ),
        (WorkloadItem(name="r", children=[None, WorkloadItem()]), "workload item cannot be nil"),
        (
            composite("c", WorkloadInput(policy=PolicyInput(pod_group_data={"basic": {}}))),
            'composite workload item "c" sets leaf building block: policy',
        ),
        (
            composite("c", WorkloadInput(constraints=ConstraintsInput(pod_group_data={"topology": []}))),
            'composite workload item "c" sets leaf building block: constraints',
        ),
        (
            composite("c", WorkloadInput(resource_claims=ResourceClaimsInput(pod_group_data=[{"name": "a"}]))),
            'composite workload item "c" sets leaf building block: resourceClaims',
        ),
        (composite("c", WorkloadInput(resource_claims=ResourceClaimsInput(pod_group_data=[]))), None),
        (
            WorkloadItem(
                name="l",
                input=WorkloadInput(disruption_mode=DisruptionModeInput(composite_pod_group_data={"all": {}})),
            ),
            'leaf workload item "l" sets composite building block: disruptionMode',
        ),
        (
            WorkloadItem(name="l", input=WorkloadInput(policy=PolicyInput(composite_pod_group_data={"basic": {}}))),
            'leaf workload item "l" sets composite building block: policy',
        ),
    ],
    ids=[
        "leaf",
        "nil-root",
        "empty-root-name",
        "duplicate-of-the-root",
        "pre-order-first-problem",
        "nil-before-empty",
        "composite-sets-leaf-policy",
        "composite-sets-leaf-constraints",
        "composite-sets-claims",
        "composite-with-empty-claims",
        "leaf-sets-composite-mode",
        "leaf-sets-composite-policy",
    ],
)
def test_tree_error(root: WorkloadItem | None, expected: str | None) -> None:
    assert tree_error(root) == expected


@pytest.mark.parametrize("value", [{"name": "x"}, [], "root"], ids=["dict", "list", "str"])
def test_a_root_of_another_type_is_a_type_error(value: Any) -> None:
    with pytest.raises(TypeError, match=rf"^the root must be a WorkloadItem, not {type(value).__name__}$"):
        tree_error(value)
    with pytest.raises(TypeError, match=rf"^the old root must be a WorkloadItem, not {type(value).__name__}$"):
        check_item(value, "the old root")
    check_item(None, "the old root")


def reference_tree_error(item: WorkloadItem | None, seen: set[str]) -> str | None:
    """Go's recursive walk (names only): the node, then each child in order."""
    if item is None:
        return "workload item cannot be nil"
    if not item.name:
        return "workload item name cannot be empty"
    if item.name in seen:
        return f'duplicate workload item name "{item.name}": template names must be unique across the Workload'
    seen.add(item.name)
    for child in item.children:
        problem = reference_tree_error(child, seen)
        if problem is not None:
            return problem
    return None


names = st.sampled_from(["", "a", "b", "c", "d", "e"])
trees = st.recursive(
    st.builds(lambda n: WorkloadItem(name=n), names) | st.none(),
    lambda children: st.builds(lambda n, c: WorkloadItem(name=n, children=c), names, st.lists(children, max_size=3)),
    max_leaves=10,
)


@given(trees)
def test_tree_error_is_the_recursive_pre_order_walk(root: WorkloadItem | None) -> None:
    assert tree_error(root) == reference_tree_error(root, set())


def test_given_blocks_in_go_order_with_their_paths() -> None:
    item = WorkloadItem(
        name="w",
        path="spec.scheduling",
        input=WorkloadInput(
            resource_claims=ResourceClaimsInput(
                pod_group_data=[{"name": "a", "resourceClaimName": "b"}, {"name": 1}], path_elements=["claims"]
            ),
            policy=PolicyInput(pod_group_data={"gang": {"minCount": "x"}}, path_elements=["policy"]),
        ),
    )
    blocks = [(b.name, str(b.path), b.decoded, b.model, b.index) for b in given_blocks(item.input, item.path, False)]
    assert blocks == [
        ("policy", "spec.scheduling.policy", False, V1alpha3WorkloadPodGroupSchedulingPolicy, None),
        ("resource_claims", "spec.scheduling.claims[0]", True, V1alpha3WorkloadPodGroupResourceClaim, 0),
        ("resource_claims", "spec.scheduling.claims[1]", False, V1alpha3WorkloadPodGroupResourceClaim, 1),
    ]
    assert [str(e) for e in undecodable_input_errors(item)] == [
        'spec.scheduling.policy.gang.minCount: Invalid value: "x": must be of type integer',
        "spec.scheduling.claims[1].name: Invalid value: 1: must be of type string",
    ]


def test_a_composite_gives_its_composite_blocks_and_no_claims() -> None:
    given_input = WorkloadInput(
        policy=PolicyInput(pod_group_data={"basic": {}}, composite_pod_group_data={"basic": {}}),
        resource_claims=ResourceClaimsInput(pod_group_data=[{"name": "a", "resourceClaimName": "b"}]),
    )
    blocks = [(b.name, b.model, b.decoded) for b in given_blocks(given_input, None, True)]
    assert blocks == [("policy", WorkloadCompositePodGroupSchedulingPolicy, True)]


def test_claims_that_are_not_a_list_are_one_block_refused_as_an_array() -> None:
    item = WorkloadItem(
        name="w", path="spec", input=WorkloadInput(resource_claims=ResourceClaimsInput(pod_group_data="x"))
    )
    (block,) = given_blocks(item.input, item.path, False)
    assert (block.name, block.index, block.decoded) == ("resource_claims", None, False)
    assert [str(e) for e in undecodable_input_errors(item)] == ['spec: Invalid value: "x": must be of type array']


def test_undecodable_tree_errors_in_pre_order() -> None:
    def bad(name: str, path: str) -> WorkloadItem:
        return WorkloadItem(
            name=name, path=path, input=WorkloadInput(policy=PolicyInput(pod_group_data={"gang": {"minCount": "x"}}))
        )

    root = WorkloadItem(
        name="r",
        path="spec",
        input=WorkloadInput(policy=PolicyInput(composite_pod_group_data={"gang": {"minGroupCount": True}})),
        children=[bad("a", "spec.a"), WorkloadItem(name="m", children=[bad("b", "spec.b")]), bad("c", "spec.c")],
    )
    assert [str(e) for e in undecodable_tree_errors(root)] == [
        "spec.gang.minGroupCount: Invalid value: true: must be of type integer",
        'spec.a.gang.minCount: Invalid value: "x": must be of type integer',
        'spec.b.gang.minCount: Invalid value: "x": must be of type integer',
        'spec.c.gang.minCount: Invalid value: "x": must be of type integer',
    ]
    assert list(undecodable_tree_errors(WorkloadItem(name="ok", children=[WorkloadItem(name="x")]))) == []


@pytest.mark.parametrize(
    ("path", "elements", "index", "expected"),
    [
        (None, [], None, None),
        (FieldPath("spec"), [], None, FieldPath("spec")),
        (FieldPath("a"), ["b", "c"], 2, FieldPath("a", "b", "c").index(2)),
        (None, ["claims"], 0, FieldPath("claims").index(0)),
    ],
    ids=["nothing", "item-path", "elements-and-index", "no-item-path"],
)
def test_block_path(path: FieldPath | None, elements: list[str], index: int | None, expected: FieldPath | None) -> None:
    assert block_path(path, elements, index) == expected


def test_every_block_has_a_model_for_leaves_and_composites_but_claims_only_for_leaves() -> None:
    assert sorted(BLOCK_MODELS) == [
        ("constraints", False),
        ("constraints", True),
        ("disruption_mode", False),
        ("disruption_mode", True),
        ("policy", False),
        ("policy", True),
        ("resource_claims", False),
    ]
