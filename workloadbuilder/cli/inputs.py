"""Reading the command's inputs: files, directories and standard input into documents that know where they are from.

The only place besides ``main`` that touches files. Inputs follow kubectl's
``-f``: a file, a directory (its ``.yaml``, ``.yml`` and ``.json`` files in
name order; with ``-R`` its subdirectories' too) or ``-`` for standard
input. Every file is read once; each document remembers its file, its
number in the file and the file's text, so a message can name
``file (document N) Kind/name`` and an annotation the line of a field.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workloadbuilder import manifests
from workloadbuilder._internal import kinds
from workloadbuilder._internal.gofmt import capped
from workloadbuilder._internal.textread import TextError, decode_utf8, read_bytes, read_stream
from workloadbuilder.adapters.sourced import (
    DocumentRefusedError,
    Notice,
    SourcedDocument,
    skipped_note,
    unknown_kinds,
    unknown_note,
)
from workloadbuilder.cli.errors import UsageError, one_line
from workloadbuilder.errors import WorkloadBuilderError
from workloadbuilder.validation.gates import GATES, FeatureGates

__all__ = [
    "Document",
    "UsageError",
    "about",
    "checks_for",
    "expand_paths",
    "parse_gates",
    "read_inputs",
    "refuse_not_served",
    "skip_notices",
]

STDIN = "-"
"""The path that means standard input."""

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
"""The files a directory contributes, as kubectl reads them."""

CLUSTER_SCOPED = frozenset({"ClusterTrainingRuntime", "Namespace", "Node", "PriorityClass", "DeviceClass"})
"""Kinds that have no namespace, so ``--namespace`` does not apply to them."""


@dataclass(frozen=True)
class Document(SourcedDocument):
    """One parsed document, where it came from (``SourcedDocument``), and its file's text."""

    text: str = ""
    """The whole file's text (for positions of fields)."""


@contextmanager
def about(doc: Document) -> Iterator[None]:
    """Turn the library's refusal of one document's object into a usage error that names the document.

    Raises:
        UsageError: ``file (document N) Kind/name: <the library's message>``.
    """
    try:
        yield
    except (UsageError, DocumentRefusedError):  # already named after its document
        raise
    except WorkloadBuilderError as problem:
        raise UsageError(f"{doc.about()}: {one_line(problem)}") from problem


def expand_paths(paths: Sequence[str], recursive: bool) -> list[str]:
    """The files the paths name: a file as given, a directory's manifests in name order, ``-`` as is.

    Raises:
        UsageError: a path that does not exist, or a directory without a manifest.
    """
    files: list[str] = []
    for path in paths:
        try:
            is_file = path == STDIN or Path(path).is_file()
            is_dir = not is_file and Path(path).is_dir()
        except OSError as problem:  # a name too long for the file system, say: is_file() lets that through
            raise UsageError(f"{capped(path)}: cannot read: {problem.strerror or problem}") from None
        if is_file:
            files.append(path)
            continue
        if not is_dir:
            raise UsageError(f"{capped(path)}: no such file or directory")
        found = sorted(_manifests_in(Path(path), recursive))
        if not found:
            raise UsageError(
                f"{path}: no .yaml, .yml or .json file in the directory"
                + ("" if recursive else " (-R reads its subdirectories)")
            )
        files.extend(str(file) for file in found)
    return files


def _manifests_in(directory: Path, recursive: bool) -> Iterator[Path]:
    """The manifests under ``directory``; with ``recursive``, each directory is visited once by its real path.

    A symbolic link to a directory is followed as kubectl follows it, but a
    directory already visited (a link loop, or two links to one place) is
    not read again; the walk keeps its own stack, so no depth can overflow it.
    """
    seen = {os.path.realpath(directory)}
    pending = [directory]
    while pending:
        current = pending.pop()
        try:
            entries = sorted(current.iterdir())
        except OSError as problem:
            raise UsageError(
                f"{capped(str(current))}: cannot read the directory: {problem.strerror or problem}"
            ) from None
        for entry in entries:
            try:
                is_dir = entry.is_dir()
                is_manifest = not is_dir and entry.is_file() and entry.suffix.lower() in MANIFEST_SUFFIXES
                real = os.path.realpath(entry) if is_dir else ""
            except OSError as problem:  # a path grown too long for the file system, say
                raise UsageError(f"{capped(str(entry))}: cannot read: {problem.strerror or problem}") from None
            if is_dir:
                if recursive and real not in seen:
                    seen.add(real)
                    pending.append(entry)
            elif is_manifest:
                yield entry


def read_inputs(
    paths: Sequence[str], recursive: bool = False, namespace: str | None = None, served_only: bool = True
) -> list[Document]:
    """Every document of every input, in order; ``-`` reads standard input, a directory its manifests.

    Args:
        paths: files, directories and ``-``.
        recursive: whether a directory's subdirectories are read too (``-R``).
        namespace: ``-n``: the namespace of every namespaced object that names none.
        served_only: refuse a Workload, PodGroup or CompositePodGroup of a
            version 1.37 does not serve, with ``validate``'s message
            (``refuse_not_served``); ``validate`` and ``migrate`` read them.

    Raises:
        UsageError: a path that does not exist or cannot be read, a document
            that is not a mapping, an object whose namespace is not
            ``namespace``, a version not served (with ``served_only``), or
            no document at all.
        ManifestError: a document that is not YAML or JSON.
    """
    documents: list[Document] = []
    for path in expand_paths(paths, recursive):
        name, text = _read(path)
        for number, data in enumerate(manifests.read_documents_text(name, text), start=1):
            if data is None:
                continue
            items = manifests.list_items(data)
            if items is None:
                if not isinstance(data, dict):
                    raise UsageError(f"{name} (document {number}): a manifest is a mapping, not {_json_type(data)}")
                documents.append(_in_namespace(Document(name, number, data, text=text), namespace))
                continue
            for position, item in enumerate(items, start=1):
                if not isinstance(item, dict):
                    where = f"{name} (document {number}, item {position})"
                    raise UsageError(f"{where}: a manifest is a mapping, not {_json_type(item)}")
                documents.append(_in_namespace(Document(name, number, item, position, text), namespace))
    if not documents:
        raise UsageError(f"{', '.join(paths)}: no object in the input")
    if served_only:
        refuse_not_served(documents)
    return documents


