"""Compilation (``workloadbuilder.compile``): a WorkloadItem tree into a Workload, with the Go library's messages."""

from __future__ import annotations

from typing import Any

import pytest
from factories import composite_gang_data, gang_data
from hypothesis import given
from hypothesis import strategies as st

from workloadbuilder import (
    BuildError,
    BuildOptions,
    ConstraintsInput,
    DisruptionModeInput,
    PolicyInput,
    SchedulingConfig,
    WorkloadInput,
    WorkloadItem,
    to_dict,
)
from workloadbuilder.compile import compile_workload, compile_workload_spec, parse_group
from workloadbuilder.resolve import fill_gang_count
from workloadbuilder.types import (
    DisruptionMode,
    GangSchedulingPolicy,
    ResourceClaim,
    SchedulingPolicy,
    SingleDisruptionMode,
)
from workloadbuilder.validation.structure import CheckedTree

OWNER = {"apiVersion": "batch/v1", "kind": "Job", "name": "job", "uid": "job-uid"}


def spec_of(root: WorkloadItem) -> dict[str, Any]:
    return to_dict(compile_workload_spec(root))


def test_a_leaf_without_policy_compiles_to_basic() -> None:
    assert spec_of(WorkloadItem(name="workers")) == {
        "podGroupTemplates": [{"name": "workers", "schedulingPolicy": {"basic": {}}}]
    }


def test_a_leaf_compiles_every_field() -> None:
    root = WorkloadItem(
        name="workers",
        default_config=SchedulingConfig(
            resource_claims=[
                ResourceClaim(name="gpu", resource_claim_template_name="gpu-template"),
                ResourceClaim(name="shared", resource_claim_name="shared-claim"),
            ],
            priority_class_name="high",
            priority=1000,
            preemption_policy="Never",
        ),
        input=WorkloadInput(
            policy=PolicyInput(pod_group_data=gang_data(4)),
            constraints=ConstraintsInput(pod_group_data={"topology": [{"key": "zone"}]}),
            disruption_mode=DisruptionModeInput(pod_group_data={"all": {}}),
        ),
    )
    assert spec_of(root) == {
        "podGroupTemplates": [
            {
                "name": "workers",
                "schedulingPolicy": {"gang": {"minCount": 4}},
                "schedulingConstraints": {"topology": [{"key": "zone"}]},
                "disruptionMode": {"all": {}},
                "priorityClassName": "high",
                "priority": 1000,
                "preemptionPolicy": "Never",
                "resourceClaims": [
                    {"name": "gpu", "resourceClaimTemplateName": "gpu-template"},
                    {"name": "shared", "resourceClaimName": "shared-claim"},
                ],
            }
        ]
    }


def test_empty_constraints_and_an_empty_mode_compile_to_nothing() -> None:
    root = WorkloadItem(
        name="workers",
        default_config=SchedulingConfig(disruption_mode=DisruptionMode()),
        input=WorkloadInput(constraints=ConstraintsInput(pod_group_data={"topology": []})),
    )
    assert spec_of(root) == {"podGroupTemplates": [{"name": "workers", "schedulingPolicy": {"basic": {}}}]}


def test_all_wins_over_single_and_gang_over_basic() -> None:
    config = SchedulingConfig(
        policy=SchedulingPolicy.model_validate({"basic": {}, "gang": {"min_count": 2}}),
        disruption_mode=DisruptionMode.model_validate({"single": {}, "all": {}}),
    )
    template = spec_of(WorkloadItem(name="w", default_config=config))["podGroupTemplates"][0]
    assert template["schedulingPolicy"] == {"gang": {"minCount": 2}}
    assert template["disruptionMode"] == {"all": {}}
    single = SchedulingConfig(disruption_mode=DisruptionMode(single=SingleDisruptionMode()))
    assert spec_of(WorkloadItem(name="w", default_config=single))["podGroupTemplates"][0]["disruptionMode"] == {
        "single": {}
    }


def test_a_composite_compiles_its_children_per_kind_in_child_order() -> None:
    root = WorkloadItem(
        name="set",
        input=WorkloadInput(policy=PolicyInput(composite_pod_group_data=composite_gang_data(2))),
        children=[
            WorkloadItem(name="leader"),
            WorkloadItem(name="inner", children=[WorkloadItem(name="deep")]),
            WorkloadItem(name="workers", input=WorkloadInput(policy=PolicyInput(pod_group_data=gang_data(3)))),
        ],
    )
    assert spec_of(root) == {
        "compositePodGroupTemplates": [
            {
                "name": "set",
                "schedulingPolicy": {"gang": {"minGroupCount": 2}},
                "podGroupTemplates": [
                    {"name": "leader", "schedulingPolicy": {"basic": {}}},
                    {"name": "workers", "schedulingPolicy": {"gang": {"minCount": 3}}},
                ],
                "compositePodGroupTemplates": [
                    {
                        "name": "inner",
                        "schedulingPolicy": {"basic": {}},
                        "podGroupTemplates": [{"name": "deep", "schedulingPolicy": {"basic": {}}}],
                    }
                ],
            }
        ]
    }


GANG = SchedulingConfig(policy=SchedulingPolicy(gang=GangSchedulingPolicy()))


