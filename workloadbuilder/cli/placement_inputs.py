"""The input documents of ``place``/``explain`` as placement requests: the files' documents, read by the library.

``workloadbuilder.placement.documents.read_documents`` does the work (the
same call a Python user makes); this module only names each document by
its file and number, prints the warnings and turns a refused document into
a usage error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TextIO

from workloadbuilder.cli.inputs import Document, UsageError
from workloadbuilder.placement import DeviceRequest, PlacementRequest
from workloadbuilder.placement.documents import DocumentError, DocumentInput, read_documents

__all__ = ["PlacementInput", "placement_inputs"]


@dataclass
class PlacementInput:
    """One input object and the root groups it asks to place; ``label`` names it with its file and document."""

    label: str
    request: PlacementRequest


def placement_inputs(
    documents: Sequence[Document], claims: Mapping[str, DeviceRequest], err: TextIO
) -> tuple[list[PlacementInput], PlacementRequest]:
    """Every input object's request, and the merged request that places them all, warnings written to ``err``.

    Raises:
        UsageError: an invalid object, a group without pods, a group in two inputs, or nothing to place at all.
    """

    def label(item: DocumentInput) -> str:
        doc = documents[item.index]
        return f"{item.label} ({doc.source}, document {doc.number})"

    try:
        found = read_documents([doc.data for doc in documents], claims=claims, where=[doc.where() for doc in documents])
        merged = found.merged(label)
    except DocumentError as problem:
        raise UsageError(str(problem)) from None
    err.writelines(f"Warning: {warning}\n" for warning in found.warnings)
    return [PlacementInput(label(item), item.request) for item in found.inputs], merged
