"""Building blocks to the SchedulingConfig IR: a port of mapconfig_test.go, with exact expected configs.

The Go tests check a few fields of each mapped config; here every case compares
the whole ``SchedulingConfig`` (pydantic models compare by value).
"""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes.client import (
    V1alpha3TopologyConstraint,
    V1alpha3WorkloadPodGroupDisruptionMode,
    V1alpha3WorkloadPodGroupGangSchedulingPolicy,
    V1alpha3WorkloadPodGroupResourceClaim,
    V1alpha3WorkloadPodGroupSchedulingConstraints,
    V1alpha3WorkloadPodGroupSchedulingPolicy,
    V1beta1CompositeDisruptionMode,
    V1beta1CompositeGangSchedulingPolicy,
    V1beta1CompositePodGroupSchedulingPolicy,
    V1beta1CompositePodGroupTemplate,
    V1beta1DisruptionMode,
    V1beta1GangSchedulingPolicy,
    V1beta1PodGroupSchedulingConstraints,
    V1beta1PodGroupSchedulingPolicy,
    V1beta1PodGroupTemplate,
    V1beta1TopologyConstraint,
    V1beta1TypedLocalObjectReference,
    V1beta1Workload,
    V1beta1WorkloadSpec,
    V1ObjectMeta,
    V1OwnerReference,
)

from workloadbuilder import (
    Builder,
    BuildOptions,
    ConstraintsInput,
    DisruptionModeInput,
    PolicyInput,
    ResourceClaimsInput,
    SchedulingConfig,
    SchedulingConfigFunc,
    WorkloadInput,
    WorkloadItem,
)
from workloadbuilder.mapping import map_composite_group_input, map_workload_input
from workloadbuilder.resolve import resolve_config
from workloadbuilder.types import (
    AllDisruptionMode,
    BasicSchedulingPolicy,
    DisruptionMode,
    GangSchedulingPolicy,
    ResourceClaim,
    SchedulingConstraints,
    SchedulingPolicy,
    SingleDisruptionMode,
    WorkloadCompositePodGroupDisruptionMode,
    WorkloadCompositePodGroupGangSchedulingPolicy,
    WorkloadCompositePodGroupSchedulingConstraints,
    WorkloadCompositePodGroupSchedulingPolicy,
)

BASIC_IR = SchedulingPolicy(basic=BasicSchedulingPolicy())
SINGLE_IR = DisruptionMode(single=SingleDisruptionMode())
ALL_IR = DisruptionMode(all=AllDisruptionMode())


def _gang_ir(min_count: int | None) -> SchedulingPolicy:
    return SchedulingPolicy(gang=GangSchedulingPolicy(min_count=min_count))


def _topology_ir(*keys: str) -> SchedulingConstraints:
    return SchedulingConstraints(topology=[V1beta1TopologyConstraint(key=key) for key in keys])


# --- TestMapWorkloadInput ---

