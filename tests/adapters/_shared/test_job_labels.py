"""The labels the apiserver gives a batch Job's pod template (``adapters._shared.job_labels``)."""

from __future__ import annotations

from workloadbuilder.adapters._shared.job_labels import job_labels


def test_a_job_without_a_uid_gets_its_name_twice() -> None:
    assert job_labels("train", None) == {"batch.kubernetes.io/job-name": "train", "job-name": "train"}


def test_a_job_with_a_uid_gets_the_controller_uid_labels_first() -> None:
    labels = job_labels("train", "1234")
    assert list(labels) == [
        "batch.kubernetes.io/controller-uid",
        "controller-uid",
        "batch.kubernetes.io/job-name",
        "job-name",
    ]
    assert labels["controller-uid"] == "1234"


def test_an_empty_uid_counts_as_none() -> None:
    assert job_labels("train", "") == job_labels("train", None)
