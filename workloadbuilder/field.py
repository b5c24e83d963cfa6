"""Kubernetes' ``field`` package in Python: paths, typed field errors and their lists.

Every string this module renders is byte-identical to what
``k8s.io/apimachinery/pkg/util/validation/field`` renders in Go, because users
compare our messages with the apiserver's and tests assert them verbatim.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeAlias

from workloadbuilder._internal.gofmt import WholeValue, go_quote, go_sprint, render_bad_value
from workloadbuilder.errors import InvalidArgumentError, WorkloadBuilderError

__all__ = [
    "OMIT_VALUE",
    "AggregateError",
    "ErrorList",
    "ErrorType",
    "FieldError",
    "FieldPath",
    "Where",
    "duplicate",
    "first_few",
    "forbidden",
    "internal_error",
    "invalid",
    "not_found",
    "not_supported",
    "path_below",
    "required",
    "resolve_where",
    "summarize",
    "too_long",
    "too_many",
    "type_invalid",
]


class FieldPath:
    """An immutable path to a field, rendered exactly as Go's ``field.Path``.

    ``FieldPath("spec", "replicatedJobs").index(0).child("template")`` renders
    ``spec.replicatedJobs[0].template``; map keys render unquoted, as in
    ``metadata.annotations[a/b]``. Paths share their parents, so extending one
    never copies it.
    """

    __slots__ = ("_index", "_name", "_parent", "_str")

    def __init__(self, name: str, *more_names: str) -> None:
        self._name = name
        self._index: str | int = ""
        self._parent: FieldPath | None = None
        self._str: str | None = None
        if more_names:
            tail = FieldPath._extend(FieldPath._node(name, "", None), more_names)
            self._name, self._index, self._parent = tail._name, tail._index, tail._parent

    @classmethod
    def _node(cls, name: str, index: str | int, parent: FieldPath | None) -> FieldPath:
        node = cls.__new__(cls)
        node._name, node._index, node._parent, node._str = name, index, parent, None
        return node

    @staticmethod
    def _extend(path: FieldPath, names: Iterable[str]) -> FieldPath:
        for name in names:
            path = FieldPath._node(name, "", path)
        return path

    @classmethod
    def parse(cls, text: str) -> FieldPath:
        """Parse a rendered path such as ``spec.replicatedJobs[0].template`` back into a path.

        A subscript of digits becomes an index, anything else a key; the
        inverse of ``str()`` for paths whose names contain no ``.`` or ``[``.
        """
        tokens = _tokens(text)
        if not tokens or tokens[0][0] != "name":
            raise InvalidArgumentError(f"a field path must start with a field name: {text!r}")
        path = cls(str(tokens[0][1]))
        for kind, value in tokens[1:]:
            if kind == "name":
                path = path.child(str(value))
            elif kind == "index":
                path = path.index(int(value))
            else:
                path = path.key(str(value))
        return path

    def child(self, name: str, *more_names: str) -> FieldPath:
        """Return this path extended by one or more field names."""
        path = FieldPath._node(name, "", self)
        return FieldPath._extend(path, more_names) if more_names else path

    def index(self, index: int) -> FieldPath:
        """Return this path extended by a list index, rendered ``[i]``."""
        return FieldPath._node("", int(index), self)

    def key(self, key: str) -> FieldPath:
        """Return this path extended by a map key, rendered ``[key]`` without quotes."""
        return FieldPath._node("", key, self)

    def root(self) -> FieldPath:
        """Return the first element of this path, as Go's ``Path.Root`` does."""
        node = self
        while node._parent is not None:
            node = node._parent
        return node

    @property
    def parent(self) -> FieldPath | None:
        """The path without its last element, or ``None`` for a root."""
        return self._parent

    def elements(self) -> tuple[str | int, ...]:
        """Return the path as a pydantic-style ``loc`` tuple: names and keys as str, indexes as int."""
        out: list[str | int] = []
        node: FieldPath | None = self
        while node is not None:
            out.append(node._name or node._index)
            node = node._parent
        out.reverse()
        return tuple(out)

    def __str__(self) -> str:
        if self._str is None:
            chain: list[FieldPath] = []
            node: FieldPath | None = self
            while node is not None:
                chain.append(node)
                node = node._parent
            parts: list[str] = []
            for node in reversed(chain):
                if node._name:
                    if node._parent is not None:
                        parts.append(".")
                    parts.append(node._name)
                else:
                    parts.append(f"[{node._index}]")
            self._str = "".join(parts)
        return self._str

    def __repr__(self) -> str:
        return f"FieldPath({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FieldPath) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


def path_str(path: FieldPath | None) -> str:
    """Render a possibly missing path; Go renders a nil ``*Path`` as ``<nil>``."""
    return "<nil>" if path is None else str(path)


Where: TypeAlias = FieldPath | Callable[[], FieldPath]
"""A field path, or a function that builds it when an error needs it."""


def resolve_where(where: Where) -> FieldPath:
    """The path ``where`` stands for: itself, or what calling it builds (a path built only when an error needs it)."""
    return where if isinstance(where, FieldPath) else where()


def path_below(where: Where, *steps: str | int) -> Callable[[], FieldPath]:
    """The path of a field ``steps`` under ``where`` (names are children, integers indexes), built only when called.

    Readers of large inputs (kubectl dumps) pass these instead of paths, so a
    valid input builds no path at all.
    """

    def build() -> FieldPath:
        out = resolve_where(where)
        for step in steps:
            out = out.index(step) if isinstance(step, int) else out.child(step)
        return out

    return build


def extend_path(path: FieldPath | None, names: Sequence[str]) -> FieldPath | None:
    """Append field names to a possibly missing path, as Go's ``Child`` on a nil path does.

    Go's ``(*Path)(nil).Child("x")`` yields the root path ``x``, so an item with
    no path still reports at its path elements.
    """
    for name in names:
        path = FieldPath._node(name, "", path)
    return path


def index_path(path: FieldPath | None, index: int) -> FieldPath:
    """Append a list index to a possibly missing path; Go renders ``nil.Index(0)`` as ``[0]``."""
    return FieldPath._node("", int(index), path)


def key_path(path: FieldPath | None, key: str) -> FieldPath:
    """Append a map key to a possibly missing path; Go renders ``nil.Key("k")`` as ``[k]``."""
    return FieldPath._node("", key, path)


class ErrorType(str, enum.Enum):
    """The kind of a field error; values are Go's ``field.ErrorType`` strings."""

    NOT_FOUND = "FieldValueNotFound"
    REQUIRED = "FieldValueRequired"
    DUPLICATE = "FieldValueDuplicate"
    INVALID = "FieldValueInvalid"
    NOT_SUPPORTED = "FieldValueNotSupported"
    FORBIDDEN = "FieldValueForbidden"
    TOO_LONG = "FieldValueTooLong"
    TOO_MANY = "FieldValueTooMany"
    TOO_FEW = "FieldValueTooFew"
    INTERNAL = "InternalError"
    TYPE_INVALID = "FieldValueTypeInvalid"
    TOO_SHORT = "FieldValueTooShort"

    @property
    def display(self) -> str:
        """The human text Go prints for this type, such as ``Required value``."""
        return _DISPLAY[self]

    def __str__(self) -> str:
        return self.display


_DISPLAY = {
    ErrorType.NOT_FOUND: "Not found",
    ErrorType.REQUIRED: "Required value",
    ErrorType.DUPLICATE: "Duplicate value",
    ErrorType.INVALID: "Invalid value",
    ErrorType.NOT_SUPPORTED: "Unsupported value",
    ErrorType.FORBIDDEN: "Forbidden",
    ErrorType.TOO_LONG: "Too long",
    ErrorType.TOO_MANY: "Too many",
    ErrorType.TOO_FEW: "Too few",
    ErrorType.INTERNAL: "Internal error",
    ErrorType.TYPE_INVALID: "Invalid value",
    ErrorType.TOO_SHORT: "Too short",
}

_VALUE_FREE_TYPES = frozenset(
    {ErrorType.REQUIRED, ErrorType.FORBIDDEN, ErrorType.TOO_LONG, ErrorType.TOO_SHORT, ErrorType.INTERNAL}
)


class _OmitValue:
    """Marks a bad value that must not be rendered (Go's ``omitValue``)."""

    def __repr__(self) -> str:
        return "OMIT_VALUE"


OMIT_VALUE = _OmitValue()


class FieldError:
    """One problem with one field; ``str()`` is Go's ``field.Error.Error()``.

    Args:
        type: the error type.
        field: where the problem is; a ``FieldPath``, an already rendered path
            string, or ``None`` (rendered ``<nil>`` as Go renders a nil path).
        bad_value: the offending value; rendered only for value-bearing types.
        detail: the explanation after the value.
    """

    __slots__ = ("bad_value", "detail", "field", "path", "type")

    def __init__(self, type: ErrorType, field: FieldPath | str | None, bad_value: Any = "", detail: str = "") -> None:
        self.type = ErrorType(type)
        self.path = field if isinstance(field, FieldPath) else None
        self.field = field if isinstance(field, str) else path_str(field)
        self.bad_value = bad_value
        self.detail = detail

    def error_body(self) -> str:
        """The message without the field, as Go's ``ErrorBody``."""
        if self.type in _VALUE_FREE_TYPES or self.bad_value is OMIT_VALUE:
            body = self.type.display
        else:
            body = f"{self.type.display}: {render_bad_value(self.bad_value)}"
        if self.detail:
            body += f": {self.detail}"
        return body

    def loc(self) -> tuple[str | int, ...]:
        """The field as a pydantic-style location tuple (``()`` for ``<nil>``)."""
        if self.path is not None:
            return self.path.elements()
        if self.field == "<nil>":
            return ()
        return _parse_loc(self.field)

    def __str__(self) -> str:
        return f"{self.field}: {self.error_body()}"

    def __repr__(self) -> str:
        return f"FieldError({self.type.name}, {self.field!r}, {self.bad_value!r}, {self.detail!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldError):
            return NotImplemented
        return (self.type, self.field, self.detail) == (other.type, other.field, other.detail) and (
            self.type in _VALUE_FREE_TYPES or _same_value(self.bad_value, other.bad_value)
        )

    __hash__ = None  # type: ignore[assignment]


def _same_value(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b if isinstance(a, bool) or isinstance(b, bool) else a == b


_INDEX = re.compile(r"-?(0|[1-9][0-9]*)")  # only what Index renders; "007" is a key
_LOC_TOKEN = re.compile(r"\[([^\]]*)\]|\.?([^.\[]+)")


def _tokens(rendered: str) -> list[tuple[str, str | int]]:
    """Split a rendered path into ("name" | "index" | "key", value) tokens."""
    out: list[tuple[str, str | int]] = []
    for subscript, name in _LOC_TOKEN.findall(rendered):
        if name:
            out.append(("name", name))
        elif _INDEX.fullmatch(subscript):
            out.append(("index", int(subscript)))
        else:
            out.append(("key", subscript))
    return out


def _parse_loc(rendered: str) -> tuple[str | int, ...]:
    return tuple(value for _, value in _tokens(rendered))


class ErrorList(list[FieldError]):
    """A list of field errors, with Go's aggregation and a pydantic-style view."""

    def to_aggregate(self) -> AggregateError | None:
        """Return one exception for the whole list, or ``None`` when it is empty.

        Errors whose rendering was already seen are dropped, as Go's
        ``ErrorList.ToAggregate`` does; ``str()`` of the result is Go's
        aggregate string.
        """
        seen: set[str] = set()
        unique: list[FieldError] = []
        for err in self:
            text = str(err)
            if text not in seen:
                seen.add(text)
                unique.append(err)
        return AggregateError(unique) if unique else None

    def raise_if_any(self) -> None:
        """Raise the aggregate of this list, if it holds any error."""
        aggregate = self.to_aggregate()
        if aggregate is not None:
            raise aggregate


class AggregateError(WorkloadBuilderError, ValueError):
    """Several field errors raised as one exception.

    ``str()`` is Go's aggregate string: one error alone, several as
    ``[a, b]``. ``errors()`` lists them as pydantic does, each with a ``loc``
    tuple parsed from its field path.
    """

    def __init__(self, errors: Sequence[FieldError]) -> None:
        self.field_errors = ErrorList(errors)
        super().__init__(_aggregate_text(self.field_errors))

    def errors(self) -> list[dict[str, Any]]:
        """Return each error as ``{"type", "loc", "msg", "input"}``, like pydantic's ``errors()``."""
        return [
            {
                "type": err.type.value,
                "loc": err.loc(),
                "msg": err.type.display + (f": {err.detail}" if err.detail else ""),
                "input": err.bad_value.value if isinstance(err.bad_value, WholeValue) else err.bad_value,
            }
            for err in self.field_errors
        ]


def first_few(texts: Sequence[str], limit: int = 3) -> str:
    """The first ``limit`` distinct texts joined with ``; ``, and how many more there are, so a message stays one line.

    Examples:
        >>> first_few(["a", "b", "a", "c", "d"])
        'a; b; c (and 1 more)'
    """
    unique = list(dict.fromkeys(texts))
    more = f" (and {len(unique) - limit} more)" if len(unique) > limit else ""
    return "; ".join(unique[:limit]) + more


def summarize(problem: AggregateError) -> str:
    """The first few errors of an aggregate, in one line (its own message when it lists none)."""
    return first_few([str(error) for error in problem.field_errors] or [str(problem)])


def _aggregate_text(errors: Sequence[FieldError]) -> str:
    texts = list(dict.fromkeys(str(err) for err in errors))
    if not texts:
        return ""
    if len(texts) == 1:
        return texts[0]
    return "[" + ", ".join(texts) + "]"


def invalid(path: FieldPath | None, value: Any, detail: str) -> FieldError:
    """Go's ``field.Invalid``."""
    return FieldError(ErrorType.INVALID, path, value, detail)


def type_invalid(path: FieldPath | None, value: Any, detail: str) -> FieldError:
    """Go's ``field.TypeInvalid``: the value has the wrong type for the field."""
    return FieldError(ErrorType.TYPE_INVALID, path, value, detail)


def required(path: FieldPath | None, detail: str = "") -> FieldError:
    """Go's ``field.Required``."""
    return FieldError(ErrorType.REQUIRED, path, "", detail)


def forbidden(path: FieldPath | None, detail: str = "") -> FieldError:
    """Go's ``field.Forbidden``."""
    return FieldError(ErrorType.FORBIDDEN, path, "", detail)


def not_found(path: FieldPath | None, value: Any) -> FieldError:
    """Go's ``field.NotFound``."""
    return FieldError(ErrorType.NOT_FOUND, path, value)


def duplicate(path: FieldPath | None, value: Any) -> FieldError:
    """Go's ``field.Duplicate``."""
    return FieldError(ErrorType.DUPLICATE, path, value)


def not_supported(path: FieldPath | None, value: Any, valid: Sequence[str]) -> FieldError:
    """Go's ``field.NotSupported``: lists the supported values, each quoted."""
    detail = "supported values: " + ", ".join(go_quote(go_sprint(v)) for v in valid) if valid else ""
    return FieldError(ErrorType.NOT_SUPPORTED, path, value, detail)


def too_many(path: FieldPath | None, actual: int, maximum: int) -> FieldError:
    """Go's ``field.TooMany``: ``must have at most N items``."""
    if maximum >= 0:
        detail = f"must have at most {maximum} {'item' if maximum == 1 else 'items'}"
    else:
        detail = "has too many items"
    return FieldError(ErrorType.TOO_MANY, path, actual if actual >= 0 else OMIT_VALUE, detail)


def too_long(path: FieldPath | None, maximum: int) -> FieldError:
    """Go's ``field.TooLong``: ``may not be more than N bytes``."""
    if maximum >= 0:
        detail = f"may not be more than {maximum} {'byte' if maximum == 1 else 'bytes'}"
    else:
        detail = "value is too long"
    return FieldError(ErrorType.TOO_LONG, path, "<value omitted>", detail)


def internal_error(path: FieldPath | None, err: BaseException | str) -> FieldError:
    """Go's ``field.InternalError``: the detail is the error's message."""
    return FieldError(ErrorType.INTERNAL, path, err, str(err))
