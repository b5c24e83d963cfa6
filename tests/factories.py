"""Fixture helpers for this project's tests: the public testing kit plus the Go tests' constants and blocks."""

from __future__ import annotations

from typing import Any

from workloadbuilder import FieldPath
from workloadbuilder.testing import assert_field_errors, job_owner, make_item
from workloadbuilder.types import DisruptionModeOption, SchedulingPolicyOption

__all__ = [
    "ALL_MODES",
    "ALL_POLICIES",
    "SCHEDULING_PATH",
    "assert_field_errors",
    "composite_gang_data",
    "gang_data",
    "job_owner",
    "make_item",
]

SCHEDULING_PATH = FieldPath("spec", "scheduling")
ALL_POLICIES = [SchedulingPolicyOption.BASIC, SchedulingPolicyOption.GANG]
ALL_MODES = [DisruptionModeOption.SINGLE, DisruptionModeOption.ALL]


def gang_data(min_count: int | None) -> dict[str, Any]:
    """A leaf gang policy block in Kubernetes JSON spelling."""
    return {"gang": {} if min_count is None else {"minCount": min_count}}


def composite_gang_data(min_group_count: int | None) -> dict[str, Any]:
    """A composite gang policy block in Kubernetes JSON spelling."""
    return {"gang": {} if min_group_count is None else {"minGroupCount": min_group_count}}
