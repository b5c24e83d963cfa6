"""migrate: removed scheduling.k8s.io shapes rewritten to 1.37, every rewrite and leftover reported at its path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from workloadbuilder.manifests import dump, load, read_documents
from workloadbuilder.migration.versions import Migration, MigrationNote, migrate
from workloadbuilder.validation.objects import validate_pod_group, validate_workload

DATA = Path(__file__).resolve().parents[1] / "data" / "manifests"


def notes(items: list[MigrationNote]) -> list[str]:
    return [str(note) for note in items]


def test_a_v1alpha2_pod_group_becomes_a_valid_v1beta1_pod_group():
    [old] = read_documents(DATA / "v1alpha2-podgroup.yaml")
    result = migrate(old)
    assert result.manifest == {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "train-workers-0", "namespace": "ml"},
        "spec": {
            "schedulingPolicy": {"gang": {"minCount": 4}},
            "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
            "disruptionMode": {"single": {}},
            "workloadRef": {"workloadName": "train", "templateName": "workers"},
        },
    }
    assert notes(result.rewrites) == [
        "apiVersion: scheduling.k8s.io/v1alpha2 is now scheduling.k8s.io/v1beta1",
        "spec.podGroupTemplateRef: now spec.workloadRef, with podGroupTemplateName as templateName",
        'spec.disruptionMode: "Pod" is now {single: {}}',
        "spec.schedulingConstraints.topology[0].level: now key",
    ]
    assert result.complete
    assert result.untranslated == []
    assert old["apiVersion"] == "scheduling.k8s.io/v1alpha2"  # the input is left alone
    assert validate_pod_group(result.manifest) == []


def test_a_v1alpha2_workload_becomes_a_valid_v1beta1_workload():
    [old] = read_documents(DATA / "v1alpha2-workload.yaml")
    result = migrate(old)
    template = result.manifest["spec"]["podGroupTemplates"][0]
    assert template["disruptionMode"] == {"all": {}}
    assert template["schedulingConstraints"] == {"topology": [{"key": "topology.kubernetes.io/zone"}]}
    assert notes(result.rewrites) == [
        "apiVersion: scheduling.k8s.io/v1alpha2 is now scheduling.k8s.io/v1beta1",
        'spec.podGroupTemplates[0].disruptionMode: "PodGroup" is now {all: {}}',
        "spec.podGroupTemplates[0].schedulingConstraints.topology[0].level: now key",
    ]
    assert validate_workload(result.manifest) == []
    assert load(dump(result.manifest))[0].spec.pod_group_templates[0].disruption_mode.all == {}


CASES: list[tuple[str, dict[str, Any], list[str], list[str]]] = [
    (
        "v1alpha1-workload",
        {
            "apiVersion": "scheduling.k8s.io/v1alpha1",
            "kind": "Workload",
            "metadata": {"name": "w"},
            "spec": {
                "controllerRef": {"apiVersion": "batch/v1", "kind": "Job", "name": "j"},
                "podGroups": [{"name": "a", "policy": {"gang": {"minCount": 2, "desiredCount": 3}}}],
            },
        },
        [
            "apiVersion: scheduling.k8s.io/v1alpha1 is now scheduling.k8s.io/v1beta1",
            "spec.podGroups: now spec.podGroupTemplates",
            "spec.controllerRef.apiVersion: now apiGroup 'batch'",
            "spec.podGroupTemplates[0].policy: now schedulingPolicy",
        ],
        [
            "spec.podGroupTemplates[0].schedulingPolicy.gang.desiredCount: does not decode as "
            "scheduling.k8s.io/v1beta1: unknown field"
        ],
    ),
    (
        "core-group-controller",
        {
            "apiVersion": "scheduling.k8s.io/v1beta1",
            "kind": "Workload",
            "spec": {
                "controllerRef": {"apiVersion": "v1", "kind": "Pod", "name": "p"},
                "podGroupTemplates": [{"name": "a", "schedulingPolicy": {"basic": {}}}],
            },
        },
        ["spec.controllerRef.apiVersion: dropped: the core group has no apiGroup"],
        [],
    ),
    (
        "composite-templates",
        {
            "apiVersion": "scheduling.k8s.io/v1alpha3",
            "kind": "Workload",
            "spec": {
                "compositePodGroupTemplates": [
                    {
                        "name": "c",
                        "schedulingPolicy": {"basic": {}},
                        "disruptionMode": "PodGroup",
                        "podGroupTemplates": [
                            {"name": "l", "schedulingPolicy": {"basic": {}}, "disruptionMode": "PodGroup"}
                        ],
                    }
                ]
            },
        },
        [
            "apiVersion: scheduling.k8s.io/v1alpha3 is now scheduling.k8s.io/v1beta1",
            'spec.compositePodGroupTemplates[0].disruptionMode: "PodGroup" is now {all: {}}',
            'spec.compositePodGroupTemplates[0].podGroupTemplates[0].disruptionMode: "PodGroup" is now {all: {}}',
        ],
        [],
    ),
    (
        "composite-pod-group-version",
        {
            "apiVersion": "scheduling.k8s.io/v1beta1",
            "kind": "CompositePodGroup",
            "spec": {"workloadRef": {"workloadName": "w", "templateName": "t"}, "schedulingPolicy": {"basic": {}}},
        },
        ["apiVersion: scheduling.k8s.io/v1beta1 is now scheduling.k8s.io/v1alpha3"],
        [],
    ),
    (
        "already-current",
        {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "spec": {"schedulingPolicy": {"basic": {}}}},
        [],
        [],
    ),
    (
        "unknown-mode",
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "spec": {"schedulingPolicy": {"basic": {}}, "disruptionMode": "Node"},
        },
        ["apiVersion: scheduling.k8s.io/v1alpha2 is now scheduling.k8s.io/v1beta1"],
        [
            'spec.disruptionMode: "Node" is neither "Pod" nor "PodGroup"',
            "spec.disruptionMode: does not decode as scheduling.k8s.io/v1beta1: Invalid value: "
            '"Node": must be of type object',
        ],
    ),
    (
        "level-and-key",
        {
            "apiVersion": "scheduling.k8s.io/v1beta1",
            "kind": "PodGroup",
            "spec": {
                "schedulingPolicy": {"basic": {}},
                "schedulingConstraints": {"topology": [{"key": "a", "level": "b"}]},
            },
        },
        [],
        [
            "spec.schedulingConstraints.topology[0].level: both level and key are set",
            "spec.schedulingConstraints.topology[0].level: does not decode as scheduling.k8s.io/v1beta1: unknown field",
        ],
    ),
    (
        "template-ref-and-workload-ref",
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "spec": {
                "podGroupTemplateRef": {"workload": {"workloadName": "w"}},
                "workloadRef": {"workloadName": "w", "templateName": "t"},
                "schedulingPolicy": {"basic": {}},
            },
        },
        ["apiVersion: scheduling.k8s.io/v1alpha2 is now scheduling.k8s.io/v1beta1"],
        [
            "spec.podGroupTemplateRef: left as is: spec.workloadRef is set too",
            "spec.podGroupTemplateRef: does not decode as scheduling.k8s.io/v1beta1: unknown field",
        ],
    ),
    (
        "template-ref-extra-key",
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "spec": {
                "podGroupTemplateRef": {"workload": {"workloadName": "w", "uid": "u"}},
                "schedulingPolicy": {"basic": {}},
            },
        },
        ["apiVersion: scheduling.k8s.io/v1alpha2 is now scheduling.k8s.io/v1beta1"],
        [
            "spec.podGroupTemplateRef.workload: left as is: workloadRef has no field for uid",
            "spec.podGroupTemplateRef: does not decode as scheduling.k8s.io/v1beta1: unknown field",
        ],
    ),
    (
        "template-ref-null",
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "spec": {"podGroupTemplateRef": None, "schedulingPolicy": {"basic": {}}},
        },
        [
            "apiVersion: scheduling.k8s.io/v1alpha2 is now scheduling.k8s.io/v1beta1",
            "spec.podGroupTemplateRef: dropped: it was empty",
        ],
        [],
    ),
    (
        "not-ours",
        {"apiVersion": "v1", "kind": "ConfigMap"},
        [],
        ["kind: 'ConfigMap' is not a scheduling.k8s.io kind that migrate knows"],
    ),
    (
        "foreign-version",
        {"apiVersion": "example.com/v1", "kind": "PodGroup"},
        [],
        ["apiVersion: 'example.com/v1' is not a scheduling.k8s.io version"],
    ),
]


@pytest.mark.parametrize(
    ("manifest", "rewrites", "untranslated"), [(m, r, u) for _, m, r, u in CASES], ids=[i for i, *_ in CASES]
)
def test_migrations(manifest: dict[str, Any], rewrites: list[str], untranslated: list[str]):
    result = migrate(manifest)
    assert isinstance(result, Migration)
    assert notes(result.rewrites) == rewrites
    assert notes(result.untranslated) == untranslated
    assert result.complete is (not untranslated)


def test_migrate_takes_one_mapping():
    with pytest.raises(TypeError, match="migrate rewrites one manifest \\(a mapping\\), not list"):
        migrate([])  # type: ignore[arg-type]
