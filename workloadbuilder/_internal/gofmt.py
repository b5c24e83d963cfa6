"""How Go prints values inside field errors: ``%q`` strings, ``%v`` numbers, ``json.Marshal`` for the rest.

A field error's text embeds its bad value, and users compare our texts with
the apiserver's byte for byte, so each Go formatting rule that can show up
there is reproduced: ``strconv.Quote``, ``strconv.FormatFloat(v, 'g', -1, 64)``
(which ``%v`` uses) and ``encoding/json``'s number and string encoding.
"""

from __future__ import annotations

import bisect
import datetime
import decimal
import enum
import json
import math
import re
from collections.abc import Iterable, Iterator
from typing import Any

from workloadbuilder._internal.isprint import BOUNDS as _PRINT_BOUNDS
from workloadbuilder.limits import MAX_MESSAGE_VALUE, MAX_WHOLE_MESSAGE_VALUE

__all__ = [
    "WholeValue",
    "capped",
    "go_escaped",
    "go_float",
    "go_is_print",
    "go_json",
    "go_quote",
    "go_sprint",
    "render_bad_value",
]


class WholeValue:
    """A bad value a message shows whole, as the apiserver does, up to ``limits.MAX_WHOLE_MESSAGE_VALUE`` characters.

    For values whose size the input bounds and whose exact text users compare
    with the apiserver's (a too-deep template tree); any other value is cut at
    ``limits.MAX_MESSAGE_VALUE``.
    """

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WholeValue) and self.value == other.value

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"WholeValue({self.value!r})"


class _NotJSON(Exception):
    """A value ``json.Marshal`` would refuse; Go then falls back to its ``String()``."""


def render_bad_value(value: Any) -> str:
    """Render a bad value as ``field.Error`` does: strings quoted, numbers and bools bare, the rest as JSON.

    Capped at ``limits.MAX_MESSAGE_VALUE`` characters (then ``...``): a message
    never renders, nor walks, more of a huge value than it shows. A
    :class:`WholeValue` is capped at ``limits.MAX_WHOLE_MESSAGE_VALUE`` instead.
    """
    if isinstance(value, WholeValue):
        return _render(value.value, MAX_WHOLE_MESSAGE_VALUE)
    return _render(value, MAX_MESSAGE_VALUE)


def _render(value: Any, cap: int) -> str:
    if isinstance(value, str):
        return go_quote(value) if len(value) <= cap else go_quote(value[:cap]) + "..."
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return capped(_int_text(value), cap)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, BaseException):
        return "{}"  # Go marshals an error value as an empty JSON object
    text = ""
    try:
        for piece in _pieces(value):  # stop reading once the cap is reached: a value may be huge
            text += piece
            if len(text) > cap:
                return _html_escape(text[:cap]) + "..."
        return _html_escape(text)
    except _TooDeep:  # what is shown so far, cut where the nesting outgrew the walk
        return _html_escape(text) + "..."
    except _NotJSON:
        return capped(str(value), cap)


_MAX_RENDER_DEPTH = 200
"""How deep ``_pieces`` walks lists and objects: a value nested deeper is cut there (Python's stack stays bounded)."""


class _TooDeep(Exception):
    """A value nested deeper than ``_MAX_RENDER_DEPTH``."""


def _int_text(value: int) -> str:
    """An integer's digits; one too long for Python to print (past 4,300 digits) is described instead."""
    return str(value) if value.bit_length() <= 10_000 else f"<an integer of {value.bit_length()} bits>"


def capped(text: str, cap: int = MAX_MESSAGE_VALUE) -> str:
    """``text`` as a message echoes it: whole up to ``cap`` characters (``limits.MAX_MESSAGE_VALUE``), else cut there
    and ended with ``...``."""
    return text if len(text) <= cap else text[:cap] + "..."


def go_sprint(value: Any) -> str:
    """``fmt.Sprint`` of a scalar: an enum prints its value, as a Go string type does."""
    return str(value.value) if isinstance(value, enum.Enum) else str(value)


def go_quote(text: str) -> str:
    """Quote a string as Go's ``strconv.Quote`` (and ``%q``) does.

    Which characters stay raw is decided by :func:`go_is_print` (Go's own
    Unicode 15.0.0 tables), whatever Unicode version the host Python carries.
    """
    out = ['"']
    for ch in text:
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif go_is_print(ord(ch)):
            out.append(ch)
        else:
            out.append(_go_escape(ch))
    out.append('"')
    return "".join(out)


def _go_escape(ch: str) -> str:
    """How ``strconv.Quote`` writes a character ``strconv.IsPrint`` refuses."""
    code = ord(ch)
    if ch in _GO_ESCAPES:
        return _GO_ESCAPES[ch]
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if 0xD800 <= code <= 0xDFFF:
        return "\\ufffd"  # not a valid rune: Go writes the replacement character
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def go_escaped(text: str) -> str:
    """``text`` safe for a terminal: each character ``strconv.IsPrint`` refuses, but the line feed, written as
    ``strconv.Quote`` writes it (``\\x1b``, ``\\x00``, ``\\u0085``, ``\\ufffd`` for a lone surrogate); nothing else
    changes, quotes and backslashes included.

    Examples:
        >>> print(go_escaped("pod \\x1b[31mred\\x1b[0m\\u0085 ok\\n"))
        pod \\x1b[31mred\\x1b[0m\\u0085 ok
        <BLANKLINE>
    """
    if not _MAYBE_UNPRINTABLE.search(text):
        return text
    return _MAYBE_UNPRINTABLE.sub(_escape_run, text)


