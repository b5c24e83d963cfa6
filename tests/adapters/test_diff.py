"""Updating a controller object: the Workload API's update rules on what both versions compile to."""

from __future__ import annotations

import copy
import io
from pathlib import Path
from typing import Any

import pytest
import yaml

from workloadbuilder.adapters.diff import update_findings
from workloadbuilder.cli.app import main

UPSTREAM = Path(__file__).resolve().parents[1] / "data" / "upstream"


def jobset() -> dict[str, Any]:
    obj = next(doc for doc in yaml.safe_load_all((UPSTREAM / "jobset" / "paralleljobs.yaml").read_text()) if doc)
    obj["metadata"]["uid"] = "5f2b6d9e-0000-4000-8000-000000000001"
    return obj


def job(scheduling: dict[str, Any] | None = None, parallelism: int = 4) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "parallelism": parallelism,
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}},
    }
    if scheduling is not None:
        spec["scheduling"] = scheduling
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "t", "uid": "u"}, "spec": spec}


def added_replicated_job() -> dict[str, Any]:
    new = jobset()
    extra = copy.deepcopy(new["spec"]["replicatedJobs"][0])
    extra["name"] = "extra"
    new["spec"]["replicatedJobs"].append(extra)
    return new


def removed_replicated_job() -> dict[str, Any]:
    new = jobset()
    new["spec"]["replicatedJobs"].pop()
    return new


def resized() -> dict[str, Any]:
    new = jobset()
    new["spec"]["replicatedJobs"][0]["template"]["spec"].update(parallelism=9, completions=9)
    return new


def option_a_topology() -> dict[str, Any]:
    new = jobset()
    block = {"schedulingConstraints": {"topology": [{"key": "rack"}]}}
    new["spec"]["replicatedJobs"][0]["template"]["spec"]["scheduling"] = block
    return new


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            job(),
            job({"schedulingPolicy": {"gang": {}}}),
            ["Job/t: spec.scheduling: Invalid value: null: field cannot be set once created"],
        ),
        (
            jobset(),
            added_replicated_job(),
            [
                (
                    "JobSet/paralleljobs: spec.replicatedJobs[2].template.spec.scheduling: Forbidden: item may not be "
                    "added (the Workload paralleljobs-58d556b6c refuses the update at spec.podGroupTemplates[2])"
                )
            ],
        ),
        (
            jobset(),
            removed_replicated_job(),
            [
                (
                    "JobSet/paralleljobs: spec.replicatedJobs[1].template.spec.scheduling: Forbidden: item may not be "
                    "removed (the Workload paralleljobs-58d556b6c refuses the update at spec.podGroupTemplates)"
                )
            ],
        ),
        (jobset(), resized(), []),
        (
            jobset(),
            option_a_topology(),
            [
                (
                    "JobSet/paralleljobs: spec.replicatedJobs[0].template.spec.scheduling.schedulingConstraints: "
                    "Invalid value: null: field is immutable "
                    "(the Workload paralleljobs-58d556b6c refuses the update at "
                    "spec.podGroupTemplates[0].schedulingConstraints)"
                ),
                (
                    "JobSet/paralleljobs: spec.replicatedJobs[0].template.spec.scheduling.schedulingConstraints: "
                    "Invalid value: null: field is immutable "
                    "(the PodGroup paralleljobs-58d556b6c-workers-0-7859675fd6 refuses the update at "
                    "spec.schedulingConstraints)"
                ),
            ],
        ),
    ],
    ids=["job-gains-a-gang", "jobset-gains-a-replicated-job", "jobset-loses-one", "gang-resize-is-allowed", "topology"],
)
def test_refusals_name_the_controller_path(old: dict[str, Any], new: dict[str, Any], expected: list[str]):
    assert [str(finding) for finding in update_findings(old, new)] == expected


def test_the_cli_diff_refuses_what_the_workload_api_refuses(tmp_path: Path):
    (tmp_path / "old.yaml").write_text(yaml.safe_dump(jobset()))
    (tmp_path / "new.yaml").write_text(yaml.safe_dump(added_replicated_job()))
    out, err = io.StringIO(), io.StringIO()
    code = main(["diff", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")], out, err)
    assert (code, out.getvalue()) == (
        1,
        (
            f"{tmp_path / 'new.yaml'} (document 1) JobSet/paralleljobs: "
            'The JobSet "paralleljobs" is invalid: spec.replicatedJobs[2].template.spec.scheduling: Forbidden: '
            "item may "
            "not be added (the Workload paralleljobs-58d556b6c refuses the update at spec.podGroupTemplates[2])\n"
        ),
    )
