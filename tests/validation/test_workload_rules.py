"""The Workload rules no ``+k8s:`` tag expresses: unique names, depth, one priority, children; and the warnings.

Through ``validate_workload`` and ``workload_warnings``, which run them after decoding and before the
declarative rules, and on ``tree_errors`` and ``tree_warnings`` directly, at a path of the caller's.
"""

from __future__ import annotations

from typing import Any

import pytest
from objects_factories import composite, composite_workload, leaf, strings, workload

from workloadbuilder.field import FieldPath
from workloadbuilder.validation.gotypes import canonical
from workloadbuilder.validation.objects import validate_workload, workload_warnings
from workloadbuilder.validation.workload_rules import tree_errors, tree_warnings

C0 = "spec.compositePodGroupTemplates[0]"
ONE_PRIORITY = "spec: Invalid value: null: detected multiple priority configurations"
ONE_COMPOSITE_PRIORITY = (
    "spec: Invalid value: null: all priority and priorityClassName values must be identical, detected multiple values"
)
NO_CHILD = "must have at least one child PodGroupTemplate or CompositePodGroupTemplate"
DEPTH = "maximum template hierarchy depth is 4"


def internal_composite(name: str, leaves: str = "null", composites: str = "null") -> str:
    """A basic composite template as the apiserver's internal type marshals (Go field names, every field)."""
    return (
        f'{{"Name":"{name}","SchedulingPolicy":{{"Basic":{{}},"Gang":null}},"SchedulingConstraints":null,'
        '"DisruptionMode":null,"PriorityClassName":"","Priority":null,"PreemptionPolicy":null,'
        f'"PodGroupTemplates":{leaves},"CompositePodGroupTemplates":{composites}}}'
    )


INTERNAL_LEAF_L5 = (
    '[{"Name":"l5","SchedulingPolicy":{"Basic":{},"Gang":null},"SchedulingConstraints":null,"ResourceClaims":null,'
    '"DisruptionMode":null,"PriorityClassName":"","Priority":null,"PreemptionPolicy":null}]'
)


TREE_CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    (
        "name-repeated-across-lists",
        composite_workload(composite("c", leaf("a"), composites=[composite("a", leaf("b"))])),
        [f'{C0}.compositePodGroupTemplates[0].name: Duplicate value: "a"'],
    ),
    (
        "name-repeated-across-levels",
        composite_workload(composite("c", leaf("c"))),
        [f'{C0}.podGroupTemplates[0].name: Duplicate value: "c"'],
    ),
    (
        "name-repeated-in-two-subtrees",
        composite_workload(composite("x", leaf("w")), composite("y", leaf("w"))),
        ['spec.compositePodGroupTemplates[1].podGroupTemplates[0].name: Duplicate value: "w"'],
    ),
    (
        "composite-without-children",
        composite_workload(composite("c")),
        [f'{C0}: Invalid value: "c": {NO_CHILD}'],
    ),
    (
        "nested-composite-without-children-after-its-parent",
        composite_workload(composite("c", composites=[composite("d")]), composite("e")),
        [
            f'{C0}.compositePodGroupTemplates[0]: Invalid value: "d": {NO_CHILD}',
            f'spec.compositePodGroupTemplates[1]: Invalid value: "e": {NO_CHILD}',
        ],
    ),
    (
        "composite-names-of-a-list-before-their-children",
        composite_workload(composite("a", leaf("b")), composite("b", leaf("c"))),
        [f'{C0}.podGroupTemplates[0].name: Duplicate value: "b"'],
    ),
    (
        "leaf-priorities-differ",
        workload(leaf("a", priority=1), leaf("b", priority=2)),
        [ONE_PRIORITY],
    ),
    (
        "leaf-priority-class-differs",
        workload(leaf("a", priorityClassName="high"), leaf("b")),
        [ONE_PRIORITY],
    ),
    (
        "one-priority-everywhere-is-fine",
        composite_workload(
            composite(
                "c", leaf("a", priority=7), composites=[composite("d", leaf("b", priority=7), priority=7)], priority=7
            )
        ),
        [],
    ),
    (
        "composite-child-priority-differs",
        composite_workload(composite("c", leaf("a", priority=7), priority=7), composite("d", leaf("b"))),
        [ONE_COMPOSITE_PRIORITY],
    ),
    (
        "depth-four",
        composite_workload(
            composite(
                "l1",
                composites=[composite("l2", composites=[composite("l3", composites=[composite("l4", leaf("l5"))])])],
            )
        ),
        [
            f"{C0}: Invalid value: ["
            + internal_composite(
                "l2",
                composites="["
                + internal_composite("l3", composites="[" + internal_composite("l4", INTERNAL_LEAF_L5) + "]")
                + "]",
            )
            + f"]: {DEPTH}"
        ],
    ),
    (
        "depth-four-without-children",
        composite_workload(
            composite("l1", composites=[composite("l2", composites=[composite("l3", composites=[composite("l4")])])])
        ),
        [
            f"{C0}: Invalid value: ["
            + internal_composite(
                "l2", composites="[" + internal_composite("l3", composites="[" + internal_composite("l4") + "]") + "]"
            )
            + f"]: {DEPTH}",
            f"{C0}.compositePodGroupTemplates[0].compositePodGroupTemplates[0].compositePodGroupTemplates[0]: Invalid "
            f'value: "l4": {NO_CHILD}',
        ],
    ),
    (
        "depth-three-is-fine",
        composite_workload(composite("l1", composites=[composite("l2", composites=[composite("l3", leaf("l4"))])])),
        [],
    ),
    (
        "all-parent-leaf-unset",
        composite_workload(composite("c", leaf("a"), disruptionMode={"all": {}})),
        [],  # accepted by the apiserver; workload_warnings says it
    ),
    (
        "all-parent-children-single",
        composite_workload(
            composite(
                "c",
                leaf("a", disruptionMode={"single": {}}),
                composites=[composite("d", leaf("b"), disruptionMode={"single": {}})],
                disruptionMode={"all": {}},
            )
        ),
        [],
    ),
    (
        "single-parent-all-child",
        composite_workload(composite("c", leaf("a", disruptionMode={"all": {}}), disruptionMode={"single": {}})),
        [],
    ),
]


