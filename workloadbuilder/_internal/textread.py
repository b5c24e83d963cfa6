"""YAML and JSON text into plain data, with bounds no input can pass and an error for every malformed piece.

The one reader of manifest, cluster and mapping text. It reads YAML's safe
subset only, as Kubernetes' YAML-to-JSON step does: timestamps stay strings,
mapping keys become strings (``1: x`` is the key ``"1"``), a lone UTF-16
surrogate from an escape becomes U+FFFD (as Go's JSON decoder makes it).
It refuses, with the document and line:

- a document nesting deeper than ``limits.MAX_NESTING`` levels;
- aliases that would add more than ``limits.MAX_ALIAS_NODES`` nodes when
  expanded (an alias bomb), or an alias inside its own anchor;
- a tagged scalar that does not parse as its tag (``!!bool maybe``,
  ``!!int ''``, ``!!timestamp nope``);
- and, before any of it, an input of more than ``limits.MAX_INPUT_BYTES``
  bytes: files and streams are read in chunks (``read_bytes``) and refused
  once past it, so an endless stream ends.

Documents are composed here, one event at a time (no recursion, so the
bounds hold before anything deep is built), from libyaml's parser when
PyYAML has it (``CSafeLoader``) and from PyYAML's own otherwise. A syntax
error is always worded by PyYAML's own parser, so messages and positions do
not depend on which is installed.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections.abc import Iterator, Mapping
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

import yaml
from yaml import events
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from workloadbuilder.errors import InvalidArgumentError, WorkloadBuilderError
from workloadbuilder.limits import MAX_ALIAS_NODES, MAX_INPUT_BYTES, MAX_NESTING

if TYPE_CHECKING:
    import msgspec

__all__ = [
    "TextError",
    "check_nesting",
    "construct",
    "decode_utf8",
    "documents",
    "json_document",
    "read_bytes",
    "read_stream",
    "typed_json",
]

_T = TypeVar("_T")

_CHUNK = 1 << 20

_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class TextError(WorkloadBuilderError, ValueError):
    """Text that is not a readable document: ``document`` is its number (from 1; 0 for the whole text)."""

    def __init__(self, document: int, message: str) -> None:
        self.document = document
        self.message = message
        super().__init__(message)


class _Strict:
    """Constructors that turn every malformed tagged scalar into a ``ConstructorError`` at its mark."""

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)  # type: ignore[misc]
        except yaml.YAMLError:
            raise
        except (ValueError, KeyError, IndexError, AttributeError, TypeError, OverflowError):
            shown = node.value if isinstance(node, ScalarNode) else node.tag
            raise yaml.constructor.ConstructorError(
                None, None, f"cannot read {shown!r} as {_short_tag(node.tag)}", node.start_mark
            ) from None

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        mapping = super().construct_mapping(node, deep)  # type: ignore[misc]
        return {_key(key): value for key, value in mapping.items()}


def _construct_timestamp(loader: Any, node: Any) -> str:
    """An explicit ``!!timestamp``: checked, then kept as the string it is written as."""
    loader.construct_yaml_timestamp(node)  # refuses what is not a timestamp
    return str(node.value)


def _key(key: Any) -> Any:
    """A mapping key as Kubernetes' YAML-to-JSON step writes it: a string."""
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    return key if isinstance(key, str) else str(key) if isinstance(key, (int, float)) else key


def _short_tag(tag: str) -> str:
    return "!!" + tag.rpartition(":")[2] if tag.startswith("tag:yaml.org,2002:") else tag


def _without_timestamps(resolvers: dict[Any, list[tuple[str, Any]]]) -> dict[Any, list[tuple[str, Any]]]:
    return {first: [(tag, rx) for tag, rx in found if tag != _TIMESTAMP] for first, found in resolvers.items()}


class _PureLoader(_Strict, yaml.SafeLoader):
    """PyYAML's own parser (the reference for error messages)."""


_PureLoader.yaml_implicit_resolvers = _without_timestamps(yaml.SafeLoader.yaml_implicit_resolvers)
_PureLoader.add_constructor(_TIMESTAMP, _construct_timestamp)

_Loader: Any = _PureLoader
if getattr(yaml, "__with_libyaml__", False):

    class _CLoader(_Strict, yaml.CSafeLoader):
        """libyaml's parser with the same constructors and resolvers."""

    _CLoader.yaml_implicit_resolvers = _PureLoader.yaml_implicit_resolvers
    _CLoader.add_constructor(_TIMESTAMP, _construct_timestamp)
    _Loader = _CLoader


