"""``status.conditions`` as apimachinery's hand-written ``ValidateConditions`` checks them.

A PodGroup's and a CompositePodGroup's status updates run it (their
declarative ``conditions`` tags are alpha, and not enforced): each type
appears once (a repeat is a ``Duplicate`` at the repeated item), is set and
is a qualified name; each status is set and is ``True``, ``False`` or
``Unknown``; ``observedGeneration`` is not negative; ``lastTransitionTime``
and ``reason`` are set (a bare ``Required value``); a reason is
CamelCase-like and at most 1024 bytes, a message at most 32768 bytes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from workloadbuilder.field import ErrorList, FieldPath, duplicate, invalid, not_supported, required, too_long
from workloadbuilder.validation.formats import is_label_key

__all__ = ["conditions_errors"]

_STATUSES = ("False", "True", "Unknown")
_MAX_REASON, _MAX_MESSAGE = 1024, 32 * 1024
_REASON_FMT = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
_REASON_RE = re.compile(_REASON_FMT)
_REASON_MSG = (
    "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric "
    "characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or "
    f"'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '{_REASON_FMT}')"
)


def conditions_errors(path: FieldPath, conditions: Any) -> ErrorList:
    """The errors of a ``conditions`` list (JSON) at ``path``, in Go's order: item by item, a repeat, then the item."""
    errs = ErrorList()
    seen: set[str] = set()
    for i, condition in enumerate(conditions if isinstance(conditions, list) else []):
        entry: Mapping[str, Any] = condition if isinstance(condition, Mapping) else {}
        kind = entry.get("type") or ""
        if kind in seen:
            errs.append(duplicate(path.index(i), kind))
        seen.add(kind)
        errs += _condition(path.index(i), entry)
    return errs


def _bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _condition(path: FieldPath, condition: Mapping[str, Any]) -> ErrorList:
    kind, status = condition.get("type") or "", condition.get("status") or ""
    errs = ErrorList()
    if not kind:
        errs.append(required(path.child("type"), "is required"))
    else:
        errs.extend(invalid(path.child("type"), kind, msg) for msg in is_label_key(kind))
    if not status:
        errs.append(required(path.child("status")))
    elif status not in _STATUSES:
        errs.append(not_supported(path.child("status"), status, _STATUSES))
    generation = condition.get("observedGeneration") or 0
    if generation < 0:
        errs.append(invalid(path.child("observedGeneration"), generation, "must be greater than or equal to zero"))
    if not condition.get("lastTransitionTime"):
        errs.append(required(path.child("lastTransitionTime")))
    reason = condition.get("reason") or ""
    if not reason:
        errs.append(required(path.child("reason")))
    else:
        if not _REASON_RE.fullmatch(reason):
            errs.append(invalid(path.child("reason"), reason, _REASON_MSG))
        if _bytes(reason) > _MAX_REASON:
            errs.append(too_long(path.child("reason"), _MAX_REASON))
    if _bytes(condition.get("message") or "") > _MAX_MESSAGE:
        errs.append(too_long(path.child("message"), _MAX_MESSAGE))
    return errs