def refuse_not_served(documents: Sequence[Document]) -> None:
    """Refuse the first scheduling object of a version 1.37 does not serve, in ``validate``'s words.

    Raises:
        UsageError: ``file (document N) Kind/name: The Kind "name" is invalid:
            apiVersion: Invalid value: ...: ... not served by Kubernetes 1.37:
            the workloadbuilder migrate command rewrites it to ...``.
    """
    for doc in documents:
        if not doc.is_scheduling_object:
            continue
        _, errors = kinds.model_for(doc.data)
        wrong = [str(error) for error in errors if error.field == "apiVersion"]
        if wrong:
            raise UsageError(f'{doc.about()}: The {doc.kind} "{doc.name}" is invalid: {wrong[0]}')


def skip_notices(documents: Sequence[Document], used: Collection[str] = (), read: Collection[str] = ()) -> list[Notice]:
    """What a command says of each document it skips, in input order: a note or an ``unknown-kind`` warning.

    A built-in object with no gang-scheduling content gets ``skipped_note``
    (unless its kind is in ``read``: ``place`` reads PriorityClasses), one
    of an unknown kind (``unknown_kinds``, with ``used``) ``unknown_note``.
    """
    unknown = {id(doc) for doc in unknown_kinds(documents, used)}
    notices = []
    for doc in documents:
        if doc.has_no_scheduling_content and doc.kind not in read:
            notices.append(Notice("skipped", skipped_note(doc)))
        elif id(doc) in unknown:
            notices.append(Notice("unknown-kind", unknown_note(doc)))
    return notices


def _read(path: str) -> tuple[str, str]:
    """The input's name in messages and its text: bytes decoded as UTF-8, whatever the locale (stdin's too)."""
    try:
        if path == STDIN:
            name, buffer = "<stdin>", getattr(sys.stdin, "buffer", None)
            data: bytes | str = read_stream(buffer if buffer is not None else sys.stdin)
        else:
            name = path
            try:
                data = read_bytes(path)
            except OSError as problem:
                raise UsageError(f"{capped(path)}: cannot read: {problem.strerror or problem}") from None
        if isinstance(data, str):
            return name, data
        return name, decode_utf8(data, name)
    except TextError as problem:
        raise UsageError(f"{name}: {problem.message}") from None


def _in_namespace(doc: Document, namespace: str | None) -> Document:
    """The document with ``namespace`` filled in where it names none (kubectl's ``-n``); a different one is an error."""
    metadata = doc.data.get("metadata")
    if namespace is None or doc.kind in CLUSTER_SCOPED or not isinstance(metadata, dict):
        return doc
    current = metadata.get("namespace")
    if current in (None, ""):
        data = {**doc.data, "metadata": {**metadata, "namespace": namespace}}
        return Document(doc.source, doc.number, data, doc.item, doc.text)
    if current != namespace:
        raise UsageError(
            f"{doc.about()}: the namespace from the provided object {current!r} does not match the namespace "
            f"{namespace!r} (--namespace): leave the flag out, or pass --namespace={current}"
        )
    return doc


def _json_type(data: Any) -> str:
    return "a list" if isinstance(data, list) else f"a {type(data).__name__}"


def parse_gates(spec: str | None) -> FeatureGates:
    """``--gates``: ``all`` (the default), ``defaults`` (1.37 as shipped), or ``Gate=true,Other=false`` over all-on.

    Raises:
        UsageError: an unknown gate or value.
    """
    if spec in (None, "", "all"):
        return FeatureGates.all()
    if spec == "defaults":
        return FeatureGates.defaults()
    enabled = dict.fromkeys(GATES, True)
    for part in spec.split(","):
        name, sep, value = part.partition("=")
        if not sep or value.lower() not in ("true", "false"):
            raise UsageError(f"--gates: expected Gate=true|false, got {part!r}")
        enabled[name.strip()] = value.lower() == "true"
    try:
        return FeatureGates(enabled)
    except ValueError as err:
        raise UsageError(f"--gates: {err}") from None


KUBERNETES_VERSION = "1.37"
"""The Kubernetes release whose apiserver ``validate`` and ``diff`` speak for (its rules, gates and versions)."""


def checks_for(gates: FeatureGates) -> str:
    """What the checks are for, as ``validate`` names it: ``Kubernetes 1.37, feature gates: all``.

    The gates are named as ``--gates`` takes them: ``all``, ``defaults``, or
    ``all but Gate=false,...`` for the gates turned off over all-on.
    """
    if gates == FeatureGates.all():
        profile = "all"
    elif gates == FeatureGates.defaults():
        profile = "defaults"
    else:
        profile = "all but " + ",".join(f"{name}=false" for name in sorted(set(GATES) - gates.enabled))
    return f"Kubernetes {KUBERNETES_VERSION}, feature gates: {profile}"