def decode_utf8(data: bytes, name: str) -> str:
    """``data`` as UTF-8 text (a leading byte-order mark dropped), whatever the locale.

    Raises:
        TextError: the bytes are not UTF-8 (``<name>: not UTF-8: byte 0xff at line 1, column 3``).
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise TextError(0, f"not UTF-8: byte 0x{data[err.start]:02x} at line {line}, column {column}") from None


def read_stream(stream: BinaryIO | Any, limit: int | None = None) -> bytes | str:
    """Everything ``stream`` holds (bytes, or text from a text stream), read in chunks up to ``limit`` bytes.

    Raises:
        TextError: the stream holds more than ``limit`` (default ``limits.MAX_INPUT_BYTES``);
            the rest is never read.
    """
    limit = MAX_INPUT_BYTES if limit is None else limit
    chunks: list[Any] = []
    size = 0
    while True:
        chunk = stream.read(min(_CHUNK, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise TextError(0, f"the input is larger than {limit} bytes, the most workloadbuilder reads")
    if chunks and isinstance(chunks[0], str):
        return "".join(chunks)
    return b"".join(chunks)


def read_bytes(path: str | Path, limit: int | None = None) -> bytes:
    """The bytes of the regular file at ``path``, up to ``limit`` (``limits.MAX_INPUT_BYTES``).

    Only a regular file is read: a FIFO or a device would block or never end.
    The file is opened without waiting (a FIFO with no writer does not hold
    the open) and checked before anything is read.

    Raises:
        OSError: the file cannot be opened, or it is not a regular file (``EINVAL``).
        TextError: the file is larger than ``limit``.
    """
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "rb", buffering=0) as file:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        data = read_stream(file, limit)
    return data if isinstance(data, bytes) else data.encode()


def json_document(text: str) -> Any:
    """The one JSON document ``text`` holds, or ``None`` when it is not plain JSON (a key given twice, say).

    Raises:
        TextError: the JSON nests deeper than ``MAX_NESTING``.
    """
    try:
        data = json.loads(text, object_pairs_hook=_no_repeated_keys)
    except (ValueError, RecursionError):
        return None  # the YAML reader says where it breaks
    if _deeper_than(data, MAX_NESTING, shared=False):
        raise TextError(1, f"JSON nests deeper than {MAX_NESTING} levels")
    return _without_surrogates(data) if _ESCAPED_SURROGATE.search(text) else data


def typed_json(source: str | bytes, decoder: msgspec.json.Decoder[_T]) -> _T | None:
    """``source`` decoded by a typed C-level decoder (msgspec's), or ``None`` when that decoder refuses it.

    The decoder builds only what its type declares, and checks each value's
    type as it goes; the rest of the text is checked as JSON and skipped,
    never built. ``None`` leaves the text to ``json_document`` and the YAML
    reader, which say what is wrong as they always do: text that is not
    JSON (or is YAML), a value of another type than declared, a lone UTF-16
    surrogate, ``NaN``, bytes past ``limits.MAX_INPUT_BYTES`` (refused
    before anything is decoded) or that are not UTF-8, a byte-order mark.

    Two bounds differ from the careful reader's. A key given twice keeps its
    last value, as Go's decoder (kubectl's, the apiserver's) keeps it, so
    this is for text a program wrote (``kubectl get -o json``), not for a
    file a user edits. Nesting is bounded by the declared type where values
    are built, and by the decoder's own limit (the interpreter's recursion
    limit) where they are skipped: a skipped value reaches no recursive step.
    """
    import msgspec

    if isinstance(source, bytes):
        if len(source) > MAX_INPUT_BYTES:
            return None
        if not source.isascii():  # the decoder does not check the UTF-8 of the strings it skips
            try:
                source.decode("utf-8")
            except UnicodeDecodeError:
                return None
    elif not source.isascii():
        try:  # the decoder reads a str's UTF-8 form, which Python would keep beside the text
            source = source.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate
            return None
    try:
        return decoder.decode(source)
    except (msgspec.DecodeError, RecursionError):
        return None


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """One JSON object as a dict; a key given twice makes the parse fail (the YAML reader then names it)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise ValueError("a key given twice")
    return obj


_NESTED = (Mapping, list, tuple)
_SCALARS = (str, int, float, bool, type(None))  # what most values are: skipped before the (slower) ABC check
_PLAIN = (dict, list)  # what parsed JSON nests: known containers without the ABC check


