"""Bring-your-own PodGroups for JobSet and LeaderWorkerSet: pods join the PodGroup their templates name."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from workloadbuilder.adapters import plan_object
from workloadbuilder.migration.versions import migrate

DATA = Path(__file__).resolve().parents[2] / "data" / "upstream"


def first(relative: str) -> dict[str, Any]:
    return next(doc for doc in yaml.safe_load_all((DATA / relative).read_text()) if doc)


def tutorial_pod_group() -> dict[str, Any]:
    """JobSet's tutorial PodGroup (v1alpha2), as ``migrate`` rewrites it for 1.37."""
    return migrate(first("jobset/was-podgroup-v1alpha2.yaml")).manifest


def lws_naming(group: str, leader: bool) -> dict[str, Any]:
    lws = copy.deepcopy(first("lws/lws-multi-template.yaml" if leader else "lws/lws-sample.yaml"))
    template = lws["spec"]["leaderWorkerTemplate"]
    for key in ("leaderTemplate", "workerTemplate"):
        if key in template:
            template[key]["spec"]["schedulingGroup"] = {"podGroupName": group}
    return lws


GROUP = "js-abc-workers-def"
WHERE = "spec.replicatedJobs[0].template.spec.template.spec.schedulingGroup.podGroupName"


@pytest.mark.parametrize(
    ("obj", "related", "pods", "uses", "warnings"),
    [
        (
            first("jobset/was-jobset.yaml"),
            [tutorial_pod_group()],
            [(GROUP, 6, "spec.replicatedJobs[0].template.spec.template")],
            [f"PodGroup/{GROUP}"],
            [
                (
                    f'{WHERE}: Forbidden: the pods join the PodGroup "{GROUP}" the user made: the JobSet '
                    f"controller makes "
                    "no Workload and no PodGroup for them"
                )
            ],
        ),
        (
            first("jobset/was-jobset.yaml"),
            [],
            [(GROUP, 6, "spec.replicatedJobs[0].template.spec.template")],
            [],
            [
                (
                    f'{WHERE}: Forbidden: the pods join the PodGroup "{GROUP}" the user made: the JobSet '
                    f"controller makes "
                    "no Workload and no PodGroup for them"
                ),
                (
                    f'{WHERE}: Unsupported value: "{GROUP}": is not in the input: give the PodGroup to check and '
                    f"place the "
                    "pods with it"
                ),
            ],
        ),
        (
            lws_naming("mine", leader=False),
            [{**tutorial_pod_group(), "metadata": {"name": "mine", "namespace": "default"}}],
            [("mine", 12, "spec.leaderWorkerTemplate.workerTemplate")],
            ["PodGroup/mine"],
            [
                (
                    "spec.leaderWorkerTemplate.workerTemplate.spec.schedulingGroup.podGroupName: Forbidden: the "
                    "pods join "
                    'the PodGroup "mine" the user made: the LeaderWorkerSet controller makes no Workload and no '
                    "PodGroup "
                    "for them"
                )
            ],
        ),
    ],
    ids=["tutorial-with-its-pod-group", "tutorial-without-its-pod-group", "lws-one-template"],
)
def test_pods_join_the_named_pod_group(
    obj: dict[str, Any], related: list[Any], pods: list[tuple[str, int, str]], uses: list[str], warnings: list[str]
):
    plan = plan_object(obj, related)
    compiled = plan.compile()
    assert compiled.workload is None
    assert compiled.hierarchy.objects() == []
    assert [(p.pod_group, p.count, p.stamp_path) for p in compiled.pods] == pods
    assert plan.uses == uses
    assert [str(w.error) for w in compiled.warnings if "metadata.uid" not in str(w.error)] == warnings


def test_a_gang_larger_than_the_pods_that_name_it_is_a_warning():
    group = tutorial_pod_group()
    group["spec"]["schedulingPolicy"]["gang"]["minCount"] = 8
    plan = plan_object(first("jobset/was-jobset.yaml"), [group])
    assert [str(w.error) for w in plan.warnings][-1] == (
        f"{WHERE}: Unsupported value: \"{GROUP}\": the PodGroup's gang waits for 8 pods and 6 of this object's pods "
        "name it: it fills only if other pods join it"
    )


def test_a_job_template_scheduling_next_to_an_own_pod_group_has_no_effect():
    jobset = copy.deepcopy(first("jobset/was-jobset.yaml"))
    jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["scheduling"] = {"schedulingPolicy": {"gang": {}}}
    plan = plan_object(jobset, [tutorial_pod_group()])
    assert plan.validate() == []
    assert [str(f.error) for f in plan.warnings if str(f.error.field).endswith("spec.scheduling")] == [
        (
            "spec.replicatedJobs[0].template.spec.scheduling: Forbidden: has no effect while "
            "spec.template.spec.schedulingGroup is set: the JobSet controller makes no Workload and no PodGroup for "
            "these pods"
        )
    ]


def test_with_spec_scheduling_a_named_pod_group_is_still_refused():
    jobset = copy.deepcopy(first("jobset/was-jobset.yaml"))
    jobset["spec"]["scheduling"] = {"schedulingPolicy": {"gang": {}}}
    assert [str(f.error) for f in plan_object(jobset).validate()] == [
        (
            "spec.replicatedJobs[0].template.spec.template.spec.schedulingGroup: Forbidden: cannot be set directly "
            "when "
            "spec.scheduling is configured; the JobSet controller manages this field"
        )
    ]


def test_lws_leader_and_workers_join_their_groups():
    plan = plan_object(lws_naming("mine", leader=True))
    compiled = plan.compile()
    assert [(p.pod_group, p.count, p.stamp_path) for p in compiled.pods] == [
        ("mine", 3, "spec.leaderWorkerTemplate.leaderTemplate"),
        ("mine", 9, "spec.leaderWorkerTemplate.workerTemplate"),
    ]
