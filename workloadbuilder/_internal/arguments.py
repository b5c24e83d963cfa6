"""One check of a public argument's type, worded one way: ``place(): timeout must be a number, not str``.

Every public function and class refuses an argument of the wrong type with a
``TypeError`` that names itself and the parameter, before any work, so that a
wrong type never surfaces later as an ``AttributeError`` or a ``KeyError`` deep
inside. ``check_type`` is that check; ``check_items`` checks each item of a
sequence (``findings[2] must be a Finding, not int``); ``check_fields`` checks
a dataclass's fields against their annotations' outer classes (a record's
``__post_init__`` calls it); ``type_error`` builds the same message for a check
they cannot express (a protocol, a value's shape).

A ``bool`` is an ``int`` to Python but never to these checks: it passes only
where ``bool`` itself is expected (``check_type("place", "timeout", True,
NUMBER)`` fails), as the Kubernetes API refuses ``true`` for a count.

The checks cost one ``isinstance`` and a call on the path that passes (about
0.15 µs an argument). Pydantic's ``validate_call`` was measured in their
place: its cost on ``place`` is small (2.4 µs a call against 0.7 µs for these
checks, beside 600 µs for the smallest placement), but it refuses with a
``ValidationError`` (a ``ValueError``) in its own multi-line wording, copies
every ``Sequence`` it is given (470 µs for 10,000 items), turns an
``Iterable`` into a lazy iterator and a ``Mapping`` into a dict: a change of
behaviour the checks here do not make.
"""

from __future__ import annotations

import dataclasses
import numbers
import sys
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

__all__ = [
    "MAPPING",
    "NUMBER",
    "SEQUENCE",
    "Expected",
    "check_fields",
    "check_items",
    "check_sequence",
    "check_type",
    "describe",
    "type_error",
]

Expected = type | tuple[type, ...]
"""What ``isinstance`` takes: one class, or a tuple of classes (``type(None)`` for ``None``)."""

NUMBER: Final = (int, float)
"""A number (never a bool): what a timeout or a count of seconds may be."""

MAPPING: Final = (Mapping,)
SEQUENCE: Final = (Sequence,)

_NAMES: Final = {
    bool: "a bool",
    int: "an int",
    float: "a number",
    str: "a str",
    bytes: "bytes",
    type(None): "None",
    Mapping: "a mapping",
    dict: "a dict",
    Sequence: "a sequence",
    list: "a list",
    tuple: "a tuple",
    Iterable: "an iterable",
}


def describe(expected: Expected) -> str:
    """What ``expected`` reads as in a message: ``a str``, ``an int or None``, ``a number`` for ``NUMBER``."""
    classes = expected if isinstance(expected, tuple) else (expected,)
    classes = tuple(c for c in classes if c not in (numbers.Integral, numbers.Real))
    if int in classes and float in classes:
        classes = tuple(c for c in classes if c is not int)
    words = [_NAMES.get(c) or _article(c.__name__) for c in classes]
    if len(words) <= 2:
        return " or ".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


def _article(name: str) -> str:
    return ("an " if name[:1] in "AEIOU" else "a ") + name


def type_error(function: str, parameter: str, value: object, what: str) -> TypeError:
    """The one message: ``<function>(): <parameter> must be <what>, not <type of value>``."""
    return TypeError(f"{function}(): {parameter} must be {what}, not {type(value).__name__}")


def _accepts(value: object, expected: Expected) -> bool:
    if not isinstance(value, expected):
        return False
    if value.__class__ is not bool:
        return True
    return expected is bool or (isinstance(expected, tuple) and bool in expected)


def check_type(function: str, parameter: str, value: object, expected: Expected, what: str | None = None) -> None:
    """Refuse ``value`` unless it is an instance of ``expected`` (a bool only where ``bool`` is expected).

    Args:
        function: the public name the caller knows (``place``, ``Cluster.from_yaml``).
        parameter: the parameter's name, or a path into it (``workloads[3].count``).
        value: the argument.
        expected: a class or a tuple of classes.
        what: the words for ``expected`` (``a number of seconds``); ``describe(expected)`` when not given.

    Raises:
        TypeError: ``<function>(): <parameter> must be <what>, not <type>``.

    Examples:
        >>> check_type("place", "strategy", "complete", str)
        >>> check_type("place", "timeout", "5", NUMBER)
        Traceback (most recent call last):
        ...
        TypeError: place(): timeout must be a number, not str
        >>> check_type("simulate", "seed", True, int)
        Traceback (most recent call last):
        ...
        TypeError: simulate(): seed must be an int, not bool
    """
    if isinstance(value, expected) and (value.__class__ is not bool or _accepts(value, expected)):
        return
    raise type_error(function, parameter, value, what or describe(expected))


