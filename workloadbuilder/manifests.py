"""Kubernetes objects as plain data: dicts and YAML, in and out.

``load`` reads YAML or JSON manifests (one document or many) into kubernetes
client models with ``kubectl``'s strict field validation: an unknown field,
a wrong type, a missing or unknown ``apiVersion``/``kind`` is an error at its
path, collected for every document and raised once as ``ManifestError``;
malformed input never escapes as anything else. ``dump`` writes models back
in Kubernetes JSON spelling, so ``load(dump(load(x)))`` equals ``load(x)``.

Output is deterministic: the same objects always give byte-identical YAML,
fields in the order the kubernetes client declares them, unset fields left
out, as ``kubectl`` would show them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import yaml
from pydantic import BaseModel

from workloadbuilder._internal import kinds, textread
from workloadbuilder._internal.decode import decode, duplicate_field, errors_at, to_json_dict
from workloadbuilder._internal.gofmt import go_escaped
from workloadbuilder._internal.kinds import KubeObject
from workloadbuilder._internal.textread import (
    TextError,
    check_nesting,
    decode_utf8,
    json_document,
    read_bytes,
    read_stream,
)
from workloadbuilder.errors import WorkloadBuilderError
from workloadbuilder.field import ErrorList, FieldPath, extend_path, index_path

__all__ = [
    "DocumentProblem",
    "ManifestError",
    "dump",
    "list_items",
    "load",
    "read_data",
    "read_documents",
    "read_documents_text",
    "to_dict",
    "to_yaml",
]

Source = str | os.PathLike[str] | IO[str] | IO[bytes]
_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class DocumentProblem:
    """What is wrong with one document of a source.

    Attributes:
        source: the file name, ``<string>`` or ``<stream>``.
        document: the document's number in the source, from 1.
        kind: its ``kind`` when it names one.
        name: its ``metadata.name`` when it has one.
        errors: the field errors, at paths inside the document.
        message: a problem that is not about one field (the YAML does not parse).
        api_version: its ``apiVersion`` when it names one (a tool may skip
            other API groups' documents).
    """

    source: str
    document: int
    kind: str | None = None
    name: str | None = None
    errors: ErrorList = field(default_factory=ErrorList)
    message: str = ""
    api_version: str | None = None

    def __str__(self) -> str:
        where = f"{self.source} (document {self.document})" if self.document else self.source
        if self.message:
            return f"{where}: {self.message}"
        what = f"The {self.kind or 'object'}" + (f' "{self.name}"' if self.name else "")
        lines = [f"{where}: {what} is invalid:"] + [f"* {err}" for err in self.errors]
        return "\n".join(lines)


class ManifestError(WorkloadBuilderError, ValueError):
    """Some documents of a source could not be loaded; ``str()`` lists every problem, kubectl-style.

    Attributes:
        problems: one ``DocumentProblem`` per bad document.
        objects: the documents that did load, in order.
    """

    def __init__(self, problems: list[DocumentProblem], objects: list[BaseModel]) -> None:
        self.problems = problems
        self.objects = objects
        super().__init__("\n".join(str(problem) for problem in problems))


def load(source: Source) -> list[BaseModel]:
    """The objects of a YAML or JSON manifest, as kubernetes client models, strictly decoded.

    Args:
        source: a path (``str`` naming an existing file, or ``os.PathLike``),
            YAML or JSON text, or an open stream. Documents are separated by
            ``---``; empty ones are skipped, and a ``v1`` ``List`` contributes
            its items. Only YAML's safe subset is read, timestamps stay
            strings (as the apiserver reads them).

    Returns:
        One model per object, in order: ``V1beta1Workload``,
        ``V1beta1PodGroup``, ``V1alpha3CompositePodGroup`` (or the ``v1alpha3``
        Workload and PodGroup).

    Raises:
        ManifestError: any document does not parse, lacks ``apiVersion`` or
            ``kind``, names a kind or version that is not served, or has an
            unknown field (``spec.podGroupTemplates[0].minCont: unknown
            field``) or a value of the wrong type; every problem of every
            document is in it, and the good documents in ``.objects``.
    """
    name, text = _read(source)
    objects: list[BaseModel] = []
    problems: list[DocumentProblem] = []
    for number, data, problem in _documents(name, text):
        if problem is not None:
            problems.append(problem)
            continue
        for item in _items(data):
            model, errors, message = _decode(item)
            if model is not None:
                objects.append(model)
            else:
                problems.append(_document_error(name, number, item, errors, message))
    if problems:
        raise ManifestError(problems, objects)
    return objects


def read_documents(source: Source) -> list[Any]:
    """The parsed documents of a source, as plain data, without decoding them (for ``migrate``, say).

    Raises:
        ManifestError: a document does not parse.
    """
    return read_documents_text(*_read(source))


def read_data(source: Source) -> Any:
    """The plain data of a source of one document (a cluster file, a CRD mapping); ``None`` when it is empty.

    Read with the same bounds and errors as ``load``: aliases, nesting and
    tags are checked, bytes are UTF-8.

    Raises:
        ManifestError: the text does not parse, or holds more than one document.
    """
    name, text = _read(source)
    found = read_documents_text(name, text)
    if len(found) > 1:
        raise ManifestError([DocumentProblem(name, 0, message=f"expected one document, found {len(found)}")], [])
    return found[0] if found else None


def read_documents_text(name: str, text: str) -> list[Any]:
    """The parsed documents of ``text`` (named ``name`` in messages), as plain data.

    Raises:
        ManifestError: a document does not parse.
    """
    documents, problems = [], []
    for _, data, problem in _documents(name, text):
        if problem is not None:
            problems.append(problem)
        else:
            documents.append(data)
    if problems:
        raise ManifestError(problems, [])
    return documents


def dump(objects: KubeObject | Iterable[KubeObject]) -> str:
    """Objects as YAML in Kubernetes JSON spelling: camelCase, no nulls, ``basic: {}`` kept, stable order.

    A dict is first decoded strictly into its client model, so it comes out
    exactly as the model would. Several objects become a multi-document
    stream.

    Raises:
        ManifestError: a dict does not decode.
    """
    items = [objects] if isinstance(objects, (BaseModel, Mapping)) else list(objects)
    models: list[BaseModel] = []
    problems: list[DocumentProblem] = []
    for number, obj in enumerate(items, start=1):
        if isinstance(obj, BaseModel):
            models.append(obj)
            continue
        model, errors, message = _decode(obj)
        if model is None:
            problems.append(_document_error("<dump>", number, obj, errors, message))
        else:
            models.append(model)
    if problems:
        raise ManifestError(problems, models)
    return to_yaml(models)


def to_dict(obj: KubeObject) -> dict[str, Any]:
    """A client model (or an already plain dict, returned as is; another mapping is copied) as a Kubernetes JSON dict.

    Raises:
        TypeError: ``obj`` is neither a model nor a mapping.
    """
    if isinstance(obj, dict):
        return obj
    if isinstance(obj, Mapping):
        return dict(obj)
    if not isinstance(obj, BaseModel):
        raise TypeError(f"to_dict takes a kubernetes client model or a dict, not {type(obj).__name__}")
    return to_json_dict(obj)


def to_yaml(objects: KubeObject | Iterable[KubeObject]) -> str:
    """One object, or several as a multi-document stream, as YAML.

    Raises:
        TypeError: an object that is neither a model nor a dict (a string is not a list of objects).
    """
    if isinstance(objects, (BaseModel, Mapping)):
        check_nesting(objects, "the object to write")
        return _dump(to_dict(objects))
    if not isinstance(objects, Iterable) or isinstance(objects, (str, bytes)):
        raise TypeError(f"to_yaml takes models, dicts or an iterable of them, not {type(objects).__name__}")
    objects = list(objects)
    for i, obj in enumerate(objects):
        check_nesting(obj, f"objects[{i}]")
    return "---\n".join(_dump(to_dict(obj)) for obj in objects)


class _Dumper(yaml.SafeDumper):
    """Block style, no aliases, strings that look like other types quoted.

    A string holding a character a terminal must not get raw (what Go's ``strconv.IsPrint`` refuses, the line feed
    apart: ESC, NUL, U+0085, U+2028, U+202E, a lone surrogate) is written double-quoted with each such character
    escaped (``"\\e"``, ``"\\N"``, ``"\\u202E"``), as the CLI's ``-o yaml`` of an answer does; YAML reads it back
    the same, and the text stays what the CLI's output escaping leaves as it is.
    """

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def analyze_scalar(self, scalar: str) -> Any:
        if go_escaped(scalar) == scalar:
            return super().analyze_scalar(scalar)
        self.allow_unicode = False  # every character past ASCII then counts as special: double quotes
        try:
            return super().analyze_scalar(scalar)
        finally:
            self.allow_unicode = True

    def write_double_quoted(self, text: str, split: bool = True) -> None:
        if go_escaped(text) == text:
            return super().write_double_quoted(text, split)
        self.allow_unicode = False  # so escaped past ASCII too
        try:
            return super().write_double_quoted(text, split)
        finally:
            self.allow_unicode = True


def _dump(data: dict[str, Any]) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True)


def _read(source: Source) -> tuple[str, str]:
    """The source's display name and its text (bytes decoded as UTF-8 whatever the locale).

    Raises:
        ManifestError: the file cannot be read, or its bytes are not UTF-8.
    """
    looks_like_path = (
        isinstance(source, str)
        and len(source) <= _PATH_MAX
        and "\n" not in source
        and (_is_file(source) or source.endswith(_SUFFIXES))
    )
    if isinstance(source, os.PathLike) or (isinstance(source, str) and looks_like_path):
        path = Path(source)
        try:
            data = read_bytes(path)
        except OSError as err:
            raise ManifestError(
                [DocumentProblem(str(path), 0, message=f"cannot read: {err.strerror or err}")], []
            ) from None
        except TextError as err:
            raise ManifestError([DocumentProblem(str(path), 0, message=err.message)], []) from None
        return str(path), _text(str(path), data)
    if isinstance(source, str):
        return "<string>", source
    read = getattr(source, "read", None)
    if not callable(read):
        raise TypeError(f"a manifest source is a path, a string or a stream, not {type(source).__name__}")
    buffer = getattr(source, "buffer", None)  # a text stream such as stdin: read its bytes, not the locale's text
    name = getattr(source, "name", None)
    name = name if isinstance(name, str) and not name.startswith("<") else "<stdin>" if buffer else "<stream>"
    try:
        raw = read_stream(buffer if buffer is not None and callable(getattr(buffer, "read", None)) else source)
    except TextError as err:
        raise ManifestError([DocumentProblem(name, 0, message=err.message)], []) from None
    return name, _text(name, raw) if isinstance(raw, bytes) else str(raw)


def _text(name: str, data: bytes) -> str:
    try:
        return decode_utf8(data, name)
    except TextError as err:
        raise ManifestError([DocumentProblem(name, 0, message=err.message)], []) from None


_PATH_MAX = 4096
"""The longest path Linux takes (``PATH_MAX``): a longer string is text, never a file name to look up."""


def _is_file(text: str) -> bool:
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False


def _documents(name: str, text: str) -> Iterator[tuple[int, Any, DocumentProblem | None]]:
    """Each non-empty document: ``(number, data, None)``, or ``(number, None, problem)`` when it is broken.

    JSON text is read as JSON; anything else (and JSON with a key given
    twice) as YAML, node by node so that a key given twice is reported
    (``kubectl`` refuses it too). Reading stops at the first document that
    does not parse.
    """
    try:
        if text.lstrip().startswith(("{", "[")):
            data = json_document(text)
            if data is not None:
                yield 1, data, None
                return
        for number, node in textread.documents(text):
            if node is None:
                continue
            duplicates = _duplicate_keys(node, None)
            data = textread.construct(text, number, node)
            if duplicates:
                yield number, None, _document_error(name, number, data, duplicates)
            elif data is not None:
                yield number, data, None
    except TextError as err:
        number = err.document or 1
        yield number, None, DocumentProblem(name, number, message=err.message)


def _duplicate_keys(node: yaml.Node, path: FieldPath | None) -> ErrorList:
    """Keys given twice in one mapping, anywhere in the document: ``<path>: duplicate field`` at the repeat."""
    errs = ErrorList()
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            child = extend_path(path, [key]) if key is not None else path
            if key is not None and key in seen:
                errs.append(duplicate_field(child))
            elif key is not None:
                seen.add(key)
            errs.extend(_duplicate_keys(value_node, child))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            errs.extend(_duplicate_keys(item, index_path(path, i)))
    return errs


def list_items(data: Any) -> list[Any] | None:
    """A list document's objects, or ``None`` when ``data`` is not a list.

    A ``v1`` ``List`` (what ``kubectl get -o yaml`` prints for several
    objects) gives its items as they are; a typed ``<Kind>List`` (``JobList``,
    what the API returns for one resource) gives its items with the
    ``apiVersion`` and ``kind`` they omit filled in from the list's.

    Examples:
        >>> list_items({"apiVersion": "batch/v1", "kind": "JobList", "items": [{"metadata": {"name": "a"}}]})
        [{'metadata': {'name': 'a'}, 'apiVersion': 'batch/v1', 'kind': 'Job'}]
        >>> list_items({"apiVersion": "batch/v1", "kind": "Job"}) is None
        True
    """
    if not isinstance(data, Mapping) or not isinstance(data.get("items"), list):
        return None
    kind = data.get("kind")
    if kind == "List":
        return list(data["items"])
    if not isinstance(kind, str) or not kind.endswith("List") or kind == "List":
        return None
    item_kind = kind[: -len("List")]
    filled: list[Any] = []
    for item in data["items"]:
        if isinstance(item, Mapping):
            item = {**item}
            item.setdefault("apiVersion", data.get("apiVersion"))
            item.setdefault("kind", item_kind)
        filled.append(item)
    return filled


def _items(data: Any) -> list[Any]:
    """A document's objects: a list's items (``list_items``), or the document itself."""
    items = list_items(data)
    return [data] if items is None else items


def _decode(data: Any) -> tuple[BaseModel | None, ErrorList, str]:
    """One object into its client model, or the field errors (or the message) that stop it."""
    if not isinstance(data, Mapping):
        return None, ErrorList(), f"a manifest must be an object with apiVersion and kind, not {_json_type(data)}"
    model_class, errs = kinds.model_for(data, require_type=True)
    if model_class is None:
        return None, errs, ""
    model, problems = decode(model_class, dict(data))
    if problems:
        return None, errors_at(None, problems), ""
    return model, ErrorList(), ""


def _json_type(data: Any) -> str:
    if isinstance(data, list):
        return "an array"
    if isinstance(data, bool):
        return "a boolean"
    if isinstance(data, (int, float)):
        return "a number"
    return "a string" if isinstance(data, str) else "null" if data is None else f"a {type(data).__name__}"


def _document_error(source: str, number: int, data: Any, errors: ErrorList, message: str = "") -> DocumentProblem:
    """A document's problems, with whatever it says of its kind, name and API version."""
    kind, version = _str(_get(data, "kind")), _str(_get(data, "apiVersion"))
    return DocumentProblem(source, number, kind, _name(data), errors, message, version)


def _get(data: Any, key: str) -> Any:
    return data.get(key) if isinstance(data, Mapping) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _name(data: Any) -> str | None:
    return _str(_get(_get(data, "metadata"), "name"))
