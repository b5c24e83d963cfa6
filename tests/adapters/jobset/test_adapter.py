"""The JobSet adapter against JobSet's own examples: KEP-969's three levels, Option A templates, the derived default."""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from plan_summary import accepted_by_the_apiserver, golden_documents

from workloadbuilder import FieldPath
from workloadbuilder.adapters import PlanError, PodAssignment, adapter_for, plan_object
from workloadbuilder.adapters.jobset import JobSetAdapter
from workloadbuilder.manifests import read_documents
from workloadbuilder.testing import assert_golden

DATA = Path(__file__).resolve().parents[2] / "data" / "adapters" / "jobset"
UID = "5f1c4d9e-0a3b-4c2d-8e7f-6a5b4c3d2e1f"
FLAT, COMPOSITE = JobSetAdapter(), JobSetAdapter(composite_pod_groups=True)
GANG = {"schedulingPolicy": {"gang": {}}}
DROP = object()


def manifest(file: str, **changes: Any) -> dict[str, Any]:
    """The JobSet of a saved manifest as read back from a cluster (with a uid), each change set at its path."""
    jobset = next(doc for doc in read_documents(DATA / file) if doc.get("kind") == "JobSet")
    jobset["metadata"]["uid"] = UID
    for path, value in changes.items():
        *parents, last = FieldPath.parse(path.replace("__", ".")).elements()
        node = jobset
        for element in parents:
            node = node[element] if isinstance(element, int) else node.setdefault(element, {})
        if value is DROP:
            del node[last]
        else:
            node[last] = copy.deepcopy(value)
    return jobset


def annotations(compiled: Any) -> dict[str, Any]:
    """The delegation annotations each ReplicatedJob's Job template carries after planning."""
    return {
        f"spec.replicatedJobs[{i}].template": (rj.get("template", {}).get("metadata") or {}).get("annotations")
        for i, rj in enumerate(compiled.source["spec"]["replicatedJobs"])
    }


GROUPED = "per-rj-grouped.yaml"
TOPOLOGY = "topology-constrained.yaml"
SLICES = "v6e-jax-workload.yaml"
LOW_PRIORITY = "low-priority-jobset.yaml"
NO_BYO = {"spec__replicatedJobs[0]__template__spec__template__spec__schedulingGroup": DROP}
WORKER_AFTER_LAUNCHER = {"spec__replicatedJobs[1]__dependsOn": [{"name": "launcher", "status": "Ready"}]}
PER_JOB_SLICES = {"targetReplicatedJobs": ["slice"], "job": {**GANG, "disruptionMode": {"all": {}}}}

GOLDEN = [
    pytest.param(GROUPED, {}, FLAT, id="level2-launcher-and-worker-share-a-gang-of-5"),
    pytest.param(TOPOLOGY, {}, FLAT, id="level2-basic-driver-and-rack-constrained-workers"),
    pytest.param(
        GROUPED,
        {"spec__scheduling": {**GANG, "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]}}},
        FLAT,
        id="level1-one-gang-over-the-jobset",
    ),
    pytest.param(
        GROUPED, {"spec__scheduling": GANG, **WORKER_AFTER_LAUNCHER}, FLAT, id="level1-sequenced-falls-back-per-rj"
    ),
    pytest.param(
        SLICES, {"spec__scheduling": {"replicatedJobs": [PER_JOB_SLICES]}}, FLAT, id="level3-one-gang-per-slice"
    ),
    pytest.param(
        SLICES,
        {"spec__scheduling": {"replicatedJobs": [PER_JOB_SLICES]}, "spec__replicatedJobs[0]__replicas": 9},
        FLAT,
        id="level3-nine-slices-one-template",
    ),
    pytest.param(SLICES, {}, FLAT, id="derived-one-gang-per-child-job"),
    pytest.param(SLICES, {}, COMPOSITE, id="derived-gang-of-gangs"),
    pytest.param(LOW_PRIORITY, NO_BYO, COMPOSITE, id="derived-gang-of-gangs-keeps-priority-class"),
    pytest.param(
        GROUPED, {"spec__scheduling": DROP, **WORKER_AFTER_LAUNCHER}, COMPOSITE, id="derived-sequenced-root-is-basic"
    ),
    pytest.param(
        TOPOLOGY,
        {
            "spec__scheduling": DROP,
            "spec__replicatedJobs[1]__template__spec__scheduling": {
                "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/rack"}]},
                "disruptionMode": {"all": {}},
            },
        },
        COMPOSITE,
        id="option-a-job-template-scheduling",
    ),
]


