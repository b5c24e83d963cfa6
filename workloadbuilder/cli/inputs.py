"""Reading the command's inputs: files (or stdin) into documents, and documents into adapter plans.

The only place besides ``main`` that touches files: every manifest is read
once, each document remembers where it came from, and a document that no
adapter claims is either a scheduling object (kept for validation) or an
error naming its kind.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workloadbuilder import kinds, manifests
from workloadbuilder.errors import WorkloadBuilderError
from workloadbuilder.validation.gates import GATES, FeatureGates

__all__ = ["Document", "UsageError", "parse_gates", "read_inputs"]


class UsageError(WorkloadBuilderError):
    """A problem with the command line or its files: printed as one line, exit code 2."""


@dataclass(frozen=True)
class Document:
    """One parsed document and where it came from."""

    source: str
    number: int
    data: Any
    item: int | None = None
    """The object's position in its document's ``List`` (from 1), if the document is a list."""

    @property
    def kind(self) -> str:
        """The document's ``kind`` ("" when it has none)."""
        return str(self.data.get("kind", "")) if isinstance(self.data, dict) else ""

    @property
    def api_version(self) -> str:
        """The document's ``apiVersion`` ("" when it has none)."""
        return str(self.data.get("apiVersion", "")) if isinstance(self.data, dict) else ""

    @property
    def name(self) -> str:
        """The document's ``metadata.name`` ("" when it has none)."""
        metadata = self.data.get("metadata") if isinstance(self.data, dict) else None
        return str(metadata.get("name", "")) if isinstance(metadata, dict) else ""

    @property
    def is_scheduling_object(self) -> bool:
        """Whether this is a Workload, PodGroup or CompositePodGroup (of a served or removed version)."""
        return self.api_version.startswith(kinds.GROUP + "/") and self.kind in kinds.PREFERRED_VERSION

    def where(self) -> str:
        """``file (document N)`` (``file (document N, item M)`` in a list), for messages."""
        inside = "" if self.item is None else f", item {self.item}"
        return f"{self.source} (document {self.number}{inside})"


def read_inputs(paths: Sequence[str]) -> list[Document]:
    """Every object of every file, in order; ``-`` reads standard input.

    A ``List`` or ``<Kind>List`` document contributes its items
    (``manifests.list_items``), each remembering its position.

    Raises:
        UsageError: a file that does not exist or cannot be read, a document
            that is not a mapping, or no document at all.
        ManifestError: a document that is not YAML or JSON.
    """
    documents: list[Document] = []
    for path in paths:
        if path == "-":
            name, parsed = "<stdin>", manifests.read_documents(sys.stdin)
        else:
            if not Path(path).is_file():
                raise UsageError(f"{path}: no such file")
            name, parsed = path, manifests.read_documents(Path(path))
        for number, data in enumerate(parsed, start=1):
            if data is None:
                continue
            items = manifests.list_items(data)
            if items is None:
                if not isinstance(data, dict):
                    raise UsageError(f"{name} (document {number}): a manifest is a mapping, not {_json_type(data)}")
                documents.append(Document(name, number, data))
                continue
            for position, item in enumerate(items, start=1):
                if not isinstance(item, dict):
                    where = f"{name} (document {number}, item {position})"
                    raise UsageError(f"{where}: a manifest is a mapping, not {_json_type(item)}")
                documents.append(Document(name, number, item, position))
    if not documents:
        raise UsageError(f"{', '.join(paths)}: no object in the input")
    return documents


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
    enabled = {name: True for name in GATES}
    for part in spec.split(","):
        name, sep, value = part.partition("=")
        if not sep or value.lower() not in ("true", "false"):
            raise UsageError(f"--gates: expected Gate=true|false, got {part!r}")
        enabled[name.strip()] = value.lower() == "true"
    try:
        return FeatureGates(enabled)
    except ValueError as err:
        raise UsageError(f"--gates: {err}") from None
