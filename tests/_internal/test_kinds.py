"""The kinds table: which apiVersion and kind pairs 1.37 serves, their client models, and the errors for the rest."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes.client import (
    V1alpha3CompositePodGroup,
    V1alpha3PodGroup,
    V1alpha3Workload,
    V1beta1PodGroup,
    V1beta1Workload,
    V1beta1WorkloadSpec,
    V1Job,
    V1ObjectMeta,
)

from workloadbuilder._internal.kinds import (
    KINDS,
    PREFERRED_VERSION,
    REMOVED_VERSIONS,
    as_manifest,
    kind_of,
    model_for,
    versions_of,
)

G = "scheduling.k8s.io"


def test_the_table_serves_workloads_and_pod_groups_in_two_versions_and_composites_in_one():
    assert dict(KINDS) == {
        (f"{G}/v1beta1", "Workload"): V1beta1Workload,
        (f"{G}/v1alpha3", "Workload"): V1alpha3Workload,
        (f"{G}/v1beta1", "PodGroup"): V1beta1PodGroup,
        (f"{G}/v1alpha3", "PodGroup"): V1alpha3PodGroup,
        (f"{G}/v1alpha3", "CompositePodGroup"): V1alpha3CompositePodGroup,
    }
    assert all((version, kind) in KINDS for kind, version in PREFERRED_VERSION.items())
    assert not any(version in REMOVED_VERSIONS for version, _ in KINDS)


@pytest.mark.parametrize(
    ("kind", "versions"),
    [
        ("Workload", [f"{G}/v1alpha3", f"{G}/v1beta1"]),
        ("CompositePodGroup", [f"{G}/v1alpha3"]),
        ("Job", []),
    ],
    ids=["workload", "composite", "unknown"],
)
def test_versions_of(kind: str, versions: list[str]):
    assert versions_of(kind) == versions


def _workload(**fields: Any) -> V1beta1Workload:
    return V1beta1Workload(metadata=V1ObjectMeta(name="w"), spec=V1beta1WorkloadSpec(pod_group_templates=[]), **fields)


def test_as_manifest_adds_the_type_a_known_model_implies_and_keeps_a_given_one():
    assert as_manifest(_workload()) == {
        "metadata": {"name": "w"},
        "spec": {"podGroupTemplates": []},
        "apiVersion": f"{G}/v1beta1",
        "kind": "Workload",
    }
    assert as_manifest(_workload(api_version="x/v1", kind="K")) == {
        "apiVersion": "x/v1",
        "kind": "K",
        "metadata": {"name": "w"},
        "spec": {"podGroupTemplates": []},
    }
    assert as_manifest(V1Job(metadata=V1ObjectMeta(name="j"))) == {"metadata": {"name": "j"}}


@pytest.mark.parametrize(
    ("obj", "kind"),
    [
        (_workload(), "Workload"),
        (V1Job(kind="CronJob"), "CronJob"),
        (V1Job(), "Job"),
        (V1ObjectMeta(), "ObjectMeta"),
        ({"kind": "PodGroup"}, "PodGroup"),
        ({"kind": 3}, None),
        ({}, None),
        (3, None),
    ],
    ids=[
        "known-model",
        "model-kind-field",
        "model-class-name",
        "not-an-object",
        "dict",
        "dict-kind-int",
        "empty",
        "int",
    ],
)
def test_kind_of(obj: object, kind: str | None):
    assert kind_of(obj) == kind


@pytest.mark.parametrize(
    ("data", "expected", "require_type", "model", "errors"),
    [
        ({}, "Workload", False, V1beta1Workload, []),
        ({"apiVersion": f"{G}/v1alpha3", "kind": "Workload"}, None, True, V1alpha3Workload, []),
        ({}, None, False, None, []),
        ({}, None, True, None, ["apiVersion: Required value", "kind: Required value"]),
        ({"apiVersion": 3}, None, False, None, ["apiVersion: Invalid value: 3: must be of type string"]),
        (
            {"apiVersion": f"{G}/v1alpha1", "kind": "PodGroup"},
            None,
            False,
            None,
            [
                f'apiVersion: Invalid value: "{G}/v1alpha1": PodGroup {G}/v1alpha1 is not served by Kubernetes 1.37: '
                f"the workloadbuilder migrate command rewrites it to {G}/v1beta1"
            ],
        ),
        (
            {"apiVersion": f"{G}/v1beta1", "kind": "CompositePodGroup"},
            None,
            False,
            None,
            [f'apiVersion: Unsupported value: "{G}/v1beta1": supported values: "{G}/v1alpha3"'],
        ),
        (
            {"kind": "Job"},
            None,
            False,
            None,
            ['kind: Unsupported value: "Job": supported values: "CompositePodGroup", "PodGroup", "Workload"'],
        ),
        (
            {"kind": "PodGroup"},
            "Workload",
            False,
            None,
            ['kind: Unsupported value: "PodGroup": supported values: "Workload"'],
        ),
    ],
    ids=[
        "missing-type-means-expected",
        "alpha-workload",
        "nothing-to-go-by",
        "type-required",
        "version-not-a-string",
        "removed-version",
        "version-not-serving-the-kind",
        "unknown-kind",
        "unexpected-kind",
    ],
)
def test_model_for(
    data: dict[str, Any], expected: str | None, require_type: bool, model: type | None, errors: list[str]
):
    found, errs = model_for(data, expected, require_type)
    assert (found, [str(e) for e in errs]) == (model, errors)
