"""Every pod template recorded from the apiserver's own pod validation gives Go's errors here, in Go's order.

The cases (``tests/data/pod-rules-recorded/templates.jsonl``) were made by the seeded generator
``tools/reference/podrules/generate.py`` and judged by ``tools/reference/podrules`` (k8s.io/kubernetes v1.37.2
``ValidatePodTemplateSpec`` on the v1-defaulted template); ``adapters._shared.pod_rules.pod_spec_errors`` must give the
same ``Error()`` strings.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from workloadbuilder import FieldPath
from workloadbuilder.adapters._shared.pod_rules import KUBERNETES_REVISION, pod_spec_errors

DATA = Path(__file__).resolve().parents[1] / "data" / "pod-rules-recorded" / "templates.jsonl"
LINES = [json.loads(line) for line in DATA.read_text().splitlines()]
HEADER, CASES = LINES[0], LINES[1:]


def test_the_answers_come_from_the_revision_ported() -> None:
    assert HEADER["revision"] == f"k8s.io/kubernetes {KUBERNETES_REVISION}"
    assert len(CASES) == 600
    assert all("errors" in case for case in CASES)  # every template decoded


def test_every_family_has_refused_and_accepted_cases() -> None:
    refused = Counter(case["family"] for case in CASES if case["errors"])
    accepted = Counter(case["family"] for case in CASES if not case["errors"])
    assert set(refused) == set(accepted) == {case["family"] for case in CASES}


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_recorded_template_gives_gos_errors(case: dict[str, Any]) -> None:
    path = FieldPath.parse(case["path"]).child("spec")
    assert [str(error) for error in pod_spec_errors(case["template"]["spec"], path)] == [
        error["error"] for error in case["errors"]
    ]
