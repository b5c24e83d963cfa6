"""The LeaderWorkerSet adapter against LWS's own samples: KEP-666's levels in phase 1 and phase 2, subgroups,
LWS labels."""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from plan_summary import accepted_by_the_apiserver, golden_documents

from workloadbuilder import FieldPath
from workloadbuilder.adapters import PlanError, PodAssignment, adapter_for
from workloadbuilder.adapters.lws import LeaderWorkerSetAdapter
from workloadbuilder.manifests import read_documents
from workloadbuilder.testing import assert_golden

DATA = Path(__file__).resolve().parents[2] / "data" / "adapters" / "lws"
UID = "0b6f4c1e-8d2a-4f5e-9c3b-7a1d2e4f6a80"
FLAT, COMPOSITE = LeaderWorkerSetAdapter(), LeaderWorkerSetAdapter(composite_pod_groups=True)
GANG = {"schedulingPolicy": {"gang": {}}}
RACK = {"schedulingConstraints": {"topology": [{"key": "topology.example.com/rack"}]}}

EXCLUSIVE = "leaderworkerset_exclusiveplacement.yaml"
VOLCANO = "lws-sample-volcano.yaml"
TAS = "tas.yaml"
WORKER_TEMPLATE = "spec__leaderWorkerTemplate__workerTemplate__spec"
LEADER_TEMPLATE = "spec__leaderWorkerTemplate__leaderTemplate__spec"


def manifest(file: str, **changes: Any) -> dict[str, Any]:
    """The LeaderWorkerSet of a saved sample, with a uid, each change (``__`` for ``.``) set at its path."""
    lws = next(doc for doc in read_documents(DATA / file) if doc.get("kind") == "LeaderWorkerSet")
    lws["metadata"]["uid"] = UID
    for path, value in changes.items():
        *parents, last = FieldPath.parse(path.replace("__", ".")).elements()
        node = lws
        for element in parents:
            node = node[element] if isinstance(element, int) else node.setdefault(element, {})
        node[last] = copy.deepcopy(value)
    return lws


def subgroups(size: int, subgroup_size: int, policy: str = "LeaderWorker") -> dict[str, Any]:
    return {
        "spec__leaderWorkerTemplate__size": size,
        "spec__leaderWorkerTemplate__subGroupPolicy": {"subGroupPolicyType": policy, "subGroupSize": subgroup_size},
    }


GPU_CLAIM = {"name": "gpus", "resourceClaimTemplateName": "a100-x8"}

GOLDEN = [
    pytest.param(EXCLUSIVE, {}, FLAT, id="replica-gang-per-group"),
    pytest.param(EXCLUSIVE, {}, COMPOSITE, id="phase-2-replica-over-leader-and-worker"),
    pytest.param(VOLCANO, {}, FLAT, id="volcano-sample-replica-gang"),
    pytest.param(TAS, {}, COMPOSITE, id="tas-sample-phase-2"),
    pytest.param(VOLCANO, {"spec__scheduling": GANG}, FLAT, id="whole-lws-gang"),
    pytest.param(
        VOLCANO, {"spec__scheduling": {"replica": {"worker": {**GANG, **RACK}}}}, FLAT, id="leader-and-worker-leaves"
    ),
    pytest.param(VOLCANO, {"spec__startupPolicy": "LeaderReady"}, FLAT, id="leader-ready-derived-phase-1"),
    pytest.param(VOLCANO, {"spec__startupPolicy": "LeaderReady"}, COMPOSITE, id="leader-ready-derived-phase-2"),
    pytest.param(VOLCANO, subgroups(5, 2, "LeaderExcluded"), COMPOSITE, id="subgroups-leader-excluded"),
    pytest.param(
        VOLCANO,
        {**subgroups(4, 2), "spec__scheduling": {"replica": {"worker": RACK}}},
        COMPOSITE,
        id="subgroups-leader-worker",
    ),
    pytest.param(VOLCANO, subgroups(5, 2), COMPOSITE, id="subgroups-leader-extra-member"),
    pytest.param(
        VOLCANO,
        {
            "spec__scheduling": {"replica": {"worker": {"resourceClaims": [GPU_CLAIM]}}},
            f"{WORKER_TEMPLATE}__resourceClaims": [GPU_CLAIM],
        },
        COMPOSITE,
        id="worker-group-claims",
    ),
]


