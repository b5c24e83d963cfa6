"""ReplicatedJobs as JobSet runs them: counts with Kubernetes' defaults (``adapters.jobset.replicated_jobs``)."""

from __future__ import annotations

from typing import Any

from workloadbuilder import ErrorList, FieldPath
from workloadbuilder.adapters.jobset.replicated_jobs import read_replicated_jobs

BASE = FieldPath("spec", "replicatedJobs")


def rjob(name: str, **job: Any) -> dict[str, Any]:
    return {"name": name, "template": {"spec": job}}


def read(*rjobs: Any) -> tuple[list[tuple[str, str, int, int]], list[str]]:
    errors = ErrorList()
    found = read_replicated_jobs({"spec": {"replicatedJobs": list(rjobs)}}, BASE, errors)
    return [(rj.name, str(rj.path), rj.replicas, rj.job_pods) for rj in found], [str(e) for e in errors]


def test_a_jobs_pods_are_the_smaller_of_parallelism_and_completions() -> None:
    assert read({**rjob("w", parallelism=4, completions=3), "replicas": 2}) == (
        [("w", "spec.replicatedJobs[0]", 2, 3)],
        [],
    )


def test_unset_counts_take_kubernetes_defaults() -> None:
    assert read(rjob("d")) == ([("d", "spec.replicatedJobs[0]", 1, 1)], [])


def test_a_count_of_the_wrong_type_is_an_error_at_its_path() -> None:
    _found, errors = read({**rjob("w"), "replicas": "2"})
    assert errors == ['spec.replicatedJobs[0].replicas: Invalid value: "2": must be of type integer']