@pytest.mark.parametrize(("file", "changes", "adapter"), GOLDEN)
def test_golden(request: pytest.FixtureRequest, file: str, changes: dict[str, Any], adapter: JobSetAdapter) -> None:
    plan = adapter.plan(manifest(file, **changes))
    compiled = plan.compile()
    assert accepted_by_the_apiserver(compiled) == []
    documents = golden_documents(plan, compiled, instances=plan.instances, jobTemplates=annotations(compiled))
    update = request.config.getoption("--update-goldens")
    assert_golden(documents, DATA / f"{request.node.callspec.id}.golden.yaml", update=update)


def entry(*targets: str, **blocks: Any) -> dict[str, Any]:
    """A ``spec.scheduling.replicatedJobs`` entry."""
    return {"targetReplicatedJobs": list(targets), **blocks}


def min_count(count: int) -> dict[str, Any]:
    return {"schedulingPolicy": {"gang": {"minCount": count}}}


ERRORS = [
    pytest.param(
        GROUPED,
        {"spec__scheduling": {**GANG, "replicatedJobs": [entry("launcher", "worker")]}},
        FLAT,
        [
            (
                "JobSet/per-rj-grouped: spec.scheduling: Forbidden: cannot set schedulingPolicy, "
                "schedulingConstraints, or "
                "disruptionMode together with replicatedJobs; use exactly one of the top-level scheduling API or the "
                "per-ReplicatedJob (replicatedJobs) scheduling API"
            )
        ],
        id="level1-and-level2-are-exclusive",
    ),
    pytest.param(
        GROUPED,
        {"spec__scheduling": {"replicatedJobs": [entry("launcher", "workers"), entry("launcher", "worker")]}},
        FLAT,
        [
            (
                "JobSet/per-rj-grouped: spec.scheduling.replicatedJobs[0].targetReplicatedJobs[1]: Invalid value: "
                '"workers": '
                "does not reference a valid replicatedJob name"
            ),
            (
                "JobSet/per-rj-grouped: spec.scheduling.replicatedJobs[1].targetReplicatedJobs[0]: Invalid value: "
                '"launcher": '
                "is targeted by more than one replicatedJobs entry"
            ),
        ],
        id="targets-must-exist-and-be-targeted-once",
    ),
    pytest.param(
        TOPOLOGY,
        {"spec__scheduling": {"replicatedJobs": [entry("driver", **GANG)]}},
        FLAT,
        [
            (
                'JobSet/topo-training: spec.replicatedJobs[1].name: Invalid value: "workers": must be targeted by a '
                "replicatedJobs entry when spec.scheduling does not set a top-level schedulingPolicy, "
                "schedulingConstraints, or disruptionMode"
            )
        ],
        id="level2-must-cover-every-replicated-job",
    ),
    pytest.param(
        GROUPED,
        {"spec__scheduling": {"replicatedJobs": [entry("launcher", "worker", job=GANG, disruptionMode={"all": {}})]}},
        FLAT,
        [
            (
                "JobSet/per-rj-grouped: spec.scheduling.replicatedJobs[0].targetReplicatedJobs: Invalid value: "
                '["launcher","worker"]: must target exactly one replicatedJob when job is set'
            ),
            (
                "JobSet/per-rj-grouped: spec.scheduling.replicatedJobs[0].job: Invalid value: true: cannot be set "
                "together "
                "with schedulingPolicy, schedulingConstraints, disruptionMode, or resourceClaims on the same "
                "replicatedJobs "
                "entry; job replaces the single shared PodGroup those fields configure with one PodGroup per Job"
            ),
        ],
        id="level3-one-target-and-no-leaf-fields",
    ),
    pytest.param(
        GROUPED,
        {"spec__scheduling": min_count(6)},
        FLAT,
        [
            (
                "JobSet/per-rj-grouped: spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 6: cannot "
                "exceed "
                "the total number of JobSet pods (5)"
            )
        ],
        id="level1-min-count-bounded-by-every-pod",
    ),
    pytest.param(
        GROUPED,
        {"spec__scheduling": {"replicatedJobs": [entry("launcher", "worker", **min_count(6))]}},
        FLAT,
        [
            (
                "JobSet/per-rj-grouped: spec.scheduling.replicatedJobs[0].schedulingPolicy.gang.minCount: Invalid "
                "value: 6: "
                "cannot exceed the number of pods across the targeted ReplicatedJobs [launcher worker] (5)"
            )
        ],
        id="level2-min-count-bounded-by-its-targets",
    ),
    pytest.param(
        SLICES,
        {"spec__scheduling": {"replicatedJobs": [entry("slice", job=min_count(5))]}},
        FLAT,
        [
            (
                "JobSet/v6e-multislice: spec.scheduling.replicatedJobs[0].job.schedulingPolicy.gang.minCount: Invalid "
                'value: 5: cannot exceed the per-Job pod count (parallelism) of replicatedJob "slice" (4)'
            )
        ],
        id="level3-min-count-bounded-by-one-job",
    ),
    pytest.param(
        SLICES,
        {"spec__replicatedJobs[0]__template__spec__scheduling": min_count(5)},
        COMPOSITE,
        [
            (
                "JobSet/v6e-multislice: "
                "spec.replicatedJobs[0].template.spec.scheduling.schedulingPolicy.gang.minCount: "
                'Invalid value: 5: cannot exceed the per-Job pod count (parallelism) of replicatedJob "slice" (4)'
            )
        ],
        id="option-a-min-count-bounded-by-one-job",
    ),
    pytest.param(
        GROUPED,
        {"spec__scheduling": min_count(3), **WORKER_AFTER_LAUNCHER},
        FLAT,
        [
            (
                "JobSet/per-rj-grouped: spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 3: cannot "
                "be set "
                "when DependsOn or InOrder StartupPolicy is used; use per-ReplicatedJob gang policies instead"
            )
        ],
        id="level1-explicit-min-count-refused-when-sequenced",
    ),
    pytest.param(
        GROUPED,
        WORKER_AFTER_LAUNCHER,
        FLAT,
        [
            (
                "JobSet/per-rj-grouped: spec.scheduling.replicatedJobs[0].targetReplicatedJobs[1]: Invalid value: "
                '"worker": '
                'must not share a gang with replicatedJob "launcher": "worker" starts only after "launcher" '
                "(dependsOn), "
                "so the gang could never fill"
            )
        ],
        id="level2-gang-across-depends-on-never-fills",
    ),
    pytest.param(
        GROUPED,
        {"spec__startupPolicy": {"startupPolicyOrder": "InOrder"}},
        FLAT,
        [
            (
                "JobSet/per-rj-grouped: spec.scheduling.replicatedJobs[0].targetReplicatedJobs[1]: Invalid value: "
                '"worker": '
                'must not share a gang with replicatedJob "launcher": "worker" starts only after "launcher" (InOrder '
                "startup), so the gang could never fill"
            )
        ],
        id="level2-gang-across-in-order-startup-never-fills",
    ),
    pytest.param(
        GROUPED,
        {
            "spec__scheduling": GANG,
            "spec__replicatedJobs[1]__template__spec__template__spec__priorityClassName": "high",
        },
        FLAT,
        [
            (
                "JobSet/per-rj-grouped: spec.replicatedJobs[1].template.spec.template.spec.priorityClassName: Invalid "
                'value: "high": must match "" when top-level gang scheduling is used'
            )
        ],
        id="level1-gang-needs-one-priority-class",
    ),
    pytest.param(
        GROUPED,
        {"spec__replicatedJobs[1]__template__spec__template__spec__priorityClassName": "high"},
        FLAT,
        [
            (
                "JobSet/per-rj-grouped: spec.scheduling.replicatedJobs[0].targetReplicatedJobs[1]: Invalid value: "
                '"worker": '
                'priorityClassName "high" must match "" of the other ReplicatedJobs sharing this PodGroup'
            )
        ],
        id="level2-shared-pod-group-needs-one-priority-class",
    ),
    pytest.param(
        TOPOLOGY,
        {
            "spec__scheduling__replicatedJobs[1]__schedulingPolicy": {"gang": {"mincount": 2}},
            "spec__scheduling__replicatedJobs[1]__schedulingConstraints__topology[0]__key": "Not A Label",
        },
        FLAT,
        [
            "JobSet/topo-training: spec.scheduling.replicatedJobs[1].schedulingPolicy.gang.mincount: unknown field",
            (
                "JobSet/topo-training: spec.scheduling.replicatedJobs[1].schedulingConstraints.topology[0].key: "
                "Invalid value: "
                "\"Not A Label\": name part must consist of alphanumeric characters, '-', '_' or '.', and must "
                "start and end "
                "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
                "validation is "
                "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
            ),
        ],
        id="building-block-errors-at-indexed-paths",
    ),
    pytest.param(
        GROUPED,
        {
            "spec__replicatedJobs[0]__template__spec__scheduling": GANG,
            "spec__replicatedJobs[1]__template__spec__template__spec__schedulingGroup": {"podGroupName": "mine"},
        },
        FLAT,
        [
            (
                "JobSet/per-rj-grouped: spec.replicatedJobs[1].template.spec.template.spec.schedulingGroup: Forbidden: "
                "cannot be set directly when spec.scheduling is configured; the JobSet controller manages this field"
            ),
            (
                "JobSet/per-rj-grouped: spec.replicatedJobs[0].template.spec.scheduling: Forbidden: must not be "
                "set when "
                "spec.scheduling is configured: the JobSet controller schedules its Jobs from spec.scheduling"
            ),
        ],
        id="spec-scheduling-owns-job-and-pod-scheduling",
    ),
    pytest.param(
        GROUPED,
        {"spec__scheduling": {"replicatedJobs": [{"targetReplicatedJob": ["launcher"]}], "schedulingPolicyy": {}}},
        FLAT,
        [
            "JobSet/per-rj-grouped: spec.scheduling.schedulingPolicyy: unknown field",
            "JobSet/per-rj-grouped: spec.scheduling.replicatedJobs[0].targetReplicatedJob: unknown field",
            (
                "JobSet/per-rj-grouped: spec.scheduling.replicatedJobs[0].targetReplicatedJobs: Required value: must "
                "target at least one replicatedJob"
            ),
            (
                'JobSet/per-rj-grouped: spec.replicatedJobs[0].name: Invalid value: "launcher": must be targeted by a '
                "replicatedJobs entry when spec.scheduling does not set a top-level schedulingPolicy, "
                "schedulingConstraints, or disruptionMode"
            ),
            (
                'JobSet/per-rj-grouped: spec.replicatedJobs[1].name: Invalid value: "worker": must be targeted by a '
                "replicatedJobs entry when spec.scheduling does not set a top-level schedulingPolicy, "
                "schedulingConstraints, or disruptionMode"
            ),
        ],
        id="unknown-fields-in-spec-scheduling",
    ),
    pytest.param(
        GROUPED,
        {"spec__replicatedJobs[1]__replicas": "2", "spec__replicatedJobs[0]__name": "Launcher"},
        FLAT,
        [
            (
                'JobSet/per-rj-grouped: spec.replicatedJobs[0].name: Invalid value: "Launcher": a lowercase RFC 1123 '
                "label must consist of lower case alphanumeric characters or '-', and must start and end with an "
                "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
                "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
            ),
            'JobSet/per-rj-grouped: spec.replicatedJobs[1].replicas: Invalid value: "2": must be of type integer',
            (
                "JobSet/per-rj-grouped: spec.scheduling.replicatedJobs[0].targetReplicatedJobs[0]: Invalid value: "
                '"launcher": does not reference a valid replicatedJob name'
            ),
        ],
        id="replicated-job-fields-of-the-wrong-kind",
    ),
]


