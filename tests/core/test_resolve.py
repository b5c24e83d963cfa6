"""Resolution (``workloadbuilder.resolve``): the default, then the user's blocks field by field, then the callbacks."""

from __future__ import annotations

import pytest
from factories import composite_gang_data, gang_data
from kubernetes.client import V1beta1TopologyConstraint

from workloadbuilder import (
    ConstraintsInput,
    DisruptionModeInput,
    PolicyInput,
    ResourceClaimsInput,
    SchedulingConfig,
    WorkloadInput,
    WorkloadItem,
)
from workloadbuilder.resolve import fill_gang_count, resolve_config
from workloadbuilder.types import (
    AllDisruptionMode,
    BasicSchedulingPolicy,
    DisruptionMode,
    GangSchedulingPolicy,
    ResourceClaim,
    SchedulingConstraints,
    SchedulingPolicy,
    SingleDisruptionMode,
)

ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"


def _is_set(config: SchedulingConfig, name: str) -> bool:
    unset = SchedulingConfig.model_fields[name].get_default(call_default_factory=True)
    return getattr(config, name) != unset


def test_resolve_config_merges_every_field() -> None:
    """TestResolveSchedulingConfigMergesEveryField: user input overrides each field it carries, the rest is kept."""
    default = SchedulingConfig(
        policy=SchedulingPolicy(basic=BasicSchedulingPolicy()),
        constraints=SchedulingConstraints(topology=[V1beta1TopologyConstraint(key=ZONE)]),
        disruption_mode=DisruptionMode(single=SingleDisruptionMode()),
        resource_claims=[ResourceClaim(name="default-claim", resource_claim_name="default")],
        priority_class_name="default-priority",
        priority=100,
        preemption_policy="Never",
    )
    user = WorkloadInput(
        policy=PolicyInput(pod_group_data=gang_data(4)),
        constraints=ConstraintsInput(pod_group_data={"topology": [{"key": REGION}]}),
        disruption_mode=DisruptionModeInput(pod_group_data={"all": {}}),
        resource_claims=ResourceClaimsInput(pod_group_data=[{"name": "user-claim", "resourceClaimName": "user"}]),
    )
    expected = SchedulingConfig(
        policy=SchedulingPolicy(gang=GangSchedulingPolicy(min_count=4)),
        constraints=SchedulingConstraints(topology=[V1beta1TopologyConstraint(key=REGION)]),
        disruption_mode=DisruptionMode(all=AllDisruptionMode()),
        resource_claims=[ResourceClaim(name="user-claim", resource_claim_name="user")],
        priority_class_name="default-priority",
        priority=100,
        preemption_policy="Never",
    )
    unset_in_fixtures = [
        name for name in SchedulingConfig.model_fields if not (_is_set(default, name) and _is_set(expected, name))
    ]
    assert unset_in_fixtures == [], "every SchedulingConfig field must be set in both fixtures"
    default_before = default.model_copy(deep=True)

    resolved = resolve_config(WorkloadItem(name="job", default_config=default, input=user))

    assert resolved == expected
    assert default == default_before


def test_no_default_and_no_input_resolve_to_the_empty_config() -> None:
    assert resolve_config(WorkloadItem(name="job")) == SchedulingConfig()


def test_an_empty_user_claim_list_keeps_the_default_claims() -> None:
    claims = [ResourceClaim(name="gpu", resource_claim_template_name="gpu-template")]
    item = WorkloadItem(
        name="job",
        default_config=SchedulingConfig(resource_claims=claims),
        input=WorkloadInput(resource_claims=ResourceClaimsInput(pod_group_data=[])),
    )
    assert resolve_config(item) == SchedulingConfig(resource_claims=claims)


def test_callbacks_run_in_order_on_a_copy_and_none_entries_are_skipped() -> None:
    default = SchedulingConfig(policy=SchedulingPolicy(gang=GangSchedulingPolicy()), priority_class_name="low")
    seen: list[str] = []

    def first(config: SchedulingConfig) -> None:
        seen.append(f"first:{config.priority_class_name}")
        config.priority_class_name = "high"

    def second(config: SchedulingConfig) -> None:
        seen.append(f"second:{config.priority_class_name}")
        assert config.policy is not None
        assert config.policy.gang is not None
        config.policy.gang.min_count = 3

    resolved = resolve_config(WorkloadItem(name="job", default_config=default, callbacks=[first, None, second]))
    assert seen == ["first:low", "second:high"]
    assert resolved == SchedulingConfig(
        policy=SchedulingPolicy(gang=GangSchedulingPolicy(min_count=3)), priority_class_name="high"
    )
    assert default == SchedulingConfig(policy=SchedulingPolicy(gang=GangSchedulingPolicy()), priority_class_name="low")


def test_a_composite_item_reads_the_composite_blocks() -> None:
    item = WorkloadItem(
        name="set",
        input=WorkloadInput(
            policy=PolicyInput(pod_group_data=gang_data(9), composite_pod_group_data=composite_gang_data(2))
        ),
        children=[WorkloadItem(name="leaf")],
    )
    assert resolve_config(item).policy == SchedulingPolicy(gang=GangSchedulingPolicy(min_count=2))
    leaf = item.model_copy(update={"children": []})
    assert resolve_config(leaf).policy == SchedulingPolicy(gang=GangSchedulingPolicy(min_count=9))


@pytest.mark.parametrize("value", [None, "job", SchedulingConfig()], ids=["none", "str", "config"])
def test_resolve_config_refuses_what_is_not_an_item(value: object) -> None:
    with pytest.raises(TypeError, match=r"^resolve_config takes a WorkloadItem, not " + type(value).__name__ + "$"):
        resolve_config(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("policy", "count", "expected"),
    [
        (SchedulingPolicy(gang=GangSchedulingPolicy()), 4, SchedulingPolicy(gang=GangSchedulingPolicy(min_count=4))),
        (
            SchedulingPolicy(gang=GangSchedulingPolicy(min_count=2)),
            4,
            SchedulingPolicy(gang=GangSchedulingPolicy(min_count=2)),
        ),
        (SchedulingPolicy(gang=GangSchedulingPolicy()), None, SchedulingPolicy(gang=GangSchedulingPolicy())),
        (SchedulingPolicy(basic=BasicSchedulingPolicy()), 4, SchedulingPolicy(basic=BasicSchedulingPolicy())),
        (None, 4, None),
        (SchedulingPolicy(gang=GangSchedulingPolicy()), 0, SchedulingPolicy(gang=GangSchedulingPolicy(min_count=0))),
    ],
    ids=["gang-without-count", "count-already-set", "no-count", "basic", "no-policy", "zero-is-not-clamped"],
)
def test_fill_gang_count(policy: SchedulingPolicy | None, count: int | None, expected: SchedulingPolicy | None) -> None:
    config = SchedulingConfig(policy=policy)
    fill_gang_count(count)(config)
    assert config == SchedulingConfig(policy=expected)


def test_fill_gang_count_fills_a_composite_min_group_count_through_resolution() -> None:
    item = WorkloadItem(
        name="set",
        default_config=SchedulingConfig(policy=SchedulingPolicy(gang=GangSchedulingPolicy())),
        callbacks=[fill_gang_count(3)],
        children=[WorkloadItem(name="a"), WorkloadItem(name="b"), WorkloadItem(name="c")],
    )
    assert resolve_config(item).policy == SchedulingPolicy(gang=GangSchedulingPolicy(min_count=3))
