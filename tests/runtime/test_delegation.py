"""Delegation annotations, the child side of delegation, pod stamping and pod claims for group claims."""

from __future__ import annotations

import copy
from typing import Any

import jsonpath_ng
import pytest
import yaml
from kubernetes.client import (
    V1beta1PodGroup,
    V1beta1PodGroupTemplate,
    V1beta1Workload,
    V1CronJob,
    V1CronJobSpec,
    V1Job,
    V1JobSpec,
    V1JobTemplateSpec,
    V1ObjectMeta,
    V1Pod,
    V1PodSchedulingGroup,
    V1PodSpec,
    V1PodTemplate,
    V1PodTemplateSpec,
)

from workloadbuilder import (
    Builder,
    BuildError,
    BuildOptions,
    FieldPath,
    PolicyInput,
    WorkloadInput,
    WorkloadItem,
    to_dict,
)
from workloadbuilder.runtime.delegation import (
    GROUP_TEMPLATE_NAME_ANNOTATION,
    PARENT_COMPOSITE_POD_GROUP_ANNOTATION,
    Delegation,
    delegate,
    delegated_pod_group,
    delegation_of,
    pod_claims_for,
    stamp_pod_template,
)
from workloadbuilder.runtime.hierarchy import materialize
from workloadbuilder.runtime.naming import pod_group_name

TEMPLATE_KEY = "scheduling.k8s.io/group-template-name"
PARENT_KEY = "scheduling.k8s.io/parent-composite-podgroup"
OTHER_PARENT_KEY = "scheduling.k8s.io/parent-compositepodgroup"
LWS = {
    "apiVersion": "leaderworkerset.x-k8s.io/v1",
    "kind": "LeaderWorkerSet",
    "name": "vllm",
    "uid": "lws-uid",
    "controller": True,
}
JOB_REF = {
    "apiVersion": "batch/v1",
    "blockOwnerDeletion": True,
    "controller": True,
    "kind": "Job",
    "name": "vllm-0-worker",
    "uid": "job-uid",
}


def test_annotation_constants():
    assert (GROUP_TEMPLATE_NAME_ANNOTATION, PARENT_COMPOSITE_POD_GROUP_ANNOTATION) == (TEMPLATE_KEY, PARENT_KEY)


def lws_workload() -> V1beta1Workload:
    gang = {"gang": {"minCount": 4}}
    root = WorkloadItem(
        name="replica",
        children=[
            WorkloadItem(name="leader"),
            WorkloadItem(name="worker", input=WorkloadInput(policy=PolicyInput(pod_group_data=gang))),
        ],
    )
    return Builder(root, BuildOptions(name="wl", namespace="ns", owner=LWS)).build_workload()


def job_dict(**metadata: Any) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "vllm-0-worker", "uid": "job-uid", **metadata},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
    }


# --- delegate and delegation_of ---


@pytest.mark.parametrize(
    ("before", "parent", "after"),
    [
        ({}, None, {TEMPLATE_KEY: "worker"}),
        ({}, "replica-0", {TEMPLATE_KEY: "worker", PARENT_KEY: "replica-0"}),
        ({"a": "b", OTHER_PARENT_KEY: "old"}, "replica-1", {"a": "b", TEMPLATE_KEY: "worker", PARENT_KEY: "replica-1"}),
        ({PARENT_KEY: "old", TEMPLATE_KEY: "leader"}, None, {TEMPLATE_KEY: "worker"}),
    ],
    ids=["fresh", "with-parent", "replaces-other-spelling", "drops-stale-parent"],
)
def test_delegate_annotates_a_dict(before: dict[str, str], parent: str | None, after: dict[str, str]):
    job = job_dict(annotations=dict(before))
    assert delegate(job, "worker", parent) is job
    assert job["metadata"]["annotations"] == after


def test_delegate_creates_metadata_and_annotations():
    obj: dict[str, Any] = {"kind": "Job"}
    delegate(obj, "worker")
    assert obj == {"kind": "Job", "metadata": {"annotations": {TEMPLATE_KEY: "worker"}}}


