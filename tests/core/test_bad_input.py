"""Bad input at the public entry points fails with a clear error, never a traceback from deep inside.

Each row calls one public function with a value of the wrong type or shape
and names the exception (and a fragment of its message) the caller gets.
An ``AttributeError``, ``KeyError`` or ``IndexError`` from inside the
library would be a bug: the caller could not tell their mistake from ours.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import workloadbuilder as wb
from workloadbuilder import manifests
from workloadbuilder.resolve import resolve_config
from workloadbuilder.runtime.delegation import delegate, pod_claims_for, stamp_pod_template
from workloadbuilder.runtime.naming import (
    job_template_name,
    pod_group_name,
    runtime_group_name,
    safe_encode_string,
    template_name,
    workload_name,
)
from workloadbuilder.runtime.resizing import gang_resize_patch

_WORKLOAD: dict[str, Any] = {
    "apiVersion": "scheduling.k8s.io/v1beta1",
    "kind": "Workload",
    "metadata": {"name": "w", "namespace": "ns"},
    "spec": {"podGroupTemplates": [{"name": "t", "schedulingPolicy": {"gang": {"minCount": 2}}}]},
}
_POD_GROUP: dict[str, Any] = {
    "apiVersion": "scheduling.k8s.io/v1beta1",
    "kind": "PodGroup",
    "metadata": {"name": "p", "namespace": "ns"},
    "spec": {"workloadRef": {"workloadName": "w", "templateName": "t"}, "schedulingPolicy": {"gang": {"minCount": 2}}},
}
_ROOT = wb.WorkloadItem(name="root", path="spec")
_OPTIONS = {"name": "w", "allowed_policies": ["Gang", "Basic"]}


def _with(base: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {**base, **top}


CASES: list[tuple[str, Callable[[], Any], type[Exception], str]] = [
    # Trees: a root of the wrong type is a programming error, named as such.
    (
        "builder-validate-dict-root",
        lambda: wb.Builder({"name": "a"}, _OPTIONS).validate(),
        TypeError,
        "the root must be a WorkloadItem, not dict",
    ),
    (
        "builder-build-int-root",
        lambda: wb.Builder(1, _OPTIONS).build_workload(),
        TypeError,
        "the root must be a WorkloadItem, not int",
    ),
    (
        "builder-validate-old-root-str",
        lambda: wb.Builder(_ROOT, _OPTIONS).validate("root"),
        TypeError,
        "old_root must be a WorkloadItem, not str",
    ),
    (
        "forest-str-roots",
        lambda: wb.build_forest("roots", _OPTIONS),
        TypeError,
        "roots must be a sequence of WorkloadItem, not str",
    ),
    (
        "forest-item-not-list",
        lambda: wb.build_forest(_ROOT, _OPTIONS),
        TypeError,
        "roots must be a sequence of WorkloadItem, not WorkloadItem",
    ),
    (
        "forest-int-root",
        lambda: wb.build_forest([_ROOT, 1], _OPTIONS),
        TypeError,
        "roots[1] must be a WorkloadItem, not int",
    ),
    (
        "forest-old-roots-item",
        lambda: wb.build_forest([_ROOT], _OPTIONS, old_roots=_ROOT),
        TypeError,
        "old_roots must be a sequence",
    ),
    (
        "forest-old-roots-dict-entry",
        lambda: wb.build_forest([_ROOT], _OPTIONS, old_roots=[{}]),
        TypeError,
        "old_roots[0] must be a WorkloadItem, not dict",
    ),
    ("forest-no-roots-still-build-error", lambda: wb.build_forest(None, _OPTIONS), wb.BuildError, "at least one root"),
    (
        "resolve-config-none",
        lambda: resolve_config(None),
        TypeError,
        "resolve_config takes a WorkloadItem, not NoneType",
    ),
    # Naming helpers take strings.
    ("template-name-none", lambda: template_name(None), TypeError, "base must be a str, not NoneType"),
    ("template-name-int-suffix", lambda: template_name("a", 0), TypeError, "suffix must be a str, not int"),
    ("job-template-name-none", lambda: job_template_name(None), TypeError, "job_name must be a str, not NoneType"),
    ("job-template-name-str-index", lambda: job_template_name("job", "0"), TypeError, "index must be an int, not str"),
    ("pod-group-name-none", lambda: pod_group_name(None, "t"), TypeError, "workload_name must be a str, not NoneType"),
    (
        "runtime-group-name-none",
        lambda: runtime_group_name("w", None, [0]),
        TypeError,
        "template_name must be a str, not NoneType",
    ),
    ("workload-name-int-uid", lambda: workload_name("job", 7), TypeError, "owner_uid must be a str, not int"),
    ("safe-encode-list", lambda: safe_encode_string([]), TypeError, "text must be a str, not list"),
    # Delegation and pod stamping.
    (
        "delegate-none-template",
        lambda: delegate({"metadata": {}}, None),
        TypeError,
        "template_name must be a str, not NoneType",
    ),
    (
        "delegate-int-parent",
        lambda: delegate({"metadata": {}}, "t", 1),
        TypeError,
        "parent must be a str or a RuntimeGroup, not int",
    ),
    (
        "stamp-none-name",
        lambda: stamp_pod_template({"spec": {}}, None),
        TypeError,
        "pod_group_name must be a str, not NoneType",
    ),
    (
        "pod-claims-for-int",
        lambda: pod_claims_for(1),
        TypeError,
        "pod_claims_for takes a PodGroup or a PodGroupTemplate, not int",
    ),
    # Manifests out.
    (
        "to-dict-none",
        lambda: wb.to_dict(None),
        TypeError,
        "to_dict takes a kubernetes client model or a dict, not NoneType",
    ),
    (
        "to-yaml-str",
        lambda: wb.to_yaml("kind: Workload"),
        TypeError,
        "to_yaml takes models, dicts or an iterable of them, not str",
    ),
    ("to-yaml-none", lambda: wb.to_yaml(None), TypeError, "not NoneType"),
    ("to-yaml-list-of-str", lambda: manifests.to_yaml(["x"]), TypeError, "not str"),
]


@pytest.mark.parametrize(("call", "error", "message"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_bad_input_raises_a_clear_error(call: Callable[[], Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as caught:
        call()
    assert message in str(caught.value)


ACCEPTED: list[tuple[str, Callable[[], Any], Any]] = [
    # A Workload without metadata names nothing: its own patch has no name and no PodGroup matches it.
    (
        "resize-workload-without-metadata",
        lambda: [(p.kind, p.name) for p in wb.resize(_with(_WORKLOAD, metadata=None), [_POD_GROUP], "t", 3)],
        [("Workload", "")],
    ),
    # A matching PodGroup without metadata still gets its patch, under no name.
    (
        "resize-pod-group-without-metadata",
        lambda: [(p.kind, p.name) for p in wb.resize(_WORKLOAD, [_with(_POD_GROUP, metadata=None)], "t", 3)][1:],
        [("PodGroup", "")],
    ),
    # A null template entry is skipped when looking for the gang; the list is still sent whole.
    (
        "gang-resize-patch-null-template-entry",
        lambda: gang_resize_patch(
            {**_WORKLOAD, "spec": {"podGroupTemplates": [None, *_WORKLOAD["spec"]["podGroupTemplates"]]}}, 3
        ),
        {"spec": {"podGroupTemplates": [None, {"name": "t", "schedulingPolicy": {"gang": {"minCount": 3}}}]}},
    ),
]


@pytest.mark.parametrize(("call", "expected"), [case[1:] for case in ACCEPTED], ids=[case[0] for case in ACCEPTED])
def test_odd_but_decodable_input_is_handled(call: Callable[[], Any], expected: Any) -> None:
    assert call() == expected
