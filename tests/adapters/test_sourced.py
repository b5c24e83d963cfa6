"""Sourced documents (``adapters.sourced``): where each is from, and the words every command says of it."""

from __future__ import annotations

from typing import Any

import pytest

import workloadbuilder.adapters.sourced as sourced
from workloadbuilder.adapters.base import Finding
from workloadbuilder.adapters.sourced import (
    NO_SCHEDULING_CONTENT,
    RELATED_KINDS,
    DocumentRefusedError,
    Notice,
    SourcedDocument,
    about_document,
    plan_notices,
    plans_of,
    runtime_kind,
    skipped_note,
    unknown_kinds,
    unknown_note,
)
from workloadbuilder.errors import WorkloadBuilderError
from workloadbuilder.field import FieldPath, invalid

POD_SPEC = {"containers": [{"name": "c", "image": "x"}], "restartPolicy": "Never"}


def job(name: str = "train", namespace: str | None = "ml", **metadata: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, **metadata}
    if namespace:
        meta["namespace"] = namespace
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": meta,
        "spec": {"parallelism": 2, "completions": 2, "template": {"spec": POD_SPEC}},
    }


def doc(data: Any, number: int = 1, item: int | None = None) -> SourcedDocument:
    return SourcedDocument("a.yaml", number, data, item)


def test_a_documents_fields_and_where_it_is() -> None:
    d = doc(job(), 3)
    assert (d.kind, d.api_version, d.name, d.namespace) == ("Job", "batch/v1", "train", "ml")
    assert d.where() == "a.yaml (document 3)"
    assert d.about() == "a.yaml (document 3) Job/train"
    assert doc(job(), 2, item=4).where() == "a.yaml (document 2, item 4)"


@pytest.mark.parametrize(
    ("data", "about"),
    [
        ({"kind": "Job"}, "a.yaml (document 1) Job"),
        ({"metadata": {"name": "x"}}, "a.yaml (document 1) object/x"),
        ({}, "a.yaml (document 1) object"),
        (["not", "a", "mapping"], "a.yaml (document 1) object"),
        ({"kind": "Job", "metadata": "bad", "apiVersion": 1}, "a.yaml (document 1) Job"),
    ],
    ids=["no-name", "no-kind", "empty", "list", "malformed-metadata"],
)
def test_about_without_a_kind_or_a_name(data: Any, about: str) -> None:
    assert doc(data).about() == about


def test_generate_name_is_named_as_its_plan_names_it() -> None:
    d = doc({"kind": "Job", "metadata": {"generateName": "train-"}})
    assert d.name.startswith("train-")
    assert len(d.name) > len("train-")
    assert d.namespace == ""


@pytest.mark.parametrize(
    ("api_version", "kind", "scheduling"),
    [
        ("scheduling.k8s.io/v1beta1", "Workload", True),
        ("scheduling.k8s.io/v1alpha3", "PodGroup", True),
        ("scheduling.k8s.io/v1alpha3", "CompositePodGroup", True),
        ("scheduling.k8s.io/v1", "PriorityClass", False),
        ("scheduling.x-k8s.io/v1alpha1", "PodGroup", False),
    ],
    ids=["workload", "podgroup", "composite", "priority-class", "another-schedulers-podgroup"],
)
def test_is_scheduling_object(api_version: str, kind: str, scheduling: bool) -> None:
    assert doc({"apiVersion": api_version, "kind": kind}).is_scheduling_object is scheduling