@pytest.mark.parametrize(
    "job",
    [V1Job(), V1Job(metadata=V1ObjectMeta(name="j")), V1Job(metadata=V1ObjectMeta(annotations={"a": "b"}))],
    ids=["no-metadata", "no-annotations", "annotations"],
)
def test_delegate_annotates_a_client_model(job: V1Job):
    delegate(job, "worker", "replica-0")
    assert job.metadata.annotations[TEMPLATE_KEY] == "worker"
    assert job.metadata.annotations[PARENT_KEY] == "replica-0"
    assert delegation_of(job) == Delegation("worker", "replica-0")


def test_delegate_takes_a_runtime_group_as_parent():
    hierarchy = materialize(lws_workload(), {"replica": 2})
    job = delegate(job_dict(), "worker", hierarchy.find("replica", 1))
    assert job["metadata"]["annotations"][PARENT_KEY] == hierarchy.find("replica", 1).name


@pytest.mark.parametrize(
    ("obj", "template", "parent", "message"),
    [
        ({}, "", None, 'cannot delegate template "": a lowercase RFC 1123 label must consist of'),
        ({}, "Worker", None, 'cannot delegate template "Worker": a lowercase RFC 1123 label must consist of'),
        (
            {},
            "worker",
            "Replica",
            'cannot delegate under parent "Replica": a lowercase RFC 1123 subdomain must consist of',
        ),
        (V1PodSpec(containers=[]), "worker", None, "a V1PodSpec has no metadata to annotate"),
        ({"metadata": "x"}, "worker", None, "metadata of the given dict is not an object"),
    ],
    ids=["empty-template", "bad-template", "bad-parent", "model-without-metadata", "bad-metadata"],
)
def test_delegate_refuses(obj: Any, template: str, parent: str | None, message: str):
    with pytest.raises(BuildError) as caught:
        delegate(obj, template, parent)
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        (None, None),
        ({PARENT_KEY: "p"}, None),
        ({TEMPLATE_KEY: "worker"}, Delegation("worker")),
        ({TEMPLATE_KEY: ""}, Delegation("")),
        ({TEMPLATE_KEY: "worker", PARENT_KEY: "p"}, Delegation("worker", "p")),
        ({TEMPLATE_KEY: "worker", OTHER_PARENT_KEY: "q"}, Delegation("worker", "q")),
        ({TEMPLATE_KEY: "worker", PARENT_KEY: "p", OTHER_PARENT_KEY: "q"}, Delegation("worker", "p")),
        ({TEMPLATE_KEY: "worker", PARENT_KEY: "", OTHER_PARENT_KEY: "q"}, Delegation("worker", "q")),
    ],
    ids=[
        "none",
        "parent-only",
        "template",
        "empty-template",
        "parent",
        "other-spelling",
        "both-spellings",
        "empty-parent",
    ],
)
def test_delegation_of(annotations: dict[str, str] | None, expected: Delegation | None):
    job = job_dict() if annotations is None else job_dict(annotations=annotations)
    assert delegation_of(job) == expected
    assert delegation_of(V1Job(metadata=V1ObjectMeta(annotations=annotations))) == expected


# --- the child side ---


def test_delegated_pod_group_of_a_nested_leaf():
    workload = lws_workload()
    job = delegate(job_dict(), "worker", "wl-replica-0")
    pod_group = delegated_pod_group(workload, job)
    assert to_dict(pod_group) == {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {
            "name": pod_group_name("vllm-0-worker", "worker"),
            "namespace": "ns",
            "ownerReferences": [JOB_REF],
        },
        "spec": {
            "parentCompositePodGroupName": "wl-replica-0",
            "schedulingPolicy": {"gang": {"minCount": 4}},
            "workloadRef": {"templateName": "worker", "workloadName": "wl"},
        },
    }


