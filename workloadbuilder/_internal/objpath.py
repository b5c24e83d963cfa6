"""Reaching into a Kubernetes object, dict or client model alike, by its JSON field path.

Controllers hold their objects as parsed YAML (dicts) or as kubernetes client
models; delegation and pod stamping must work on both. A location is given
as a ``FieldPath`` (``spec.replicatedJobs[0].template``) or as a JSONPath
(``$.spec.replicatedJobs[0].template``), always in the JSON (camelCase)
spelling, and must name exactly one place: fields and list indexes only.
"""

from __future__ import annotations

import threading
from collections.abc import MutableMapping, Sequence
from functools import lru_cache
from typing import Any

from jsonpath_ng import jsonpath
from jsonpath_ng.parser import JsonPathParser
from kubernetes.client import V1ObjectMeta
from pydantic import BaseModel

from workloadbuilder._internal.gofmt import go_quote
from workloadbuilder.errors import BuildError
from workloadbuilder.field import FieldPath, extend_path, index_path

__all__ = ["Location", "annotations_of", "elements_of", "field_path_of", "get_in", "json_field", "writable_annotations"]

Location = FieldPath | str | jsonpath.JSONPath
"""Where something sits inside an object: a ``FieldPath``, a JSONPath string or a parsed JSONPath."""

Element = str | int


def elements_of(location: Location) -> tuple[Element, ...]:
    """The field names and list indexes a location is made of.

    Raises:
        BuildError: a JSONPath that does not parse or may name more than one
            place (wildcards, slices, filters, unions, descendants).
    """
    if isinstance(location, FieldPath):
        return location.elements()
    if isinstance(location, str):
        return _string_elements(location)
    return tuple(_jsonpath_elements(location, str(location)))


@lru_cache(maxsize=1024)
def _string_elements(location: str) -> tuple[Element, ...]:
    """``elements_of`` for a JSONPath string, parsed once: every pod of a controller names the same template path."""
    try:
        expression = _parser().parse(location)
    except Exception as err:  # jsonpath-ng raises plain Exceptions for syntax errors
        raise BuildError(f"invalid JSONPath {go_quote(location)}: {err}") from err
    return tuple(_jsonpath_elements(expression, location))


_PARSERS = threading.local()


def _parser() -> JsonPathParser:
    """This thread's JSONPath parser: jsonpath-ng's ``parse`` builds its LALR tables again on every call (tens of
    milliseconds), and one parser keeps its state while it parses, so each thread keeps its own."""
    parser: JsonPathParser | None = getattr(_PARSERS, "parser", None)
    if parser is None:
        parser = _PARSERS.parser = JsonPathParser()
    return parser


def _jsonpath_elements(node: Any, text: str) -> list[Element]:
    if isinstance(node, (jsonpath.Root, jsonpath.This)):
        return []
    if isinstance(node, jsonpath.Child):
        return _jsonpath_elements(node.left, text) + _jsonpath_elements(node.right, text)
    if isinstance(node, jsonpath.Fields) and len(node.fields) == 1 and node.fields[0] != "*":
        return [node.fields[0]]
    if isinstance(node, jsonpath.Index):
        indices = getattr(node, "indices", None) or (getattr(node, "index", None),)
        if len(indices) == 1 and isinstance(indices[0], int) and indices[0] >= 0:
            return [indices[0]]
    raise BuildError(f"JSONPath {go_quote(text)} must name one place: use field names and non-negative indexes only")


def field_path_of(elements: Sequence[Element]) -> FieldPath | None:
    """The elements as a ``FieldPath`` for error messages; ``None`` for the object itself."""
    path: FieldPath | None = None
    for element in elements:
        path = index_path(path, element) if isinstance(element, int) else extend_path(path, [element])
    return path


def json_field(model: BaseModel, name: str) -> str | None:
    """The attribute of a client model that holds the JSON field ``name``, if the model has one."""
    for attr, info in type(model).model_fields.items():
        if (info.serialization_alias or info.alias or attr) == name:
            return attr
    return None


_MISSING = object()


def _step(node: Any, element: Element) -> Any:
    if isinstance(element, int):
        if isinstance(node, list) and element < len(node):
            return node[element]
        return _MISSING
    if isinstance(node, MutableMapping):
        return node.get(element, _MISSING)
    if isinstance(node, BaseModel):
        attr = json_field(node, element)
        return getattr(node, attr) if attr is not None else _MISSING
    return _MISSING


def get_in(obj: Any, elements: Sequence[Element]) -> Any:
    """The value at ``elements`` inside ``obj``.

    Raises:
        BuildError: nothing is there (a missing field, an index past the end, ``null``).
    """
    node = obj
    for depth, element in enumerate(elements):
        node = _step(node, element)
        if node is _MISSING or node is None:
            where = field_path_of(elements[: depth + 1])
            raise BuildError(f"nothing at {where} in the given {_kind_of(obj)}")
    return node


def _kind_of(obj: Any) -> str:
    kind = obj.get("kind") if isinstance(obj, MutableMapping) else getattr(obj, "kind", None)
    return kind if isinstance(kind, str) and kind else type(obj).__name__


def annotations_of(obj: Any) -> dict[str, str]:
    """The object's annotations, read only (empty when it has none).

    Only string values are kept: Kubernetes' annotations are strings, and
    the object's own validation reports any other value at its path.
    """
    if isinstance(obj, MutableMapping):
        metadata = obj.get("metadata")
        annotations = metadata.get("annotations") if isinstance(metadata, MutableMapping) else None
    else:
        metadata = getattr(obj, "metadata", None)
        annotations = getattr(metadata, "annotations", None)
    if not isinstance(annotations, MutableMapping):
        return {}
    return {key: value for key, value in annotations.items() if isinstance(key, str) and isinstance(value, str)}


def writable_annotations(obj: Any) -> MutableMapping[str, str]:
    """The object's own annotations mapping, created if missing, for changing in place.

    Raises:
        BuildError: the object has no ``metadata`` to hold annotations.
    """
    if isinstance(obj, MutableMapping):
        metadata = obj.setdefault("metadata", {})
        if not isinstance(metadata, MutableMapping):
            raise BuildError(f"metadata of the given {_kind_of(obj)} is not an object")
        annotations = metadata.get("annotations")
        if annotations is None:
            annotations = metadata["annotations"] = {}
        return annotations
    if not isinstance(obj, BaseModel) or json_field(obj, "metadata") is None:
        raise BuildError(f"a {type(obj).__name__} has no metadata to annotate")
    model: Any = obj  # a client model with metadata, as checked above
    if model.metadata is None:
        model.metadata = V1ObjectMeta()
    if model.metadata.annotations is None:
        model.metadata.annotations = {}
    annotations_of_model: MutableMapping[str, str] = model.metadata.annotations
    return annotations_of_model
