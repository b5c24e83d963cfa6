"""The declarative-validation machinery the generated Go validators run, over canonical JSON.

Each field of a generated validator does the same dance: skip the field on
update when it did not change ("ratcheting"), run its field-attached checks
(immutable, required, optional, maxItems, feature-gate guards...), keep their
errors, and stop there if any of them fired; otherwise validate the value
itself. ``check_field`` is that dance; the ``Check`` constants and factories
are the tags, with ``k8s.io/apimachinery/pkg/api/validate``'s messages.
Values are in ``gotypes.canonical`` form, so ``==`` is Go's semantic equality.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from workloadbuilder.field import (
    ErrorList,
    FieldError,
    FieldPath,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
    too_many,
)
from workloadbuilder.validation.gates import FeatureGates, gate_disabled_detail
from workloadbuilder.validation.gotypes import go_value

__all__ = [
    "IMMUTABLE",
    "NO_SET_UNSET",
    "OPTIONAL_POINTER",
    "OPTIONAL_SLICE",
    "OPTIONAL_VALUE",
    "REQUIRED_POINTER",
    "REQUIRED_VALUE",
    "Check",
    "ItemValidator",
    "Op",
    "Struct",
    "check_field",
    "each_by_name",
    "enum",
    "forbidden_unless",
    "immutable_if",
    "keyed_items",
    "max_items",
    "maximum",
    "minimum",
    "nested",
    "no_add_or_remove",
    "optional_unless",
    "scalar",
    "unique_names",
    "validate_union",
]


@dataclass(frozen=True)
class Op:
    """The operation being validated: create or update, and the feature gates in force."""

    update: bool
    gates: FeatureGates


Struct = dict[str, Any]
"""A struct in canonical JSON (``gotypes.canonical``)."""

ItemValidator = Callable[[Op, FieldPath, Struct, Struct | None], ErrorList]
"""Validates one list item at its path against its old item (or ``None``)."""

Check = Callable[[Op, FieldPath, Any, Any], tuple[list[FieldError], bool]]
"""A field-attached check: ``(op, path, value, old) -> (errors, stop)``; ``stop`` without errors is an unset
optional.
"""


def check_field(
    op: Op,
    path: FieldPath,
    value: Any,
    old: Any,
    correlated: bool,
    checks: Sequence[Check] = (),
    then: Callable[[], Iterable[FieldError]] | None = None,
) -> ErrorList:
    """One field of a generated validator: ratchet, run ``checks``, then ``then`` unless a check stopped it.

    ``correlated`` says the parent has an old value (so ``old`` is this
    field's old value); an unchanged field is then skipped on update.
    """
    if op.update and correlated and value == old:
        return ErrorList()
    errs, stop = _run_checks(op, path, value, old, checks)
    if not stop and then is not None:
        errs.extend(then())
    return errs


def _run_checks(op: Op, path: FieldPath, value: Any, old: Any, checks: Sequence[Check]) -> tuple[ErrorList, bool]:
    """Every check's errors, and whether any of them stops the field's own validation."""
    errs = ErrorList()
    stop = False
    for check in checks:
        found, fired = check(op, path, value, old)
        if found:
            errs.extend(found)
        stop = stop or fired
    return errs, stop


def _child(path: FieldPath | None, name: str) -> FieldPath:
    """``path.child(name)``; under no path, the root path ``name`` (Go's ``Child`` on a nil path)."""
    return FieldPath(name) if path is None else path.child(name)


def validate_union(
    path: FieldPath | None, members: tuple[str, ...], now_set: tuple[bool, ...], old_set: tuple[bool, ...] | None
) -> ErrorList:
    """Exactly one member of a union, as Go's ``validate.Union`` (members named by their JSON names).

    ``old_set`` is ``None`` on create or when there is no old value; on update
    the check is skipped when no member changed from set to unset or back.
    """
    if sum(now_set) == 1 or (old_set is not None and old_set == now_set):
        return ErrorList()
    names = ", ".join(f"`{member}`" for member in members)
    chosen = [member for member, is_set in zip(members, now_set, strict=True) if is_set]
    if chosen:
        return ErrorList([invalid(path, "{" + ", ".join(chosen) + "}", f"must specify exactly one of: {names}")])
    return ErrorList([invalid(path, "", f"must specify one of: {names}")])


def nested(
    op: Op,
    path: FieldPath | None,
    obj: Struct,
    old: Struct | None,
    name: str,
    checks: Sequence[Check],
    validate: Callable[[Op, FieldPath, Any, Any], Iterable[FieldError]],
) -> ErrorList:
    """Field ``name`` of struct ``obj`` (``old`` its old struct): ``checks``, then ``validate(op, path, value, old)``.

    ``old`` there is the field's old value. This is ``check_field`` with the
    field's path and values taken from the structs.
    """
    value, old_value = obj[name], None if old is None else old[name]
    if op.update and old is not None and value == old_value:
        return ErrorList()
    field_path = _child(path, name)
    errs, stop = _run_checks(op, field_path, value, old_value, checks)
    if not stop:
        errs.extend(validate(op, field_path, value, old_value))
    return errs


def scalar(
    op: Op,
    path: FieldPath | None,
    obj: Struct,
    old: Struct | None,
    name: str,
    checks: Sequence[Check],
    validate: Callable[[FieldPath, Any], Iterable[FieldError]],
) -> ErrorList:
    """String or number field ``name`` of ``obj``: ``checks``, then a format or bound ``validate(path, value)``."""
    value, old_value = obj[name], None if old is None else old[name]
    if op.update and old is not None and value == old_value:
        return ErrorList()
    field_path = _child(path, name)
    errs, stop = _run_checks(op, field_path, value, old_value, checks)
    if not stop:
        errs.extend(validate(field_path, value))
    return errs


def _immutable(op: Op, path: FieldPath, value: Any, old: Any) -> tuple[list[FieldError], bool]:
    # Reached only for a changed value: ratcheting skipped the unchanged ones.
    return ([invalid(path, None, "field is immutable")], True) if op.update else ([], False)


def _required_value(op: Op, path: FieldPath, value: Any, old: Any) -> tuple[list[FieldError], bool]:
    return ([required(path)], True) if value in ("", 0) and not isinstance(value, bool) else ([], False)


def _required_pointer(op: Op, path: FieldPath, value: Any, old: Any) -> tuple[list[FieldError], bool]:
    return ([required(path)], True) if value is None else ([], False)


def _optional_value(op: Op, path: FieldPath, value: Any, old: Any) -> tuple[list[FieldError], bool]:
    return [], value == ""


def _optional_pointer(op: Op, path: FieldPath, value: Any, old: Any) -> tuple[list[FieldError], bool]:
    return [], value is None


def _optional_slice(op: Op, path: FieldPath, value: Any, old: Any) -> tuple[list[FieldError], bool]:
    return [], not value


def _no_set_unset(op: Op, path: FieldPath, value: Any, old: Any) -> tuple[list[FieldError], bool]:
    if not op.update:
        return [], False
    if old is None and value is not None:
        return [invalid(path, None, "field cannot be set once created")], True
    if old is not None and value is None:
        return [invalid(path, None, "field cannot be cleared once set")], True
    return [], False


IMMUTABLE: Check = _immutable
"""``+k8s:immutable``: on update, ``field is immutable``."""
REQUIRED_VALUE: Check = _required_value
"""``+k8s:required`` on a string or integer: the zero value is ``Required``."""
REQUIRED_POINTER: Check = _required_pointer
"""``+k8s:required`` on a pointer (or an optional field with a default): nil is ``Required``."""
OPTIONAL_VALUE: Check = _optional_value
"""``+k8s:optional`` on a string: ``""`` stops the field's checks silently."""
OPTIONAL_POINTER: Check = _optional_pointer
"""``+k8s:optional`` on a pointer: nil stops the field's checks silently."""
OPTIONAL_SLICE: Check = _optional_slice
"""``+k8s:optional`` on a list: empty stops the field's checks silently."""
NO_SET_UNSET: Check = _no_set_unset
"""``+k8s:update=NoSet`` and ``NoUnset`` on a pointer."""


def forbidden_unless(gate: str) -> Check:
    """``+k8s:ifDisabled(gate)=+k8s:forbidden``: a set value while ``gate`` is off is ``Forbidden``, naming the gate."""

    def check(op: Op, path: FieldPath, value: Any, old: Any) -> tuple[list[FieldError], bool]:
        # Canonical values: an unset pointer and an empty list are both None.
        if op.gates.is_enabled(gate) or value is None:
            return [], False
        return [forbidden(path, gate_disabled_detail(gate))], True

    return check


def optional_unless(gate: str, enabled: bool, optional: Check = OPTIONAL_POINTER) -> Check:
    """``+k8s:ifEnabled(gate)=+k8s:optional`` (or ``ifDisabled``): the optional check when ``gate`` is ``enabled``."""

    def check(op: Op, path: FieldPath, value: Any, old: Any) -> tuple[list[FieldError], bool]:
        return optional(op, path, value, old) if op.gates.is_enabled(gate) == enabled else ([], False)

    return check


def immutable_if(gate: str) -> Check:
    """``+k8s:ifEnabled(gate)=+k8s:immutable``."""

    def check(op: Op, path: FieldPath, value: Any, old: Any) -> tuple[list[FieldError], bool]:
        return _immutable(op, path, value, old) if op.gates.is_enabled(gate) else ([], False)

    return check


def max_items(limit: int) -> Check:
    """``+k8s:maxItems=limit``: ``Too many: N: must have at most limit items``."""

    def check(op: Op, path: FieldPath, value: Any, old: Any) -> tuple[list[FieldError], bool]:
        count = len(value or [])
        return ([too_many(path, count, limit)], True) if count > limit else ([], False)

    return check


def no_add_or_remove(op: Op, path: FieldPath, value: Any, old: Any) -> tuple[list[FieldError], bool]:
    """``+k8s:update=NoAddItem`` and ``NoRemoveItem`` on a list keyed by ``name``.

    An added item is ``Forbidden`` at its index in the new list; each removed
    item is one ``Forbidden`` at the list itself, as Go reports them.
    """
    if not op.update:
        return [], False
    new_names = {item["name"] for item in value or []}
    old_names = {item["name"] for item in old or []}
    errs = [
        forbidden(path.index(i), "item may not be added")
        for i, item in enumerate(value or [])
        if item["name"] not in old_names
    ]
    errs += [forbidden(path, "item may not be removed") for item in old or [] if item["name"] not in new_names]
    return errs, bool(errs)


def minimum(path: FieldPath, value: int, bound: int) -> ErrorList:
    """``+k8s:minimum=bound``."""
    return ErrorList([invalid(path, value, f"must be greater than or equal to {bound}")] if value < bound else [])


def maximum(path: FieldPath, value: int, bound: int) -> ErrorList:
    """``+k8s:maximum=bound``."""
    return ErrorList([invalid(path, value, f"must be less than or equal to {bound}")] if value > bound else [])


def enum(path: FieldPath, value: str, allowed: Iterable[str]) -> ErrorList:
    """``+k8s:enum``: a value outside the set is ``NotSupported``, listing the values sorted."""
    values = sorted(allowed)
    return ErrorList([] if value in values else [not_supported(path, value, values)])


def unique_names(path: FieldPath, items: list[dict[str, Any]], type_name: str) -> ErrorList:
    """``+k8s:listType=map`` keyed by ``name``: each later repeat is a ``Duplicate`` showing the whole item."""
    seen: set[str] = set()
    errs = ErrorList()
    for i, item in enumerate(items):
        if item["name"] in seen:
            errs.append(duplicate(path.index(i), go_value(type_name, item)))
        seen.add(item["name"])
    return errs


def keyed_items(
    type_name: str,
    validate: ItemValidator,
    op: Op,
    path: FieldPath,
    items: list[Struct],
    old_items: list[Struct] | None,
) -> ErrorList:
    """The items of a list keyed by ``name`` (``listType=map``): unique names, then each item against its old one.

    ``type_name`` is the items' Go type, for the ``Duplicate`` value.
    """
    errs = unique_names(path, items, type_name)
    errs += each_by_name(op, path, items, old_items, validate)
    return errs


def each_by_name(
    op: Op,
    path: FieldPath,
    items: list[dict[str, Any]],
    old_items: list[dict[str, Any]] | None,
    validate: ItemValidator,
) -> ErrorList:
    """Each item of a list keyed by ``name``, with the first old item of the same name; unchanged items are skipped."""
    errs = ErrorList()
    for i, item in enumerate(items):
        old = next((o for o in old_items or [] if o["name"] == item["name"]), None)
        if op.update and old is not None and old == item:
            continue
        errs.extend(validate(op, path.index(i), item, old))
    return errs
