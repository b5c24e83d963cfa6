"""required_gates: which feature gates a set of objects needs, why, and on which components."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes.client import V1Job, V1JobSchedulingConfiguration, V1JobSpec, V1ObjectMeta, V1PodTemplateSpec
from objects_factories import composite, composite_pod_group, composite_workload, leaf, pod_group, workload

from workloadbuilder.validation.gates import FeatureGates
from workloadbuilder.validation.objects import validate_composite_pod_group, validate_pod_group, validate_workload
from workloadbuilder.validation.requirements import GateRequirement, required_gates


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
        "DRAWorkloadResourceClaims (beta, off by default): kube-apiserver, kube-controller-manager, kube-scheduler, "
        "kubelet",
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


@pytest.mark.parametrize(("objects", "gates"), [(o, g) for _, o, g in REQUIREMENTS], ids=[i for i, *_ in REQUIREMENTS])
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