@pytest.mark.parametrize(("file", "changes", "adapter", "expected"), ERRORS)
def test_errors(file: str, changes: dict[str, Any], adapter: JobSetAdapter, expected: list[str]) -> None:
    plan = adapter.plan(manifest(file, **changes))
    assert [str(finding) for finding in plan.validate()] == expected
    with pytest.raises(PlanError) as raised:
        plan.compile()
    assert [str(finding) for finding in raised.value.findings] == expected


def test_more_than_eight_replicated_jobs_under_one_composite_is_refused() -> None:
    jobset = manifest(SLICES)
    slice_job = jobset["spec"]["replicatedJobs"][0]
    jobset["spec"]["replicatedJobs"] = [{**copy.deepcopy(slice_job), "name": f"slice-{i}"} for i in range(9)]
    findings = [str(finding) for finding in COMPOSITE.plan(jobset).validate()]
    assert findings[0] == "JobSet/v6e-multislice: spec.replicatedJobs: Too many: 9: must have at most 8 items"


def test_the_jobset_controller_stamps_each_child_job_by_its_labels() -> None:
    compiled = FLAT.plan(manifest(SLICES, spec__scheduling={"replicatedJobs": [PER_JOB_SLICES]})).compile()
    names = [group.name for group in compiled.hierarchy.pod_groups()]
    assert [replace(pods, pod_template=None) for pods in compiled.pods] == [
        PodAssignment(
            pod_group=names[job],
            selector={
                "jobset.sigs.k8s.io/jobset-name": "v6e-multislice",
                "jobset.sigs.k8s.io/replicatedjob-name": "slice",
                "jobset.sigs.k8s.io/job-index": str(job),
            },
            count=4,
            stamp_path="spec.replicatedJobs[0].template.spec.template",
            template="slice",
        )
        for job in range(2)
    ]


def test_planning_leaves_the_jobset_alone_and_annotates_a_copy() -> None:
    jobset = manifest(SLICES)
    before = copy.deepcopy(jobset)
    compiled = COMPOSITE.plan(jobset).compile()
    assert jobset == before
    parent = compiled.hierarchy.find("slice").name
    assert compiled.source["spec"]["replicatedJobs"][0]["template"]["metadata"]["annotations"] == {
        "scheduling.k8s.io/group-template-name": "slice-job",
        "scheduling.k8s.io/parent-composite-podgroup": parent,
    }


def test_registered_for_jobset_v1alpha2() -> None:
    assert isinstance(adapter_for("jobset.x-k8s.io/v1alpha2", "JobSet"), JobSetAdapter)
    plan = plan_object(manifest(GROUPED))
    assert [root.name for root in plan.roots] == ["launcher-worker"]