MAP_WORKLOAD_INPUT: list[tuple[str, dict[str, Any], SchedulingConfig]] = [
    ("all nil leaves fields unset", {}, SchedulingConfig()),
    (
        "empty policy maps to nil so the default survives",
        {"policy": V1alpha3WorkloadPodGroupSchedulingPolicy()},
        SchedulingConfig(),
    ),
    (
        "empty constraints maps to nil so the default survives",
        {"constraints": V1alpha3WorkloadPodGroupSchedulingConstraints()},
        SchedulingConfig(),
    ),
    (
        "empty disruption maps to nil so the default survives",
        {"disruption": V1alpha3WorkloadPodGroupDisruptionMode()},
        SchedulingConfig(),
    ),
    ("basic policy", {"policy": V1alpha3WorkloadPodGroupSchedulingPolicy(basic={})}, SchedulingConfig(policy=BASIC_IR)),
    (
        "gang policy with minCount",
        {
            "policy": V1alpha3WorkloadPodGroupSchedulingPolicy(
                gang=V1alpha3WorkloadPodGroupGangSchedulingPolicy(min_count=4)
            )
        },
        SchedulingConfig(policy=_gang_ir(4)),
    ),
    (
        "gang policy preserves nil minCount",
        {"policy": V1alpha3WorkloadPodGroupSchedulingPolicy(gang=V1alpha3WorkloadPodGroupGangSchedulingPolicy())},
        SchedulingConfig(policy=_gang_ir(None)),
    ),
    (
        "topology constraints",
        {
            "constraints": V1alpha3WorkloadPodGroupSchedulingConstraints(
                topology=[V1alpha3TopologyConstraint(key="topology.kubernetes.io/rack")]
            )
        },
        SchedulingConfig(constraints=_topology_ir("topology.kubernetes.io/rack")),
    ),
    (
        "disruption mode all",
        {"disruption": V1alpha3WorkloadPodGroupDisruptionMode(all={})},
        SchedulingConfig(disruption_mode=ALL_IR),
    ),
    (
        "resource claims",
        {"claims": [V1alpha3WorkloadPodGroupResourceClaim(name="gpu", resource_claim_name="shared-gpu")]},
        SchedulingConfig(resource_claims=[ResourceClaim(name="gpu", resource_claim_name="shared-gpu")]),
    ),
    (
        "all fields populated",
        {
            "policy": V1alpha3WorkloadPodGroupSchedulingPolicy(
                gang=V1alpha3WorkloadPodGroupGangSchedulingPolicy(min_count=2)
            ),
            "constraints": V1alpha3WorkloadPodGroupSchedulingConstraints(
                topology=[V1alpha3TopologyConstraint(key="zone")]
            ),
            "disruption": V1alpha3WorkloadPodGroupDisruptionMode(single={}),
            "claims": [V1alpha3WorkloadPodGroupResourceClaim(name="net", resource_claim_template_name="tpl")],
        },
        SchedulingConfig(
            policy=_gang_ir(2),
            constraints=_topology_ir("zone"),
            disruption_mode=SINGLE_IR,
            resource_claims=[ResourceClaim(name="net", resource_claim_template_name="tpl")],
        ),
    ),
]


def _leaf_input(blocks: dict[str, Any]) -> WorkloadInput:
    """Go's table runner: every block in ``pod_group_data``, no path elements."""
    return WorkloadInput(
        policy=PolicyInput(pod_group_data=blocks.get("policy")),
        constraints=ConstraintsInput(pod_group_data=blocks.get("constraints")),
        disruption_mode=DisruptionModeInput(pod_group_data=blocks.get("disruption")),
        resource_claims=ResourceClaimsInput(pod_group_data=blocks.get("claims", [])),
    )


def _as_json(value: Any) -> Any:
    """A building block (or list of them) in Kubernetes JSON spelling, as a user would write it."""
    if isinstance(value, list):
        return [_as_json(v) for v in value]
    if value is None:
        return None
    return value.model_dump(by_alias=True, exclude_none=True)


@pytest.mark.parametrize(
    ("blocks", "expected"), [c[1:] for c in MAP_WORKLOAD_INPUT], ids=[c[0] for c in MAP_WORKLOAD_INPUT]
)
def test_map_workload_input(blocks: dict[str, Any], expected: SchedulingConfig) -> None:
    assert map_workload_input(_leaf_input(blocks)) == expected


@pytest.mark.parametrize(
    ("blocks", "expected"), [c[1:] for c in MAP_WORKLOAD_INPUT], ids=[c[0] for c in MAP_WORKLOAD_INPUT]
)
def test_map_workload_input_from_json_dicts(blocks: dict[str, Any], expected: SchedulingConfig) -> None:
    as_dicts = {name: _as_json(block) for name, block in blocks.items()}
    assert map_workload_input(_leaf_input(as_dicts)) == expected


def test_map_workload_input_ignores_composite_blocks() -> None:
    given = WorkloadInput(
        policy=PolicyInput(composite_pod_group_data={"gang": {"minGroupCount": 2}}),
        disruption_mode=DisruptionModeInput(composite_pod_group_data={"all": {}}),
    )
    assert map_workload_input(given) == SchedulingConfig()


def test_map_workload_input_does_not_alias_the_input() -> None:
    policy = V1alpha3WorkloadPodGroupSchedulingPolicy(gang=V1alpha3WorkloadPodGroupGangSchedulingPolicy(min_count=2))
    constraints = V1alpha3WorkloadPodGroupSchedulingConstraints(topology=[V1alpha3TopologyConstraint(key="zone")])
    claim = V1alpha3WorkloadPodGroupResourceClaim(name="gpu", resource_claim_name="shared")
    cfg = map_workload_input(_leaf_input({"policy": policy, "constraints": constraints, "claims": [claim]}))
    cfg.policy.gang.min_count = 99
    cfg.constraints.topology[0].key = "rack"
    cfg.resource_claims[0].resource_claim_name = "other"
    assert policy.gang.min_count == 2
    assert constraints.topology[0].key == "zone"
    assert claim.resource_claim_name == "shared"


