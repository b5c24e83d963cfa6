"""The Job adapter: the 1.37 Job controller's objects for each management mode, and the Job API's validation."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes.client import V1Job
from plan_summary import golden_documents

from workloadbuilder import FieldPath, to_dict
from workloadbuilder.adapters import PlanError, adapter_for, plan_object
from workloadbuilder.adapters.job import JobAdapter, JobMode, management_mode
from workloadbuilder.resolve import resolve_config
from workloadbuilder.runtime.naming import job_template_name, pod_group_name, workload_name
from workloadbuilder.testing import assert_golden

DATA = Path(__file__).resolve().parents[2] / "data" / "adapters" / "job"
CASES = sorted(path.name.removesuffix(".in.yaml") for path in DATA.glob("*.in.yaml"))
ADAPTER = JobAdapter()
JOBSET_OWNER = {
    "apiVersion": "jobset.x-k8s.io/v1alpha2",
    "kind": "JobSet",
    "name": "train",
    "uid": "js-uid",
    "controller": True,
}
TEMPLATE_ANNOTATION = {"scheduling.k8s.io/group-template-name": "workers"}


def job(scheduling: Any = None, **spec: Any) -> dict[str, Any]:
    """A root Job ``trainer`` in ``ml`` with four pods; ``scheduling`` becomes ``spec.scheduling`` when given."""
    pod = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}
    values: dict[str, Any] = {"parallelism": 4, "template": {"spec": pod}}
    if scheduling is not None:
        values["scheduling"] = scheduling
    values.update(spec)
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "trainer", "namespace": "ml", "uid": "job-uid"},
        "spec": values,
    }


def gang(min_count: int | None = None, **blocks: Any) -> dict[str, Any]:
    """``spec.scheduling`` with a gang policy (and any other blocks)."""
    return {"schedulingPolicy": {"gang": {} if min_count is None else {"minCount": min_count}}, **blocks}


def load(case: str) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all((DATA / f"{case}.in.yaml").read_text()) if doc]


def messages(findings: list[Any]) -> list[str]:
    return [str(finding) for finding in findings]


# --- golden: the objects of every management mode -------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=CASES)
def test_golden(case: str, request: pytest.FixtureRequest):
    the_job, *related = load(case)
    plan = ADAPTER.plan(the_job, related)
    compiled = plan.compile()
    documents = golden_documents(plan, compiled, mode=management_mode(the_job).value)
    assert_golden(documents, DATA / f"{case}.out.yaml", update=request.config.getoption("--update-goldens"))


def test_every_input_has_a_golden_file():
    assert CASES
    assert sorted(path.name.removesuffix(".out.yaml") for path in DATA.glob("*.out.yaml")) == CASES


def test_seed_example_is_a_gang_of_8_in_one_zone_disrupted_together():
    the_job, related = load("root-seed-8-workers-linked")
    compiled = ADAPTER.plan(the_job, [related]).compile()
    template = to_dict(compiled.workload)["spec"]["podGroupTemplates"][0]
    pod_group = to_dict(compiled.hierarchy.pod_groups()[0].object)
    for spec in (template, pod_group["spec"]):
        assert spec["schedulingPolicy"] == {"gang": {"minCount": 8}}
        assert spec["schedulingConstraints"] == {"topology": [{"key": "topology.kubernetes.io/zone"}]}
        assert spec["disruptionMode"] == {"all": {}}
    assert [(ref["kind"], ref.get("controller")) for ref in pod_group["metadata"]["ownerReferences"]] == [
        ("Job", True),
        ("Workload", None),
    ]


def test_names_are_the_controllers():
    uid = "6f1c2a34-8b9d-4e5f-a1b2-c3d4e5f60718"
    the_job = load("root-seed-8-workers")[0]
    compiled = ADAPTER.plan(the_job).compile()
    workload = workload_name("trainer", uid)
    assert (compiled.workload.metadata.name, compiled.workload.spec.pod_group_templates[0].name) == (
        workload,
        "trainer-pgt-0",
    )
    assert compiled.hierarchy.pod_groups()[0].name == pod_group_name(workload, "trainer-pgt-0")


def test_long_job_name_gets_a_valid_template_name():
    the_job = job()
    the_job["metadata"]["name"] = "a" * 60
    compiled = ADAPTER.plan(the_job).compile()
    assert compiled.workload.spec.pod_group_templates[0].name == job_template_name("a" * 60) != "a" * 60 + "-pgt-0"


# --- management modes -------------------------------------------------------------------------------


def with_metadata(**metadata: Any) -> dict[str, Any]:
    the_job = job()
    the_job["metadata"].update(metadata)
    return the_job


def with_schedulingGroup(the_job: dict[str, Any]) -> dict[str, Any]:
    the_job["spec"]["template"]["spec"]["schedulingGroup"] = {"podGroupName": "mine"}
    return the_job


@pytest.mark.parametrize(
    ("the_job", "mode"),
    [
        (job(), JobMode.ROOT),
        (with_metadata(ownerReferences=[{**JOBSET_OWNER, "controller": False}]), JobMode.ROOT),
        (with_metadata(annotations=TEMPLATE_ANNOTATION), JobMode.ROOT),
        (with_metadata(ownerReferences=[JOBSET_OWNER], annotations=TEMPLATE_ANNOTATION), JobMode.DELEGATED),
        (
            with_metadata(ownerReferences=[JOBSET_OWNER], annotations={"scheduling.k8s.io/group-template-name": ""}),
            JobMode.DELEGATED,
        ),
        (with_metadata(ownerReferences=[JOBSET_OWNER]), JobMode.PARENT_MANAGED),
        (with_schedulingGroup(job()), JobMode.BRING_YOUR_OWN),
        (
            with_schedulingGroup(with_metadata(ownerReferences=[JOBSET_OWNER], annotations=TEMPLATE_ANNOTATION)),
            JobMode.BRING_YOUR_OWN,
        ),
    ],
    ids=[
        "no-owner",
        "non-controller-owner",
        "annotation-without-owner",
        "owner-and-annotation",
        "owner-and-empty-annotation",
        "owner-only",
        "scheduling-group",
        "scheduling-group-wins",
    ],
)
def test_management_mode(the_job: dict[str, Any], mode: JobMode):
    assert management_mode(the_job) is mode


def parent_workload(*leaves: str) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": "train-wl", "namespace": "ml", "uid": "wl-uid"},
        "spec": {
            "controllerRef": {"apiGroup": "jobset.x-k8s.io", "kind": "JobSet", "name": "train"},
            "podGroupTemplates": [{"name": leaf, "schedulingPolicy": {"gang": {"minCount": 2}}} for leaf in leaves],
        },
    }


@pytest.mark.parametrize(
    ("annotation", "related", "expected"),
    [
        (
            "workers",
            [],
            [
                (
                    'Job/trainer: metadata.ownerReferences[0]: Not found: "JobSet/train": no Workload whose '
                    "spec.controllerRef names this owner was given in related"
                )
            ],
        ),
        (
            "workers",
            [
                {
                    **parent_workload("workers"),
                    "spec": {"controllerRef": {"apiGroup": "jobset.x-k8s.io", "kind": "JobSet", "name": "other"}},
                }
            ],
            [
                (
                    'Job/trainer: metadata.ownerReferences[0]: Not found: "JobSet/train": no Workload whose '
                    "spec.controllerRef names this owner was given in related"
                )
            ],
        ),
        (
            "workers",
            [{**parent_workload("workers"), "metadata": {"name": "train-wl", "namespace": "elsewhere"}}],
            [
                (
                    'Job/trainer: metadata.ownerReferences[0]: Not found: "JobSet/train": no Workload whose '
                    "spec.controllerRef names this owner was given in related"
                )
            ],
        ),
        (
            "launcher",
            [parent_workload("driver", "workers")],
            [
                (
                    'Job/trainer: metadata.annotations[scheduling.k8s.io/group-template-name]: Not found: "launcher": '
                    'podGroupTemplate "launcher" not found in workload "train-wl" (have [driver workers])'
                )
            ],
        ),
    ],
    ids=["no-workload", "workload-of-another-owner", "workload-in-another-namespace", "unknown-template"],
)
def test_delegated_errors(annotation: str, related: list[dict[str, Any]], expected: list[str]):
    the_job = with_metadata(
        ownerReferences=[JOBSET_OWNER], annotations={"scheduling.k8s.io/group-template-name": annotation}
    )
    plan = ADAPTER.plan(the_job, related)
    assert messages(plan.validate()) == expected
    with pytest.raises(PlanError):
        plan.compile()


def test_delegated_empty_annotation_takes_the_first_template():
    the_job = with_metadata(ownerReferences=[JOBSET_OWNER], annotations={"scheduling.k8s.io/group-template-name": ""})
    compiled = ADAPTER.plan(the_job, [parent_workload("driver", "workers")]).compile()
    assert compiled.workload is None
    assert [(group.template_name, group.name) for group in compiled.hierarchy] == [
        ("driver", pod_group_name("train-wl", "driver"))
    ]


def test_modes_without_objects_compile_to_nothing():
    for the_job in (with_schedulingGroup(job()), with_metadata(ownerReferences=[JOBSET_OWNER])):
        compiled = ADAPTER.plan(the_job).compile()
        assert (compiled.workload, compiled.objects()) == (None, [])


# --- Job API validation --------------------------------------------------------------------------------


def mutate(the_job: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    changed = copy.deepcopy(the_job)
    change(changed)
    return changed


@pytest.mark.parametrize(
    ("the_job", "expected"),
    [
        (
            job(gang(5)),
            [
                (
                    "spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 5: must not be greater than "
                    "parallelism (4)"
                )
            ],
        ),
        (job(gang(4)), []),
        (
            job(gang(2), parallelism=None),
            [
                (
                    "spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 2: must not be greater than "
                    "parallelism (1)"
                )
            ],
        ),
        (
            job(gang(1), parallelism=0),
            [
                (
                    "spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 1: must not be greater than "
                    "parallelism (0)"
                )
            ],
        ),
        (
            job(gang(0)),
            ["spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 0: must be greater than or equal to 1"],
        ),
        (job(gang(), parallelism=0), []),
        (with_schedulingGroup(job(gang())), []),  # 1.37 accepts it; a warning says it has no effect
        (job({"policy": {"gang": {}}}), ["spec.scheduling.policy: unknown field"]),
        (job("gang"), ['spec.scheduling: Invalid value: "gang": must be of type object']),
        (job(gang(), parallelism=-1), ["spec.parallelism: Invalid value: -1: must be greater than or equal to 0"]),
        (job(gang(), parallelism="4"), ['spec.parallelism: Invalid value: "4": must be of type integer']),
        (job(gang(), completions=-2), ["spec.completions: Invalid value: -2: must be greater than or equal to 0"]),
        (
            # maxItems short-circuits the uniqueness check, as the generated validators do
            job(gang(resourceClaims=[{"name": f"c{i % 4}", "resourceClaimName": "x"} for i in range(5)])),
            ["spec.scheduling.resourceClaims: Too many: 5: must have at most 4 items"],
        ),
        (
            job(
                gang(resourceClaims=[{"name": "c", "resourceClaimName": "x"}, {"name": "c", "resourceClaimName": "y"}])
            ),
            ['spec.scheduling.resourceClaims[1]: Duplicate value: {"name":"c","resourceClaimName":"y"}'],
        ),
        (
            job({"schedulingPolicy": {"basic": {}}, "disruptionMode": {"all": {}}}),
            [
                (
                    'spec.scheduling.disruptionMode: Invalid value: "": the disruptionMode `all` is not supported with '
                    "the Basic scheduling policy"
                )
            ],
        ),
        (
            job(gang(schedulingConstraints={"topology": [{"key": "zone"}, {"key": "rack"}]})),
            ["spec.scheduling.schedulingConstraints.topology: Too many: 2: must have at most 1 item"],
        ),
        (
            job({"schedulingPolicy": {"gang": {"minCount": "4"}}}),
            ['spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: "4": must be of type integer'],
        ),
        (
            job(gang(resourceClaims=[{"name": "gpus"}])),
            [
                (
                    'spec.scheduling.resourceClaims[0]: Invalid value: "": must specify one of: `resourceClaimName`, '
                    "`resourceClaimTemplateName`"
                )
            ],
        ),
    ],
    ids=[
        "min-count-above-parallelism",
        "min-count-equal-to-parallelism",
        "parallelism-defaults-to-1",
        "parallelism-zero",
        "min-count-zero",
        "default-min-count-with-parallelism-zero",
        "scheduling-with-scheduling-group",
        "stale-kep-spelling",
        "scheduling-not-an-object",
        "negative-parallelism",
        "parallelism-a-string",
        "negative-completions",
        "claims-too-many-short-circuits",
        "claims-repeated",
        "basic-with-disruption-all",
        "two-topology-constraints",
        "min-count-a-string",
        "claim-without-source",
    ],
)
def test_create_validation(the_job: dict[str, Any], expected: list[str]):
    plan = ADAPTER.plan(the_job)
    assert messages(plan.validate()) == [f"Job/trainer: {message}" for message in expected]


BASE = job(gang(4, schedulingConstraints={"topology": [{"key": "topology.kubernetes.io/zone"}]}))


def set_in(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A change that sets (or, with ``None``, deletes) the field at a rendered path."""

    def change(obj: dict[str, Any]) -> None:
        *parents, last = FieldPath.parse(path).elements()
        node = obj
        for element in parents:
            node = node.setdefault(element, {})
        if value is None:
            node.pop(last, None)
        else:
            node[last] = value

    return change


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (BASE, mutate(BASE, set_in("spec.scheduling.schedulingPolicy.gang.minCount", 2)), []),
        (BASE, mutate(BASE, set_in("spec.parallelism", 8)), []),
        (
            BASE,
            mutate(BASE, set_in("spec.scheduling.schedulingPolicy", {"basic": {}})),
            [
                "spec.scheduling.schedulingPolicy: Invalid value: null: the basic/gang policy variant is immutable "
                "after creation;"
                " only schedulingPolicy.gang.minCount may be updated"
            ],
        ),
        (
            mutate(BASE, set_in("spec.scheduling.schedulingPolicy", {"basic": {}})),
            BASE,
            [
                "spec.scheduling.schedulingPolicy: Invalid value: null: the basic/gang policy variant is immutable "
                "after creation;"
                " only schedulingPolicy.gang.minCount may be updated"
            ],
        ),
        (
            BASE,
            mutate(
                BASE, set_in("spec.scheduling.schedulingConstraints", {"topology": [{"key": "kubernetes.io/hostname"}]})
            ),
            ["spec.scheduling.schedulingConstraints: Invalid value: null: field is immutable"],
        ),
        (
            BASE,
            mutate(BASE, set_in("spec.scheduling.disruptionMode", {"single": {}})),
            ["spec.scheduling.disruptionMode: Invalid value: null: field is immutable"],
        ),
        (
            BASE,
            mutate(BASE, set_in("spec.scheduling.resourceClaims", [{"name": "gpus", "resourceClaimName": "gpus"}])),
            ["spec.scheduling.resourceClaims: Invalid value: null: field is immutable"],
        ),
        (job(), BASE, ["spec.scheduling: Invalid value: null: field cannot be set once created"]),
        (BASE, job(), ["spec.scheduling: Invalid value: null: field cannot be cleared once set"]),
        (
            job({"schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]}}),
            BASE,
            ["spec.scheduling.schedulingPolicy: Invalid value: null: field cannot be set once created"],
        ),
        (
            BASE,
            mutate(BASE, set_in("spec.scheduling.schedulingPolicy", None)),
            ["spec.scheduling.schedulingPolicy: Invalid value: null: field cannot be cleared once set"],
        ),
        (
            BASE,
            mutate(BASE, set_in("spec.scheduling.schedulingPolicy.gang.minCount", 9)),
            [
                (
                    "spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 9: must not be greater than "
                    "parallelism (4)"
                )
            ],
        ),
        (
            mutate(BASE, set_in("spec.scheduling.schedulingPolicy.gang.minCount", 0)),
            mutate(BASE, set_in("spec.scheduling.schedulingPolicy.gang.minCount", 0)),
            [],
        ),
        (
            mutate(BASE, set_in("spec.scheduling.schedulingPolicy.gang.minCount", 0)),
            mutate(BASE, set_in("spec.scheduling.schedulingPolicy.gang.minCount", -1)),
            ["spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: -1: must be greater than or equal to 1"],
        ),
        (with_schedulingGroup(copy.deepcopy(BASE)), with_schedulingGroup(copy.deepcopy(BASE)), []),
        (
            with_schedulingGroup(job()),
            with_schedulingGroup(copy.deepcopy(BASE)),
            ["spec.scheduling: Invalid value: null: field cannot be set once created"],
        ),
    ],
    ids=[
        "resize-gang",
        "raise-parallelism",
        "gang-to-basic",
        "basic-to-gang",
        "constraints-changed",
        "disruption-mode-added",
        "claims-added",
        "scheduling-added",
        "scheduling-removed",
        "policy-added",
        "policy-removed",
        "resize-above-parallelism",
        "stored-invalid-count-ratchets",
        "changed-invalid-count-is-checked",
        "old-job-had-both",
        "scheduling-added-next-to-scheduling-group",
    ],
)
def test_update_validation(old: dict[str, Any], new: dict[str, Any], expected: list[str]):
    assert messages(ADAPTER.validate_update(old, new)) == [f"Job/trainer: {message}" for message in expected]


