"""``-o json`` and ``-o yaml`` of the answer commands, written within ``--timeout`` and fast for a large answer.

PyYAML's emitter spends about 4 ms of pure Python per copy of a simulated
queue (a 100,000-copy answer took minutes); this module writes the same bytes
as ``yaml.safe_dump(data, sort_keys=False, default_flow_style=False,
allow_unicode=True)`` for an answer's data (mappings, lists, strings,
numbers, booleans, ``None``) by writing the block structure itself and
leaving to PyYAML only the scalars a plain word cannot carry (quotes,
escapes, long lines that fold), each at its place's indentation. Anything
else (another type, a list or mapping that appears twice, which PyYAML
writes with an anchor) is handed to PyYAML whole. Both outputs check the
``Deadline`` as they go.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import yaml

from workloadbuilder._internal.gofmt import go_escaped
from workloadbuilder.cli.deadline import Deadline

__all__ = ["dumped"]

_CHECK_EVERY = 4096
"""Pieces written between two looks at the clock."""

_WIDTH = 80
"""PyYAML's default line width: a scalar with spaces that reaches it is folded."""

_PLAIN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]*")
"""A word PyYAML writes as it is, unless it reads as another type (``true``, ``1e3``, ``2026-01-01``): no space to
fold at, no character that needs quoting."""

_KEY_MAX = 127
"""The longest key PyYAML writes as a simple ``key:`` (a longer one is a complex ``? key`` entry)."""


def dumped(data: Any, output: str, deadline: Deadline | None = None, doing: str = "") -> str:
    """An answer's data as ``-o json`` (indented by 2) or ``-o yaml`` (the same keys, in the same order).

    Raises:
        TimeBoundReached: ``deadline`` passed before the text was whole (``doing`` says what was written).
    """
    check = _checker(deadline, doing or f"writing the answer (-o {output})")
    if output == "yaml":
        try:
            return _Yaml(check).document(data)
        except _Unusual:
            check()
            return _safe_dump(data)
    pieces = []
    for n, piece in enumerate(json.JSONEncoder(indent=2).iterencode(data)):
        if n % _CHECK_EVERY == 0:
            check()
        pieces.append(piece)
    return "".join(pieces) + "\n"


def _checker(deadline: Deadline | None, doing: str) -> Callable[[], None]:
    if deadline is None:
        return lambda: None
    return lambda: deadline.check(doing)


def _safe_dump(data: Any, width: int = _WIDTH) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=width)


class _Dumper(yaml.SafeDumper):
    """PyYAML's safe dumper, but a string holding a character a terminal must not get raw (ESC, NUL, U+0085,
    U+2028, a lone surrogate, U+202E: what ``strconv.IsPrint`` refuses, the line feed apart) is written
    double-quoted with every such character escaped (``"\\e"``, ``"\\N"``, ``"\\u202E"``); YAML reads it back
    the same. Other strings are written as ``yaml.safe_dump`` writes them."""

    def analyze_scalar(self, scalar: str) -> Any:
        if not _raw_safe(scalar):
            self.allow_unicode = False  # every character past ASCII then counts as special: double quotes
            try:
                return super().analyze_scalar(scalar)
            finally:
                self.allow_unicode = True
        return super().analyze_scalar(scalar)

    def write_double_quoted(self, text: str, split: bool = True) -> None:
        if not _raw_safe(text):
            self.allow_unicode = False  # so escaped past ASCII too
            try:
                super().write_double_quoted(text, split)
            finally:
                self.allow_unicode = True
        else:
            super().write_double_quoted(text, split)


def _raw_safe(text: str) -> bool:
    """Whether every character of ``text`` may reach a terminal as it is (the line feed as a line's end)."""
    return go_escaped(text) == text


class _Unusual(Exception):
    """Data this writer leaves to PyYAML whole: a type it does not write, or a container met twice (an anchor)."""


