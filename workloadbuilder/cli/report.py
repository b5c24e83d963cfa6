"""Reporting validation results the way the tools people already read do it: kubectl, JSON, GitHub annotations."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from workloadbuilder._internal.gofmt import render_bad_value
from workloadbuilder.cli.messages import Notice
from workloadbuilder.cli.positions import Positions
from workloadbuilder.field import ErrorList, FieldError

__all__ = ["Verdict", "render"]


@dataclass
class Verdict:
    """The result of validating one object; ``checked`` is false for an object no adapter reads."""

    source: str
    document: int
    kind: str
    name: str
    errors: ErrorList = field(default_factory=ErrorList)
    notices: list[Notice] = field(default_factory=list)
    checked: bool = True
    item: int | None = None
    """The object's position in its document's ``List`` (from 1), if the document is a list."""

    def kubectl(self) -> str:
        """kubectl's message for a rejected object (``MultilineError`` layout), or ``""`` when valid."""
        if not self.errors:
            return ""
        prefix = f'The {self.kind} "{self.name}" is invalid: '
        texts = list(dict.fromkeys(str(err) for err in self.errors))
        if len(texts) == 1:
            return prefix + texts[0] + "\n"
        return prefix + "\n" + "".join(f"* {text}\n" for text in texts)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready record: where the object is, and each error with its ``loc``."""
        return {
            "source": self.source,
            "document": self.document,
            "kind": self.kind,
            "name": self.name,
            "valid": not self.errors,
            "checked": self.checked,
            "errors": [_error_dict(err) for err in self.errors],
            "warnings": [notice.text for notice in self.notices],
        }


def _error_dict(err: FieldError) -> dict[str, Any]:
    return {
        "type": err.type.value,
        "field": err.field,
        "loc": list(err.loc()),
        "detail": err.detail,
        "badValue": render_bad_value(err.bad_value),
        "message": str(err),
    }


def render(verdicts: Sequence[Verdict], output: str, positions: Mapping[str, Positions] | None = None) -> str:
    """All verdicts in one of the formats ``text``, ``json`` or ``github``.

    ``positions`` (by source) gives GitHub annotations the line and column
    of each offending field; without it they name only the file.
    """
    if output == "json":
        return json.dumps([v.as_dict() for v in verdicts], indent=2) + "\n"
    if output == "github":
        return "".join(line + "\n" for verdict in verdicts for line in _annotations(verdict, positions or {}))
    out: list[str] = []
    for verdict in verdicts:
        out.extend(f"{_label(notice)}: {notice.text}\n" for notice in verdict.notices)
        if verdict.checked:
            out.append(verdict.kubectl() or f'{verdict.kind} "{verdict.name}" is valid\n')
    return "".join(out)


def _label(notice: Notice) -> str:
    """``Note`` for a skipped object, ``Warning`` for everything else."""
    return "Note" if notice.kind == "skipped" else "Warning"


def _annotations(verdict: Verdict, positions: Mapping[str, Positions]) -> list[str]:
    """GitHub workflow commands for one verdict: ``::error file=F,line=L,col=C,title=T::message`` and warnings."""
    found = positions.get(verdict.source)

    def where(loc: Sequence[str | int]) -> str:
        path = loc if verdict.item is None else ("items", verdict.item - 1, *loc)
        place = found.find(verdict.document, path) if found is not None else None
        at = f",line={place[0]},col={place[1]}" if place is not None else ""
        return f"file={_gh_property(verdict.source)}{at}"

    title = _gh_property(f"{verdict.kind} {verdict.name} is invalid")
    lines = [f"::error {where(err.loc())},title={title}::{_gh_data(str(err))}" for err in verdict.errors]
    lines += [f"::warning {where(notice.loc)}::{_gh_data(notice.text)}" for notice in verdict.notices]
    return lines


def _gh_data(text: str) -> str:
    """GitHub workflow-command escaping of a message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(text: str) -> str:
    """GitHub workflow-command escaping of a property value."""
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")
