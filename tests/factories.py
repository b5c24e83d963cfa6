"""Small builders for test fixtures, after the Go tests' ``newWorkloadItem(name, withPath(...), ...)``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubernetes.client import V1OwnerReference

from workloadbuilder import (
    DisruptionModeOption,
    ErrorType,
    FieldError,
    FieldPath,
    PolicyInput,
    SchedulingPolicyOption,
    WorkloadInput,
    WorkloadItem,
)

SCHEDULING_PATH = FieldPath("spec", "scheduling")
ALL_POLICIES = [SchedulingPolicyOption.BASIC, SchedulingPolicyOption.GANG]
ALL_MODES = [DisruptionModeOption.SINGLE, DisruptionModeOption.ALL]


def job_owner() -> V1OwnerReference:
    """The owner every Go test uses: ``batch/v1`` Job ``job``."""
    return V1OwnerReference(api_version="batch/v1", kind="Job", name="job", uid="job-uid")


def gang_data(min_count: int | None) -> dict[str, Any]:
    """A leaf gang policy block in Kubernetes JSON spelling."""
    return {"gang": {} if min_count is None else {"minCount": min_count}}


def composite_gang_data(min_group_count: int | None) -> dict[str, Any]:
    """A composite gang policy block in Kubernetes JSON spelling."""
    return {"gang": {} if min_group_count is None else {"minGroupCount": min_group_count}}


def make_item(
    name: str,
    *,
    path: FieldPath | None = None,
    gang: int | None = None,
    input: WorkloadInput | None = None,
    children: Iterable[WorkloadItem | None] = (),
    **fields: Any,
) -> WorkloadItem:
    """A WorkloadItem; ``gang=N`` sets a leaf gang policy at ``schedulingPolicy`` (Go's ``withGang``)."""
    given = input if input is not None else WorkloadInput()
    if gang is not None:
        given = given.model_copy(
            update={"policy": PolicyInput(pod_group_data=gang_data(gang), path_elements=["schedulingPolicy"])}
        )
    return WorkloadItem(name=name, path=path, input=given, children=list(children), **fields)


def assert_field_errors(errors: Iterable[FieldError], expected: list[tuple[ErrorType, str]]) -> None:
    """Assert the exact list of (type, field) pairs, in order."""
    assert [(e.type, e.field) for e in errors] == expected
