"""``doctor.live.parse_target``: ``KIND/NAME`` as kubectl spells it, each kind to the API doctor reads."""

from __future__ import annotations

import pytest

from workloadbuilder.doctor.live import DoctorInputError, parse_target

TARGETS = {
    "job/train": ("batch/v1", "jobs", "Job", "train"),
    "jobs.batch/train": ("batch/v1", "jobs", "Job", "train"),
    "JobSets/train": ("jobset.x-k8s.io/v1alpha2", "jobsets", "JobSet", "train"),
    "lws/serve": ("leaderworkerset.x-k8s.io/v1", "leaderworkersets", "LeaderWorkerSet", "serve"),
    "trainjob/t": ("trainer.kubeflow.org/v1alpha1", "trainjobs", "TrainJob", "t"),
    "vcjob/test-job": ("batch.volcano.sh/v1alpha1", "jobs", "Job", "test-job"),
    "podgroup/pg": ("scheduling.k8s.io/v1beta1", "podgroups", "PodGroup", "pg"),
}


@pytest.mark.parametrize(("target", "expected"), TARGETS.items(), ids=TARGETS.keys())
def test_parse_target(target: str, expected: tuple[str, str, str, str]) -> None:
    kind, name = parse_target(target)
    assert (kind.api_version, kind.plural, kind.kind, name) == expected


REFUSED = ["vcjob", "vcjob/", "/x", "vcjob/a/b", "deployment/x"]


@pytest.mark.parametrize("target", REFUSED, ids=REFUSED)
def test_parse_target_refuses(target: str) -> None:
    with pytest.raises(DoctorInputError):
        parse_target(target)