@pytest.mark.parametrize(
    ("data", "skipped"),
    [
        ({"apiVersion": "v1", "kind": "ConfigMap"}, True),
        ({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": {"spec": POD_SPEC}}}, True),
        ({"apiVersion": "v1", "kind": "Pod", "spec": POD_SPEC}, True),
        ({"apiVersion": "v1", "kind": "Pod", "spec": {**POD_SPEC, "schedulingGroup": {"podGroupName": "g"}}}, False),
        ({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"template": "bad"}}, False),
        ({"kind": "ConfigMap"}, False),
        ({"apiVersion": "example.com/v1", "kind": "ConfigMap"}, False),
        ({"apiVersion": "batch/v1", "kind": "Job"}, False),
        ({"apiVersion": "batch/v1", "kind": "CronJob"}, True),
    ],
    ids=[
        "configmap",
        "deployment",
        "pod",
        "pod-in-a-podgroup",
        "malformed-template",
        "no-api-version",
        "same-kind-other-group",
        "job",
        "cronjob",
    ],
)
def test_has_no_scheduling_content(data: dict[str, Any], skipped: bool) -> None:
    assert doc(data).has_no_scheduling_content is skipped


@pytest.mark.parametrize(
    ("api_version", "kind", "path"),
    [
        ("v1", "Pod", ("spec",)),
        ("apps/v1", "StatefulSet", ("spec", "template", "spec")),
        ("v1", "ReplicationController", ("spec", "template", "spec")),
        ("batch/v1", "CronJob", ("spec", "jobTemplate", "spec", "template", "spec")),
        ("batch/v1", "Job", None),
        ("", "Pod", None),
    ],
    ids=["pod", "statefulset", "replication-controller", "cronjob", "job-has-its-adapter", "no-api-version"],
)
def test_pod_spec_path(api_version: str, kind: str, path: tuple[str, ...] | None) -> None:
    assert doc({"apiVersion": api_version, "kind": kind}).pod_spec_path == path


def test_no_scheduling_content_holds_builtin_kinds_only() -> None:
    assert ("", "Service") in NO_SCHEDULING_CONTENT
    assert ("rbac.authorization.k8s.io", "ClusterRoleBinding") in NO_SCHEDULING_CONTENT
    assert all(
        "." in group or group in ("", "apps", "batch", "autoscaling", "policy") for group, _ in NO_SCHEDULING_CONTENT
    )
    assert ("batch", "Job") not in NO_SCHEDULING_CONTENT
    assert not any(group == "scheduling.k8s.io" and kind != "PriorityClass" for group, kind in NO_SCHEDULING_CONTENT)


def test_the_notes() -> None:
    assert skipped_note(doc({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}})) == (
        "a.yaml (document 1) Service/s: Service (v1) has no gang-scheduling content; skipped"
    )
    assert unknown_note(doc({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"}})) == (
        "a.yaml (document 1) Thing/t: no adapter for apiVersion 'example.com/v1' kind 'Thing'; skipped "
        "(--mapping FILE describes a custom resource)"
    )


def test_unknown_kinds_are_what_nothing_reads() -> None:
    thing = doc({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"}}, 1)
    used = doc({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "read"}}, 2)
    documents = [
        thing,
        used,
        doc(job(), 3),
        doc({"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "PodGroup", "metadata": {"name": "g"}}, 4),
        doc({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}, 5),
        doc({"apiVersion": "v1", "kind": "Pod", "spec": {**POD_SPEC, "schedulingGroup": {"podGroupName": "g"}}}, 6),
    ]
    assert unknown_kinds(documents, used={"Thing/read"}) == [thing]
    assert unknown_kinds(documents) == [thing, used]


def test_about_document_names_the_document_on_one_line() -> None:
    d = doc(job())
    with pytest.raises(DocumentRefusedError) as caught, about_document(d):
        raise WorkloadBuilderError("first line\nsecond line")
    assert str(caught.value) == "a.yaml (document 1) Job/train: first line; second line"
    assert isinstance(caught.value.__cause__, WorkloadBuilderError)
    refused = r"^a\.yaml \(document 1\) Job/train: WorkloadBuilderError$"
    with pytest.raises(DocumentRefusedError, match=refused), about_document(d):
        raise WorkloadBuilderError("  ")


def test_about_document_leaves_other_errors_and_its_own_alone() -> None:
    d = doc(job())
    already = DocumentRefusedError("b.yaml (document 9) Job/x: no")
    with pytest.raises(DocumentRefusedError) as caught, about_document(d):
        raise already
    assert caught.value is already
    with pytest.raises(KeyError), about_document(d):
        raise KeyError("x")
    with about_document(d):
        pass


def test_plan_notices_turn_a_jobs_warnings_into_one_uid_notice() -> None:
    d = doc(job())
    ((_, plan),) = list(plans_of([d]))
    assert [f.object for f in plan.warnings] == ["Job/train", f"Workload/{plan.options.name}"]
    notices = plan_notices(d.where(), plan.warnings, "Job/train", "ml")
    assert notices == [
        Notice(
            "uid",
            "a.yaml (document 1) Job/train: no metadata.uid (the object was never created), so the Workload and group"
            " names are not the ones the controller will use; for those, run on the object as the cluster returns it"
            " (kubectl get job train -n ml -o yaml); -W no-uid hides this warning",
            ("metadata",),
        )
    ]
    (without_namespace,) = plan_notices(d.where(), plan.warnings, "Job/train")
    assert "(kubectl get job train -o yaml)" in without_namespace.text


def test_other_warnings_are_lossy_with_their_location_when_about_the_object() -> None:
    error = invalid(FieldPath("spec", "parallelism"), 3, "rounded down")
    findings = [Finding("Job/train", error), Finding("Workload/w", error)]
    assert plan_notices("a.yaml (document 1)", findings, "Job/train") == [
        Notice("lossy", f"a.yaml (document 1) Job/train: {error}", error.loc()),
        Notice("lossy", f"a.yaml (document 1) Job/train: Workload/w: {error}", ()),
    ]


def test_plans_of_plans_each_claimed_document_with_only_the_readable_others(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[Any]] = []
    first, second = doc(job("a"), 1), doc(job("b"), 2)
    workload = doc({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload", "metadata": {"name": "w"}}, 3)
    service = doc({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}, 4)
    runtime = doc({"apiVersion": "example.com/v1", "kind": "MyRuntime", "metadata": {"name": "r"}}, 5)
    trainjob = doc({"apiVersion": "example.com/v1", "kind": "X", "spec": {"runtimeRef": {"kind": "MyRuntime"}}}, 6)

    real = sourced.adapter_for

    class Recording:
        def __init__(self, adapter: Any) -> None:
            self.adapter = adapter

        def plan(self, data: Any, related: list[Any]) -> Any:
            seen.append(related)
            return self.adapter.plan(data, related)

    def adapter_for(api_version: str, kind: str) -> Any:
        adapter = real(api_version, kind)
        return None if adapter is None else Recording(adapter)

    monkeypatch.setattr(sourced, "adapter_for", adapter_for)
    documents = [first, second, workload, service, runtime, trainjob]
    planned = [(d.number, p.options.name.split("-")[0]) for d, p in plans_of(documents)]
    assert planned == [(1, "a"), (2, "b")]
    assert seen == [[workload.data, runtime.data], [workload.data, runtime.data]]


def test_plans_of_names_the_document_an_adapter_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    class Refusing:
        def plan(self, data: Any, related: list[Any]) -> Any:
            raise WorkloadBuilderError("the object is too big\nto plan")

    monkeypatch.setattr(sourced, "adapter_for", lambda api_version, kind: Refusing())
    with pytest.raises(DocumentRefusedError) as caught:
        list(plans_of([doc(job(), 2)]))
    assert str(caught.value) == "a.yaml (document 2) Job/train: the object is too big; to plan"


def test_an_adapter_reports_bad_fields_as_plan_errors_not_refusals() -> None:
    bad = job()
    bad["spec"]["parallelism"] = "two"
    ((_, plan),) = list(plans_of([doc(bad)]))
    assert [str(f) for f in plan.errors] == [
        'Job/train: spec.parallelism: Invalid value: "two": must be of type integer'
    ]


def test_runtime_kind() -> None:
    assert runtime_kind(doc({"spec": {"runtimeRef": {"kind": "ClusterTrainingRuntime"}}})) == "ClusterTrainingRuntime"
    assert runtime_kind(doc({"spec": {"runtimeRef": {"kind": 3}}})) == ""
    assert runtime_kind(doc({"spec": "x"})) == ""
    assert runtime_kind(doc([])) == ""


def test_related_kinds() -> None:
    assert frozenset({"Workload", "PodGroup", "ClusterTrainingRuntime", "TrainingRuntime"}) == RELATED_KINDS