@pytest.mark.parametrize(("obj", "expected"), [(o, e) for _, o, e in TREE_CASES], ids=[i for i, *_ in TREE_CASES])
def test_template_tree_rules(obj: dict[str, Any], expected: list[str]):
    assert strings(validate_workload(obj)) == expected


WARNING_CASES = [
    ("count-within-children", composite_workload(composite("c", leaf("a"), leaf("b"), gang=2)), []),
    (
        "count-above-children",
        composite_workload(composite("c", leaf("a"), composites=[composite("d", leaf("b"), gang=3)], gang=3)),
        [
            (
                f"{C0}.schedulingPolicy.gang.minGroupCount: minGroupCount 3 is greater than the number of child "
                "templates (2): "
                "unless several groups are made from one template, this group can never be admitted"
            ),
            (
                f"{C0}.compositePodGroupTemplates[0].schedulingPolicy.gang.minGroupCount: minGroupCount 3 is greater "
                "than the number "
                "of child templates (1): unless several groups are made from one template, this group can never be "
                "admitted"
            ),
        ],
    ),
    ("basic-composite", composite_workload(composite("c", leaf("a"))), []),
    (
        "all-parent-children-not-all",
        composite_workload(
            composite(
                "c",
                leaf("a", disruptionMode={"single": {}}),
                composites=[composite("d", leaf("b"), disruptionMode={"all": {}})],
                disruptionMode={"all": {}},
            )
        ),
        [
            f"{C0}.podGroupTemplates[0].disruptionMode: not `all` under a parent whose disruptionMode is `all`: the "
            "child "
            "is only ever disrupted with the whole parent",
            f"{C0}.compositePodGroupTemplates[0].podGroupTemplates[0].disruptionMode: not `all` under a parent whose "
            "disruptionMode is `all`: the child is only ever disrupted with the whole parent",
        ],
    ),
    ("does-not-decode", composite_workload(composite("c", leaf("a"), gang=5, bogus=1)), []),
]


@pytest.mark.parametrize(("obj", "expected"), [(o, e) for _, o, e in WARNING_CASES], ids=[i for i, *_ in WARNING_CASES])
def test_min_group_count_above_the_children_is_a_warning_not_an_error(obj: dict[str, Any], expected: list[str]):
    assert workload_warnings(obj) == expected
    if expected:
        assert validate_workload(obj) == []


def test_tree_errors_run_in_order_at_the_given_path():
    spec = {
        "compositePodGroupTemplates": [
            {
                "name": "a",
                "schedulingPolicy": {"gang": {"minGroupCount": 3}},
                "podGroupTemplates": [{"name": "a", "schedulingPolicy": {"basic": {}}}],
            },
            {"name": "b", "schedulingPolicy": {"basic": {}}, "priority": 5},
        ]
    }
    canonical_spec = canonical("WorkloadSpec", spec)
    assert [str(e) for e in tree_errors(FieldPath("x"), canonical_spec, spec)] == [
        'x.compositePodGroupTemplates[0].podGroupTemplates[0].name: Duplicate value: "a"',
        "x: Invalid value: null: all priority and priorityClassName values must be identical, detected multiple values",
        'x.compositePodGroupTemplates[1]: Invalid value: "b": ' + NO_CHILD,
    ]
    assert tree_warnings(FieldPath("x"), canonical_spec) == [
        "x.compositePodGroupTemplates[0].schedulingPolicy.gang.minGroupCount: minGroupCount 3 is greater than the "
        "number of child templates (1): unless several groups are made from one template, this group can never be "
        "admitted"
    ]
