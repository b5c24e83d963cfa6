"""The adapters' public entry points refuse a wrong type with a TypeError naming the function and parameter.

Each case is one a hostile-input round found raising AttributeError, RecursionError or a bare TypeError.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

from workloadbuilder.adapters import register
from workloadbuilder.adapters.base import PlanError, job_pod_count
from workloadbuilder.adapters.crd import CRDAdapter, register_mapping
from workloadbuilder.field import AggregateError


def _nested(depth: int) -> list[Any]:
    outer: list[Any] = []
    inner = outer
    for _ in range(depth):
        inner.append([])
        inner = inner[0]
    return outer


CASES = [
    pytest.param(
        lambda: CRDAdapter(1.5),  # type: ignore[arg-type]
        "CRDAdapter(): mapping must be a CRDMapping (CRDAdapter.from_yaml reads one from a file or text), not float",
        id="crd-adapter-float",
    ),
    pytest.param(
        lambda: CRDAdapter("apiVersion: x"),  # type: ignore[arg-type]
        "CRDAdapter(): mapping must be a CRDMapping (CRDAdapter.from_yaml reads one from a file or text), not str",
        id="crd-adapter-str",
    ),
    pytest.param(
        lambda: register(1.5),  # type: ignore[arg-type]
        "register(): adapter must be an Adapter (string api_version and kind, and a plan method), not float",
        id="register-float",
    ),
    pytest.param(
        lambda: register("x"),  # type: ignore[arg-type]
        "register(): adapter must be an Adapter (string api_version and kind, and a plan method), not str",
        id="register-str",
    ),
    pytest.param(
        lambda: PlanError(findings=1.5),  # type: ignore[arg-type]
        "PlanError(): findings must be a sequence of Finding, not float",
        id="plan-error-float",
    ),
    pytest.param(
        lambda: PlanError(findings=[1]),  # type: ignore[list-item]
        "PlanError(): findings[0] must be a Finding, not int",
        id="plan-error-int-item",
    ),
    pytest.param(
        lambda: register_mapping(source=defaultdict()),  # type: ignore[arg-type]
        "register_mapping(): source must be a path, YAML text or a CRDMapping, not defaultdict",
        id="register-mapping-defaultdict",
    ),
]


@pytest.mark.parametrize(("call", "message"), CASES)
def test_a_wrong_type_is_a_type_error_that_names_the_entry_point(call: Any, message: str) -> None:
    with pytest.raises(TypeError) as raised:
        call()
    assert str(raised.value) == message


def test_a_deeply_nested_job_spec_is_a_field_error_with_the_value_cut():
    with pytest.raises(AggregateError) as raised:
        job_pod_count(_nested(100_000))  # type: ignore[arg-type]
    assert str(raised.value) == "<nil>: Invalid value: " + "[" * 201 + "...: must be of type object"
