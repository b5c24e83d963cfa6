"""Replaying what the real v1.37.2 control plane answered in the e2e tests (``tests/data/e2e-recorded/``), no Go.

The e2e tests (``tests/e2e/``, ``WORKLOADBUILDER_E2E=1``) ask a real
kube-apiserver, kube-controller-manager and kube-scheduler and, with
``WORKLOADBUILDER_E2E_RECORD=1``, record the answers. Here the same
comparisons run on the recordings: offline validation against the
apiserver's verdicts, the Job adapter against the Job controller's objects,
``place`` against the scheduler's bindings. A disagreement that is known is
listed, with what became of it, in ``tests/data/e2e-recorded/differences.yaml``
and docs/differences.md; any other fails.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

E2E = Path(__file__).resolve().parents[1] / "e2e"
DATA = Path(__file__).resolve().parents[1] / "data" / "e2e-recorded"
sys.path.insert(0, str(E2E))

import crd_sources  # noqa: E402
import job_validation  # noqa: E402
from apiserver_judge import differs, load_cases, ours  # noqa: E402
from corpus_objects import our_object_verdict  # noqa: E402
from job_cases import compare as compare_job  # noqa: E402
from scheduler_cases import compare as compare_gang  # noqa: E402


def _rows(name: str) -> list[dict[str, Any]]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[1:] if line.strip()]


def _known(section: str) -> dict[str, str]:
    data = yaml.safe_load((DATA / "differences.yaml").read_text(encoding="utf-8")) or {}
    return {str(k): str(v["how"]) for k, v in (data.get(section) or {}).items()}


def test_the_recorded_cases_part_only_where_listed() -> None:
    cases = {case["id"]: case for case in load_cases()}
    rows = _rows("apiserver-cases.jsonl")
    assert len(rows) == len(cases)
    parted = {
        row["id"]: how for row in rows if (how := differs(row["real"], ours(cases[row["id"]]), cases[row["id"]]["obj"]))
    }
    assert parted == _known("apiserver-cases")


def test_the_compiled_corpus_parts_only_where_listed() -> None:
    rows = _rows("compiled-corpus.jsonl")
    assert rows
    parted = {
        row["id"]: how for row in rows if (how := differs(row["real"], our_object_verdict(row["obj"]), row["obj"]))
    }
    assert parted == _known("compiled-corpus")


JOBS = _rows("job-controller.jsonl") if (DATA / "job-controller.jsonl").exists() else []
GANGS = _rows("scheduler.jsonl") if (DATA / "scheduler.jsonl").exists() else []


@pytest.mark.parametrize("record", JOBS, ids=[r["id"] for r in JOBS])
def test_the_adapter_compiles_what_the_controller_made(record: dict[str, Any]) -> None:
    known = _known("job-controller")
    assert (compare_job(record) != []) == (record["id"] in known), compare_job(record)


@pytest.mark.parametrize("record", GANGS, ids=[r["id"] for r in GANGS])
def test_place_binds_where_the_scheduler_did(record: dict[str, Any]) -> None:
    found = compare_gang(record)
    if record["id"] in _known("scheduler"):
        assert found, found
        assert not any(line.startswith("nodes:") for line in found), found
    else:
        assert found == []


def test_the_job_api_parts_only_where_listed() -> None:
    rows = _rows("job-validation.jsonl")
    assert rows
    parted = {}
    for row in rows:
        if row["op"] == "create":
            mine = job_validation.ours_create(row["obj"])
        else:
            mine = job_validation.ours_update(row["old"], row["obj"])
        if how := differs(row["real"], mine, row["obj"]):
            parted[row["id"]] = how
    assert parted == _known("job-validation")


def test_the_controller_objects_part_only_where_listed() -> None:
    rows = _rows("controller-sources.jsonl")
    assert rows
    parted = {row["id"]: how for row in rows if (how := crd_sources.differs(row["real"], crd_sources.ours(row["obj"])))}
    assert parted == _known("controller-sources")