# --- TestMapCompositeGroupInput ---

MAP_COMPOSITE_GROUP_INPUT: list[tuple[str, dict[str, Any], SchedulingConfig]] = [
    ("nil policy leaves Policy unset", {}, SchedulingConfig()),
    (
        "composite topology constraints",
        {
            "constraints": WorkloadCompositePodGroupSchedulingConstraints(
                topology=[V1alpha3TopologyConstraint(key="zone")]
            )
        },
        SchedulingConfig(constraints=_topology_ir("zone")),
    ),
    (
        "composite disruption mode all",
        {"disruption": WorkloadCompositePodGroupDisruptionMode(all={})},
        SchedulingConfig(disruption_mode=ALL_IR),
    ),
    (
        "empty policy maps to nil so the default survives",
        {"policy": WorkloadCompositePodGroupSchedulingPolicy()},
        SchedulingConfig(),
    ),
    (
        "basic policy",
        {"policy": WorkloadCompositePodGroupSchedulingPolicy(basic={})},
        SchedulingConfig(policy=BASIC_IR),
    ),
    (
        "gang policy carries minGroupCount in the IR MinCount",
        {
            "policy": WorkloadCompositePodGroupSchedulingPolicy(
                gang=WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=3)
            )
        },
        SchedulingConfig(policy=_gang_ir(3)),
    ),
    (
        "gang policy preserves nil minGroupCount",
        {"policy": WorkloadCompositePodGroupSchedulingPolicy(gang=WorkloadCompositePodGroupGangSchedulingPolicy())},
        SchedulingConfig(policy=_gang_ir(None)),
    ),
    (
        "gang policy copies minGroupCount instead of aliasing the input",
        {
            "policy": WorkloadCompositePodGroupSchedulingPolicy(
                gang=WorkloadCompositePodGroupGangSchedulingPolicy(min_group_count=2)
            )
        },
        SchedulingConfig(policy=_gang_ir(2)),
    ),
]


def _composite_input(blocks: dict[str, Any]) -> WorkloadInput:
    return WorkloadInput(
        policy=PolicyInput(composite_pod_group_data=blocks.get("policy")),
        constraints=ConstraintsInput(composite_pod_group_data=blocks.get("constraints")),
        disruption_mode=DisruptionModeInput(composite_pod_group_data=blocks.get("disruption")),
    )


@pytest.mark.parametrize(
    ("blocks", "expected"), [c[1:] for c in MAP_COMPOSITE_GROUP_INPUT], ids=[c[0] for c in MAP_COMPOSITE_GROUP_INPUT]
)
def test_map_composite_group_input(blocks: dict[str, Any], expected: SchedulingConfig) -> None:
    cfg = map_composite_group_input(_composite_input(blocks))
    assert cfg == expected
    assert cfg.resource_claims == []
    if cfg.policy is not None and cfg.policy.gang is not None and cfg.policy.gang.min_count is not None:
        before = blocks["policy"].gang.min_group_count
        cfg.policy.gang.min_count = 99
        assert blocks["policy"].gang.min_group_count == before


def test_map_composite_group_input_never_maps_claims_or_leaf_blocks() -> None:
    given = WorkloadInput(
        policy=PolicyInput(pod_group_data={"basic": {}}),
        constraints=ConstraintsInput(pod_group_data={"topology": [{"key": "zone"}]}),
        resource_claims=ResourceClaimsInput(pod_group_data=[{"name": "gpu", "resourceClaimName": "shared"}]),
    )
    assert map_composite_group_input(given) == SchedulingConfig()


def test_map_composite_group_input_from_json_dicts() -> None:
    given = WorkloadInput(
        policy=PolicyInput(composite_pod_group_data={"gang": {"minGroupCount": 5}}),
        constraints=ConstraintsInput(composite_pod_group_data={"topology": [{"key": "rack"}]}),
        disruption_mode=DisruptionModeInput(composite_pod_group_data={"single": {}}),
    )
    assert map_composite_group_input(given) == SchedulingConfig(
        policy=_gang_ir(5), constraints=_topology_ir("rack"), disruption_mode=SINGLE_IR
    )