def test_delegated_pod_group_with_owner_and_name():
    owner = {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "p-uid"}
    job = delegate(job_dict(), "leader")
    pod_group = delegated_pod_group(to_dict(lws_workload()), job, owner=owner, name="chosen")
    assert to_dict(pod_group)["metadata"] == {"name": "chosen", "namespace": "ns", "ownerReferences": [owner]}
    assert pod_group.spec.parent_composite_pod_group_name is None


def test_empty_template_annotation_picks_the_first_leaf():
    job = delegate(job_dict(), "leader")
    job["metadata"]["annotations"][TEMPLATE_KEY] = ""
    assert delegated_pod_group(lws_workload(), job).spec.workload_ref.template_name == "leader"


def test_children_delegated_one_template_get_one_group_each():
    jobs = [delegate(job_dict(name=f"train-workers-{i}", uid=f"uid-{i}"), "worker") for i in range(3)]
    assert len({delegated_pod_group(lws_workload(), job).metadata.name for job in jobs}) == 3


def test_builder_from_existing_workload_makes_the_delegated_pod_group():
    workload = lws_workload()
    job = delegate(job_dict(), "worker", "wl-replica-0")
    builder = Builder.from_existing_workload(to_dict(workload), BuildOptions(owner=JOB_REF))
    assert to_dict(builder.new_delegated_pod_group(job)) == to_dict(delegated_pod_group(workload, job))
    assert builder.new_delegated_pod_group(job, name="x").metadata.name == "x"


def test_builder_without_workload_refuses_delegation():
    with pytest.raises(
        BuildError, match=r"^no Workload available: call BuildWorkload or use NewBuilderFromExistingWorkload first$"
    ):
        Builder(WorkloadItem(name="w"), BuildOptions()).new_delegated_pod_group(job_dict())


@pytest.mark.parametrize(
    ("workload", "job", "message"),
    [
        (lws_workload, job_dict(), "the given Job carries no scheduling.k8s.io/group-template-name annotation"),
        (
            lws_workload,
            job_dict(annotations={TEMPLATE_KEY: "replica"}),
            # Go's (have [...]) names the top-level leaves only; this Workload's leaves are nested.
            'podGroupTemplate "replica" not found in workload "wl" (have [])',
        ),
        (
            lws_workload,
            {"metadata": {"name": "j", "annotations": {TEMPLATE_KEY: "worker"}}},
            (
                "cannot make an owner reference to the given dict: it needs apiVersion, kind, metadata.name and "
                "metadata.uid; pass owner instead"
            ),
        ),
        (
            lws_workload,
            V1Job(
                api_version="batch/v1", kind="Job", metadata=V1ObjectMeta(uid="u", annotations={TEMPLATE_KEY: "worker"})
            ),
            (
                "cannot make an owner reference to the given Job: it needs apiVersion, kind, metadata.name and "
                "metadata.uid; pass owner instead"
            ),
        ),
        (
            lambda: V1beta1Workload.model_validate(
                {
                    "metadata": {"name": "wl"},
                    "spec": {"compositePodGroupTemplates": [{"name": "c", "schedulingPolicy": {"basic": {}}}]},
                }
            ),
            job_dict(annotations={TEMPLATE_KEY: ""}),
            'workload "wl" has no PodGroupTemplates',
        ),
    ],
    ids=["not-delegated", "unknown-template", "no-owner-dict", "no-owner-model", "no-leaf"],
)
def test_delegated_pod_group_refuses(workload, job: Any, message: str):
    with pytest.raises(BuildError) as caught:
        delegated_pod_group(workload(), job)
    assert str(caught.value) == message


def test_delegated_pod_group_needs_a_name():
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"annotations": {TEMPLATE_KEY: "worker"}}}
    with pytest.raises(BuildError, match=r"^the given Job has no name to derive its PodGroup's name from: pass name$"):
        delegated_pod_group(lws_workload(), job, owner=JOB_REF)


# --- stamping pods ---


def pod_spec_dict() -> dict[str, Any]:
    return {"containers": [{"name": "c", "image": "i"}]}