def _deeper_than(data: Any, limit: int, shared: bool = True) -> bool:
    """Whether lists and objects nest more than ``limit`` levels (without recursing).

    The walk goes level by level: each level is every list and object one
    step below the last, gathered by comprehensions, so a parsed document of
    millions of values costs a fraction of its parse (a stack of
    ``(value, depth)`` pairs, pushed one by one, cost as much as the parse).
    A value built in Python may hold one part in many places (``x = [y, y]``
    nested 60 times is 2**60 paths): ``shared`` keeps each part once per
    level. Parsed text is a tree, which ``json_document`` says with
    ``shared=False``.
    """
    level = [data] if isinstance(data, _NESTED) else []
    for _ in range(limit):
        if not level:
            return False
        # the children of every container of the level in one pass: dict values and list items through C-level
        # iterators, other mappings and sequences (a value built in Python) one by one
        dicts = [value for value in level if type(value) is dict]
        lists = [value for value in level if type(value) is list]
        others = [value for value in level if type(value) is not dict and type(value) is not list]
        children = chain(
            chain.from_iterable(map(dict.values, dicts)),
            chain.from_iterable(lists),
            chain.from_iterable(value.values() if isinstance(value, Mapping) else value for value in others),
        )
        below = [
            child
            for child in children
            if type(child) in _PLAIN or (type(child) not in _SCALARS and isinstance(child, _NESTED))
        ]
        level = list({id(child): child for child in below}.values()) if shared else below
    return bool(level)


def check_nesting(data: Any, what: str = "the object", limit: int = MAX_NESTING) -> None:
    """Refuse a value given in Python (not read from text) that nests deeper than ``limit`` levels.

    Text is bounded where it is read; a dict built in code reaches the
    library's recursive steps (copying, decoding, writing) directly, so a
    public entry checks it first, without recursing, and refuses it before
    Python's recursion limit would.

    Raises:
        InvalidArgumentError: ``<what> nests deeper than 100 levels``.
    """
    if _deeper_than(data, limit):
        raise InvalidArgumentError(f"{what} nests deeper than {limit} levels")


