"""validate_hierarchy: the runtime tree of PodGroups and CompositePodGroups, checked as kube-scheduler would."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes.client import V1alpha3CompositePodGroup, V1beta1PodGroup
from objects_factories import changed, composite_pod_group, leaf, pod_group, workload

from workloadbuilder.validation.hierarchy import HierarchyProblem, validate_hierarchy


def cpg(name: str, parent: str | None = None, **spec: Any) -> dict[str, Any]:
    if parent is not None:
        spec["parentCompositePodGroupName"] = parent
    return composite_pod_group(name, priorityClassName="high", **spec)


def pg(name: str, parent: str | None = None, **spec: Any) -> dict[str, Any]:
    if parent is not None:
        spec["parentCompositePodGroupName"] = parent
    return pod_group(name, priorityClassName="high", **spec)


PARENT = "spec.parentCompositePodGroupName"

CASES: list[tuple[str, list[Any], list[str]]] = [
    ("one-tree", [cpg("root"), cpg("mid", "root"), pg("leaf-0", "mid"), pg("leaf-1", "mid")], []),
    ("standalone-pod-group", [pg("alone")], []),
    ("missing-parent", [pg("leaf", "ghost")], [f'PodGroup ml/leaf: {PARENT}: Not found: "ghost"']),
    ("a-pod-group-is-no-parent", [pg("a"), pg("b", "a")], [f'PodGroup ml/b: {PARENT}: Not found: "a"']),
    (
        "parent-in-another-namespace",
        [changed(cpg("root"), "metadata.namespace", "other"), pg("leaf", "root")],
        [f'PodGroup ml/leaf: {PARENT}: Not found: "root"'],
    ),
    (
        "below-a-missing-parent",
        [cpg("mid", "ghost"), pg("leaf", "mid")],
        [f'CompositePodGroup ml/mid: {PARENT}: Not found: "ghost"'],
    ),
    (
        "cycle",
        [cpg("a", "b"), cpg("b", "a"), pg("leaf", "a")],
        [
            f'CompositePodGroup ml/a: {PARENT}: Invalid value: "b": the parent chain is a cycle: "a" -> "b" -> "a"',
            f'CompositePodGroup ml/b: {PARENT}: Invalid value: "a": the parent chain is a cycle: "b" -> "a" -> "b"',
        ],
    ),
    (
        "self-parent",
        [cpg("a", "a")],
        [f'CompositePodGroup ml/a: {PARENT}: Invalid value: "a": the parent chain is a cycle: "a" -> "a"'],
    ),
    ("four-levels", [cpg("l1"), cpg("l2", "l1"), cpg("l3", "l2"), pg("l4", "l3")], []),
    (
        "five-levels",
        [cpg("l1"), cpg("l2", "l1"), cpg("l3", "l2"), cpg("l4", "l3"), pg("l5", "l4")],
        [
            f'PodGroup ml/l5: {PARENT}: Invalid value: "l4": the hierarchy may be at most 4 levels deep; this group '
            "is at level 5"
        ],
    ),
    (
        "two-workloads",
        [cpg("root"), pg("leaf", "root", workloadRef={"workloadName": "other", "templateName": "t"})],
        [
            (
                'PodGroup ml/leaf: spec.workloadRef.workloadName: Invalid value: "other": all groups of one hierarchy '
                "must "
                'reference one Workload; the root "root" references "train"'
            )
        ],
    ),
    (
        "two-priority-classes",
        [cpg("root"), changed(pg("leaf", "root"), "spec.priorityClassName", "low")],
        [
            (
                'PodGroup ml/leaf: spec.priorityClassName: Invalid value: "low": all groups of one hierarchy must '
                "have the "
                'root\'s priorityClassName; the root "root" has "high"'
            )
        ],
    ),
    (
        "two-priorities",
        [cpg("root", priority=10), pg("leaf", "root", priority=20)],
        [
            "PodGroup ml/leaf: spec.priority: Invalid value: 20: all groups of one hierarchy must have the root's "
            'priority; the root "root" has 10'
        ],
    ),
    (
        "separate-trees-may-differ",
        [
            cpg("a"),
            pg("x", "a"),
            changed(cpg("b"), "spec.priorityClassName", "low"),
            changed(pg("y", "b"), "spec.priorityClassName", "low"),
        ],
        [],
    ),
    ("other-kinds-are-skipped", [workload(leaf()), {"kind": "ConfigMap"}, pg("alone")], []),
    ("undecodable-groups-are-skipped", [pg("leaf", "ghost", bogus=1)], []),
]


@pytest.mark.parametrize(("objects", "expected"), [(o, e) for _, o, e in CASES], ids=[i for i, *_ in CASES])
def test_hierarchy_rules(objects: list[Any], expected: list[str]):
    assert [str(problem) for problem in validate_hierarchy(objects)] == expected


def test_client_models_and_structured_errors():
    objects = [
        V1alpha3CompositePodGroup.model_validate(cpg("root")),
        V1beta1PodGroup.model_validate(pg("leaf", "gone")),
    ]
    [problem] = validate_hierarchy(objects)
    assert problem == HierarchyProblem("PodGroup", "ml", "leaf", problem.error)
    assert (problem.error.field, problem.error.bad_value) == (PARENT, "gone")