_MAYBE_UNPRINTABLE = re.compile(r"[^\x20-\x7e\n]+")
"""Runs of characters that are not printable ASCII nor a line feed: each is looked up in Go's tables."""


def _escape_run(found: re.Match[str]) -> str:
    return "".join(ch if go_is_print(ord(ch)) else _go_escape(ch) for ch in found.group())


def go_is_print(code: int) -> bool:
    """Whether Go's ``strconv.IsPrint`` holds: a letter, mark, number, punctuation, symbol or U+0020."""
    return bisect.bisect_right(_PRINT_BOUNDS, code) % 2 == 1


_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def _shortest_digits(value: float) -> tuple[str, str, int]:
    """Sign, shortest round-trip digits and decimal exponent of the first digit."""
    sign, digit_tuple, exponent = decimal.Decimal(repr(value)).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    return ("-" if sign else ""), digits, int(exponent) + len(digits) - 1


def _exponent_form(sign: str, digits: str, exp: int, min_exp_digits: int) -> str:
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):0{min_exp_digits}d}"


def _plain_form(sign: str, digits: str, exp: int) -> str:
    if exp < 0:
        return f"{sign}0.{'0' * (-exp - 1)}{digits}"
    if exp + 1 >= len(digits):
        return sign + digits + "0" * (exp + 1 - len(digits))
    return f"{sign}{digits[: exp + 1]}.{digits[exp + 1 :]}"


def go_float(value: float) -> str:
    """Format a float as Go's ``%v``: shortest digits, exponent form below 1e-4 or from 1e6 (``1e+06``)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign, digits, exp = _shortest_digits(value)
    if exp < -4 or exp >= 6:
        return _exponent_form(sign, digits, exp, 2)
    return _plain_form(sign, digits, exp)


def _json_float(value: float) -> str:
    """A float as ``encoding/json`` writes it: plain from 1e-6 up to 1e21, else ``1e-7`` style."""
    if math.isnan(value) or math.isinf(value):
        raise _NotJSON(value)
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign, digits, exp = _shortest_digits(value)
    if abs(value) < 1e-6 or abs(value) >= 1e21:
        return _exponent_form(sign, digits, exp, 1)
    return _plain_form(sign, digits, exp)


def go_json(value: Any) -> str:
    """Serialize like Go's ``json.Marshal``: compact, map keys sorted, struct fields in order, HTML escaped.

    A pydantic model is a Go struct here: its JSON fields in declaration order.

    Raises:
        _NotJSON: the value holds something JSON cannot represent.
        ValueError: the value nests lists and objects deeper than ``_MAX_RENDER_DEPTH`` levels.
    """
    return _html_escape(_encode(value))


def _encode(value: Any) -> str:
    try:
        return "".join(_pieces(value))
    except _TooDeep:
        raise ValueError(f"the value nests deeper than {_MAX_RENDER_DEPTH} levels") from None


def _pieces(value: Any, depth: int = 0) -> Iterator[str]:
    """The JSON text of ``value`` piece by piece, so a reader may stop early (a capped message).

    Raises:
        _TooDeep: past ``_MAX_RENDER_DEPTH`` levels of lists and objects, after the pieces above them.
    """
    if depth > _MAX_RENDER_DEPTH:
        raise _TooDeep
    if value is None:
        yield "null"
    elif isinstance(value, bool):
        yield "true" if value else "false"
    elif isinstance(value, int):
        yield _int_text(value)
    elif isinstance(value, float):
        yield _json_float(value)
    elif isinstance(value, str):
        yield json.dumps(value, ensure_ascii=False)
    elif isinstance(value, enum.Enum):
        yield from _pieces(value.value, depth)
    elif isinstance(value, datetime.datetime):
        yield json.dumps(_rfc3339(value))
    elif isinstance(value, dict):
        yield from _members(sorted((str(k), v) for k, v in value.items()), depth)
    elif isinstance(value, (list, tuple)):
        yield "["
        for i, item in enumerate(value):
            yield "," if i else ""
            yield from _pieces(item, depth + 1)
        yield "]"
    elif callable(getattr(value, "model_dump", None)):
        yield from _members(value.model_dump(by_alias=True, exclude_none=True).items(), depth)
    else:
        raise _NotJSON(value)


def _members(items: Iterable[tuple[str, Any]], depth: int) -> Iterator[str]:
    yield "{"
    for i, (key, item) in enumerate(items):
        yield ("," if i else "") + json.dumps(key, ensure_ascii=False) + ":"
        yield from _pieces(item, depth + 1)
    yield "}"


def _rfc3339(moment: datetime.datetime) -> str:
    """Go's ``time.RFC3339Nano``: UTC as ``Z``, fraction without trailing zeros."""
    if moment.tzinfo is None or moment.utcoffset() == datetime.timedelta(0):
        text = moment.replace(tzinfo=None).isoformat() + "Z"
    else:
        text = moment.isoformat()
    if "." in text:  # isoformat writes exactly six fraction digits, then the zone
        head, _, rest = text.partition(".")
        fraction, zone = rest[:6].rstrip("0"), rest[6:]
        text = head + ("." + fraction if fraction else "") + zone
    return text


def _html_escape(text: str) -> str:
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )
