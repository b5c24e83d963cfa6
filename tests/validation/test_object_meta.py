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
    ("valid-with-everything", {"labels": {"app": "train", "example.com/tier": ""},
                               "annotations": {"Example.com/Note": "x"}, "ownerReferences": [OWNER],
                               "finalizers": ["example.com/keep"], "generation": 3}, []),
    ("generate-name-only", {"name": None, "generateName": "train-"}, []),
    ("generate-name-trailing-dash-masked-like-go", {"name": None, "generateName": "a-"}, []),
    ("generate-name-invalid", {"name": None, "generateName": "Train-"},
     [f'metadata.generateName: Invalid value: "Train-": {SUBDOMAIN}']),
    ("no-name-no-generate-name", {"name": None}, ["metadata.name: Required value: name or generateName is required"]),
    ("negative-generation", {"generation": -1},
     ["metadata.generation: Invalid value: -1: must be greater than or equal to 0"]),
    ("label-key-invalid", {"labels": {"bad key": "v"}}, [f'metadata.labels: Invalid value: "bad key": {NAME_PART}']),
    ("label-value-invalid", {"labels": {"app": "-x"}}, [f'metadata.labels: Invalid value: "-x": {LABEL_VALUE}']),
    ("label-value-too-long", {"labels": {"app": "a" * 64}},
     [f'metadata.labels: Invalid value: "{"a" * 64}": must be no more than 63 bytes']),
    ("labels-in-key-order", {"labels": {"z/": "v", "a b": "v"}},
     [f'metadata.labels: Invalid value: "a b": {NAME_PART}',
      'metadata.labels: Invalid value: "z/": name part must be non-empty',
      f'metadata.labels: Invalid value: "z/": {NAME_PART}']),
    ("annotation-key-case-insensitive", {"annotations": {"Example.COM/Key": "v"}}, []),
    ("annotation-key-invalid", {"annotations": {"a/b/c": "v"}},
     [('metadata.annotations: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '
      "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
      "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
      "subdomain prefix and '/' (e.g. 'example.com/MyName')")]),
    ("annotations-at-limit", {"annotations": {"k": "v" * (256 * 1024 - 1)}}, []),
    ("annotations-over-limit", {"annotations": {"k": "v" * (256 * 1024)}},
     ["metadata.annotations: Too long: may not be more than 262144 bytes"]),
    ("owner-empty-uid", {"ownerReferences": [{**OWNER, "uid": ""}]},
     ['metadata.ownerReferences.uid: Invalid value: "": uid must not be empty']),
    ("owner-empty-everything", {"ownerReferences": [{"apiVersion": "", "kind": "", "name": "", "uid": ""}]},
     ['metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty']),
    ("owner-group-without-version", {"ownerReferences": [{**OWNER, "apiVersion": "batch/"}]},
     ['metadata.ownerReferences.apiVersion: Invalid value: "batch/": version must not be empty']),
    ("owner-unparsable-api-version", {"ownerReferences": [{**OWNER, "apiVersion": "a/b/c"}]},
     ['metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not be empty']),
    ("owner-event-banned", {"ownerReferences": [{"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "u"}]},
     [('metadata.ownerReferences: Invalid value: {"apiVersion":"v1","kind":"Event","name":"e","uid":"u"}: '
      "/v1, Kind=Event is disallowed from being an owner")]),
    ("two-controllers", {"ownerReferences": [OWNER, {**OWNER, "kind": "JobSet", "name": "js", "uid": "u-2"}]},
     [('metadata.ownerReferences: Invalid value: [{"apiVersion":"batch/v1","kind":"Job","name":"train","uid":"u-1",'
      '"controller":true},{"apiVersion":"batch/v1","kind":"JobSet","name":"js","uid":"u-2","controller":true}]: '
      'Only one reference can have Controller set to true. Found "true" in references for Job/train and JobSet/js')]),
    ("finalizer-invalid", {"finalizers": ["a b"]}, [f'metadata.finalizers: Invalid value: "a b": {NAME_PART}']),
    ("finalizers-orphan-and-foreground", {"finalizers": ["orphan", "foregroundDeletion"]},
     [('metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: '
      "finalizer orphan and foregroundDeletion cannot be both set")]),
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
    ("generation-down", {"generation": 3}, {"generation": 2},
     ["metadata.generation: Invalid value: 2: must not be decremented"]),
    ("name-changed", {}, {"name": "other"}, ['metadata.name: Invalid value: "other": field is immutable']),
    ("uid-changed", {"uid": "w-1"}, {"uid": "w-2"}, ['metadata.uid: Invalid value: "w-2": field is immutable']),
    ("labels-checked-on-update", {}, {"labels": {"app": "-x"}},
     [f'metadata.labels: Invalid value: "-x": {LABEL_VALUE}']),
    ("owner-uid-checked-on-update", {}, {"ownerReferences": [{**OWNER, "uid": ""}]},
     ['metadata.ownerReferences.uid: Invalid value: "": uid must not be empty']),
    ("bad-finalizer-not-checked-on-update", {}, {"finalizers": ["a b"]}, []),
]


@pytest.mark.parametrize(("old", "new", "want"), [c[1:] for c in UPDATE], ids=[c[0] for c in UPDATE])
def test_metadata_on_update(old: dict[str, Any], new: dict[str, Any], want: list[str]) -> None:
    assert _strings(validate_workload(_workload(**new), old=_workload(**old))) == want


def test_runtime_groups_check_metadata_too() -> None:
    group = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
             "metadata": {"name": "g", "namespace": "ml", "ownerReferences": [{**OWNER, "uid": ""}]},
             "spec": {"schedulingPolicy": {"basic": {}}}}
    composite = copy.deepcopy(group)
    composite.update(apiVersion="scheduling.k8s.io/v1alpha3", kind="CompositePodGroup")
    composite["spec"]["workloadRef"] = {"workloadName": "w", "templateName": "c"}
    want = ['metadata.ownerReferences.uid: Invalid value: "": uid must not be empty']
    assert (_strings(validate_pod_group(group)), _strings(validate_composite_pod_group(composite))) == (want, want)