SCHEDULING_IGNORED = (
    "Job/trainer: spec.scheduling: Forbidden: has no effect while spec.template.spec.schedulingGroup is set: "
    "the Job controller makes no Workload and no PodGroup for the Job"
)


@pytest.mark.parametrize(
    ("the_job", "expected"),
    [(with_schedulingGroup(job(gang())), True), (with_schedulingGroup(job()), False), (job(gang()), False)],
    ids=["scheduling-beside-scheduling-group", "scheduling-group-alone", "scheduling-alone"],
)
def test_scheduling_beside_a_scheduling_group_is_a_warning(the_job: dict[str, Any], expected: bool):
    plan = ADAPTER.plan(the_job)
    assert (messages(plan.errors), SCHEDULING_IGNORED in messages(plan.warnings)) == ([], expected)


@pytest.mark.parametrize(
    ("metadata", "errors", "warnings"),
    [
        ({"name": None}, ["metadata.name: Required value: every derived name starts from it"], []),
        (
            {"name": "Trainer"},
            [
                (
                    'metadata.name: Invalid value: "Trainer": a lowercase RFC 1123 subdomain must consist of lower '
                    "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
                    "(e.g. 'example.com', regex used for validation is "
                    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
                )
            ],
            [],
        ),
        (
            {"uid": None},
            [],
            [
                (
                    "Job/trainer: metadata.uid: Required value: planned with an empty uid: the Workload name hashes "
                    "the uid, and owner references need it, so plan the object as read back from the cluster to get "
                    "the controller's names"
                ),
                (
                    f"Workload/{workload_name('trainer', '')}: metadata.uid: Required value: the PodGroup's owner "
                    "reference to the Workload needs it: create the Workload, then plan again with it in related; "
                    "until then the PodGroup is owned by the Job alone"
                ),
            ],
        ),
    ],
    ids=["no-name", "invalid-name", "no-uid"],
)
def test_identity(metadata: dict[str, Any], errors: list[str], warnings: list[str]):
    the_job = job(gang())
    the_job["metadata"].update(metadata)
    the_job["metadata"] = {key: value for key, value in the_job["metadata"].items() if value is not None}
    plan = ADAPTER.plan(the_job)
    name = the_job["metadata"].get("name", "")
    assert messages(plan.validate()) == [f"Job/{name}: {message}" for message in errors]
    assert messages(plan.warnings) == warnings


