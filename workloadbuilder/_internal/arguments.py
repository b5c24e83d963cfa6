"""One check of a public argument's type, worded one way: ``place(): timeout must be a number, not str``.

Every public function and class refuses an argument of the wrong type with a
``TypeError`` that names itself and the parameter, before any work, so that a
wrong type never surfaces later as an ``AttributeError`` or a ``KeyError`` deep
inside. ``check_type`` is that check; ``check_items`` checks each item of a
sequence (``findings[2] must be a Finding, not int``); ``type_error`` builds the
same message for a check the two cannot express (a protocol, a value's shape).

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

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

__all__ = [
    "MAPPING",
    "NUMBER",
    "SEQUENCE",
    "Expected",
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
