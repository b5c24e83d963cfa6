"""A container's ``resources`` as the apiserver judges them (``adapters._shared.pod_resources``)."""

from __future__ import annotations

import pytest

from workloadbuilder import FieldPath
from workloadbuilder.adapters._shared.pod_resources import canonical_quantity, resource_requirements_errors

AT = FieldPath("spec", "containers").index(0).child("resources")


@pytest.mark.parametrize(
    ("text", "shown"),
    [("2000m", "2"), ("1024Mi", "1Gi"), ("0.5", "500m"), ("1e3", "1e3"), ("100M", "100M")],
    ids=["millis-to-whole", "binary-carried-up", "fraction-to-millis", "exponent-kept", "decimal-kept"],
)
def test_a_quantity_is_written_as_go_writes_it(text: str, shown: str) -> None:
    assert canonical_quantity(text) == shown


def texts(resources: object) -> list[str]:
    return [str(error) for error in resource_requirements_errors(resources, AT)]


def test_a_request_above_its_limit_is_refused_with_the_limit_in_go_form() -> None:
    assert texts({"requests": {"cpu": "2"}, "limits": {"cpu": "1000m"}}) == [
        'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'
    ]


def test_an_extended_resource_request_needs_a_limit() -> None:
    assert texts({"requests": {"example.com/gpu": "1"}}) == [
        "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources"
    ]


def test_a_negative_amount_is_refused_at_its_key() -> None:
    assert texts({"limits": {"cpu": "-1"}}) == [
        'spec.containers[0].resources.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0'
    ]


def test_requests_within_limits_are_accepted() -> None:
    assert texts({"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}) == []