def test_errors_stop_compilation_with_every_finding():
    with pytest.raises(PlanError) as raised:
        ADAPTER.plan(job(gang(9), parallelism="4")).compile()
    assert [str(finding) for finding in raised.value.findings] == [
        'Job/trainer: spec.parallelism: Invalid value: "4": must be of type integer',
    ]


# --- the controller's minCount callback --------------------------------------------------------------


@pytest.mark.parametrize(
    ("scheduling", "parallelism", "min_count"),
    [
        (gang(), 8, 8),
        (gang(), 0, 1),
        (gang(), None, 1),
        (gang(3), 8, 3),
        (None, 8, None),
        ({"schedulingPolicy": {"basic": {}}}, 8, None),
    ],
    ids=[
        "from-parallelism",
        "clamped-to-1",
        "parallelism-defaults-to-1",
        "explicit-kept",
        "basic-by-default",
        "explicit-basic",
    ],
)
def test_min_count_default(scheduling: Any, parallelism: int | None, min_count: int | None):
    config = resolve_config(ADAPTER.plan(job(scheduling, parallelism=parallelism)).roots[0])
    assert (config.policy.gang.min_count if config.policy.gang else None) == min_count
    assert (config.policy.basic is not None) == (min_count is None)


# --- flavours, registry ----------------------------------------------------------------------------------