_ESCAPED_SURROGATE = re.compile(r"\\[uU]0{0,4}[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _without_surrogates(data: Any) -> Any:
    """Lone surrogates replaced by U+FFFD, as Go's decoder replaces them."""
    if isinstance(data, str):
        return _SURROGATE.sub("\ufffd", data)
    if isinstance(data, list):
        return [_without_surrogates(item) for item in data]
    if isinstance(data, dict):
        return {_without_surrogates(key): _without_surrogates(value) for key, value in data.items()}
    return data


def documents(text: str) -> Iterator[tuple[int, Node | None]]:
    """Each YAML document of ``text`` as a node tree, numbered from 1 (``None`` for an empty one).

    Raises:
        TextError: a syntax error, too deep a document or too many aliases,
            with the document's number and the line.
    """
    loader: Any = _Loader(text)
    number = 0
    try:
        loader.get_event()  # the stream's start
        while not loader.check_event(events.StreamEndEvent):
            number += 1
            loader.get_event()  # the document's start
            node = _Composer(loader, number).compose()
            loader.get_event()  # the document's end
            yield number, node
    except yaml.MarkedYAMLError as err:
        if "maximum nesting depth" in str(err.problem):  # libyaml's own bound, past ours
            mark = err.problem_mark
            where = f" (at line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
            raise TextError(number or 1, f"YAML nests deeper than {MAX_NESTING} levels{where}") from None
        raise TextError(number or 1, _syntax_problem(text, err)) from None
    except yaml.YAMLError as err:
        raise TextError(number or 1, f"invalid YAML: {err}") from None
    finally:
        loader.dispose()


def construct(text: str, number: int, node: Node) -> Any:
    """The plain data of a node tree made by ``documents``.

    Raises:
        TextError: a tagged scalar that does not parse as its tag, or a key
            that cannot be a key (its line and column in the message).
    """
    loader = _Loader("")
    try:
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as err:
        raise TextError(number, _problem(err)) from None
    except RecursionError:
        raise TextError(number, f"YAML nests deeper than {MAX_NESTING} levels") from None
    finally:
        loader.dispose()
    escaped = _ESCAPED_SURROGATE.search(text, node.start_mark.index, node.end_mark.index + 1)
    return _without_surrogates(data) if escaped else data


class _Composer:
    """One document's events into nodes, with the nesting and alias bounds checked as they arrive."""

    def __init__(self, loader: Any, number: int) -> None:
        self.loader = loader
        self.number = number
        self.anchors: dict[str, tuple[Node, int, int]] = {}  # node, height, expanded size
        self.building: set[str] = set()
        self.added = 0

    def compose(self) -> Node | None:
        open_: list[list[Any]] = []  # [node, anchor, height, size, pending key]
        while True:
            event = self.loader.get_event()
            if isinstance(event, (events.SequenceStartEvent, events.MappingStartEvent)):
                self._check_anchor(event)
                if len(open_) + 1 > MAX_NESTING:
                    raise self._refuse(f"YAML nests deeper than {MAX_NESTING} levels", event)
                node = self._collection(event)
                if event.anchor is not None:
                    self.building.add(event.anchor)
                open_.append([node, event.anchor, 1, 1, None])
                continue
            if isinstance(event, (events.SequenceEndEvent, events.MappingEndEvent)):
                node, anchor, height, size, _ = open_.pop()
                node.end_mark = event.end_mark
                done = (node, height, size)
                self._remember(anchor, done)
            elif isinstance(event, events.AliasEvent):
                done = self._alias(event)
            else:
                self._check_anchor(event)
                tag = event.tag
                if tag is None or tag == "!":
                    tag = self.loader.resolve(ScalarNode, event.value, event.implicit)
                done = (ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style), 0, 1)
                self._remember(event.anchor, done)
            if not open_:
                found: Node = done[0]
                return found
            self._attach(open_, done, event)

    def _collection(self, event: Any) -> Node:
        kind: type[Node] = SequenceNode if isinstance(event, events.SequenceStartEvent) else MappingNode
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.loader.resolve(kind, None, event.implicit)
        node: Node = kind(tag, [], event.start_mark, None, flow_style=event.flow_style)  # type: ignore[call-arg]
        return node

    def _attach(self, open_: list[list[Any]], done: tuple[Node, int, int], event: Any) -> None:
        parent = open_[-1]
        node, height, size = done
        if len(open_) + height > MAX_NESTING:
            raise self._refuse(f"YAML nests deeper than {MAX_NESTING} levels", event)
        parent[2] = max(parent[2], height + 1)
        parent[3] += size
        if isinstance(parent[0], SequenceNode):
            parent[0].value.append(node)
        elif parent[4] is None:
            parent[4] = node
        else:
            parent[0].value.append((parent[4], node))
            parent[4] = None

    def _alias(self, event: Any) -> tuple[Node, int, int]:
        found = self.anchors.get(event.anchor)
        if found is None:
            if event.anchor in self.building:
                raise self._refuse(f"YAML alias *{event.anchor} is inside its own anchor", event)
            raise yaml.composer.ComposerError(None, None, f"found undefined alias {event.anchor!r}", event.start_mark)
        self.added += found[2]
        if self.added > MAX_ALIAS_NODES:
            raise self._refuse(f"YAML aliases expand past {MAX_ALIAS_NODES} nodes", event)
        return found

    def _check_anchor(self, event: Any) -> None:
        if event.anchor is not None and (event.anchor in self.anchors or event.anchor in self.building):
            first = self.anchors[event.anchor][0].start_mark if event.anchor in self.anchors else None
            raise yaml.composer.ComposerError(
                f"found duplicate anchor {event.anchor!r}; first occurrence",
                first,
                "second occurrence",
                event.start_mark,
            )

    def _remember(self, anchor: str | None, done: tuple[Node, int, int]) -> None:
        if anchor is not None:
            self.building.discard(anchor)
            self.anchors[anchor] = done

    def _refuse(self, problem: str, event: Any) -> TextError:
        mark = event.start_mark
        return TextError(self.number, f"{problem} (at line {mark.line + 1}, column {mark.column + 1})")


def _syntax_problem(text: str, err: yaml.MarkedYAMLError) -> str:
    """A syntax error as PyYAML's own parser words it (libyaml words some differently)."""
    if _Loader is _PureLoader or not isinstance(err, (yaml.scanner.ScannerError, yaml.parser.ParserError)):
        return _problem(err)
    try:
        for _ in yaml.parse(text, Loader=_PureLoader):
            pass
    except yaml.MarkedYAMLError as pure:
        return _problem(pure)
    return _problem(err)


def _problem(err: yaml.MarkedYAMLError) -> str:
    """``invalid YAML at line L, column C: <problem>``."""
    mark = err.problem_mark
    problem = err.problem or str(err)
    text = f"{err.context}, {problem}" if err.context else problem
    if mark is None:
        return f"invalid YAML: {text}"
    return f"invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {text}"
