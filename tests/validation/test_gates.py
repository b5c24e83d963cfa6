"""FeatureGates and the gated fields' Forbidden errors (the gates a set of objects needs: test_requirements.py)."""

from __future__ import annotations

from typing import Any

import pytest
from objects_factories import (
    composite,
    composite_pod_group,
    composite_workload,
    leaf,
    pod_group,
    strings,
    workload,
)

from workloadbuilder.validation.gates import GATES, FeatureGates
from workloadbuilder.validation.objects import validate_composite_pod_group, validate_pod_group, validate_workload


def test_all_turns_on_every_gate_and_defaults_turn_on_none():
    assert FeatureGates.all().enabled == frozenset(GATES)
    assert FeatureGates.defaults().enabled == frozenset()
    assert sorted(GATES) == [
        "CompositePodGroup",
        "DRAWorkloadResourceClaims",
        "GenericWorkload",
        "PodGroupPreemptionPolicy",
        "TopologyAwareWorkloadScheduling",
        "WorkloadWithJob",
    ]


def test_stages_follow_1_37():
    assert {name: gate.stage for name, gate in GATES.items()} == {
        "GenericWorkload": "beta",
        "DRAWorkloadResourceClaims": "beta",
        "TopologyAwareWorkloadScheduling": "alpha",
        "CompositePodGroup": "alpha",
        "WorkloadWithJob": "alpha",
        "PodGroupPreemptionPolicy": "alpha",
    }


@pytest.mark.parametrize(
    ("enabled", "expected"),
    [
        ({"GenericWorkload"}, {"GenericWorkload"}),
        ({"GenericWorkload": True, "CompositePodGroup": False}, {"GenericWorkload"}),
        ([], set()),
    ],
    ids=["set", "mapping", "empty"],
)
def test_feature_gates_take_names_or_a_mapping(enabled: Any, expected: set[str]):
    gates = FeatureGates(enabled=enabled)
    assert gates.enabled == expected
    assert gates == FeatureGates(expected)
    assert repr(gates) == f"FeatureGates(enabled={sorted(expected)!r})"


def test_an_unknown_gate_name_is_refused():
    with pytest.raises(
        ValueError, match="unknown feature gate\\(s\\) CompositePodGroups: known gates are CompositePodGroup, "
    ):
        FeatureGates(enabled={"CompositePodGroups"})
    with pytest.raises(ValueError, match="unknown feature gate Bogus"):
        FeatureGates.all().is_enabled("Bogus")


def without(*names: str) -> FeatureGates:
    return FeatureGates(enabled=FeatureGates.all().enabled - set(names))


T0 = "spec.podGroupTemplates[0]"

GATED: list[tuple[str, Any, Any, str, list[str]]] = [
    (
        "workload-api",
        validate_workload,
        workload(leaf()),
        "GenericWorkload",
        ["kind: Forbidden: the GenericWorkload feature gate is disabled"],
    ),
    (
        "pod-group-api",
        validate_pod_group,
        pod_group(),
        "GenericWorkload",
        ["kind: Forbidden: the GenericWorkload feature gate is disabled"],
    ),
    (
        "composite-pod-group-api",
        validate_composite_pod_group,
        composite_pod_group(),
        "CompositePodGroup",
        ["kind: Forbidden: the CompositePodGroup feature gate is disabled"],
    ),
    (
        "composite-templates",
        validate_workload,
        composite_workload(composite("c", leaf("a"))),
        "CompositePodGroup",
        ["spec.compositePodGroupTemplates: Forbidden: the CompositePodGroup feature gate is disabled"],
    ),
    (
        "template-constraints",
        validate_workload,
        workload(leaf(schedulingConstraints={"topology": [{"key": "zone"}]})),
        "TopologyAwareWorkloadScheduling",
        [f"{T0}.schedulingConstraints: Forbidden: the TopologyAwareWorkloadScheduling feature gate is disabled"],
    ),
    (
        "template-claims",
        validate_workload,
        workload(leaf(resourceClaims=[{"name": "gpu", "resourceClaimName": "g"}])),
        "DRAWorkloadResourceClaims",
        [f"{T0}.resourceClaims: Forbidden: the DRAWorkloadResourceClaims feature gate is disabled"],
    ),
    (
        "template-preemption-policy",
        validate_workload,
        workload(leaf(preemptionPolicy="Never")),
        "PodGroupPreemptionPolicy",
        [f"{T0}.preemptionPolicy: Forbidden: the PodGroupPreemptionPolicy feature gate is disabled"],
    ),
    (
        "composite-template-preemption-policy",
        validate_workload,
        composite_workload(composite("c", leaf("a"), preemptionPolicy="Bogus")),
        "PodGroupPreemptionPolicy",
        [
            "spec.compositePodGroupTemplates[0].preemptionPolicy: Forbidden: the PodGroupPreemptionPolicy feature "
            "gate is disabled"
        ],
    ),
    (
        "pod-group-parent",
        validate_pod_group,
        pod_group(parentCompositePodGroupName="root"),
        "CompositePodGroup",
        ["spec.parentCompositePodGroupName: Forbidden: the CompositePodGroup feature gate is disabled"],
    ),
    (
        "pod-group-constraints",
        validate_pod_group,
        pod_group(schedulingConstraints={"topology": [{"key": "a"}, {"key": "b"}]}),
        "TopologyAwareWorkloadScheduling",
        ["spec.schedulingConstraints: Forbidden: the TopologyAwareWorkloadScheduling feature gate is disabled"],
    ),
    (
        "pod-group-claims",
        validate_pod_group,
        pod_group(resourceClaims=[{"name": "gpu"}]),
        "DRAWorkloadResourceClaims",
        ["spec.resourceClaims: Forbidden: the DRAWorkloadResourceClaims feature gate is disabled"],
    ),
    (
        "pod-group-preemption-policy",
        validate_pod_group,
        pod_group(preemptionPolicy="Never"),
        "PodGroupPreemptionPolicy",
        ["spec.preemptionPolicy: Forbidden: the PodGroupPreemptionPolicy feature gate is disabled"],
    ),
    (
        "composite-pod-group-preemption-policy",
        validate_composite_pod_group,
        composite_pod_group(preemptionPolicy="Never"),
        "PodGroupPreemptionPolicy",
        ["spec.preemptionPolicy: Forbidden: the PodGroupPreemptionPolicy feature gate is disabled"],
    ),
]


@pytest.mark.parametrize(
    ("validate", "obj", "gate", "expected"), [(v, o, g, e) for _, v, o, g, e in GATED], ids=[i for i, *_ in GATED]
)
def test_a_gated_field_is_forbidden_while_its_gate_is_off(
    validate: Any, obj: dict[str, Any], gate: str, expected: list[str]
):
    assert strings(validate(obj, gates=without(gate))) == expected
    assert not [e for e in strings(validate(obj, gates=FeatureGates.all())) if "feature gate" in e]


def test_ungated_composite_fields_need_no_gate():
    # A composite template's constraints carry no gate of their own (only the list does).
    obj = composite_workload(composite("c", leaf("a"), schedulingConstraints={"topology": [{"key": "zone"}]}))
    assert validate_workload(obj, gates=without("TopologyAwareWorkloadScheduling")) == []