def pod_spec_model() -> V1PodSpec:
    return V1PodSpec(containers=[])


CR_PATH = FieldPath("spec", "replicatedJobs").index(1).child("template", "spec", "template")
CR_JSONPATH = "$.spec.replicatedJobs[1].template.spec.template"


def custom_resource() -> dict[str, Any]:
    job_template = {"template": {"spec": {"template": {"spec": pod_spec_dict()}}}}
    return {"kind": "JobSet", "spec": {"replicatedJobs": [copy.deepcopy(job_template), job_template]}}


# (make the object, where to stamp, the elements down to the pod spec, the error path prefix)
FLAVOURS: dict[str, tuple[Any, Any, tuple[Any, ...], str]] = {
    "pod-dict": (lambda: {"kind": "Pod", "spec": pod_spec_dict()}, None, ("spec",), ""),
    "pod-model": (lambda: V1Pod(spec=pod_spec_model()), None, ("spec",), ""),
    "template-dict": (lambda: {"spec": pod_spec_dict()}, None, ("spec",), ""),
    "template-model": (lambda: V1PodTemplateSpec(spec=pod_spec_model()), None, ("spec",), ""),
    "job-dict": (lambda: job_dict(), None, ("spec", "template", "spec"), "spec.template."),
    "job-model": (
        lambda: V1Job(spec=V1JobSpec(template=V1PodTemplateSpec(spec=pod_spec_model()))),
        None,
        ("spec", "template", "spec"),
        "spec.template.",
    ),
    "job-template-given": (lambda: job_dict()["spec"]["template"], None, ("spec",), ""),
    "cronjob-dict": (
        lambda: {"kind": "CronJob", "spec": {"jobTemplate": {"spec": {"template": {"spec": pod_spec_dict()}}}}},
        None,
        ("spec", "jobTemplate", "spec", "template", "spec"),
        "spec.jobTemplate.spec.template.",
    ),
    "cronjob-model": (
        lambda: V1CronJob(
            spec=V1CronJobSpec(
                schedule="* * * * *",
                job_template=V1JobTemplateSpec(spec=V1JobSpec(template=V1PodTemplateSpec(spec=pod_spec_model()))),
            )
        ),
        None,
        ("spec", "job_template", "spec", "template", "spec"),
        "spec.jobTemplate.spec.template.",
    ),
    "podtemplate-model": (
        lambda: V1PodTemplate(template=V1PodTemplateSpec(spec=pod_spec_model())),
        None,
        ("template", "spec"),
        "template.",
    ),
    "cr-fieldpath": (
        custom_resource,
        CR_PATH,
        ("spec", "replicatedJobs", 1, "template", "spec", "template", "spec"),
        f"{CR_PATH}.",
    ),
    "cr-jsonpath": (
        custom_resource,
        CR_JSONPATH,
        ("spec", "replicatedJobs", 1, "template", "spec", "template", "spec"),
        f"{CR_PATH}.",
    ),
    "cr-jsonpath-no-root": (
        custom_resource,
        "spec.replicatedJobs[1].template.spec.template",
        ("spec", "replicatedJobs", 1, "template", "spec", "template", "spec"),
        f"{CR_PATH}.",
    ),
    "cr-parsed-jsonpath": (
        custom_resource,
        jsonpath_ng.parse(CR_JSONPATH),
        ("spec", "replicatedJobs", 1, "template", "spec", "template", "spec"),
        f"{CR_PATH}.",
    ),
}


def pod_spec_at(obj: Any, elements: tuple[Any, ...]) -> Any:
    for element in elements:
        obj = obj[element] if isinstance(element, int) or isinstance(obj, dict) else getattr(obj, element)
    return obj


def scheduling_group(spec: Any) -> dict[str, Any] | None:
    group = spec.get("schedulingGroup") if isinstance(spec, dict) else spec.scheduling_group
    return to_dict(group) if group is not None else None


