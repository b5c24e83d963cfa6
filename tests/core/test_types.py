"""Our own types (``workloadbuilder.types``): composite blocks, the IR, the input wrappers and the WorkloadItem tree."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes.client import (
    V1alpha3WorkloadPodGroupResourceClaim,
    V1alpha3WorkloadPodGroupSchedulingPolicy,
    V1OwnerReference,
)
from pydantic import ValidationError

from workloadbuilder.field import FieldPath
from workloadbuilder.types import (
    BuildOptions,
    DisruptionModeOption,
    GangSchedulingPolicy,
    PolicyInput,
    ResourceClaimsInput,
    SchedulingConfig,
    SchedulingPolicyOption,
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupGangSchedulingPolicy,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
    WorkloadInput,
    WorkloadItem,
)


@pytest.mark.parametrize(
    ("model", "data"),
    [
        (WorkloadCompositePodGroupSchedulingPolicy, {"gang": {"minGroupCount": 3}}),
        (WorkloadCompositePodGroupSchedulingPolicy, {"basic": {}}),
        (WorkloadCompositePodGroupSchedulingConstraints, {"topology": [{"key": "zone"}]}),
        (WorkloadCompositePodGroupDisruptionMode, {"all": {}}),
        (WorkloadCompositePodGroupDisruptionMode, {}),
    ],
    ids=["gang", "basic", "topology", "all", "empty"],
)
def test_composite_blocks_read_and_write_kubernetes_json(model: Any, data: dict[str, Any]) -> None:
    assert model.model_validate(data).to_dict() == data


def test_composite_gang_takes_either_spelling_and_writes_the_json_one() -> None:
    assert WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=2).to_dict() == {"minGroupCount": 2}
    assert WorkloadCompositePodGroupGangSchedulingPolicy.model_validate({"min_group_count": 2}).min_group_count == 2


@pytest.mark.parametrize(
    "data",
    [{"gang": {"minGroupCount": "2"}}, {"gang": {"minCount": 2}}, {"other": {}}],
    ids=["string-count", "leaf-spelling", "unknown-field"],
)
def test_composite_blocks_are_strict(data: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        WorkloadCompositePodGroupSchedulingPolicy.model_validate(data)


def test_the_ir_refuses_unknown_fields_and_loose_types_also_on_assignment() -> None:
    with pytest.raises(ValidationError):
        SchedulingConfig.model_validate({"priorty": 1})
    with pytest.raises(ValidationError):
        GangSchedulingPolicy(min_count="3")  # type: ignore[arg-type]
    config = SchedulingConfig()
    with pytest.raises(ValidationError):
        config.priority = "high"  # type: ignore[assignment]
    assert config == SchedulingConfig()


def test_an_empty_config_has_no_field_set() -> None:
    assert SchedulingConfig().model_dump() == {
        "policy": None,
        "constraints": None,
        "disruption_mode": None,
        "resource_claims": [],
        "priority_class_name": "",
        "priority": None,
        "preemption_policy": None,
    }


def test_a_block_given_as_a_dict_is_decoded_into_the_client_model() -> None:
    given = PolicyInput(pod_group_data={"gang": {"minCount": 4}}, path_elements=["policy"])
    assert isinstance(given.pod_group_data, V1alpha3WorkloadPodGroupSchedulingPolicy)
    assert given.pod_group_data.gang.min_count == 4
    assert given.path_elements == ["policy"]
    composite = PolicyInput(composite_pod_group_data={"gang": {"minGroupCount": 2}})
    assert composite.composite_pod_group_data == WorkloadCompositePodGroupSchedulingPolicy(
        gang=WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=2)
    )


def test_a_block_that_does_not_decode_is_kept_as_given() -> None:
    raw = {"gang": {"minCount": "four"}, "extra": 1}
    assert PolicyInput(pod_group_data=raw).pod_group_data == raw


def test_claims_are_decoded_one_by_one_and_a_non_list_is_kept() -> None:
    claims = ResourceClaimsInput(pod_group_data=[{"name": "a", "resourceClaimName": "x"}, {"name": 3}])
    first, second = claims.pod_group_data
    assert first == V1alpha3WorkloadPodGroupResourceClaim(name="a", resource_claim_name="x")
    assert second == {"name": 3}
    assert ResourceClaimsInput(pod_group_data=None).pod_group_data == []
    assert ResourceClaimsInput(pod_group_data="gpu").pod_group_data == "gpu"


def test_workload_input_defaults_to_four_empty_blocks() -> None:
    given = WorkloadInput()
    assert given.policy == PolicyInput()
    assert (given.policy.pod_group_data, given.policy.composite_pod_group_data) == (None, None)
    assert given.resource_claims.pod_group_data == []


def test_a_workload_item_parses_its_path_and_keeps_children_as_a_list() -> None:
    child = WorkloadItem(name="leaf")
    item = WorkloadItem(name="root", path="spec.template.spec.scheduling", children=(child,), callbacks=(None,))
    assert item.path == FieldPath("spec", "template", "spec", "scheduling")
    assert item.children == [child]
    assert item.callbacks == [None]
    assert item.is_composite
    assert not child.is_composite
    assert WorkloadItem(name="x", path=FieldPath("spec")).path == FieldPath("spec")


def test_the_options_enums_are_the_api_spellings() -> None:
    assert [o.value for o in SchedulingPolicyOption] == ["Basic", "Gang"]
    assert [o.value for o in DisruptionModeOption] == ["Single", "All"]
    assert SchedulingPolicyOption("Gang") is SchedulingPolicyOption.GANG


def test_build_options_allow_nothing_by_default_and_decode_an_owner_dict() -> None:
    options = BuildOptions(owner={"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "u"})
    assert options.owner == V1OwnerReference(api_version="batch/v1", kind="Job", name="j", uid="u")
    assert options.allowed_policies == []
    assert options.allowed_disruption_modes == []
    assert options.disable_declarative_validation is False
    assert BuildOptions(allowed_policies=["Gang"]).allowed_policies == [SchedulingPolicyOption.GANG]


def test_an_owner_that_does_not_decode_is_refused_at_owner() -> None:
    with pytest.raises(ValidationError) as caught:
        BuildOptions(owner={"apiVersion": "batch/v1", "kind": "Job", "name": 3, "uid": "u"})
    assert [e["msg"] for e in caught.value.errors()] == [
        "Value error, owner.name: Invalid value: 3: must be of type string"
    ]