@pytest.mark.parametrize(
    ("root", "message"),
    [
        (None, "workload item cannot be nil"),
        (WorkloadItem(), "workload item name cannot be empty"),
        (
            WorkloadItem(name="a", children=[WorkloadItem(name="a")]),
            'duplicate workload item name "a": template names must be unique across the Workload',
        ),
        (WorkloadItem(name="w", default_config=GANG), "gang scheduling requires minCount to be set after resolution"),
        (
            WorkloadItem(name="s", default_config=GANG, children=[WorkloadItem(name="w")]),
            "composite gang scheduling requires minGroupCount to be set after resolution",
        ),
        (
            WorkloadItem(name="s", default_config=GANG, children=[WorkloadItem(name="w", default_config=GANG)]),
            "composite gang scheduling requires minGroupCount to be set after resolution",
        ),
        (
            WorkloadItem(
                name="s", callbacks=[fill_gang_count(1)], children=[WorkloadItem(name="w", default_config=GANG)]
            ),
            "gang scheduling requires minCount to be set after resolution",
        ),
        (
            WorkloadItem(
                name="w",
                path="spec.scheduling",
                input=WorkloadInput(policy=PolicyInput(pod_group_data={"gang": {"minCount": "x"}})),
            ),
            'invalid input: spec.scheduling.gang.minCount: Invalid value: "x": must be of type integer',
        ),
    ],
    ids=[
        "nil-root",
        "empty-name",
        "duplicate-name",
        "gang-without-count",
        "composite-gang-without-count",
        "composite-error-before-its-child",
        "child-error",
        "undecodable-block",
    ],
)
def test_compile_errors(root: WorkloadItem | None, message: str) -> None:
    with pytest.raises(BuildError) as caught:
        compile_workload_spec(root)
    assert str(caught.value) == message


def test_compile_workload_adds_identity_owner_and_controller_ref() -> None:
    workload = compile_workload(
        WorkloadItem(name="workers"), BuildOptions(name="job-workload", namespace="team", owner=OWNER)
    )
    assert to_dict(workload) == {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": "job-workload", "namespace": "team", "ownerReferences": [OWNER]},
        "spec": {
            "controllerRef": {"apiGroup": "batch", "kind": "Job", "name": "job"},
            "podGroupTemplates": [{"name": "workers", "schedulingPolicy": {"basic": {}}}],
        },
    }


def test_a_core_group_owner_leaves_api_group_out_and_empty_identity_is_left_out() -> None:
    owner = {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "u"}
    workload = to_dict(compile_workload(WorkloadItem(name="w"), BuildOptions(owner=owner)))
    assert workload["metadata"] == {"ownerReferences": [owner]}
    assert workload["spec"]["controllerRef"] == {"kind": "Pod", "name": "p"}


def test_compile_workload_needs_an_owner_after_the_tree_checks() -> None:
    with pytest.raises(BuildError, match=r"^a Workload must be owned by its controller for garbage collection$"):
        compile_workload(WorkloadItem(name="w"), BuildOptions())
    with pytest.raises(BuildError, match=r"^workload item name cannot be empty$"):
        compile_workload(WorkloadItem(), BuildOptions())


def test_a_checked_tree_skips_the_checks_only_for_its_own_root() -> None:
    bad = WorkloadItem(name="a", children=[WorkloadItem(name="a")])
    options = BuildOptions(owner=OWNER)
    skipped = to_dict(compile_workload(bad, options, CheckedTree(bad)))
    assert [t["name"] for t in skipped["spec"]["compositePodGroupTemplates"][0]["podGroupTemplates"]] == ["a"]
    with pytest.raises(BuildError, match=r"^duplicate workload item name"):
        compile_workload(bad, options, CheckedTree(WorkloadItem(name="other")))


def test_a_checked_tree_still_runs_every_callback() -> None:
    runs: list[str] = []
    root = WorkloadItem(name="w", callbacks=[lambda _config: runs.append("w")])
    compile_workload(root, BuildOptions(owner=OWNER), CheckedTree(root))
    assert runs == ["w"]


@pytest.mark.parametrize(
    ("api_version", "group"),
    [
        ("", ""),
        ("/", ""),
        ("v1", ""),
        ("batch/v1", "batch"),
        ("/v1", ""),
        ("apps/", "apps"),
        ("a.b.c/v1beta1", "a.b.c"),
    ],
    ids=["empty", "slash", "core", "batch", "empty-group", "empty-version", "dotted-group"],
)
def test_parse_group(api_version: str, group: str) -> None:
    assert parse_group(api_version) == group


@pytest.mark.parametrize("api_version", ["a/b/c", "//", "x//"], ids=["three-parts", "two-slashes", "trailing"])
def test_parse_group_refuses_two_slashes(api_version: str) -> None:
    with pytest.raises(BuildError) as caught:
        parse_group(api_version)
    assert str(caught.value) == (
        f'invalid owner apiVersion "{api_version}": unexpected GroupVersion string: {api_version}'
    )


def go_parse_group_version(gv: str) -> tuple[str, str] | None:
    """``schema.ParseGroupVersion`` of apimachinery, line by line: (group, version), or ``None`` for its error."""
    if len(gv) == 0 or gv == "/":
        return "", ""
    count = gv.count("/")
    if count == 0:
        return "", gv
    if count == 1:
        i = gv.index("/")
        return gv[:i], gv[i + 1 :]
    return None


@given(st.text(alphabet="ab./-1", max_size=8))
def test_parse_group_is_go_parse_group_version(api_version: str) -> None:
    expected = go_parse_group_version(api_version)
    if expected is None:
        with pytest.raises(BuildError):
            parse_group(api_version)
    else:
        assert parse_group(api_version) == expected[0]
