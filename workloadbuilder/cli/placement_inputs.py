"""The input documents of ``place``/``explain`` as placement requests: the files' documents, read by the library.

``workloadbuilder.adapters.documents.read_documents`` does the work (the
same call a Python user makes); this module only names each document by
its file and number, prints the warnings and turns a refused document into
a usage error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TextIO

from workloadbuilder.adapters.documents import (
    DocumentError,
    DocumentInput,
    DocumentInputs,
    InvalidDocumentError,
    read_documents,
)
from workloadbuilder.cli.errors import UsageError
from workloadbuilder.cli.inputs import Document
from workloadbuilder.placement import DeviceRequest, PlacementRequest

__all__ = ["PlacementInput", "merge_requests", "placement_inputs"]


@dataclass
class PlacementInput:
    """One input object and the root groups it asks to place; ``label`` names it with its file and document."""

    label: str
    request: PlacementRequest


def placement_inputs(
    documents: Sequence[Document], claims: Mapping[str, DeviceRequest], err: TextIO
) -> list[PlacementInput]:
    """Every input object's request, labelled with its file and document; warnings go to ``err``.

    Raises:
        InvalidDocumentError: an object that does not validate (the ``invalid`` verdict, not bad input).
        UsageError: another object that cannot be placed, a group without pods, or nothing to place at all.
    """
    try:
        found = read_documents([doc.data for doc in documents], claims=claims, where=[doc.where() for doc in documents])
    except InvalidDocumentError:
        raise
    except DocumentError as problem:
        raise UsageError(str(problem)) from None
    err.writelines(f"Warning: {warning}\n" for warning in found.warnings)
    return [PlacementInput(_label(item, documents), item.request) for item in found.inputs]


def merge_requests(inputs: Sequence[PlacementInput]) -> PlacementRequest:
    """One request: every input's roots, in input order (``DocumentInputs.merged``, with the inputs' labels).

    Raises:
        UsageError: a group name in two inputs.
    """
    found = DocumentInputs([DocumentInput(i, item.label, item.request) for i, item in enumerate(inputs)])
    try:
        return found.merged()
    except DocumentError as problem:
        raise UsageError(str(problem)) from None


def _label(item: DocumentInput, documents: Sequence[Document]) -> str:
    doc = documents[item.index]
    return f"{item.label} ({doc.source}, document {doc.number})"