@pytest.mark.parametrize(("file", "changes", "adapter"), GOLDEN)
def test_golden(
    request: pytest.FixtureRequest, file: str, changes: dict[str, Any], adapter: LeaderWorkerSetAdapter
) -> None:
    plan = adapter.plan(manifest(file, **changes))
    compiled = plan.compile()
    assert accepted_by_the_apiserver(compiled) == []
    documents = golden_documents(plan, compiled, instances=plan.instances)
    update = request.config.getoption("--update-goldens")
    assert_golden(documents, DATA / f"{request.node.callspec.id}.golden.yaml", update=update)


ERRORS = [
    pytest.param(
        VOLCANO,
        {"spec__scheduling": {**GANG, "replica": {"schedulingPolicy": {"basic": {}}}}},
        FLAT,
        ["spec.scheduling: Invalid value: phase 1 requires exactly one active scheduling level, got [lws replica]"],
        id="phase-1-one-active-level",
    ),
    pytest.param(
        VOLCANO,
        {"spec__scheduling": {"replica": {"schedulingPolicy": {"gang": {"minGroupCount": 2, "minCount": 4}}}}},
        FLAT,
        [
            (
                "spec.scheduling.replica.schedulingPolicy.gang.minGroupCount: Forbidden: minGroupCount requires "
                "CompositePodGroup support and is not available in phase 1"
            ),
            "spec.scheduling.replica.schedulingPolicy.gang.minCount: unknown field",
        ],
        id="phase-1-composite-block-counts-nothing",
    ),
    pytest.param(
        TAS,
        {"spec__leaderWorkerTemplate__size": 1, "spec__scheduling": {"replica": {"worker": GANG}}},
        FLAT,
        ["spec.leaderWorkerTemplate.size: Invalid value: 1: leader/worker scheduling requires size >= 2"],
        id="leader-and-worker-need-two-pods",
    ),
    pytest.param(
        VOLCANO,
        {"spec__scheduling": {"replica": {"worker": {"schedulingPolicy": {"gang": {"minCount": 2}}}}}},
        FLAT,
        [
            (
                "spec.scheduling.replica.worker.schedulingPolicy.gang.minCount: Invalid value: 2: must equal complete "
                "leaf membership 3"
            )
        ],
        id="leaf-gang-is-all-its-pods",
    ),
    pytest.param(
        VOLCANO,
        {"spec__startupPolicy": "LeaderReady", "spec__scheduling": {}},
        FLAT,
        [
            (
                "spec.scheduling: Forbidden: a gang containing the leader and workers is incompatible with "
                "startupPolicy "
                "LeaderReady"
            )
        ],
        id="leader-ready-refuses-a-replica-gang",
    ),
    pytest.param(
        VOLCANO,
        {"spec__startupPolicy": "LeaderReady", "spec__scheduling": {"replica": {}}},
        COMPOSITE,
        [
            (
                "spec.scheduling: Forbidden: a gang containing the leader and workers is incompatible with "
                "startupPolicy "
                "LeaderReady"
            )
        ],
        id="leader-ready-refuses-a-replica-of-two-groups",
    ),
    pytest.param(
        EXCLUSIVE,
        {"spec__scheduling": {}},
        FLAT,
        [
            (
                "spec.scheduling: Forbidden: gang scheduling or workload topology constraints cannot be combined with "
                "exclusive topology in alpha"
            )
        ],
        id="exclusive-topology-refuses-an-asked-for-gang",
    ),
    pytest.param(
        TAS,
        {f"{LEADER_TEMPLATE}__priorityClassName": "high", "spec__scheduling": {}},
        FLAT,
        ["spec.scheduling: Invalid value: null: all managed pod templates must use the same priorityClassName"],
        id="one-priority-class",
    ),
    pytest.param(
        VOLCANO,
        subgroups(5, 3),
        COMPOSITE,
        [
            (
                "spec.leaderWorkerTemplate.subGroupPolicy.subGroupSize: Invalid value: 3: size or size - 1 must be "
                "divisible by subGroupSize"
            )
        ],
        id="subgroup-size-divides-size",
    ),
    pytest.param(
        VOLCANO,
        subgroups(4, 2, "LeaderExcluded"),
        COMPOSITE,
        [
            (
                "spec.leaderWorkerTemplate.subGroupPolicy.subGroupSize: Invalid value: 2: size-1 must be divisible by "
                "subGroupSize when using LeaderExcluded"
            )
        ],
        id="leader-excluded-subgroups-divide-the-workers",
    ),
    pytest.param(
        VOLCANO,
        {
            "spec__scheduling": {
                "replica": {"resourceClaims": [GPU_CLAIM], "schedulingPolicy": {"gang": {"minGroupCount": 3}}}
            }
        },
        COMPOSITE,
        [
            (
                "spec.scheduling.replica.resourceClaims: Forbidden: only the leader and worker PodGroups hold "
                "resourceClaims when CompositePodGroups are used"
            ),
            (
                "spec.scheduling.replica.schedulingPolicy.gang.minGroupCount: Invalid value: 3: cannot exceed the "
                "number "
                "of groups in one replica (2)"
            ),
        ],
        id="phase-2-replica-counts-groups",
    ),
    pytest.param(
        VOLCANO,
        {**subgroups(4, 2), "spec__scheduling": {"replica": {"leader": GANG}}},
        COMPOSITE,
        [
            (
                "spec.scheduling.replica.leader: Forbidden: cannot be set with subGroupPolicyType LeaderWorker: the "
                "leader is a member of subgroup 0"
            )
        ],
        id="leader-worker-subgroups-have-no-leader-group",
    ),
    pytest.param(
        VOLCANO,
        {"spec__scheduling": {"replica": {"worker": {"resourceClaims": [GPU_CLAIM]}}}},
        COMPOSITE,
        [
            (
                'spec.scheduling.replica.worker.resourceClaims[0]: Invalid value: "gpus": must have a matching '
                "reference "
                "in every member pod template"
            )
        ],
        id="group-claims-declared-by-the-pods",
    ),
    pytest.param(
        VOLCANO,
        {
            "spec__replicas": -1,
            "spec__scheduling": {
                "replica": {"worker": {"schedulingConstraints": {"topology": [{"key": "a"}, {"key": "b"}]}}}
            },
        },
        COMPOSITE,
        [
            "spec.replicas: Invalid value: -1: replicas must be equal or greater than 0",
            "spec.scheduling.replica.worker.schedulingConstraints.topology: Too many: 2: must have at most 1 item",
        ],
        id="building-block-errors-at-their-paths",
    ),
]


