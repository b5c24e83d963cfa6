"""validate_documents: a set of documents judged as ``workloadbuilder validate`` judges it, as a library call."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from workloadbuilder.adapters.document_reports import NothingCheckedError, validate_documents
from workloadbuilder.adapters.sourced import SourcedDocument
from workloadbuilder.cli.app import main
from workloadbuilder.validation.gates import FeatureGates

ROOT = Path(__file__).resolve().parents[2]
POD = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}


def job(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "uid": f"{name}-uid"},
        "spec": {"template": {"spec": POD}, **spec},
    }


def documents(*objects: dict[str, Any], source: str = "input.yaml") -> list[SourcedDocument]:
    return [SourcedDocument(source, number, obj) for number, obj in enumerate(objects, start=1)]


def test_each_object_gets_one_report_in_input_order() -> None:
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}
    reports = validate_documents(documents(job("bad", parallelism=-1), service, job("good")))
    assert [(r.about(), r.checked, [str(e) for e in r.errors]) for r in reports] == [
        (
            "input.yaml (document 1) Job/bad",
            True,
            ["spec.parallelism: Invalid value: -1: must be greater than or equal to 0"],
        ),
        ("input.yaml (document 2) Service/s", False, []),
        ("input.yaml (document 3) Job/good", True, []),
    ]
    assert [notice.kind for notice in reports[1].notices] == ["skipped"]


def test_a_skipped_kind_is_reported_not_checked() -> None:
    (report,) = validate_documents(documents(job("bad", parallelism=-1)), skip={"Job"})
    assert (report.checked, list(report.errors), report.notices[0].text) == (
        False,
        [],
        "input.yaml (document 1) Job/bad: not checked (--skip Job)",
    )


def test_nothing_checked_is_refused_with_the_unknown_objects() -> None:
    queue = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue", "metadata": {"name": "q"}}
    with pytest.raises(NothingCheckedError, match=r"input\.yaml: no object was checked") as refused:
        validate_documents(documents(queue))
    assert [notice.kind for report in refused.value.reports for notice in report.notices] == ["unknown-kind"]


def test_the_gates_are_the_callers() -> None:
    obj = yaml.safe_load((ROOT / "examples" / "jobset-training.yaml").read_text())
    given = documents(obj, source="jobset.yaml")
    assert validate_documents(given) == validate_documents(given, FeatureGates.all())


@pytest.mark.parametrize(
    "path", ["examples/jobset-training.yaml", "tests/data/cli/exclusions/gang.yaml"], ids=["jobset", "podgroup"]
)
def test_the_validate_command_reports_what_the_function_does(path: str) -> None:
    text = (ROOT / path).read_text()
    given = [SourcedDocument(path, n, d) for n, d in enumerate(yaml.safe_load_all(text), start=1) if d is not None]
    out, err = io.StringIO(), io.StringIO()
    code = main(["validate", "-o", "json", path], stdout=out, stderr=err)
    reports = validate_documents(given)
    assert json.loads(out.getvalue()) == [report.as_dict() for report in reports]
    assert code == (1 if any(report.errors for report in reports) else 0)
