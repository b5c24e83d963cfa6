"""The strict decoder's pydantic fast path decodes exactly what the full decoder does, problems included.

``decode`` hands a plain dict to pydantic when its plan says pydantic is as
strict as the full decoder; a ``dict`` subclass always takes the full
decoder, so comparing the two on the same data checks the fast path.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kubernetes.client import V1alpha3WorkloadPodGroupResourceClaim, V1alpha3WorkloadPodGroupSchedulingPolicy
from pydantic import BaseModel

from workloadbuilder.decode import decode
from workloadbuilder.tree import BLOCK_MODELS

MODELS = sorted(set(BLOCK_MODELS.values()), key=lambda cls: cls.__name__)
KEYS = (
    "basic", "gang", "minCount", "min_count", "minGroupCount", "min_group_count", "topology", "key",
    "single", "all", "name", "resourceClaimName", "resource_claim_name", "resourceClaimTemplateName", "x",
)  # fmt: skip
SCALARS = st.none() | st.booleans() | st.integers(-(2**33), 2**33) | st.sampled_from(["", "a", "zone"]) | st.just(1.0)
JSON = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)
)


class _Slow(dict[str, Any]):
    """A dict the fast path does not take."""


def _slow(value: Any) -> Any:
    if isinstance(value, dict):
        return _Slow({key: _slow(item) for key, item in value.items()})
    if isinstance(value, list):
        return [_slow(item) for item in value]
    return value


def _shape(result: tuple[BaseModel | None, list[Any]]) -> tuple[str, str, list[Any]]:
    """The decoded model's class and full dump (field order and nulls included), and the problems."""
    model, problems = result
    dump = "" if model is None else json.dumps(model.model_dump(by_alias=True), default=repr)
    return type(model).__name__, dump, problems


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(MODELS), st.dictionaries(st.sampled_from(KEYS), JSON, max_size=4))
def test_fast_path_decodes_as_the_full_decoder(model: type[BaseModel], data: dict[str, Any]):
    assert _shape(decode(model, data)) == _shape(decode(model, _slow(data)))


@pytest.mark.parametrize(
    ("model", "data"),
    [
        (V1alpha3WorkloadPodGroupSchedulingPolicy, {"gang": {"minCount": 4}}),
        (V1alpha3WorkloadPodGroupSchedulingPolicy, {"gang": {"min_count": 4}}),
        (V1alpha3WorkloadPodGroupSchedulingPolicy, {"basic": {"x": 1}}),
        (V1alpha3WorkloadPodGroupSchedulingPolicy, {"gang": {"minCount": 2**31}}),
        (V1alpha3WorkloadPodGroupSchedulingPolicy, {"gang": {"minCount": True}}),
        (V1alpha3WorkloadPodGroupSchedulingPolicy, {"gang": None, "basic": {}}),
        (BLOCK_MODELS[("constraints", False)], {"topology": [None, {"key": "zone"}]}),
        (BLOCK_MODELS[("constraints", False)], {"topology": [{}]}),
        (V1alpha3WorkloadPodGroupResourceClaim, {"resourceClaimName": "c"}),
    ],
    ids=[
        "valid",
        "snake-case-key",
        "key-inside-empty-struct",
        "beyond-int32",
        "bool-for-int",
        "explicit-null",
        "null-list-element",
        "missing-required-in-list",
        "missing-required",
    ],
)
def test_fast_path_edges(model: type[BaseModel], data: dict[str, Any]):
    assert _shape(decode(model, data)) == _shape(decode(model, _slow(data)))