# --- TestMapConfigEndToEnd ---

E2E_OWNER = V1OwnerReference(api_version="batch/v1", kind="Job", name="test-job", uid="12345")


def default_gang_min_count(n: int) -> SchedulingConfigFunc:
    """Go's ``defaultGangMinCount``: fill in an unset gang count."""

    def callback(cfg: SchedulingConfig) -> None:
        if cfg.policy is not None and cfg.policy.gang is not None and cfg.policy.gang.min_count is None:
            cfg.policy.gang.min_count = n

    return callback


def _build(root: WorkloadItem) -> V1beta1Workload:
    return Builder(root, BuildOptions(name="job", namespace="ns", owner=E2E_OWNER)).build_workload()


def _workload(spec: V1beta1WorkloadSpec) -> V1beta1Workload:
    spec.controller_ref = V1beta1TypedLocalObjectReference(api_group="batch", kind="Job", name="test-job")
    return V1beta1Workload(
        api_version="scheduling.k8s.io/v1beta1",
        kind="Workload",
        metadata=V1ObjectMeta(name="job", namespace="ns", owner_references=[E2E_OWNER]),
        spec=spec,
    )


def _leaf_e2e_root() -> WorkloadItem:
    return WorkloadItem(
        name="job-root",
        default_config=SchedulingConfig(policy=BASIC_IR),
        input=WorkloadInput(
            policy=PolicyInput(
                pod_group_data=V1alpha3WorkloadPodGroupSchedulingPolicy(
                    gang=V1alpha3WorkloadPodGroupGangSchedulingPolicy()
                )
            ),
            constraints=ConstraintsInput(
                pod_group_data=V1alpha3WorkloadPodGroupSchedulingConstraints(
                    topology=[V1alpha3TopologyConstraint(key="topology.kubernetes.io/zone")]
                )
            ),
            disruption_mode=DisruptionModeInput(pod_group_data=V1alpha3WorkloadPodGroupDisruptionMode(all={})),
        ),
        callbacks=[default_gang_min_count(4)],
    )


def _composite_e2e_root() -> WorkloadItem:
    return WorkloadItem(
        name="cpg-root",
        default_config=SchedulingConfig(policy=BASIC_IR),
        input=WorkloadInput(
            policy=PolicyInput(
                composite_pod_group_data=WorkloadCompositePodGroupSchedulingPolicy(
                    gang=WorkloadCompositePodGroupGangSchedulingPolicy()
                )
            )
        ),
        callbacks=[default_gang_min_count(4)],
        children=[WorkloadItem(name="workers", default_config=SchedulingConfig(policy=BASIC_IR))],
    )


MAP_CONFIG_END_TO_END = [
    (
        "leaf group maps and compiles every building block",
        _leaf_e2e_root,
        SchedulingConfig(
            policy=_gang_ir(4), constraints=_topology_ir("topology.kubernetes.io/zone"), disruption_mode=ALL_IR
        ),
        _workload(
            V1beta1WorkloadSpec(
                pod_group_templates=[
                    V1beta1PodGroupTemplate(
                        name="job-root",
                        scheduling_policy=V1beta1PodGroupSchedulingPolicy(
                            gang=V1beta1GangSchedulingPolicy(min_count=4)
                        ),
                        scheduling_constraints=V1beta1PodGroupSchedulingConstraints(
                            topology=[V1beta1TopologyConstraint(key="topology.kubernetes.io/zone")]
                        ),
                        disruption_mode=V1beta1DisruptionMode(all={}),
                    )
                ]
            )
        ),
    ),
    (
        "composite group maps and compiles the group-of-groups policy",
        _composite_e2e_root,
        SchedulingConfig(policy=_gang_ir(4)),
        _workload(
            V1beta1WorkloadSpec(
                composite_pod_group_templates=[
                    V1beta1CompositePodGroupTemplate(
                        name="cpg-root",
                        scheduling_policy=V1beta1CompositePodGroupSchedulingPolicy(
                            gang=V1beta1CompositeGangSchedulingPolicy(min_group_count=4)
                        ),
                        pod_group_templates=[
                            V1beta1PodGroupTemplate(
                                name="workers", scheduling_policy=V1beta1PodGroupSchedulingPolicy(basic={})
                            )
                        ],
                    )
                ]
            )
        ),
    ),
]