def check_sequence(function: str, parameter: str, value: object, what: str) -> None:
    """Refuse ``value`` unless it is a sequence that is not a str or bytes (``"abc"`` is no list of names)."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise type_error(function, parameter, value, what)


def check_items(
    function: str, parameter: str, values: Iterable[object], expected: Expected, what: str | None = None
) -> None:
    """Refuse the first item of ``values`` that is not an ``expected``, at ``<parameter>[<index>]``.

    Examples:
        >>> check_items("PlanError", "findings", [1], str, "a Finding")
        Traceback (most recent call last):
        ...
        TypeError: PlanError(): findings[0] must be a Finding, not int
    """
    for i, value in enumerate(values):
        if not _accepts(value, expected):
            raise type_error(function, f"{parameter}[{i}]", value, what or describe(expected))


_ANY: Final = object()


def _outer(hint: Any) -> tuple[type, ...] | object:
    """The classes an annotation's values are instances of (``list[int] | None`` -> list, NoneType); ``_ANY``
    for one any value satisfies (``Any``, ``object``, a type variable, what cannot be told from outside).

    ``int`` also takes numpy's integers (``numbers.Integral``) and ``float`` any real number, as typing does.
    """
    origin = typing.get_origin(hint)
    if origin is typing.Annotated:
        return _outer(typing.get_args(hint)[0])
    if origin is typing.Union or origin is types.UnionType:
        found: list[type] = []
        for arg in typing.get_args(hint):
            classes = _outer(arg)
            if not isinstance(classes, tuple):
                return _ANY
            found.extend(c for c in classes if c not in found)
        return tuple(found)
    if origin is typing.Literal:
        return tuple(dict.fromkeys(type(arg) for arg in typing.get_args(hint)))
    if hint is None or hint is type(None):
        return (type(None),)
    if origin is not None:
        hint = origin
    if hint is object or hint is Any or not isinstance(hint, type):
        return _ANY
    if hint is int:
        return (int, numbers.Integral)
    if hint is float:
        return (float, int, numbers.Real)
    return (hint,)


_FIELDS: dict[type, tuple[tuple[str, tuple[type, ...], str], ...]] = {}


def _field_checks(cls: type) -> tuple[tuple[str, tuple[type, ...], str], ...]:
    checks = _FIELDS.get(cls)
    if checks is not None:
        return checks
    try:
        resolved = typing.get_type_hints(cls)  # each field in the module of the class that declares it
    except NameError:
        resolved = {}
    module = vars(sys.modules[cls.__module__])
    found = []
    for field in dataclasses.fields(cls):
        if not field.init:
            continue
        hint = resolved.get(field.name, field.type)
        if isinstance(hint, str):
            try:
                hint = eval(hint, module, dict(vars(cls)))  # the class's own annotation
            except NameError:  # a name imported for type checking only: not checked
                continue
        classes = _outer(hint)
        if isinstance(classes, tuple):
            found.append((field.name, classes, describe(classes)))
    checks = _FIELDS[cls] = tuple(found)
    return checks


def check_fields(instance: object) -> None:
    """Refuse a dataclass whose init field holds a value its annotation's outer classes do not take.

    Only the outer class is checked (``list`` for ``list[PodPlacement]``), once per record; fields annotated
    ``Any`` or ``object`` take anything.

    Examples:
        >>> @dataclasses.dataclass(frozen=True)
        ... class Taint:
        ...     key: str
        ...     value: str | None = None
        ...     def __post_init__(self) -> None:
        ...         check_fields(self)
        >>> Taint("dedicated", 1.5)
        Traceback (most recent call last):
        ...
        TypeError: Taint(): value must be a str or None, not float
    """
    cls = type(instance)
    for name, expected, what in _field_checks(cls):
        value = getattr(instance, name)
        if isinstance(value, expected) and (value.__class__ is not bool or _accepts(value, expected)):
            continue
        raise type_error(cls.__name__, name, value, what)
