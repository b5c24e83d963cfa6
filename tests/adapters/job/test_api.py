"""The Job API's side of ``spec.scheduling``: its rules and the warning when it has no effect (``adapters.job.api``)."""

from __future__ import annotations

from typing import Any

from workloadbuilder.adapters.job.api import SCHEDULING_PATH, scheduling_ignored, scheduling_of, validate_job


def job(scheduling: Any = None, parallelism: int = 4, **pod: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "parallelism": parallelism,
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}], **pod}},
    }
    if scheduling is not None:
        spec["scheduling"] = scheduling
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": spec}


GANG = {"schedulingPolicy": {"gang": {"minCount": 4}}}


def test_scheduling_is_read_at_spec_scheduling() -> None:
    assert str(SCHEDULING_PATH) == "spec.scheduling"
    assert scheduling_of(job(GANG)) == GANG
    assert scheduling_of(job()) is None


def test_a_gang_within_parallelism_is_valid() -> None:
    assert list(validate_job(job(GANG))) == []


def test_a_gang_larger_than_parallelism_is_refused() -> None:
    assert [str(e) for e in validate_job(job({"schedulingPolicy": {"gang": {"minCount": 5}}}))] == [
        "spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 5: must not be greater than parallelism (4)"
    ]


def test_scheduling_beside_a_pod_group_name_is_a_warning_that_it_does_nothing() -> None:
    assert [str(e) for e in scheduling_ignored(job(GANG, schedulingGroup={"podGroupName": "g"}))] == [
        "spec.scheduling: Forbidden: has no effect while spec.template.spec.schedulingGroup is set: "
        "the Job controller makes no Workload and no PodGroup for the Job"
    ]
    assert list(scheduling_ignored(job(GANG))) == []
