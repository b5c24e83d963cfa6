"""The strict decoder's pydantic fast path decodes exactly what the full decoder does, problems included.

``decode`` hands a plain dict to pydantic when its plan says pydantic is as
strict as the full decoder; a ``dict`` subclass always takes the full
decoder, so comparing the two on the same data checks the fast path.
"""

from __future__ import annotations

import json
import typing
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kubernetes.client import V1alpha3WorkloadPodGroupResourceClaim, V1alpha3WorkloadPodGroupSchedulingPolicy
from pydantic import BaseModel

from workloadbuilder._internal.decode import decode
from workloadbuilder.validation.structure import BLOCK_MODELS

MODELS = sorted(set(BLOCK_MODELS.values()), key=lambda cls: cls.__name__)
KEYS = (
    "basic", "gang", "minCount", "min_count", "minGroupCount", "min_group_count", "topology", "key",
    "single", "all", "name", "resourceClaimName", "resource_claim_name", "resourceClaimTemplateName", "x",
)  # fmt: skip
SCALARS = st.none() | st.booleans() | st.integers(-(2**33), 2**33) | st.sampled_from(["", "a", "zone"]) | st.just(1.0)
JSON = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)
)


def _value(annotation: Any) -> st.SearchStrategy[Any]:
    """Mostly well-typed values for a field of this annotation, sometimes anything."""
    args = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
    origin = typing.get_origin(annotation)
    if origin is typing.Union:
        return st.none() | _value(args[0])
    if origin is typing.Annotated:
        return _value(args[0])
    if origin is list:
        return st.lists(_value(args[0]) | st.none(), max_size=2)
    if origin is dict:
        return st.just({}) | st.dictionaries(st.sampled_from(KEYS), JSON, max_size=1)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _blocks(annotation)
    if annotation is int:
        return st.integers(-(2**32), 2**32)
    if annotation is str:
        return st.sampled_from(["", "a", "zone"])
    return JSON


def _blocks(model: type[BaseModel]) -> st.SearchStrategy[dict[str, Any]]:
    """Dicts shaped like ``model``'s JSON: its JSON names (now and then a Python name) with mostly fitting values."""
    fields = {}
    for attr, info in model.model_fields.items():
        name = st.just(info.serialization_alias or attr)
        if info.serialization_alias not in (None, attr):
            name = name | st.just(attr)
        fitting = _value(info.annotation)
        fields[attr] = st.tuples(name, st.one_of(fitting, fitting, fitting, JSON))
    return st.fixed_dictionaries({}, optional=fields).map(lambda picked: dict(picked.values()))


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
def test_fast_path_decodes_any_dict_as_the_full_decoder(model: type[BaseModel], data: dict[str, Any]) -> None:
    assert _shape(decode(model, data)) == _shape(decode(model, _slow(data)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fast_path_decodes_block_shaped_dicts_as_the_full_decoder(data: st.DataObject) -> None:
    model = data.draw(st.sampled_from(MODELS))
    block = data.draw(_blocks(model))
    assert _shape(decode(model, block)) == _shape(decode(model, _slow(block)))


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
def test_fast_path_edges(model: type[BaseModel], data: dict[str, Any]) -> None:
    assert _shape(decode(model, data)) == _shape(decode(model, _slow(data)))
