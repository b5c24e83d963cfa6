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
    errors = list(errors)
    got = [
        (err.type, err.field, err.detail) if len(want) == 3 else (err.type, err.field)
        for err, want in zip(errors, expected, strict=False)
    ]
    wanted = [(_error_type(want[0]), *want[1:]) for want in expected]
    if len(errors) != len(expected) or got != wanted:
        shown = "\n".join(f"  {err}" for err in errors) or "  (none)"
        raise AssertionError(f"expected {len(expected)} error(s) {wanted}, got {len(errors)}:\n{shown}")