@pytest.mark.parametrize(
    ("make_root", "resolved", "expected"),
    [c[1:] for c in MAP_CONFIG_END_TO_END],
    ids=[c[0] for c in MAP_CONFIG_END_TO_END],
)
def test_map_config_end_to_end(make_root, resolved: SchedulingConfig, expected: V1beta1Workload) -> None:
    root = make_root()
    assert resolve_config(root) == resolved
    assert _build(root) == expected


# --- beyond upstream: the mappers and the compiler disagree on union preference (dv-rules.md 7.5) ---


def test_leaf_mapper_prefers_basic_and_single() -> None:
    given = WorkloadInput(
        policy=PolicyInput(pod_group_data={"basic": {}, "gang": {"minCount": 3}}),
        disruption_mode=DisruptionModeInput(pod_group_data={"single": {}, "all": {}}),
    )
    assert map_workload_input(given) == SchedulingConfig(policy=BASIC_IR, disruption_mode=SINGLE_IR)


def test_composite_mapper_prefers_basic_and_single() -> None:
    given = WorkloadInput(
        policy=PolicyInput(composite_pod_group_data={"basic": {}, "gang": {"minGroupCount": 3}}),
        disruption_mode=DisruptionModeInput(composite_pod_group_data={"single": {}, "all": {}}),
    )
    assert map_composite_group_input(given) == SchedulingConfig(policy=BASIC_IR, disruption_mode=SINGLE_IR)


BOTH_IR = SchedulingConfig(
    policy=SchedulingPolicy(basic=BasicSchedulingPolicy(), gang=GangSchedulingPolicy(min_count=3)),
    disruption_mode=DisruptionMode(single=SingleDisruptionMode(), all=AllDisruptionMode()),
)


def _set_both(cfg: SchedulingConfig) -> None:
    cfg.policy = BOTH_IR.policy.model_copy(deep=True)
    cfg.disruption_mode = BOTH_IR.disruption_mode.model_copy(deep=True)


BOTH_SOURCES = [
    ("from default_config", {"default_config": BOTH_IR}),
    ("from a callback", {"callbacks": [_set_both]}),
]


@pytest.mark.parametrize("source", [c[1] for c in BOTH_SOURCES], ids=[c[0] for c in BOTH_SOURCES])
def test_compiler_prefers_gang_and_all_on_a_leaf(source: dict[str, Any]) -> None:
    root = WorkloadItem(name="leaf", **source)
    assert resolve_config(root) == BOTH_IR
    assert _build(root).spec.pod_group_templates == [
        V1beta1PodGroupTemplate(
            name="leaf",
            scheduling_policy=V1beta1PodGroupSchedulingPolicy(gang=V1beta1GangSchedulingPolicy(min_count=3)),
            disruption_mode=V1beta1DisruptionMode(all={}),
        )
    ]


@pytest.mark.parametrize("source", [c[1] for c in BOTH_SOURCES], ids=[c[0] for c in BOTH_SOURCES])
def test_compiler_prefers_gang_and_all_on_a_composite(source: dict[str, Any]) -> None:
    root = WorkloadItem(name="group", children=[WorkloadItem(name="leaf")], **source)
    assert _build(root).spec.composite_pod_group_templates == [
        V1beta1CompositePodGroupTemplate(
            name="group",
            scheduling_policy=V1beta1CompositePodGroupSchedulingPolicy(
                gang=V1beta1CompositeGangSchedulingPolicy(min_group_count=3)
            ),
            disruption_mode=V1beta1CompositeDisruptionMode(all={}),
            pod_group_templates=[
                V1beta1PodGroupTemplate(name="leaf", scheduling_policy=V1beta1PodGroupSchedulingPolicy(basic={}))
            ],
        )
    ]


def test_input_with_both_members_compiles_to_basic_and_single() -> None:
    root = WorkloadItem(
        name="leaf",
        input=WorkloadInput(
            policy=PolicyInput(pod_group_data={"basic": {}, "gang": {"minCount": 3}}),
            disruption_mode=DisruptionModeInput(pod_group_data={"single": {}, "all": {}}),
        ),
    )
    assert _build(root).spec.pod_group_templates == [
        V1beta1PodGroupTemplate(
            name="leaf",
            scheduling_policy=V1beta1PodGroupSchedulingPolicy(basic={}),
            disruption_mode=V1beta1DisruptionMode(single={}),
        )
    ]
