"""Properties of the strict field check: one typo anywhere in a real manifest is one error at its full path."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workloadbuilder.adapters._shared.strict import has_schema, schema_errors
from workloadbuilder.field import FieldPath, extend_path, index_path

UPSTREAM = Path(__file__).resolve().parents[1] / "data" / "upstream"
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _objects() -> list[dict[str, Any]]:
    found = []
    for path in sorted(UPSTREAM.rglob("*.yaml")):
        try:
            docs = list(yaml.safe_load_all(path.read_text()))
        except yaml.YAMLError:
            continue  # the corpus keeps a few files that are not YAML (the verdict table says so)
        found.extend(doc for doc in docs if isinstance(doc, dict) and has_schema(doc) and schema_errors(doc) == [])
    return found


OBJECTS = _objects()


def _object_nodes(node: Any, path: FieldPath | None) -> Iterator[tuple[FieldPath | None, dict[str, Any]]]:
    """Every JSON object of a manifest with its path, except free-form ones (labels, annotations, resources)."""
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            if key not in ("labels", "annotations", "requests", "limits", "nodeSelector", "data", "env"):
                yield from _object_nodes(value, extend_path(path, [key]))
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _object_nodes(item, index_path(path, i))


@SETTINGS
@given(st.data())
def test_one_unknown_field_is_one_error_at_its_path(data: st.DataObject):
    obj = copy.deepcopy(data.draw(st.sampled_from(OBJECTS)))
    nodes = [
        (path, node)
        for path, node in _object_nodes(obj, None)
        if path is not None and "schedulingGroup" not in str(path)
    ]
    path, node = data.draw(st.sampled_from(nodes))
    node["zzTypo"] = 1
    errors = [str(err) for err in schema_errors(obj)]
    in_a_map = len(errors) == 1 and errors[0].startswith(f"{path}[zzTypo]: Invalid value: 1: must be of type")
    assert in_a_map or errors in (
        [f"{extend_path(path, ['zzTypo'])}: unknown field"],
        [],  # a node the schema leaves open (x-kubernetes-preserve-unknown-fields, a design's scheduling field)
    )


@SETTINGS
@given(st.data())
def test_a_string_where_an_integer_goes_is_a_type_error(data: st.DataObject):
    obj = copy.deepcopy(data.draw(st.sampled_from(OBJECTS)))
    ints = [
        (path, node, key)
        for path, node in _object_nodes(obj, None)
        for key, value in node.items()
        if isinstance(value, int) and not isinstance(value, bool) and key not in ("port", "targetPort", "containerPort")
    ]
    if not ints:
        return
    path, node, key = data.draw(st.sampled_from(ints))
    node[key] = str(node[key])
    where = extend_path(path, [key])
    assert [str(err) for err in schema_errors(obj)] in (
        [f'{where}: Invalid value: "{node[key]}": must be of type integer'],
        [f'{where}: Invalid value: "{node[key]}": must be of type number'],
        [],  # an int-or-string field, or one left open
    )
