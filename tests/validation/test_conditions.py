"""Status updates check conditions as apimachinery's ValidateConditions does, for PodGroups and CompositePodGroups."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from workloadbuilder.validation.objects import validate_composite_pod_group, validate_pod_group

GOOD = {
    "type": "PodGroupInitiallyScheduled",
    "status": "True",
    "lastTransitionTime": "2026-01-01T00:00:00Z",
    "reason": "Scheduled",
    "message": "ok",
}
REASON = (
    "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric "
    "characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or "
    "'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is "
    "'[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')"
)
C0 = "status.conditions[0]"
C1 = "status.conditions[1]"

CASES: list[tuple[str, list[dict[str, Any]], list[str]]] = [
    ("valid", [GOOD], []),
    ("repeated-type-at-the-item", [GOOD, GOOD], [f'{C1}: Duplicate value: "PodGroupInitiallyScheduled"']),
    (
        "repeat-before-the-item-own-errors",
        [GOOD, {**GOOD, "reason": ""}],
        [f'{C1}: Duplicate value: "PodGroupInitiallyScheduled"', f"{C1}.reason: Required value"],
    ),
    ("empty-status", [{**GOOD, "status": ""}], [f"{C0}.status: Required value"]),
    (
        "bad-status",
        [{**GOOD, "status": "Yes"}],
        [f'{C0}.status: Unsupported value: "Yes": supported values: "False", "True", "Unknown"'],
    ),
    (
        "negative-generation",
        [{**GOOD, "observedGeneration": -1}],
        [f"{C0}.observedGeneration: Invalid value: -1: must be greater than or equal to zero"],
    ),
    (
        "no-time-no-reason",
        [{"type": "Ready", "status": "False"}],
        [f"{C0}.lastTransitionTime: Required value", f"{C0}.reason: Required value"],
    ),
    ("bad-reason", [{**GOOD, "reason": "not ok"}], [f'{C0}.reason: Invalid value: "not ok": {REASON}']),
    ("long-reason", [{**GOOD, "reason": "R" * 1025}], [f"{C0}.reason: Too long: may not be more than 1024 bytes"]),
    ("long-message", [{**GOOD, "message": "m" * 32769}], [f"{C0}.message: Too long: may not be more than 32768 bytes"]),
    ("empty-type", [{**GOOD, "type": ""}], [f"{C0}.type: Required value: is required"]),
]

GROUP = {
    "apiVersion": "scheduling.k8s.io/v1beta1",
    "kind": "PodGroup",
    "metadata": {"name": "g", "namespace": "ml"},
    "spec": {"schedulingPolicy": {"basic": {}}},
}


def _with(obj: dict[str, Any], conditions: list[dict[str, Any]]) -> dict[str, Any]:
    new = copy.deepcopy(obj)
    new["status"] = {"conditions": conditions}
    return new


@pytest.mark.parametrize(("conditions", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_pod_group_status_conditions(conditions: list[dict[str, Any]], want: list[str]) -> None:
    assert [str(e) for e in validate_pod_group(_with(GROUP, conditions), GROUP, subresource="status")] == want


def test_composite_pod_group_status_conditions() -> None:
    composite = copy.deepcopy(GROUP)
    composite.update(apiVersion="scheduling.k8s.io/v1alpha3", kind="CompositePodGroup")
    composite["spec"]["workloadRef"] = {"workloadName": "w", "templateName": "c"}
    errs = validate_composite_pod_group(_with(composite, [GOOD, GOOD]), composite, subresource="status")
    assert [str(e) for e in errs] == ['status.conditions[1]: Duplicate value: "PodGroupInitiallyScheduled"']


def test_conditions_are_ignored_on_the_main_resource() -> None:
    assert validate_pod_group(_with(GROUP, [{"type": ""}])) == []