def preset(spec: Any, name: str) -> None:
    if isinstance(spec, dict):
        spec["schedulingGroup"] = {"podGroupName": name}
    else:
        spec.scheduling_group = V1PodSchedulingGroup(pod_group_name=name)


@pytest.mark.parametrize("flavour", list(FLAVOURS), ids=list(FLAVOURS))
def test_stamp_sets_the_pod_group_name(flavour: str):
    make, path, elements, _ = FLAVOURS[flavour]
    obj = make()
    assert stamp_pod_template(obj, "wl-workers-0-abc", path) == []
    assert scheduling_group(pod_spec_at(obj, elements)) == {"podGroupName": "wl-workers-0-abc"}
    assert stamp_pod_template(obj, "wl-workers-0-abc", path) == []  # again: nothing changes
    assert scheduling_group(pod_spec_at(obj, elements)) == {"podGroupName": "wl-workers-0-abc"}


@pytest.mark.parametrize("flavour", list(FLAVOURS), ids=list(FLAVOURS))
def test_stamp_refuses_a_template_of_another_group(flavour: str):
    make, path, elements, prefix = FLAVOURS[flavour]
    obj = make()
    preset(pod_spec_at(obj, elements), "mine")
    errors = stamp_pod_template(obj, "theirs", path)
    assert [str(error) for error in errors] == [
        (
            f'{prefix}spec.schedulingGroup.podGroupName: Invalid value: "mine": '
            'already names another PodGroup; cannot make the pods members of "theirs"'
        )
    ]
    assert scheduling_group(pod_spec_at(obj, elements)) == {"podGroupName": "mine"}


def test_stamp_fills_an_empty_scheduling_group():
    pod = {"spec": {"schedulingGroup": {}}}
    assert stamp_pod_template(pod, "pg") == []
    assert pod == {"spec": {"schedulingGroup": {"podGroupName": "pg"}}}
    model = V1Pod(spec=V1PodSpec(containers=[], scheduling_group=V1PodSchedulingGroup()))
    assert stamp_pod_template(model, "pg") == []
    assert model.spec.scheduling_group.pod_group_name == "pg"