@pytest.mark.parametrize(("file", "changes", "adapter", "expected"), ERRORS)
def test_errors(file: str, changes: dict[str, Any], adapter: LeaderWorkerSetAdapter, expected: list[str]) -> None:
    plan = adapter.plan(manifest(file, **changes))
    ref = plan.object_ref
    assert [str(finding) for finding in plan.validate()] == [f"{ref}: {text}" for text in expected]
    with pytest.raises(PlanError):
        plan.compile()


def test_pods_join_their_groups_by_group_and_worker_index() -> None:
    compiled = COMPOSITE.plan(manifest(TAS)).compile()
    leader, worker = (group.name for group in compiled.hierarchy.pod_groups())
    base = {"leaderworkerset.sigs.k8s.io/name": "vllm", "leaderworkerset.sigs.k8s.io/group-index": "0"}
    assert [replace(pods, pod_template=None) for pods in compiled.pods] == [
        PodAssignment(
            leader,
            {**base, "leaderworkerset.sigs.k8s.io/worker-index": "0"},
            1,
            "spec.leaderWorkerTemplate.leaderTemplate",
            "leader",
        ),
        PodAssignment(
            worker,
            {**base, "leaderworkerset.sigs.k8s.io/worker-index": "1"},
            1,
            "spec.leaderWorkerTemplate.workerTemplate",
            "worker",
        ),
    ]


@pytest.mark.parametrize(
    ("size", "subgroup_size", "policy", "expected"),
    [
        pytest.param(8, 4, "LeaderWorker", [0, 0, 0, 0, 1, 1, 1, 1], id="even-division-leader-first-slot"),
        pytest.param(9, 4, "LeaderWorker", [0, 0, 0, 0, 0, 1, 1, 1, 1], id="leader-extra-member-of-subgroup-0"),
        pytest.param(5, 2, "LeaderExcluded", [None, 0, 0, 1, 1], id="leader-excluded"),
    ],
)
def test_subgroup_membership_follows_lws(
    size: int, subgroup_size: int, policy: str, expected: list[int | None]
) -> None:
    plan = COMPOSITE.plan(manifest(VOLCANO, **subgroups(size, subgroup_size, policy)))
    compiled = plan.compile()
    member_of: dict[str, int | None] = {"0": None}
    for pods in compiled.pods:
        if pods.template == "subgroup":
            index = compiled.hierarchy[pods.pod_group].indices[-1]
            member_of[pods.selector["leaderworkerset.sigs.k8s.io/worker-index"]] = index
    assert [member_of.get(str(worker)) for worker in range(size)] == expected


def test_registered_for_leaderworkerset_v1() -> None:
    assert isinstance(adapter_for("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"), LeaderWorkerSetAdapter)