def test_typed_job_plans_like_its_dict():
    the_job = load("root-seed-8-workers")[0]
    typed = V1Job.from_dict(copy.deepcopy(the_job))
    assert isinstance(typed, V1Job)
    from_dict, from_model = ADAPTER.plan(the_job).compile(), ADAPTER.plan(typed).compile()
    assert [to_dict(obj) for obj in from_model.objects()] == [to_dict(obj) for obj in from_dict.objects()]
    assert from_model.pods == from_dict.pods


def test_registered_for_batch_v1_job():
    assert isinstance(adapter_for("batch/v1", "Job"), JobAdapter)
    plan = plan_object(load("root-default-basic")[0])
    assert [root.name for root in plan.roots] == ["processor-pgt-0"]


@pytest.mark.parametrize(
    ("the_job", "expected"),
    [
        (
            {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "a", "uid": "u"}, "spec": "x"},
            ['Job/a: spec: Invalid value: "x": must be of type object'],
        ),
        (
            {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": 5}, "spec": {}},
            ["Job/: metadata.name: Invalid value: 5: must be of type string", "Job/: spec.template: Required value"],
        ),
        (
            {"apiVersion": "batch/v1", "kind": "Job", "metadata": "x"},
            [
                "Job/: metadata.name: Required value: every derived name starts from it",
                'Job/: metadata: Invalid value: "x": must be of type object',
                "Job/: spec: Required value",
            ],
        ),
        (
            {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "a", "uid": "u", "ownerReferences": "x"}},
            [
                'Job/a: metadata.ownerReferences: Invalid value: "x": must be of type array',
                "Job/a: spec: Required value",
            ],
        ),
    ],
    ids=["spec-not-an-object", "name-not-a-string", "metadata-not-an-object", "owner-references-not-a-list"],
)
def test_malformed_jobs_are_errors_not_tracebacks(the_job: dict[str, Any], expected: list[str]):
    assert messages(ADAPTER.plan(the_job).validate()) == expected
