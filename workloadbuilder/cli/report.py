"""Reporting validation results the way the tools people already read do it: kubectl, JSON, GitHub annotations."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from workloadbuilder.field import ErrorList, FieldError
from workloadbuilder.gofmt import render_bad_value

__all__ = ["Verdict", "render"]


@dataclass
class Verdict:
    """The result of validating one object; ``checked`` is false for an object no adapter reads."""

    source: str
    document: int
    kind: str
    name: str
    errors: ErrorList = field(default_factory=ErrorList)
    warnings: list[str] = field(default_factory=list)
    checked: bool = True

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
            "warnings": list(self.warnings),
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


def render(verdicts: Sequence[Verdict], output: str) -> str:
    """All verdicts in one of the formats ``text``, ``json`` or ``github``."""
    if output == "json":
        return json.dumps([v.as_dict() for v in verdicts], indent=2) + "\n"
    if output == "github":
        lines = []
        for verdict in verdicts:
            title = _gh_property(f"{verdict.kind} {verdict.name} is invalid")
            for err in verdict.errors:
                lines.append(f"::error file={_gh_property(verdict.source)},title={title}::{_gh_data(str(err))}")
            for warning in verdict.warnings:
                lines.append(f"::warning file={_gh_property(verdict.source)}::{_gh_data(warning)}")
        return "".join(line + "\n" for line in lines)
    out = []
    for verdict in verdicts:
        out.extend(f"Warning: {warning}\n" for warning in verdict.warnings)
        if verdict.checked:
            out.append(verdict.kubectl() or f'{verdict.kind} "{verdict.name}" is valid\n')
    return "".join(out)


def _gh_data(text: str) -> str:
    """GitHub workflow-command escaping of a message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(text: str) -> str:
    """GitHub workflow-command escaping of a property value."""
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")
