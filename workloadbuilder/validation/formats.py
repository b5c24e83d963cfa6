"""Kubernetes name and key formats, with the apiserver's exact messages.

Each ``is_*`` function returns the list of messages Kubernetes'
``pkg/api/validate/content`` package returns for the value (empty when the
value is valid); the ``*_errors`` helpers turn them into field errors, one
``Invalid`` error per message, as the declarative validators do. Lengths are
counted in UTF-8 bytes and regexes must match the whole value, as in Go.

The DNS checks also speak for apimachinery's older ``pkg/util/validation``
twins, which ``ValidateObjectMeta`` still calls for ``metadata.name``,
``generateName`` and ``namespace``: the same rules, but their ``MaxLenError``
says ``characters`` where the ``content`` package says ``bytes`` (both count
bytes). Pass ``unit=CHARACTERS`` for those.
"""

from __future__ import annotations

import re

from workloadbuilder.field import ErrorList, FieldPath, invalid

__all__ = [
    "BYTES",
    "CHARACTERS",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_label_key",
    "is_label_value",
    "is_path_segment_name",
    "is_path_segment_prefix",
    "label_key_errors",
    "long_name_errors",
    "path_segment_name_errors",
    "short_name_errors",
]

_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_FMT = _LABEL_FMT + "(\\." + _LABEL_FMT + ")*"
_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _LABEL_KEY_FMT + ")?"

_LABEL_RE = re.compile(_LABEL_FMT)
_SUBDOMAIN_RE = re.compile(_SUBDOMAIN_FMT)
_LABEL_KEY_RE = re.compile(_LABEL_KEY_FMT)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)

_LABEL_MAX = 63
_SUBDOMAIN_MAX = 253
_LABEL_KEY_NAME_MAX = 63
_LABEL_VALUE_MAX = 63

_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_LABEL_KEY_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)


def _regex_error(msg: str, regex: str, *examples: str) -> str:
    """Go's ``content.RegexError``: examples each end with ``', '``, hence the double space."""
    if not examples:
        return f"{msg} (regex used for validation is '{regex}')"
    shown = " or ".join(f"'{example}', " for example in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{regex}')"


BYTES = "bytes"
"""The unit ``content``'s length messages name (declarative validation, labels, qualified names)."""
CHARACTERS = "characters"
"""The unit ``pkg/util/validation.MaxLenError`` names (metadata name, generateName, namespace)."""


def _max_len(length: int, unit: str = BYTES) -> str:
    return f"must be no more than {length} {unit}"


def _byte_len(value: str) -> int:
    return len(value.encode("utf-8", "surrogatepass"))


def is_dns1123_label(value: str, unit: str = BYTES) -> list[str]:
    """Messages for a value that is not a DNS-1123 label (``k8s-short-name``); ``unit`` names the length's unit."""
    errs = []
    if _byte_len(value) > _LABEL_MAX:
        errs.append(_max_len(_LABEL_MAX, unit))
    if not _LABEL_RE.fullmatch(value):
        if _SUBDOMAIN_RE.fullmatch(value):
            errs.append("must not contain dots")
        else:
            errs.append(_regex_error(_LABEL_MSG, _LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_dns1123_subdomain(value: str, unit: str = BYTES) -> list[str]:
    """Messages for a value that is not a DNS-1123 subdomain (``k8s-long-name``); ``unit`` names the length's unit."""
    errs = []
    if _byte_len(value) > _SUBDOMAIN_MAX:
        errs.append(_max_len(_SUBDOMAIN_MAX, unit))
    if not _SUBDOMAIN_RE.fullmatch(value):
        errs.append(_regex_error(_SUBDOMAIN_MSG, _SUBDOMAIN_FMT, "example.com"))
    return errs


def is_label_key(value: str) -> list[str]:
    """Messages for a value that is not a qualified name (``k8s-label-key``), in Go's order."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + msg for msg in is_dns1123_subdomain(prefix))
    else:
        return [
            "a valid label key "
            + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif _byte_len(name) > _LABEL_KEY_NAME_MAX:
        errs.append("name part " + _max_len(_LABEL_KEY_NAME_MAX))
    if not _LABEL_KEY_RE.fullmatch(name):
        errs.append("name part " + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc"))
    return errs


def is_label_value(value: str) -> list[str]:
    """Messages for a value that is not a label value (empty, or a qualified name's name part), in Go's order."""
    errs = []
    if _byte_len(value) > _LABEL_VALUE_MAX:
        errs.append(_max_len(_LABEL_VALUE_MAX))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(_regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def is_path_segment_name(value: str) -> list[str]:
    """Messages for a value that cannot be a URL path segment (``k8s-path-segment-name``)."""
    for illegal in (".", ".."):
        if value == illegal:
            return [f"may not be '{illegal}'"]
    return is_path_segment_prefix(value)


def is_path_segment_prefix(value: str) -> list[str]:
    """Messages for a value that cannot begin a URL path segment: a ``generateName`` may be ``.``, not hold ``/``."""
    return [f"may not contain '{illegal}'" for illegal in ("/", "%") if illegal in value]


def _errors(path: FieldPath | None, value: str, messages: list[str]) -> ErrorList:
    return ErrorList(invalid(path, value, msg) for msg in messages)


def short_name_errors(path: FieldPath | None, value: str) -> ErrorList:
    """Field errors for a DNS-1123 label, one per message."""
    return _errors(path, value, is_dns1123_label(value))


def long_name_errors(path: FieldPath | None, value: str) -> ErrorList:
    """Field errors for a DNS-1123 subdomain, one per message."""
    return _errors(path, value, is_dns1123_subdomain(value))


def label_key_errors(path: FieldPath | None, value: str) -> ErrorList:
    """Field errors for a label key / qualified name, one per message."""
    return _errors(path, value, is_label_key(value))


def path_segment_name_errors(path: FieldPath | None, value: str) -> ErrorList:
    """Field errors for a path-segment name, one per message."""
    return _errors(path, value, is_path_segment_name(value))
