"""Replaying a case recorded from Go apiserver validation offline (the rules: tests/data/apiserver-recorded)."""

from __future__ import annotations

import json
import pathlib
from typing import Any

from workloadbuilder.field import ErrorList
from workloadbuilder.validation.objects import validate_composite_pod_group, validate_pod_group, validate_workload

DATA = pathlib.Path(__file__).resolve().parent.parent / "data" / "apiserver-recorded"


def load(name: str) -> list[dict[str, Any]]:
    """The cases of one file, in file order."""
    with open(DATA / name, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def refused_before_validation(case: dict[str, Any]) -> bool:
    """Whether Go refused the request before validation ran (stale resourceVersion, URL mismatch, decoding)."""
    return bool(case["go"].get("decode_error"))


def replay(case: dict[str, Any]) -> ErrorList:
    """Our errors for the case's request: the kind's validator, every gate on, ``old`` and the subresource."""
    obj, old, subresource = case["obj"], case.get("old"), case.get("subresource") or None
    if case["kind"] == "Workload":
        return validate_workload(obj, old=old, gates=None)
    if case["kind"] == "PodGroup":
        return validate_pod_group(obj, old=old, gates=None, subresource=subresource)
    return validate_composite_pod_group(obj, old=old, gates=None, subresource=subresource)


def triples(errors: ErrorList) -> list[tuple[str, str, str]]:
    """Each error as ``(text, type, field)``, the form the recorded answers are compared in."""
    return [(str(err), err.type.value, str(err.field)) for err in errors]


def recorded_triples(case: dict[str, Any]) -> list[tuple[str, str, str]]:
    """Go's errors for the case as ``(text, type, field)``, in Go's order."""
    return [(err["error"], err["type"], err["field"]) for err in case["go"]["errors"]]
