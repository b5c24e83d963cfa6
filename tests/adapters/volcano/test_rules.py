"""Volcano's admission rules for a Job's lifecycle policies and volumes (``adapters.volcano.rules``)."""

from __future__ import annotations

from typing import Any

from workloadbuilder.adapters.volcano.rules import io_errors, policy_errors


def job(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "v"}, "spec": spec}


def test_the_same_event_in_two_policies_is_refused_in_volcanos_words() -> None:
    policies = [{"event": "PodFailed", "action": "RestartJob"}, {"event": "PodFailed", "action": "AbortJob"}]
    assert [str(e) for e in policy_errors(job(policies=policies))] == [
        'spec.policies[1].event: Invalid value: "PodFailed": duplicate event PodFailed  across different policy'
    ]


def test_an_unknown_event_lists_the_valid_ones() -> None:
    assert [str(e) for e in policy_errors(job(policies=[{"event": "Nope", "action": "RestartJob"}]))] == [
        'spec.policies[0].event: Invalid value: "Nope": invalid policy event; valid events are [*, PodFailed, '
        "PodEvicted, PodPending, Unknown, TaskCompleted, JobUpdated, TaskFailed], valid actions are [AbortJob, "
        "RestartJob, RestartTask, RestartPod, TerminateJob, CompleteJob, ResumeJob]"
    ]


def test_exit_code_zero_is_refused() -> None:
    assert [str(e) for e in policy_errors(job(policies=[{"exitCode": 0, "action": "RestartJob"}]))] == [
        "spec.policies[0].exitCode: Invalid value: 0: 0 is not a valid error code"
    ]


def test_valid_policies_and_volumes_have_no_errors() -> None:
    assert list(policy_errors(job(policies=[{"event": "PodEvicted", "action": "RestartJob"}]))) == []
    assert list(io_errors(job(volumes=[{"mountPath": "/data", "volumeClaimName": "claim"}]))) == []


def test_only_the_first_bad_volume_is_reported() -> None:
    volumes = [{"mountPath": "/a"}, {"mountPath": "/b"}]
    assert [str(e) for e in io_errors(job(volumes=volumes))] == [
        "spec.volumes[0]: Required value: either VolumeClaim or VolumeClaimName must be specified"
    ]


def test_another_kind_has_no_volcano_volume_rule() -> None:
    other = {"apiVersion": "batch/v1", "kind": "Job", "spec": {"volumes": [{"mountPath": "/a"}]}}
    assert list(io_errors(other)) == []
