"""FeatureGates, the gated fields' Forbidden errors, and required_gates."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes.client import V1Job, V1JobSchedulingConfiguration, V1JobSpec, V1ObjectMeta, V1PodTemplateSpec
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
from workloadbuilder.validation.requirements import GateRequirement, required_gates


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
    "enabled,expected",
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
            "spec.compositePodGroupTemplates[0].preemptionPolicy: Forbidden: the PodGroupPreemptionPolicy feature gate is disabled"
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
    "validate,obj,gate,expected", [(v, o, g, e) for _, v, o, g, e in GATED], ids=[i for i, *_ in GATED]
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


def job(scheduling: bool) -> V1Job:
    return V1Job(
        metadata=V1ObjectMeta(name="train", namespace="ml"),
        spec=V1JobSpec(
            template=V1PodTemplateSpec(),
            scheduling=V1JobSchedulingConfiguration(scheduling_policy={"gang": {"minCount": 2}})
            if scheduling
            else None,
        ),
    )


def test_required_gates_of_a_composite_tree_with_every_feature():
    objects = [
        composite_workload(
            composite(
                "replica",
                leaf(
                    "workers",
                    gang=4,
                    resourceClaims=[{"name": "g", "resourceClaimName": "g"}],
                    preemptionPolicy="Never",
                ),
                schedulingConstraints={"topology": [{"key": "zone"}]},
            )
        ),
        pod_group(parentCompositePodGroupName="train-replica-0", schedulingConstraints={"topology": [{"key": "rack"}]}),
        job(scheduling=True),
    ]
    assert [str(r) for r in required_gates(objects)] == [
        "CompositePodGroup (alpha, off by default): kube-apiserver, kube-controller-manager, kube-scheduler",
        "DRAWorkloadResourceClaims (beta, off by default): kube-apiserver, kube-controller-manager, kube-scheduler, kubelet",
        "GenericWorkload (beta, off by default): kube-apiserver, kube-controller-manager, kube-scheduler",
        "PodGroupPreemptionPolicy (alpha, off by default): kube-apiserver, kube-scheduler",
        "TopologyAwareWorkloadScheduling (alpha, off by default): kube-apiserver, kube-scheduler",
        "WorkloadWithJob (alpha, off by default): kube-apiserver, kube-controller-manager",
    ]
    reasons = {r.gate: r.reasons for r in required_gates(objects)}
    assert reasons["CompositePodGroup"] == (
        "Workload ml/train: spec.compositePodGroupTemplates[0]",
        "PodGroup ml/train-worker-0: spec.parentCompositePodGroupName",
    )
    assert reasons["TopologyAwareWorkloadScheduling"] == (
        "Workload ml/train: spec.compositePodGroupTemplates[0].schedulingConstraints",
        "PodGroup ml/train-worker-0: spec.schedulingConstraints",
        "CompositePodGroup depends on it",
    )
    assert reasons["WorkloadWithJob"] == ("Job ml/train: spec.scheduling",)


REQUIREMENTS: list[tuple[str, list[Any], list[str]]] = [
    ("nothing", [], []),
    ("plain-workload", [workload(leaf())], ["GenericWorkload"]),
    (
        "composite-pod-group",
        [composite_pod_group()],
        ["CompositePodGroup", "GenericWorkload", "TopologyAwareWorkloadScheduling"],
    ),
    ("job-without-scheduling", [job(scheduling=False)], []),
    ("job-with-scheduling", [job(scheduling=True)], ["GenericWorkload", "WorkloadWithJob"]),
    ("pod-in-a-group", [{"kind": "Pod", "spec": {"schedulingGroup": {"podGroupName": "pg"}}}], ["GenericWorkload"]),
    ("unrelated", [{"kind": "ConfigMap"}, "not an object", None], []),
]


@pytest.mark.parametrize("objects,gates", [(o, g) for _, o, g in REQUIREMENTS], ids=[i for i, *_ in REQUIREMENTS])
def test_required_gates(objects: list[Any], gates: list[str]):
    found = required_gates(objects)
    assert [r.gate for r in found] == gates
    assert all(isinstance(r, GateRequirement) and r.components for r in found)


def test_what_required_gates_names_is_what_validation_needs():
    objects = [
        composite_workload(composite("c", leaf("a", resourceClaims=[{"name": "g", "resourceClaimName": "g"}]))),
        pod_group(
            parentCompositePodGroupName="p",
            preemptionPolicy="Never",
            schedulingConstraints={"topology": [{"key": "k"}]},
        ),
        composite_pod_group(),
    ]
    gates = FeatureGates(enabled={r.gate for r in required_gates(objects)})
    assert validate_workload(objects[0], gates=gates) == []
    assert validate_pod_group(objects[1], gates=gates) == []
    assert validate_composite_pod_group(objects[2], gates=gates) == []
