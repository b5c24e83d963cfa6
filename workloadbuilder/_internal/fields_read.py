"""Reading one nested field of a JSON-shaped object with the type it must have: a value, or a field error.

The one way every reader of user objects (adapters, delegation, migration,
placement, the CRD mapping) takes a value out of parsed YAML. A missing or
``null`` value is ``None``; a value of the wrong type, or a non-object on
the way to it, is ``<path>: Invalid value: ...: must be of type <type>`` at
its own path, in the strict decoder's words; a count above its bound is
``must be less than or equal to <bound>``. Nothing here raises for bad input.

Examples:
    >>> from workloadbuilder.field import ErrorList
    >>> errors = ErrorList()
    >>> read_field({"metadata": "oops"}, ("metadata", "name"), "string", errors), [str(e) for e in errors]
    (None, ['metadata: Invalid value: "oops": must be of type object'])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from workloadbuilder.field import (
    ErrorList,
    FieldError,
    FieldPath,
    Where,
    extend_path,
    index_path,
    invalid,
    resolve_where,
    type_invalid,
)
from workloadbuilder.limits import INT32_MAX

__all__ = ["JsonType", "read_count", "read_field", "read_list", "read_object", "read_string", "type_error"]

JsonType = Literal["string", "integer", "boolean", "object", "array", "number"]
"""A JSON type, as the strict decoder names it in ``must be of type ...``."""

Element = str | int


def _has_type(value: Any, expected: JsonType) -> bool:
    if expected == "string":
        return isinstance(value, str)
    if expected == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if expected == "boolean":
        return isinstance(value, bool)
    if expected == "object":
        return isinstance(value, Mapping)
    if expected == "array":
        return isinstance(value, list)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def type_error(path: FieldPath | None, value: Any, expected: JsonType) -> FieldError:
    """``<path>: Invalid value: <value>: must be of type <expected>``."""
    return type_invalid(path, value, f"must be of type {expected}")


def read_list(raw: Any, where: Where, errors: ErrorList) -> list[Any]:
    """``raw`` when it is a list; ``[]`` when it is ``null`` or absent, or (reported at ``where``) of another type."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        errors.append(type_error(resolve_where(where), raw, "array"))
        return []
    return raw


def read_string(raw: Any, where: Where, errors: ErrorList) -> str:
    """``raw`` when it is a string; ``""`` when it is ``null`` or absent, or (reported at ``where``) of another type."""
    if raw is None:
        return ""
    if not isinstance(raw, str):
        errors.append(type_error(resolve_where(where), raw, "string"))
        return ""
    return raw


def read_object(raw: Any, where: Where, errors: ErrorList) -> Mapping[str, Any]:
    """``raw`` when it is a mapping; ``{}`` when it is ``null`` or absent, or (reported at ``where``) another type."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        errors.append(type_error(resolve_where(where), raw, "object"))
        return {}
    return raw


def read_field(
    obj: Any, elements: Sequence[Element], expected: JsonType, errors: ErrorList, base: FieldPath | None = None
) -> Any:
    """The value at ``elements`` inside ``obj`` when it is of type ``expected``; otherwise ``None``.

    Args:
        obj: a JSON-shaped object (dicts, lists, scalars).
        elements: field names and list indexes from ``obj`` to the value.
        expected: the JSON type the value must have.
        errors: receives one error when the value, or a container on the way
            to it, has the wrong type (an index past a list's end is absent).
        base: where ``obj`` itself sits, for the error paths.
    """
    node, path = obj, base
    for element in elements:
        if isinstance(element, int):
            if not isinstance(node, list):
                errors.append(type_error(path, node, "array"))
                return None
            if element >= len(node):
                return None
            node, path = node[element], index_path(path, element)
        else:
            if not isinstance(node, Mapping):
                errors.append(type_error(path, node, "object"))
                return None
            node, path = node.get(element), extend_path(path, [element])
        if node is None:
            return None
    if not _has_type(node, expected):
        errors.append(type_error(path, node, expected))
        return None
    return node


def read_count(
    obj: Any,
    elements: Sequence[Element],
    errors: ErrorList,
    minimum: int | None = None,
    maximum: int = INT32_MAX,
    base: FieldPath | None = None,
    why: str = "",
) -> int | None:
    """The integer at ``elements`` when it is one within ``[minimum, maximum]``; otherwise ``None``.

    Args:
        obj: the object to read.
        elements: where the integer is.
        errors: receives ``must be of type integer``, Kubernetes'
            ``must be greater than or equal to <minimum>`` and
            ``must be less than or equal to <maximum>`` (with ``why`` after it).
        minimum: the smallest valid value, if any.
        maximum: the largest (an ``int32`` by default: every count of the
            controllers' APIs is one).
        base: where ``obj`` itself sits, for the error paths.
        why: what the maximum is (``: the engine's bound for pods``), appended to its message.
    """
    value = read_field(obj, elements, "integer", errors, base)
    if value is None:
        return None
    path = base
    for element in elements:
        path = index_path(path, element) if isinstance(element, int) else extend_path(path, [element])
    if minimum is not None and value < minimum:
        errors.append(invalid(path, value, f"must be greater than or equal to {minimum}"))
        return None
    if value > maximum:
        errors.append(invalid(path, value, f"must be less than or equal to {maximum}{why}"))
        return None
    return int(value)
