"""The input documents of ``place``/``explain`` as placement requests: the files' documents, read by the library.

``workloadbuilder.adapters.documents.requests_from_documents`` does the work (the
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
    requests_from_documents,
)
from workloadbuilder.cli.errors import UsageError
from workloadbuilder.cli.inputs import Document, skip_notices
from workloadbuilder.placement import DeviceRequest, PlacementRequest
from workloadbuilder.placement.k8s.priorities import PriorityClass

__all__ = ["NothingToPlace", "PlacementInput", "PlacementInputs", "merge_requests", "placement_inputs"]


_READ_BY_PLACE = frozenset({"PriorityClass", "PodDisruptionBudget"})
"""Built-in kinds with no gang content that placement still reads (priorities and budgets for preemption)."""


class NothingToPlace(UsageError):
    """The input holds only built-in objects with no gang-scheduling content: nothing to do, and nothing wrong."""


@dataclass
class PlacementInput:
    """One input object and the root groups it asks to place; ``label`` names it with its file and document."""

    label: str
    request: PlacementRequest


@dataclass
class PlacementInputs:
    """What one read of the input documents gives: each object's request and the PriorityClasses beside them."""

    inputs: list[PlacementInput]
    priority_classes: list[PriorityClass]


def placement_inputs(
    documents: Sequence[Document], claims: Mapping[str, DeviceRequest], err: TextIO
) -> PlacementInputs:
    """Every input object's request, labelled with its file and document, and the input's PriorityClasses.

    The documents are read once; warnings go to ``err``.

    Raises:
        InvalidDocumentError: an object that does not validate (the ``invalid`` verdict, not bad input).
        UsageError: another object that cannot be placed, a malformed PriorityClass, a group without pods, or
            nothing to place at all.
        NothingToPlace: only built-in objects with no gang-scheduling content
            (a Service, RBAC), each skipped with a note.

    An object of a kind no adapter knows (``unknown_kinds``: a Kueue
    ClusterQueue beside its Job) is skipped with a warning, as every command
    skips it.
    """
    for notice in skip_notices(documents, read=_READ_BY_PLACE):
        err.write(f"{'Note' if notice.kind == 'skipped' else 'Warning'}: {notice.text}\n")
    if all(doc.has_no_scheduling_content for doc in documents):
        raise NothingToPlace("nothing to place: no object in the input has gang-scheduling content")
    try:
        found = requests_from_documents(
            [doc.data for doc in documents], claims=claims, where=[doc.where() for doc in documents]
        )
    except InvalidDocumentError:
        raise
    except DocumentError as problem:
        raise UsageError(str(problem)) from None
    err.writelines(f"Warning: {warning}\n" for warning in found.warnings)
    inputs = [PlacementInput(_label(item, documents), item.request) for item in found.inputs]
    return PlacementInputs(inputs, found.priority_classes)


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
