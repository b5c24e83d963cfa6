"""Kueue's required topology becomes the group's schedulingConstraints; the preferred one stays a warning."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from workloadbuilder.adapters import plan_object

UPSTREAM = Path(__file__).resolve().parents[2] / "data" / "upstream" / "kueue"
REQUIRED = "kueue.x-k8s.io/podset-required-topology"
PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"


def sample(name: str) -> dict[str, Any]:
    return copy.deepcopy(next(doc for doc in yaml.safe_load_all((UPSTREAM / name).read_text()) if doc))


def topology_keys(obj: dict[str, Any]) -> list[list[str]]:
    workload = plan_object(obj).compile().workload
    return [
        [c.key for c in (t.scheduling_constraints.topology if t.scheduling_constraints else [])]
        for t in workload.spec.pod_group_templates
    ]


def job_with(annotations: dict[str, str], scheduling: dict[str, Any] | None = None) -> dict[str, Any]:
    job = sample("tas-sample-job-required.yaml")
    job["spec"]["template"]["metadata"]["annotations"] = annotations
    if scheduling is not None:
        job["spec"]["scheduling"] = scheduling
    return job


RACK = "cloud.provider.com/topology-rack"


def lws_sample() -> dict[str, Any]:
    """Kueue's LWS sample with its worker's GPU limit set: as written, the apiserver refuses its StatefulSet."""
    lws = sample("sample-leaderworkerset-tas.yaml")
    resources = lws["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0]["resources"]
    resources["limits"] = {"nvidia.com/gpu": "1"}
    return lws


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (sample("tas-sample-job-required.yaml"), [[RACK]]),
        (sample("sample-jobset-tas-required.yaml"), [[RACK]]),
        (lws_sample(), [[RACK]]),
        (
            job_with({REQUIRED: RACK}, {"schedulingConstraints": {"topology": [{"key": "zone"}]}}),
            [["zone"]],
        ),
        (job_with({PREFERRED: RACK}), [[]]),
    ],
    ids=["job", "jobset", "lws-leader-and-workers", "the-users-own-constraint-wins", "preferred-is-not-carried"],
)
def test_required_topology_is_the_groups_constraint(obj: dict[str, Any], expected: list[list[str]]):
    assert topology_keys(obj) == expected


def test_preferred_topology_is_a_warning_naming_the_difference():
    warnings = [str(f.error) for f in plan_object(job_with({PREFERRED: RACK})).warnings]
    assert [w for w in warnings if PREFERRED in w] == [
        (
            f'spec.template.metadata.annotations[{PREFERRED}]: Unsupported value: "{RACK}": is Kueue\'s preferred '
            "topology: Kueue falls back to wider domains when the pods do not fit in one, while a Workload's topology "
            "constraint is required (one domain or not at all), so it is not carried; use "
            "kueue.x-k8s.io/podset-required-topology to make it the group's schedulingConstraints"
        )
    ]


def test_a_carried_required_topology_is_not_a_warning():
    assert not any(REQUIRED in str(f.error) for f in plan_object(sample("tas-sample-job-required.yaml")).warnings)
