"""Assert field errors by type and path, the way the Go tests check them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from workloadbuilder.field import ErrorType, FieldError

__all__ = ["assert_field_errors"]

# Go's constructor names (field.Invalid, field.Required, ...) as users write them.
_SHORT_NAMES = {
    "Invalid": ErrorType.INVALID,
    "Required": ErrorType.REQUIRED,
    "Forbidden": ErrorType.FORBIDDEN,
    "Duplicate": ErrorType.DUPLICATE,
    "NotFound": ErrorType.NOT_FOUND,
    "NotSupported": ErrorType.NOT_SUPPORTED,
    "TooLong": ErrorType.TOO_LONG,
    "TooMany": ErrorType.TOO_MANY,
    "TooFew": ErrorType.TOO_FEW,
    "TooShort": ErrorType.TOO_SHORT,
    "Internal": ErrorType.INTERNAL,
    "TypeInvalid": ErrorType.TYPE_INVALID,
}
_LONG_TO_SHORT = {error_type: short for short, error_type in _SHORT_NAMES.items()}


def _error_type(name: ErrorType | str) -> ErrorType:
    if isinstance(name, ErrorType):
        return name
    if name in _SHORT_NAMES:
        return _SHORT_NAMES[name]
    return ErrorType(name)  # Go's own string, such as "FieldValueInvalid"


def assert_field_errors(
    errors: Iterable[FieldError], expected: Sequence[tuple[ErrorType | str, str] | tuple[ErrorType | str, str, str]]
) -> None:
    """Assert the exact errors, in order: each ``(type, field)`` or ``(type, field, detail)``.

    ``type`` is an ``ErrorType``, Go's constructor name (``"Invalid"``,
    ``"Forbidden"``...) or Go's type string (``"FieldValueInvalid"``).

    Examples:
        >>> from workloadbuilder import FieldPath
        >>> from workloadbuilder.field import invalid
        >>> errs = [invalid(FieldPath("spec", "x"), 0, "must be greater than or equal to 1")]
        >>> assert_field_errors(errs, [("Invalid", "spec.x")])
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this function's source
    errors = list(errors)
    got = [
        (err.type, err.field, err.detail) if len(want) == 3 else (err.type, err.field)
        for err, want in zip(errors, expected, strict=False)
    ]
    wanted = [(_error_type(want[0]), *want[1:]) for want in expected]
    if len(errors) != len(expected) or got != wanted:
        raise AssertionError(_mismatch(wanted, errors))


def _short_name(error_type: ErrorType) -> str:
    """Go's constructor name of ``error_type`` (``Invalid``, ``TypeInvalid``...), as expectations are written."""
    return _LONG_TO_SHORT[error_type]


def _pair(entry: Sequence[object]) -> str:
    """``(Invalid, spec.x)`` or ``(Invalid, spec.x, 'detail')``: one expectation as the user wrote it."""
    error_type, field, *detail = entry
    shown = _short_name(error_type) if isinstance(error_type, ErrorType) else str(error_type)
    return f"({', '.join([shown, str(field), *(repr(d) for d in detail)])})"


def _mismatch(wanted: list[tuple[object, ...]], errors: list[FieldError]) -> str:
    """The failure: expected and received ``(type, field)`` pairs side by side, each received error in full."""
    lines = [f"expected {len(wanted)} error(s), got {len(errors)}:"]
    for i in range(max(len(wanted), len(errors))):
        want = _pair(wanted[i]) if i < len(wanted) else "(none)"
        if i < len(errors):
            err = errors[i]
            as_wanted = (err.type, err.field, err.detail)[: len(wanted[i])] if i < len(wanted) else ()
            have = _pair(as_wanted or (err.type, err.field))
        else:
            err, have = None, "(none)"
        mark = " " if i < len(wanted) and err is not None and want == have else "!"
        lines.append(f"{mark} [{i}] expected {want}")
        lines.append(f"{mark} [{i}] received {have}" + ("" if err is None else f": {err}"))
    return "\n".join(lines)
