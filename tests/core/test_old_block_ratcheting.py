"""An old building block given as a dict with an unknown field still ratchets: its known fields are what Go held."""

from __future__ import annotations

from typing import Any

import pytest

from workloadbuilder import (
    Builder,
    BuildOptions,
    FieldPath,
    PolicyInput,
    ResourceClaimsInput,
    WorkloadInput,
    WorkloadItem,
)
from workloadbuilder.types import DisruptionModeOption, SchedulingPolicyOption

OPTIONS = BuildOptions(
    allowed_policies=[SchedulingPolicyOption.BASIC, SchedulingPolicyOption.GANG],
    allowed_disruption_modes=[DisruptionModeOption.SINGLE, DisruptionModeOption.ALL],
)
MIN_COUNT = "spec.scheduling.schedulingPolicy.gang.minCount"


def _item(policy: Any = None, claims: list[Any] | None = None, path: FieldPath | None = None) -> WorkloadItem:
    return WorkloadItem(
        name="job",
        path=path,
        input=WorkloadInput(
            policy=PolicyInput(path_elements=["schedulingPolicy"], pod_group_data=policy),
            resource_claims=ResourceClaimsInput(path_elements=["resourceClaims"], pod_group_data=claims or []),
        ),
    )


def _errors(new: WorkloadItem, old: WorkloadItem) -> list[str]:
    return [str(e) for e in Builder(new, OPTIONS).validate(old_root=old)]


SCHEDULING = FieldPath("spec", "scheduling")
CASES: list[tuple[str, Any, Any, list[str]]] = [
    ("unknown-field-in-old-ratchets", {"gang": {"minCount": 0}}, {"gang": {"minCount": 0}, "extra": 1}, []),
    ("unknown-nested-field-in-old-ratchets", {"gang": {"minCount": 0}}, {"gang": {"minCount": 0, "x": 1}}, []),
    (
        "changed-value-still-checked",
        {"gang": {"minCount": -1}},
        {"gang": {"minCount": 0}, "extra": 1},
        [f"{MIN_COUNT}: Invalid value: -1: must be greater than or equal to 1"],
    ),
    (
        "wrong-type-in-old-checks-as-created",
        {"gang": {"minCount": 0}},
        {"gang": {"minCount": "0"}},
        [f"{MIN_COUNT}: Invalid value: 0: must be greater than or equal to 1"],
    ),
]


@pytest.mark.parametrize(("new", "old", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_old_block_with_unknown_fields_ratchets(new: Any, old: Any, want: list[str]) -> None:
    assert _errors(_item(new, path=SCHEDULING), _item(old)) == want


def test_old_claim_with_unknown_field_ratchets() -> None:
    claim = {"name": "Bad_Name", "resourceClaimName": "c"}
    new = _item({"basic": {}}, [claim], path=SCHEDULING)
    assert _errors(new, _item({"basic": {}}, [{**claim, "extra": True}])) == []
