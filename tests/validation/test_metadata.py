"""metadata of Workloads, PodGroups and CompositePodGroups, checked as apimachinery's ValidateObjectMeta does."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from workloadbuilder.validation.objects import validate_composite_pod_group, validate_pod_group, validate_workload

SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
NAME_PART = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation "
    "is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
OWNER = {"apiVersion": "batch/v1", "kind": "Job", "name": "train", "uid": "u-1", "controller": True}


def _workload(**meta: Any) -> dict[str, Any]:
    metadata = {"name": "train", "namespace": "ml", **meta}
    spec = {"podGroupTemplates": [{"name": "worker", "schedulingPolicy": {"basic": {}}}]}
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload", "metadata": metadata, "spec": spec}


def _strings(errors: Any) -> list[str]:
    return [str(e) for e in errors]


CREATE: list[tuple[str, dict[str, Any], list[str]]] = [
    (
        "valid-with-everything",
        {
            "labels": {"app": "train", "example.com/tier": ""},
            "annotations": {"Example.com/Note": "x"},
            "ownerReferences": [OWNER],
            "finalizers": ["example.com/keep"],
            "generation": 3,
        },
        [],
    ),
    ("generate-name-only", {"name": None, "generateName": "train-"}, []),
    ("generate-name-trailing-dash-masked-like-go", {"name": None, "generateName": "a-"}, []),
    (
        "generate-name-invalid-and-so-the-generated-name",
        {"name": None, "generateName": "Train-"},
        [
            f'metadata.generateName: Invalid value: "Train-": {SUBDOMAIN}',
            f'metadata.name: Invalid value: "Train-b2c4d": {SUBDOMAIN}',
        ],
    ),
    (
        "generate-name-ignored-for-a-given-name-but-checked",
        {"generateName": "Train-"},
        [f'metadata.generateName: Invalid value: "Train-": {SUBDOMAIN}'],
    ),
    (
        "generate-name-long-is-cut-to-58-before-the-suffix",
        {"name": None, "generateName": "a" * 300},
        [f'metadata.generateName: Invalid value: "{"a" * 300}": must be no more than 253 characters'],
    ),
    (
        "name-too-long-in-characters",
        {"name": "a" * 254},
        [f'metadata.name: Invalid value: "{"a" * 254}": must be no more than 253 characters'],
    ),
    (
        "namespace-too-long-in-characters",
        {"namespace": "a" * 64},
        [f'metadata.namespace: Invalid value: "{"a" * 64}": must be no more than 63 characters'],
    ),
    ("no-name-no-generate-name", {"name": None}, ["metadata.name: Required value: name or generateName is required"]),
    (
        "negative-generation",
        {"generation": -1},
        ["metadata.generation: Invalid value: -1: must be greater than or equal to 0"],
    ),
    ("label-key-invalid", {"labels": {"bad key": "v"}}, [f'metadata.labels: Invalid value: "bad key": {NAME_PART}']),
    ("label-value-invalid", {"labels": {"app": "-x"}}, [f'metadata.labels: Invalid value: "-x": {LABEL_VALUE}']),
    (
        "label-value-too-long",
        {"labels": {"app": "a" * 64}},
        [f'metadata.labels: Invalid value: "{"a" * 64}": must be no more than 63 bytes'],
    ),
    (
        "labels-in-key-order",
        {"labels": {"z/": "v", "a b": "v"}},
        [
            f'metadata.labels: Invalid value: "a b": {NAME_PART}',
            'metadata.labels: Invalid value: "z/": name part must be non-empty',
            f'metadata.labels: Invalid value: "z/": {NAME_PART}',
        ],
    ),
    ("annotation-key-case-insensitive", {"annotations": {"Example.COM/Key": "v"}}, []),
    (
        "annotation-key-invalid",
        {"annotations": {"a/b/c": "v"}},
        [
            (
                'metadata.annotations: Invalid value: "a/b/c": a valid label key must consist of alphanumeric '
                "characters, "
                "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
                "'my.name',  or "
                "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional "
                "DNS "
                "subdomain prefix and '/' (e.g. 'example.com/MyName')"
            )
        ],
    ),
    ("annotations-at-limit", {"annotations": {"k": "v" * (256 * 1024 - 1)}}, []),
    (
        "annotations-over-limit",
        {"annotations": {"k": "v" * (256 * 1024)}},
        ["metadata.annotations: Too long: may not be more than 262144 bytes"],
    ),
    (
        "owner-empty-uid",
        {"ownerReferences": [{**OWNER, "uid": ""}]},
        ["metadata.ownerReferences[0].uid: Required value: must not be empty"],
    ),
    (
        "owner-empty-everything",
        {"ownerReferences": [{"apiVersion": "", "kind": "", "name": "", "uid": ""}]},
        [
            "metadata.ownerReferences[0].apiVersion: Required value: must not be empty",
            "metadata.ownerReferences[0].kind: Required value: must not be empty",
            "metadata.ownerReferences[0].name: Required value: must not be empty",
            "metadata.ownerReferences[0].uid: Required value: must not be empty",
        ],
    ),
    (
        "owner-second-at-its-index",
        {"ownerReferences": [OWNER, {**OWNER, "name": "", "controller": False}]},
        ["metadata.ownerReferences[1].name: Required value: must not be empty"],
    ),
    (
        "owner-group-without-version",
        {"ownerReferences": [{**OWNER, "apiVersion": "batch/"}]},
        ['metadata.ownerReferences[0].apiVersion: Invalid value: "batch/": must be <group>/<version> or <version>'],
    ),
    (
        "owner-unparsable-api-version",
        {"ownerReferences": [{**OWNER, "apiVersion": "a/b/c"}]},
        ['metadata.ownerReferences[0].apiVersion: Invalid value: "a/b/c": must be <group>/<version> or <version>'],
    ),
    (
        "owner-event-banned",
        {"ownerReferences": [{"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "u"}]},
        [
            (
                'metadata.ownerReferences[0]: Invalid value: {"apiVersion":"v1","kind":"Event","name":"e","uid":"u"}: '
                "/v1, Kind=Event is disallowed from being an owner"
            )
        ],
    ),
    (
        "two-controllers",
        {"ownerReferences": [OWNER, {**OWNER, "kind": "JobSet", "name": "js", "uid": "u-2"}]},
        [
            (
                "metadata.ownerReferences: Invalid value: "
                '[{"apiVersion":"batch/v1","kind":"Job","name":"train","uid":"u-1",'
                '"controller":true},{"apiVersion":"batch/v1","kind":"JobSet","name":"js","uid":"u-2",'
                '"controller":true}]: '
                'Only one reference can have Controller set to true. Found "true" in references for Job/train and '
                "JobSet/js"
            )
        ],
    ),
    (
        "finalizer-invalid",
        {"finalizers": ["a b"]},
        [
            f'metadata.finalizers: Invalid value: "a b": {NAME_PART}',
            'metadata.finalizers[0]: Invalid value: "a b": name is neither a standard finalizer name nor is it fully '
            "qualified",
        ],
    ),
    ("finalizer-standard-names", {"finalizers": ["kubernetes", "orphan"]}, []),
    (
        "finalizer-not-qualified",
        {"finalizers": ["example.com/ok", "cleanup"]},
        [
            'metadata.finalizers[1]: Invalid value: "cleanup": name is neither a standard finalizer name nor is it '
            "fully "
            "qualified"
        ],
    ),
    (
        "finalizers-orphan-and-foreground",
        {"finalizers": ["orphan", "foregroundDeletion"]},
        [
            (
                'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: '
                "finalizer orphan and foregroundDeletion cannot be both set"
            )
        ],
    ),
]


def _without_nones(meta: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in meta.items() if v is not None}


@pytest.mark.parametrize(("meta", "want"), [c[1:] for c in CREATE], ids=[c[0] for c in CREATE])
def test_metadata_on_create(meta: dict[str, Any], want: list[str]) -> None:
    obj = _workload(**meta)
    obj["metadata"] = _without_nones(obj["metadata"])
    assert _strings(validate_workload(obj)) == want


UPDATE: list[tuple[str, dict[str, Any], dict[str, Any], list[str]]] = [
    ("unchanged", {"uid": "w-1", "generation": 2}, {"uid": "w-1", "generation": 2}, []),
    ("generation-up", {"generation": 2}, {"generation": 3}, []),
    ("generation-down-is-overwritten-by-the-store", {"generation": 3}, {"generation": 2}, []),
    (
        "negative-stored-generation-flagged-again",
        {"generation": -1},
        {"generation": -1},
        ["metadata.generation: Invalid value: -1: must be greater than or equal to 0"],
    ),
    ("missing-namespace-is-the-stored-one", {}, {"namespace": None}, []),
    ("name-checked-as-a-path-segment-only", {"name": "A"}, {"name": "A"}, []),
    (
        "invalid-stored-name-flagged-again",
        {"name": "a%b"},
        {"name": "a%b"},
        ["metadata.name: Invalid value: \"a%b\": may not contain '%'"],
    ),
    ("name-changed", {}, {"name": "other"}, ['metadata.name: Invalid value: "other": field is immutable']),
    ("uid-changed", {"uid": "w-1"}, {"uid": "w-2"}, ['metadata.uid: Invalid value: "w-2": field is immutable']),
    (
        "labels-checked-on-update",
        {},
        {"labels": {"app": "-x"}},
        [f'metadata.labels: Invalid value: "-x": {LABEL_VALUE}'],
    ),
    (
        "owner-uid-checked-on-update",
        {},
        {"ownerReferences": [{**OWNER, "uid": ""}]},
        ["metadata.ownerReferences[0].uid: Required value: must not be empty"],
    ),
    (
        "bad-finalizer-checked-on-update",
        {},
        {"finalizers": ["a b"]},
        [
            f'metadata.finalizers: Invalid value: "a b": {NAME_PART}',
            'metadata.finalizers[0]: Invalid value: "a b": name is neither a standard finalizer name nor is it fully '
            "qualified",
        ],
    ),
    (
        "no-new-finalizer-while-deleting",
        {"deletionTimestamp": "2026-07-01T00:00:00Z", "finalizers": ["a.io/x"]},
        {"finalizers": ["a.io/x", "b.io/y"]},
        [
            "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new "
            'finalizers []string{"b.io/y"}'
        ],
    ),
]


@pytest.mark.parametrize(("old", "new", "want"), [c[1:] for c in UPDATE], ids=[c[0] for c in UPDATE])
def test_metadata_on_update(old: dict[str, Any], new: dict[str, Any], want: list[str]) -> None:
    obj = _workload(**new)
    obj["metadata"] = _without_nones(obj["metadata"])
    assert _strings(validate_workload(obj, old=_workload(**old))) == want


def test_runtime_groups_check_metadata_too() -> None:
    group = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "g", "namespace": "ml", "ownerReferences": [{**OWNER, "uid": ""}]},
        "spec": {"schedulingPolicy": {"basic": {}}},
    }
    composite = copy.deepcopy(group)
    composite.update(apiVersion="scheduling.k8s.io/v1alpha3", kind="CompositePodGroup")
    composite["spec"]["workloadRef"] = {"workloadName": "w", "templateName": "c"}
    want = ["metadata.ownerReferences[0].uid: Required value: must not be empty"]
    assert (_strings(validate_pod_group(group)), _strings(validate_composite_pod_group(composite))) == (want, want)
