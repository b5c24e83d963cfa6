"""Strict decoding of Kubernetes JSON (parsed YAML) into client models.

The kubernetes client's ``from_dict`` drops unknown fields without a word and
accepts snake_case keys; the apiserver does neither. This decoder walks a dict
against a model's declared fields, accepts only the JSON (camelCase) names,
and reports every unknown field and wrong type as a field error at its path:
an unknown field as the API server's strict decoding words it
(``spec.podGroupTemplates[0].minCont: unknown field``), a wrong type as
``Invalid value``.
Missing or null fields decode to Go's zero value (``""``, ``0``, empty), so
required-field checks report them the way the apiserver would.

A plain dict that needs none of this (only JSON names, strictly typed values,
nothing to zero-fill) is handed to pydantic's own validation, several times
faster; the decoder walks only what pydantic cannot be trusted with.
"""

from __future__ import annotations

import datetime
import functools
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard, TypeVar

from pydantic import BaseModel

from workloadbuilder.field import (
    ErrorList,
    ErrorType,
    FieldError,
    FieldPath,
    extend_path,
    index_path,
    key_path,
    type_invalid,
)

__all__ = [
    "DecodeProblem",
    "MapKey",
    "StrictDecodingError",
    "as_model",
    "decode",
    "duplicate_field",
    "errors_at",
    "is_int",
    "json_attributes",
    "to_json_dict",
    "unknown_field",
]

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_INT64_CLASSES = frozenset({"V1ObjectMeta"})  # the few int64 fields we decode live here
# The client types these union members (Go empty structs) as free-form objects;
# every other free-form object (fieldsV1, say) really is free-form JSON.
_EMPTY_STRUCT_MEMBERS = frozenset({"basic", "single", "all"})


def is_int(value: object) -> TypeGuard[int]:
    """Whether ``value`` is a JSON integer: an ``int`` and not a ``bool`` (Python's ``True`` is an ``int``).

    Examples:
        >>> [is_int(v) for v in (3, -1, True, 3.0, "3", None)]
        [True, True, False, False, False, False]
    """
    return isinstance(value, int) and not isinstance(value, bool)


class StrictDecodingError(FieldError):
    """A field the API server refuses while decoding, before any validation: ``<path>: unknown field``.

    The server says ``strict decoding error: unknown field "<path>"`` (or
    ``duplicate field``); this is that error at its path, in ``kubectl``'s
    ``field: problem`` form. Its ``type`` is ``Forbidden`` for an unknown field
    and ``Duplicate`` for a repeated key, so code that sorts errors by type
    needs no new case.
    """

    __slots__ = ()

    def error_body(self) -> str:
        """The strict decoder's words alone, without a type text."""
        return self.detail


def unknown_field(path: FieldPath | None) -> StrictDecodingError:
    """``<path>: unknown field``: the schema does not declare the field."""
    return StrictDecodingError(ErrorType.FORBIDDEN, path, "", "unknown field")


def duplicate_field(path: FieldPath | None) -> StrictDecodingError:
    """``<path>: duplicate field``: the same key twice in one object."""
    return StrictDecodingError(ErrorType.DUPLICATE, path, "", "duplicate field")


class MapKey(str):
    """A map key in a problem's location: rendered ``[key]``, not ``.key``, as Go's ``Path.Key`` does."""


@dataclass(frozen=True)
class DecodeProblem:
    """One decoding failure, located relative to the decoded value."""

    kind: str  # "unknown" or "type"
    loc: tuple[str | int, ...]
    value: Any = None
    expected: str = ""

    def at(self, base: FieldPath | None) -> FieldError:
        """The problem as a field error below ``base``."""
        path = base
        for element in self.loc:
            if isinstance(element, int):
                path = index_path(path, element)
            elif isinstance(element, MapKey):
                path = key_path(path, element)
            else:
                path = extend_path(path, [element])
        if self.kind == "unknown":
            return unknown_field(path)
        return type_invalid(path, self.value, f"must be of type {self.expected}")


