"""KEP-969's levels of ``spec.scheduling`` over a JobSet's ReplicatedJobs (``adapters.jobset.levels``)."""

from __future__ import annotations

from typing import Any

from workloadbuilder.adapters import plan_object


def rjob(name: str, replicas: int, pods: int) -> dict[str, Any]:
    pod = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}
    return {
        "name": name,
        "replicas": replicas,
        "template": {"spec": {"parallelism": pods, "completions": pods, "template": pod}},
    }


def jobset(scheduling: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "js", "namespace": "d"},
        "spec": {"scheduling": scheduling, "replicatedJobs": [rjob("driver", 1, 1), rjob("workers", 2, 3)]},
    }


def groups(obj: dict[str, Any]) -> list[tuple[str, object]]:
    """Each PodGroup the plan makes: its name and its gang's minCount (``basic`` for a basic policy)."""
    found = []
    for made in plan_object(obj).compile().objects():
        if type(made).__name__ == "V1beta1PodGroup":
            gang = made.spec.scheduling_policy.gang
            found.append((made.metadata.name, gang.min_count if gang is not None else "basic"))
    return found


def test_level_2_one_pod_group_per_entry_its_gang_every_pod_of_its_targets() -> None:
    scheduling = {
        "replicatedJobs": [
            {"targetReplicatedJobs": ["driver"], "schedulingPolicy": {"basic": {}}},
            {"targetReplicatedJobs": ["workers"], "schedulingPolicy": {"gang": {}}},
        ]
    }
    assert [(name.split("-")[2], count) for name, count in groups(jobset(scheduling))] == [
        ("driver", "basic"),
        ("workers", 6),
    ]


def test_level_3_one_pod_group_per_job_of_the_target() -> None:
    scheduling = {
        "replicatedJobs": [
            {"targetReplicatedJobs": ["workers"], "job": {"schedulingPolicy": {"gang": {}}}},
            {"targetReplicatedJobs": ["driver"], "schedulingPolicy": {"basic": {}}},
        ]
    }
    made = groups(jobset(scheduling))
    assert [(name.split("-")[2:4], count) for name, count in made] == [
        (["workers", "0"], 3),
        (["workers", "1"], 3),
        (["driver", "87c766bf6"], "basic"),
    ]


def test_a_replicated_job_no_entry_targets_is_refused_at_its_name() -> None:
    scheduling = {"replicatedJobs": [{"targetReplicatedJobs": ["workers"], "schedulingPolicy": {"gang": {}}}]}
    assert [str(f.error) for f in plan_object(jobset(scheduling)).validate()] == [
        'spec.replicatedJobs[0].name: Invalid value: "driver": must be targeted by a replicatedJobs entry when '
        "spec.scheduling does not set a top-level schedulingPolicy, schedulingConstraints, or disruptionMode"
    ]
