"""Issue 26: the command line on real manifests, as ``kubectl apply`` would take them.

Each point is run through ``workloadbuilder``: an object never created has no uid
(its Workload's owner reference is planned without one, which is no error of the
user's).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import yaml

from workloadbuilder.cli.app import main

UPSTREAM = Path(__file__).resolve().parents[1] / "data" / "upstream"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def write(tmp_path: Path, name: str, *docs: dict) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(docs))
    return str(path)


POD = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}


@pytest.mark.parametrize(
    ("manifest", "owner"),
    [
        ("jobset/coordinator.yaml", "JobSet/coordinator-example"),
        ("kueue/sample-job.yaml", "Job/sample-job-xxxxx"),
        ("lws/lws-sample.yaml", "LeaderWorkerSet/leaderworkerset-sample"),
    ],
    ids=["jobset", "job-generate-name", "lws"],
)
def test_compile_without_a_uid_plans_an_empty_owner_uid(manifest: str, owner: str):
    code, out, err = run("compile", str(UPSTREAM / manifest))
    assert (code, "ownerReferences" in err) == (0, False)
    workloads = [doc for doc in yaml.safe_load_all(out) if doc["kind"] == "Workload"]
    refs = [ref for doc in workloads for ref in doc["metadata"]["ownerReferences"]]
    assert [(f"{ref['kind']}/{ref['name']}", ref.get("uid", "")) for ref in refs][:1] == [(owner, "")]