def errors_at(base: FieldPath | None, problems: list[DecodeProblem]) -> ErrorList:
    """Render decode problems as field errors below ``base``."""
    return ErrorList(problem.at(base) for problem in problems)


@dataclass(frozen=True)
class _FieldSpec:
    attr: str
    shape: tuple[Any, ...]  # ("int",) ("str",) ("bool",) ("marker",) ("map", shape) ("list", shape) ("model", cls)
    optional: bool


def decode(cls: type[BaseModel], data: Any) -> tuple[BaseModel | None, list[DecodeProblem]]:
    """Decode ``data`` into ``cls``.

    Args:
        cls: a kubernetes client model or one of our building-block models.
        data: a dict in Kubernetes JSON spelling, an instance of ``cls`` (kept
            as is), or any other pydantic model (re-read from its JSON form).

    Returns:
        The decoded model, or ``None`` with the problems found.
    """
    if type(data) is not dict:  # a plain dict, the usual case, skips the class checks (each an ABC check)
        if isinstance(data, cls):
            return data, []
        if isinstance(data, BaseModel):
            data = to_json_dict(data)
    fast = _fast_decode(cls, data)
    if fast is not None:
        return fast, []
    problems: list[DecodeProblem] = []
    value = _decode_shape(("model", cls), data, (), problems, cls.__name__)
    return (None, problems) if problems else (value, [])


def decode_known(cls: type[BaseModel], data: Any) -> BaseModel | None:
    """``data``'s known fields as a ``cls``, its unknown fields dropped; ``None`` when a known field has a wrong type.

    For a value that was accepted before (an old building block on update): a
    Go struct never holds unknown fields, so what ratchets is what the struct
    would have held.
    """
    if isinstance(data, cls):
        return data
    if isinstance(data, BaseModel):
        data = to_json_dict(data)
    problems: list[DecodeProblem] = []
    value = _decode_shape(("model", cls), data, (), problems, cls.__name__)
    return None if any(problem.kind != "unknown" for problem in problems) else value


_M = TypeVar("_M", bound=BaseModel)


def as_model(cls: type[_M], value: _M | dict[str, Any]) -> _M:
    """``value`` as a ``cls`` client model; a Kubernetes JSON dict is decoded strictly.

    For the controller's own objects (a Workload, a PodGroup) handed over as
    dicts: they are not user input, so a dict that does not decode raises.

    Raises:
        AggregateError: an unknown field or a wrong type, each at its path inside the object.
    """
    if isinstance(value, cls):
        return value
    decoded, problems = decode(cls, value)
    if problems:
        errors_at(None, problems).raise_if_any()
    return decoded  # type: ignore[return-value]


def to_json_dict(model: BaseModel) -> dict[str, Any]:
    """A model as a Kubernetes JSON dict: camelCase keys, unset fields left out."""
    to_dict = getattr(model, "to_dict", None)
    if callable(to_dict) and hasattr(type(model), "openapi_types") and not _dumps_as_json(type(model)):
        data: dict[str, Any] = _drop_none(to_dict(serialize=True))
        return data
    return model.model_dump(by_alias=True, exclude_none=True)


@functools.cache
def json_attributes(cls: type[BaseModel]) -> dict[str, str]:
    """The attribute name of each field of ``cls``, by its JSON (camelCase) name, in field order."""
    return {json_name: spec.attr for json_name, spec in _field_specs(cls).items()}


@functools.cache
def _dumps_as_json(cls: type[BaseModel]) -> bool:
    """Whether pydantic's dump of ``cls`` is its Kubernetes JSON: no timestamps and no free-form JSON inside.

    The client's own ``to_dict`` is needed for timestamps and free-form
    values; pydantic's dump is several times faster for the rest (the
    building blocks and templates, say).
    """
    return _plain(("model", cls), set())


