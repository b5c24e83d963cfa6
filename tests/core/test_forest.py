"""build_forest: several roots validated at their own paths and merged into one Workload."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from factories import ALL_MODES, ALL_POLICIES, gang_data

from workloadbuilder import (
    Builder,
    BuildError,
    BuildOptions,
    FieldPath,
    PolicyInput,
    WorkloadInput,
    WorkloadItem,
    to_dict,
    to_yaml,
)
from workloadbuilder.forest import Forest, build_forest
from workloadbuilder.runtime.hierarchy import materialize

JOBSET = {
    "apiVersion": "jobset.x-k8s.io/v1alpha2",
    "kind": "JobSet",
    "name": "train",
    "uid": "js-uid",
    "controller": True,
}
CONTROLLER_REF = {"apiGroup": "jobset.x-k8s.io", "kind": "JobSet", "name": "train"}


def options(**changes: Any) -> BuildOptions:
    values: dict[str, Any] = {
        "name": "train-wl",
        "namespace": "ml",
        "owner": JOBSET,
        "allowed_policies": ALL_POLICIES,
        "allowed_disruption_modes": ALL_MODES,
    }
    values.update(changes)
    return BuildOptions(**values)


def rj_path(i: int) -> FieldPath:
    return FieldPath("spec", "replicatedJobs").index(i).child("scheduling")


def rj(i: int, name: str, min_count: int | None = None, children: list[WorkloadItem] | None = None) -> WorkloadItem:
    """The item of ReplicatedJob ``i``: basic, or a gang of ``min_count`` at ``...scheduling.schedulingPolicy``."""
    given = WorkloadInput()
    if min_count is not None:
        given = WorkloadInput(
            policy=PolicyInput(pod_group_data=gang_data(min_count), path_elements=["schedulingPolicy"])
        )
    return WorkloadItem(name=name, path=rj_path(i), input=given, children=children or [])


def test_jobset_roots_merge_into_one_workload():
    forest = build_forest([rj(0, "driver"), rj(1, "workers", 8)], options())
    assert forest.errors == []
    assert to_dict(forest.workload) == {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": "train-wl", "namespace": "ml", "ownerReferences": [JOBSET]},
        "spec": {
            "controllerRef": CONTROLLER_REF,
            "podGroupTemplates": [
                {"name": "driver", "schedulingPolicy": {"basic": {}}},
                {"name": "workers", "schedulingPolicy": {"gang": {"minCount": 8}}},
            ],
        },
    }


def test_composite_roots_merge_side_by_side():
    roots = [
        WorkloadItem(
            name=f"group-{g}", path=rj_path(g), children=[WorkloadItem(name=f"leaf-{g}-{i}") for i in range(2)]
        )
        for g in range(2)
    ]
    forest = build_forest(roots, options())
    assert to_dict(forest.workload)["spec"] == {
        "compositePodGroupTemplates": [
            {
                "name": f"group-{g}",
                "schedulingPolicy": {"basic": {}},
                "podGroupTemplates": [
                    {"name": f"leaf-{g}-0", "schedulingPolicy": {"basic": {}}},
                    {"name": f"leaf-{g}-1", "schedulingPolicy": {"basic": {}}},
                ],
            }
            for g in range(2)
        ],
        "controllerRef": CONTROLLER_REF,
    }


def test_one_root_is_what_the_builder_builds():
    root = rj(0, "workers", 4)
    assert to_dict(build_forest([root], options()).workload) == to_dict(Builder(root, options()).build_workload())


def test_eight_roots_are_allowed():
    forest = build_forest([rj(i, f"rj-{i}") for i in range(8)], options())
    assert forest.errors == []
    assert len(forest.workload.spec.pod_group_templates) == 8


def test_options_as_a_dict():
    forest = build_forest([rj(0, "driver")], {"name": "wl", "owner": JOBSET, "allowed_policies": ["Basic"]})
    assert forest.workload.metadata.name == "wl"


MIN_COUNT_ZERO = (
    "spec.replicatedJobs[1].scheduling.schedulingPolicy.gang.minCount: Invalid value: 0: "
    "must be greater than or equal to 1"
)
TOO_MANY = "spec.replicatedJobs[8].scheduling: Too many: {n}: must have at most 8 items"


@pytest.mark.parametrize(
    ("roots", "opts", "expected"),
    [
        ([rj(0, "driver"), rj(1, "workers", 0)], {}, [MIN_COUNT_ZERO]),
        (
            [rj(0, "driver"), rj(1, "workers", 2)],
            {"allowed_policies": ["Basic"]},
            [
                "spec.replicatedJobs[1].scheduling.schedulingPolicy: Forbidden: gang scheduling policy is not "
                "supported by this controller"
            ],
        ),
        ([rj(0, "workers"), rj(1, "workers")], {}, ['spec.replicatedJobs[1].scheduling: Duplicate value: "workers"']),
        (
            [
                rj(0, "a", children=[WorkloadItem(name="shared", path="spec.replicatedJobs[0].x")]),
                rj(1, "b", children=[WorkloadItem(name="shared", path="spec.replicatedJobs[1].x")]),
            ],
            {},
            ['spec.replicatedJobs[1].x: Duplicate value: "shared"'],
        ),
        (
            [rj(0, "driver"), rj(1, "group", children=[WorkloadItem(name="leaf")])],
            {},
            [
                (
                    'spec.replicatedJobs[1].scheduling: Invalid value: "group": root is a composite but the first root '
                    '"driver" is a leaf: a Workload\'s top level holds either podGroupTemplates or '
                    "compositePodGroupTemplates"
                )
            ],
        ),
        ([rj(i, f"rj-{i}") for i in range(9)], {}, [TOO_MANY.format(n=9)]),
        ([rj(i, f"rj-{i}") for i in range(12)], {}, [TOO_MANY.format(n=12)]),
        (
            [rj(0, "driver"), rj(1, "", children=[WorkloadItem(name="driver")]), rj(2, "driver")],
            {},
            [
                "spec.replicatedJobs[1].scheduling: Internal error: workload item name cannot be empty",
                'spec.replicatedJobs[2].scheduling: Duplicate value: "driver"',
            ],
        ),
        (
            [rj(0, "driver", 0), rj(1, "workers", 0), rj(2, "driver")],
            {},
            [
                MIN_COUNT_ZERO.replace("[1]", "[0]"),
                MIN_COUNT_ZERO,
                'spec.replicatedJobs[2].scheduling: Duplicate value: "driver"',
            ],
        ),
    ],
    ids=[
        "declarative-rule",
        "allow-list",
        "duplicate-root",
        "duplicate-child",
        "mixed-kinds",
        "nine-roots",
        "twelve-roots",
        "malformed-root",
        "root-by-root",
    ],
)
def test_errors_at_the_callers_paths(roots: list[WorkloadItem], opts: dict[str, Any], expected: list[str]):
    forest = build_forest(roots, options(**opts))
    assert forest == Forest(None, forest.errors)
    assert [str(error) for error in forest.errors] == expected


def test_old_roots_make_it_an_update():
    roots = [rj(0, "driver"), rj(1, "workers", 0)]
    stored = [rj(1, "workers", 0)]  # stored before the minimum rule caught it: ratcheted
    assert build_forest(roots, options(), old_roots=stored).errors == []
    assert [str(e) for e in build_forest(roots, options(), old_roots=[rj(1, "workers", 3)]).errors] == [MIN_COUNT_ZERO]


@pytest.mark.parametrize(
    ("roots", "opts", "message"),
    [
        ([], {}, "a forest needs at least one root"),
        ([rj(0, "driver"), None], {}, "forest root 1 is missing"),
        ([rj(0, "driver")], {"owner": None}, "a Workload must be owned by its controller for garbage collection"),
        (
            [
                rj(0, "driver"),
                WorkloadItem(name="workers", input=WorkloadInput(policy=PolicyInput(pod_group_data={"gang": {}}))),
            ],
            {},
            "gang scheduling requires minCount to be set after resolution",
        ),
    ],
    ids=["no-root", "none-root", "no-owner", "gang-without-count"],
)
def test_contract_violations_and_build_failures_raise(roots: list[Any], opts: dict[str, Any], message: str):
    with pytest.raises(BuildError) as caught:
        build_forest(roots, options(**opts))
    assert str(caught.value) == message


def test_forest_round_trips_through_yaml_and_materializes():
    workload = build_forest([rj(0, "driver"), rj(1, "workers", 8)], options()).workload
    again = yaml.safe_load(to_yaml(workload))
    assert again == to_dict(workload)
    builder = Builder.from_existing_workload(again, BuildOptions(owner=JOBSET))
    assert to_dict(builder.new_pod_group("pg", "workers")) == to_dict(
        Builder.from_existing_workload(workload, BuildOptions(owner=JOBSET)).new_pod_group("pg", "workers")
    )
    hierarchy = materialize(again, {"workers": 2})
    assert [(g.template_name, g.indices) for g in hierarchy] == [("driver", ()), ("workers", (0,)), ("workers", (1,))]


def test_a_forest_makes_its_runtime_groups_by_template_name():
    forest = build_forest([rj(0, "driver"), rj(1, "workers", 8)], options())
    group = to_dict(forest.new_pod_group("train-workers-0", "workers"))
    assert group == {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "train-workers-0", "namespace": "ml", "ownerReferences": [JOBSET]},
        "spec": {
            "schedulingPolicy": {"gang": {"minCount": 8}},
            "workloadRef": {"templateName": "workers", "workloadName": "train-wl"},
        },
    }
    with pytest.raises(BuildError, match="workers"):
        forest.new_pod_group("x", "nope")


def test_a_forest_with_errors_makes_no_group():
    forest = build_forest([rj(0, "same"), rj(1, "same")], options())
    with pytest.raises(BuildError, match=r"^the forest has no Workload: 1 error\(s\), the first: "):
        forest.new_pod_group("x", "same")


@pytest.mark.parametrize("roots", [[], ()], ids=["list", "tuple"])
def test_a_builder_of_several_roots_points_to_build_forest(roots: Any) -> None:
    message = r"Builder takes one WorkloadItem tree, not a (list|tuple) of them: for several roots, use build_forest"
    with pytest.raises(TypeError, match=message):
        Builder(roots, options())