class _Yaml:
    """One document's block YAML, piece by piece, as PyYAML's emitter lays it out."""

    def __init__(self, check: Callable[[], None]) -> None:
        self.check = check
        self.written = 0
        self.seen: set[int] = set()
        self.out: list[str] = []

    def document(self, data: Any) -> str:
        if type(data) is dict and data:
            self.mapping(data, 0, "")
        elif type(data) is list and data:
            self.sequence(data, 0, "")
        else:
            raise _Unusual  # an empty or scalar document: PyYAML's own (with its document end marker)
        return "".join(self.out)

    def container(self, value: dict[Any, Any] | list[Any]) -> None:
        """Note a container about to be written; one met before is PyYAML's anchor, and left to it."""
        if id(value) in self.seen:
            raise _Unusual
        self.seen.add(id(value))
        self.written += 1
        if self.written % _CHECK_EVERY == 0:
            self.check()

    def mapping(self, data: dict[Any, Any], indent: int, lead: str) -> None:
        """A mapping whose keys start at ``indent``; its first line starts with ``lead`` (a list item's ``- ``)."""
        self.container(data)
        write = self.out.append
        pad = " " * indent
        for i, (key, value) in enumerate(data.items()):
            start = lead if i == 0 else pad
            word = _key(key)
            if word is None:
                write(_placed(_safe_dump({key: value}, _WIDTH - indent), start, pad))
            elif type(value) is dict and value:
                write(f"{start}{word}:\n")
                self.mapping(value, indent + 2, pad + "  ")
            elif type(value) is list and value:
                write(f"{start}{word}:\n")
                self.sequence(value, indent, pad)  # PyYAML does not indent a mapping's list
            else:
                scalar = self.scalar(value)
                if scalar is None:
                    write(_placed(_safe_dump({key: value}, _WIDTH - indent), start, pad))
                else:
                    write(f"{start}{word}: {scalar}\n")

    def sequence(self, items: list[Any], indent: int, lead: str) -> None:
        """A list whose ``- `` marks start at ``indent``; its first line starts with ``lead``."""
        self.container(items)
        write = self.out.append
        pad = " " * indent
        for i, item in enumerate(items):
            start = lead if i == 0 else pad
            if type(item) is dict and item:
                self.mapping(item, indent + 2, start + "- ")
            elif type(item) is list and item:
                self.sequence(item, indent + 2, start + "- ")
            else:
                scalar = self.scalar(item)
                if scalar is None:
                    write(_placed(_safe_dump([item], _WIDTH - indent), start, pad))
                else:
                    write(f"{start}- {scalar}\n")

    def scalar(self, value: Any) -> str | None:
        """A scalar (or an empty list or mapping) as PyYAML writes it, ``None`` for one it quotes or folds.

        Raises:
            _Unusual: a type PyYAML's safe dumper has no plain rule for (it refuses most of them).
        """
        kind = type(value)
        if value is None:
            return "null"
        if kind is bool:
            return "true" if value else "false"
        if kind is str:
            return "''" if value == "" else _plain(value)
        if kind is int:
            return str(value) if value.bit_length() <= 10_000 else None
        if kind is float:
            return _float(value)
        if kind is dict or kind is list:  # an empty one (a filled one is a block of its own)
            self.container(value)
            return "{}" if kind is dict else "[]"
        raise _Unusual


def _placed(text: str, start: str, pad: str) -> str:
    """PyYAML's text of one entry made at the left margin, moved to its place: the first line after ``start``,
    the others after ``pad`` (the width it was made with already leaves that room)."""
    if len(pad) + 2 * 2 >= _WIDTH:  # PyYAML ignores a width this small: the place is too deep to fake
        raise _Unusual
    first, _, rest = text.partition("\n")
    lines = [start + first]
    lines += [pad + line if line else line for line in rest.split("\n")]
    return "\n".join(lines)


def _key(key: Any) -> str | None:
    """The key as PyYAML writes it when that is the word itself; ``None`` when PyYAML must write it."""
    if isinstance(key, str) and len(key) <= _KEY_MAX:
        return _plain(key)
    return None


def _float(value: float) -> str | None:
    """PyYAML's ``represent_float``: ``.nan``, ``.inf``, or ``repr`` in lower case with a ``.0`` before an
    exponent that has no point; ``None`` when that would not read back as a float (PyYAML then tags it)."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value).lower()
    if "." not in text and "e" in text:
        text = text.replace("e", ".0e", 1)
    return text if _resolves_to(text) == "tag:yaml.org,2002:float" else None


@lru_cache(maxsize=4096)
def _plain(text: str) -> str | None:
    """``text`` when PyYAML writes it as a plain word: it matches ``_PLAIN`` and reads back as a string."""
    if _PLAIN.fullmatch(text) and _resolves_to(text) == "tag:yaml.org,2002:str":
        return text
    return None


_RESOLVE: Callable[[type[yaml.Node], str, tuple[bool, bool]], object] = yaml.resolver.Resolver().resolve


def _resolves_to(text: str) -> str:
    """The tag YAML 1.1 reads a plain scalar ``text`` as (``str``, ``int``, ``float``, ``bool``, ``null``, ...)."""
    return str(_RESOLVE(yaml.ScalarNode, text, (True, False)))