def _plain(shape: tuple[Any, ...], seen: set[type[BaseModel]]) -> bool:
    kind = shape[0]
    if kind in ("int", "str", "bool", "marker"):
        return True
    if kind in ("list", "map"):
        return _plain(shape[1], seen)
    if kind != "model":
        return False
    cls = shape[1]
    if cls in seen:  # a model that holds itself (composite templates): its other fields decide
        return True
    seen.add(cls)
    try:
        specs = _field_specs(cls)
    except TypeError:
        return False
    return all(_plain(spec.shape, seen) for spec in specs.values())


class _Plan:
    """What pydantic's validation of one model class leaves for the strict decoder to check in a dict.

    The client models forbid extra fields and type their scalars strictly,
    so a dict pydantic accepts is one the strict decoder accepts too, save
    for three things pydantic lets through: snake_case keys (its aliases
    include the Python names), keys inside an empty struct (``basic: {}``),
    and integers beyond int32. ``keys`` are the JSON names; ``inner`` lists
    the fields to look into: ``(json name, kind, plan of the nested model)``.
    """

    __slots__ = ("cls", "inner", "keys")

    def __init__(self, cls: type[BaseModel], keys: frozenset[str]) -> None:
        self.cls = cls
        self.keys = keys
        self.inner: tuple[tuple[str, str, _Plan | None], ...] = ()


def _fast_decode(cls: type[BaseModel], data: Any) -> BaseModel | None:
    """``data`` decoded by pydantic when that is exactly what the strict decoder would give; ``None`` when unsure.

    For a plain dict tree of a class whose fields pydantic validates as
    strictly as ``_decode_shape`` (see ``_Plan``), pydantic's model has the
    same values in the same order; anything else (a problem, a missing field
    Go zero-fills, a null list element) falls back to the full decoder.
    """
    if type(data) is not dict:
        return None
    plan = _plan(cls)
    if plan is None or not _clean(plan, data):
        return None
    try:
        decoded: BaseModel = cls.__pydantic_validator__.validate_python(data)  # model_validate without its wrapper
        return decoded
    except ValueError:  # pydantic's ValidationError: the full decoder says what is wrong
        return None


def _clean(plan: _Plan, data: dict[Any, Any]) -> bool:
    """Whether ``data``'s keys are all JSON names, its empty structs empty and its integers int32, all the way down."""
    if not data.keys() <= plan.keys:
        return False
    for key, kind, inner in plan.inner:
        value = data.get(key)
        if value is None:
            continue
        if kind == "marker":
            if value != {}:
                return False
        elif kind == "int":
            if is_int(value) and not _INT32_MIN <= value <= _INT32_MAX:
                return False
        elif kind == "model":
            if not _clean_model(inner, value):
                return False
        elif type(value) is not list or not all(_clean_model(inner, item) for item in value):
            return False
    return True


def _clean_model(plan: _Plan | None, value: Any) -> bool:
    """A nested model given as a clean dict or as an instance of its class (kept as is by both decoders)."""
    assert plan is not None  # model fields always carry their plan
    if type(value) is dict:
        return _clean(plan, value)
    return isinstance(value, plan.cls)


@functools.cache
def _plan(cls: type[BaseModel]) -> _Plan | None:
    """The fast-path plan of ``cls``, or ``None`` when pydantic's validation of it is not strict enough."""
    return _build_plan(cls, {})


def _build_plan(cls: type[BaseModel], building: dict[type[BaseModel], _Plan]) -> _Plan | None:
    if cls in building:  # a model that holds itself
        return building[cls]
    if cls.__name__ in _INT64_CLASSES or cls.model_config.get("extra") != "forbid":
        return None
    try:
        specs = _field_specs(cls)
    except TypeError:
        return None
    plan = building[cls] = _Plan(cls, frozenset(specs))
    inner: list[tuple[str, str, _Plan | None]] = []
    for json_name, spec in specs.items():
        kind = spec.shape[0]
        if kind == "marker":
            inner.append((json_name, kind, None))
        elif kind in ("int", "str", "bool") or spec.shape == ("list", ("str",)):
            if not _strict(cls, spec.attr):
                return None
            if kind == "int":
                inner.append((json_name, kind, None))
        elif kind == "model" or (kind == "list" and spec.shape[1][0] == "model"):
            nested = _build_plan(spec.shape[1] if kind == "model" else spec.shape[1][1], building)
            if nested is None:
                return None
            inner.append((json_name, kind, nested))
        else:  # maps, free-form JSON, timestamps: left to the full decoder
            return None
    plan.inner = tuple(inner)
    return plan


def _strict(cls: type[BaseModel], attr: str) -> bool:
    """Whether pydantic validates field ``attr`` of ``cls`` in strict mode (``StrictInt``, ``StrictStr``...)."""
    info = cls.model_fields[attr]
    return any(getattr(meta, "strict", False) is True for meta in info.metadata) or "strict=True" in repr(
        info.annotation
    )


def _drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value


def _decode_shape(
    shape: tuple[Any, ...], data: Any, loc: tuple[str | int, ...], problems: list[DecodeProblem], owner: str
) -> Any:
    kind = shape[0]
    if kind == "int":
        if not is_int(data):
            problems.append(DecodeProblem("type", loc, data, "integer"))
            return None
        if owner not in _INT64_CLASSES and not _INT32_MIN <= data <= _INT32_MAX:
            problems.append(DecodeProblem("type", loc, data, "int32"))
            return None
        return data
    if kind == "str":
        if not isinstance(data, str):
            problems.append(DecodeProblem("type", loc, data, "string"))
            return None
        return data
    if kind == "bool":
        if not isinstance(data, bool):
            problems.append(DecodeProblem("type", loc, data, "boolean"))
            return None
        return data
    if kind == "time":
        return _decode_time(data, loc, problems)
    if kind == "marker":
        # An empty struct such as `basic: {}`: any key inside it is unknown.
        if not isinstance(data, Mapping):
            problems.append(DecodeProblem("type", loc, data, "object"))
            return None
        problems.extend(DecodeProblem("unknown", (*loc, str(key))) for key in data)
        return {}
    if kind == "json":
        # Free-form JSON such as managedFields' fieldsV1: any object goes.
        if not isinstance(data, Mapping):
            problems.append(DecodeProblem("type", loc, data, "object"))
            return None
        return dict(data)
    if kind == "map":
        if not isinstance(data, Mapping):
            problems.append(DecodeProblem("type", loc, data, "object"))
            return None
        return {key: _decode_shape(shape[1], item, (*loc, MapKey(key)), problems, owner) for key, item in data.items()}
    if kind == "list":
        if not isinstance(data, list):
            problems.append(DecodeProblem("type", loc, data, "array"))
            return None
        # Go decodes a null list element to the element's zero value.
        return [
            _zero(shape[1]) if item is None else _decode_shape(shape[1], item, (*loc, i), problems, owner)
            for i, item in enumerate(data)
        ]
    return _decode_model(shape[1], data, loc, problems)


def _decode_time(data: Any, loc: tuple[str | int, ...], problems: list[DecodeProblem]) -> Any:
    if isinstance(data, datetime.datetime):
        return data
    if isinstance(data, str):
        try:
            return datetime.datetime.fromisoformat(data)
        except ValueError:
            pass
    problems.append(DecodeProblem("type", loc, data, "RFC 3339 date-time"))
    return None


def _decode_model(cls: type[BaseModel], data: Any, loc: tuple[str | int, ...], problems: list[DecodeProblem]) -> Any:
    if isinstance(data, cls):
        return data
    if isinstance(data, BaseModel):
        data = to_json_dict(data)
    if not isinstance(data, Mapping):
        problems.append(DecodeProblem("type", loc, data, "object"))
        return None
    specs = _field_specs(cls)
    values: dict[str, Any] = {}
    for key, item in data.items():
        spec = specs.get(key) if isinstance(key, str) else None
        if spec is None:
            problems.append(DecodeProblem("unknown", (*loc, str(key))))
            continue
        if item is None:
            continue
        values[spec.attr] = _decode_shape(spec.shape, item, (*loc, key), problems, cls.__name__)
    for spec in _required_specs(cls):
        if values.get(spec.attr) is None:
            values[spec.attr] = _zero(spec.shape)
    return _construct(cls, values)


_NO_DEFAULT = object()


@functools.cache
def _defaults(cls: type[BaseModel]) -> dict[str, Any] | None:
    """Each field's default, in field order (``_NO_DEFAULT`` for a required one).

    ``None`` when ``model_construct`` must do the work: a default that is a
    factory or a mutable value (copied per instance), a post-init hook, extras.
    """
    if cls.__pydantic_post_init__ or cls.model_config.get("extra") == "allow" or cls.__pydantic_root_model__:
        return None
    defaults: dict[str, Any] = {}
    for name, info in cls.model_fields.items():
        if info.is_required():
            defaults[name] = _NO_DEFAULT
        elif info.default_factory is None and isinstance(info.default, str | int | float | bool | type(None)):
            defaults[name] = info.default
        else:
            return None
    return defaults


def _construct(cls: type[BaseModel], values: dict[str, Any]) -> BaseModel:
    """``cls.model_construct(**values)`` for decoded values keyed by attribute name, without its per-field overhead."""
    defaults = _defaults(cls)
    if defaults is None:
        return cls.model_construct(**values)
    fields = {
        name: values.get(name, default)
        for name, default in defaults.items()
        if default is not _NO_DEFAULT or name in values
    }
    model = cls.__new__(cls)
    object.__setattr__(model, "__dict__", fields)
    object.__setattr__(model, "__pydantic_fields_set__", set(values))
    object.__setattr__(model, "__pydantic_extra__", None)
    object.__setattr__(model, "__pydantic_private__", None)
    return model


@functools.cache
def _required_specs(cls: type[BaseModel]) -> tuple[_FieldSpec, ...]:
    """The fields Go decodes to their zero value when missing (non-pointer fields)."""
    return tuple(spec for spec in _field_specs(cls).values() if not spec.optional)


def _zero(shape: tuple[Any, ...]) -> Any:
    """Go's zero value for a required (non-pointer) field."""
    kind = shape[0]
    if kind == "int":
        return 0
    if kind == "str":
        return ""
    if kind == "bool":
        return False
    if kind == "model":
        return _decode_model(shape[1], {}, (), [])
    return None


@functools.cache
def _field_specs(cls: type[BaseModel]) -> dict[str, _FieldSpec]:
    specs = {}
    for attr, info in cls.model_fields.items():
        json_name = info.serialization_alias or info.alias or attr
        optional, shape = _shape_of(info.annotation)
        if shape == ("marker",) and json_name not in _EMPTY_STRUCT_MEMBERS:
            shape = ("json",)
        specs[json_name] = _FieldSpec(attr, shape, optional or not info.is_required())
    return specs


def _shape_of(annotation: Any) -> tuple[bool, tuple[Any, ...]]:
    optional = False
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        optional = len(args) != len(typing.get_args(annotation))
        annotation = args[0]
        origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
        origin = typing.get_origin(annotation)
    return optional, _shape(annotation, origin)


def _shape(annotation: Any, origin: Any) -> tuple[Any, ...]:
    if origin in (list, typing.List):  # noqa: UP006
        return ("list", _shape_of(typing.get_args(annotation)[0])[1])
    if origin in (dict, typing.Dict):  # noqa: UP006
        value_type = typing.get_args(annotation)[1]
        if value_type is Any:
            return ("marker",)
        return ("map", _shape_of(value_type)[1])
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return ("model", annotation)
    if annotation is bool:
        return ("bool",)
    if annotation is int:
        return ("int",)
    if annotation is str:
        return ("str",)
    if annotation is datetime.datetime:
        return ("time",)
    raise TypeError(f"workloadbuilder cannot decode fields of type {annotation!r}")