def test_stamp_only_touches_the_named_template():
    obj = custom_resource()
    stamp_pod_template(obj, "pg", CR_PATH)
    assert "schedulingGroup" not in obj["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]


@pytest.mark.parametrize(
    ("obj", "name", "path", "message"),
    [
        ({"spec": {}}, "PG", None, 'cannot stamp PodGroup name "PG": a lowercase RFC 1123 subdomain must consist of'),
        (
            custom_resource(),
            "pg",
            "$.spec.replicatedJobs[2].template",
            "nothing at spec.replicatedJobs[2] in the given JobSet",
        ),
        (custom_resource(), "pg", FieldPath("spec", "jobs"), "nothing at spec.jobs in the given JobSet"),
        (
            custom_resource(),
            "pg",
            "$.spec.replicatedJobs[*].template",
            'JSONPath "$.spec.replicatedJobs[*].template" must name one place',
        ),
        (custom_resource(), "pg", "$..template", 'JSONPath "$..template" must name one place'),
        (
            custom_resource(),
            "pg",
            "$.spec.replicatedJobs[-1]",
            'JSONPath "$.spec.replicatedJobs[-1]" must name one place',
        ),
        (custom_resource(), "pg", "$.spec[", 'invalid JSONPath "$.spec[": '),
        (custom_resource(), "pg", "$.spec.replicatedJobs[0]", "no pod template with a spec at spec.replicatedJobs[0]"),
        ({"kind": "Pod"}, "pg", None, "no pod template with a spec at the given object"),
        (V1Job(), "pg", None, "nothing at spec in the given V1Job"),
    ],
    ids=[
        "bad-name",
        "index-past-end",
        "missing-field",
        "wildcard",
        "descendants",
        "negative-index",
        "syntax",
        "not-a-template",
        "no-spec",
        "model-missing",
    ],
)
def test_stamp_contract_violations_raise(obj: Any, name: str, path: Any, message: str):
    with pytest.raises(BuildError) as caught:
        stamp_pod_template(obj, name, path)
    assert str(caught.value).startswith(message)


def test_stamp_round_trips_through_yaml():
    text = yaml.safe_dump(job_dict())
    job = yaml.safe_load(text)
    delegate(job, "worker", "wl-replica-0")
    assert stamp_pod_template(job, "wl-worker-0-abc") == []
    again = yaml.safe_load(yaml.safe_dump(job))
    assert again == job
    assert again["spec"]["template"]["spec"]["schedulingGroup"] == {"podGroupName": "wl-worker-0-abc"}
    assert delegation_of(again) == Delegation("worker", "wl-replica-0")
    assert V1Job.model_validate(again).spec.template.spec.scheduling_group.pod_group_name == "wl-worker-0-abc"


# --- pod claims ---

CLAIMS = [{"name": "gpus", "resourceClaimTemplateName": "a100"}, {"name": "shared", "resourceClaimName": "dataset"}]


def pod_group_with_claims() -> dict[str, Any]:
    return {
        "metadata": {"name": "pg"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}, "resourceClaims": copy.deepcopy(CLAIMS)},
    }


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda: V1beta1PodGroup.model_validate(pod_group_with_claims()), CLAIMS),
        (pod_group_with_claims, CLAIMS),
        (
            lambda: V1beta1PodGroupTemplate.model_validate(
                {"name": "t", "schedulingPolicy": {"basic": {}}, "resourceClaims": CLAIMS}
            ),
            CLAIMS,
        ),
        (lambda: {"name": "t", "schedulingPolicy": {"basic": {}}, "resourceClaims": CLAIMS}, CLAIMS),
        (lambda: V1beta1PodGroup.model_validate({"spec": {"schedulingPolicy": {"basic": {}}}}), []),
        (lambda: {"spec": {"schedulingPolicy": {"basic": {}}}}, []),
    ],
    ids=["pod-group", "pod-group-dict", "template", "template-dict", "no-claims", "no-claims-dict"],
)
def test_pod_claims_match_the_group_claims_exactly(make, expected: list[dict[str, str]]):
    assert [to_dict(claim) for claim in pod_claims_for(make())] == expected


def test_pod_claims_of_a_materialized_group():
    workload = V1beta1Workload.model_validate(
        {
            "metadata": {"name": "wl", "namespace": "ns", "ownerReferences": [LWS]},
            "spec": {"podGroupTemplates": [{"name": "w", "schedulingPolicy": {"basic": {}}, "resourceClaims": CLAIMS}]},
        }
    )
    (group,) = materialize(workload)
    pod = {"spec": {"containers": [], "resourceClaims": [to_dict(c) for c in pod_claims_for(group.object)]}}
    assert stamp_pod_template(pod, group.name) == []
    assert pod["spec"]["resourceClaims"] == to_dict(group.object)["spec"]["resourceClaims"]


@pytest.mark.parametrize(
    ("spec", "errors"),
    [
        ({"schedulingGroup": "x"}, ['spec.schedulingGroup: Invalid value: "x": must be of type object']),
        (
            {"schedulingGroup": {"podGroupName": ["a"]}},
            ['spec.schedulingGroup.podGroupName: Invalid value: ["a"]: must be of type string'],
        ),
        (
            {"schedulingGroup": {"podGroupName": "other"}},
            [
                'spec.schedulingGroup.podGroupName: Invalid value: "other": already names another PodGroup; '
                'cannot make the pods members of "pg"'
            ],
        ),
        ({}, []),
    ],
    ids=["group-a-string", "name-a-list", "another-group", "unstamped"],
)
def test_stamping_a_template_of_the_wrong_shape_is_a_field_error_and_changes_nothing(
    spec: dict[str, Any], errors: list[str]
) -> None:
    template = {"spec": dict(spec)}
    found = stamp_pod_template(template, "pg")
    unchanged = template == {"spec": spec}
    assert ([str(e) for e in found], unchanged) == (errors, bool(errors))
