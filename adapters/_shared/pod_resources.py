"""A container's ``resources`` as the apiserver judges them: names, amounts, and requests against limits.

Ported from k8s.io/kubernetes v1.37.2 ``pkg/apis/core/validation/validation.go``
(``validateResourceRequirements``, ``ValidateContainerResourceName``,
``ValidateResourceQuantityValue``) and ``pkg/apis/core/helper/helpers.go``
(which names are native, standard, overcommitable or integer):

* every name of ``limits`` (first) and ``requests`` is a qualified name, and
  a name without a ``/`` is one of ``cpu``, ``memory``, ``ephemeral-storage``
  or ``hugepages-*``; a name with one, outside ``kubernetes.io/``, follows the
  extended resource rule;
* no amount is negative, and an extended resource is a whole number;
* a request is at most its limit, and for a resource that cannot be
  overcommitted (an extended resource, huge pages) equal to it, with a limit
  required as soon as there is a request;
* an amount of ``hugepages-<size>`` is a whole number of pages, and huge
  pages come with a ``cpu`` or ``memory`` request or limit.

The amounts in the messages are written as Go's ``Quantity.String()`` writes
them (``2000m`` is ``2``, ``1024Mi`` is ``1Gi``). Go walks the two maps in a
random order; here each map is walked in the manifest's order. A value that is
no quantity at all is said in apimachinery's parse error (the apiserver
refuses the whole request before validating).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from workloadbuilder import ErrorList, FieldPath
from workloadbuilder.adapters.kit import forbidden, invalid, required
from workloadbuilder.placement.k8s.quantity import QuantityError, parse_nanos
from workloadbuilder.validation.formats import is_label_key

__all__ = ["canonical_quantity", "resource_requirements_errors"]

_NANO = 10**9
_SCAN = re.compile(r"^[+-]?[0-9.]+([eEinumkKMGTP]*[-+]?[0-9]*)$")
_BINARY = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL_SUFFIX = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
_STANDARD_RESOURCES = frozenset(
    {
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "storage",
        "requests.storage",
        "services.nodeports",
        "services.loadbalancers",
    }
)
_INTEGER_RESOURCES = frozenset(
    {
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "services.nodeports",
        "services.loadbalancers",
    }
)
_NEGATIVE = "must be greater than or equal to 0"


def _format(text: str) -> str:
    """Which of Go's three quantity formats a string is written in: ``binary``, ``exponent`` or ``decimal``."""
    found = _SCAN.match(text)
    suffix = found.group(1) if found else ""
    if suffix in _BINARY:
        return "binary"
    if len(suffix) > 1 and suffix[0] in "eE":
        return "exponent"
    return "decimal"


def canonical_quantity(text: str) -> str:
    """A quantity string as Go's ``Quantity.String()`` writes it back.

    Raises:
        QuantityError: ``text`` is no quantity.

    Examples:
        >>> [canonical_quantity(t) for t in ("2000m", "1.5", "1024Mi", "1536Mi", "1000", "2e3", "0.5Ki", "0")]
        ['2', '1500m', '1Gi', '1536Mi', '1k', '2e3', '512', '0']
    """
    nanos = parse_nanos(text)
    if nanos == 0:
        return "0"
    form = _format(text)
    if form == "binary":
        if -1024 * _NANO < nanos < 1024 * _NANO or nanos % _NANO:
            form = "decimal"  # Go shows small or fractional binary amounts in decimal, so nothing is rounded
        else:
            return _binary(nanos // _NANO)
    mantissa, exponent = nanos, -9
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    step = exponent % 3
    mantissa, exponent = mantissa * 10**step, exponent - step
    if form == "exponent":
        return f"{mantissa}e{exponent}" if exponent else str(mantissa)
    if exponent > 18:
        mantissa, exponent = mantissa * 10 ** (exponent - 18), 18
    return f"{mantissa}{_DECIMAL_SUFFIX[exponent]}"


def _binary(units: int) -> str:
    power = 0
    while units % 1024 == 0 and power < len(_BINARY):
        units //= 1024
        power += 1
    return f"{units}{_BINARY[power - 1] if power else ''}"


def _is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _is_huge_pages(name: str) -> bool:
    return name.startswith("hugepages-")


def _is_extended(name: str) -> bool:
    return not _is_native(name) and not name.startswith("requests.") and not is_label_key("requests." + name)


def _overcommit_allowed(name: str) -> bool:
    return _is_native(name) and not _is_huge_pages(name)


def _name_errors(name: str, at: FieldPath) -> ErrorList:
    """``ValidateContainerResourceName``: a qualified name, standard when it has no ``/``, else extended or native."""
    errors = ErrorList(invalid(at, name, message) for message in is_label_key(name))
    if errors:
        return errors
    if "/" not in name:
        if name not in _STANDARD_RESOURCES and not name.startswith(("hugepages-", "requests.hugepages-")):
            errors.append(invalid(at, name, "must be a standard resource type or fully qualified"))
        if name not in _CONTAINER_RESOURCES and not _is_huge_pages(name):
            errors.append(invalid(at, name, "must be a standard resource for containers"))
    elif not _is_native(name) and not _is_extended(name):
        errors.append(invalid(at, name, "doesn't follow extended resource name standard"))
    return errors


def _page_errors(name: str, amount: tuple[int, str], at: FieldPath) -> ErrorList:
    """A huge-pages amount that is not a whole number of its pages (``IsHugePageResourceValueDivisible``)."""
    if not _is_huge_pages(name):
        return ErrorList()
    nanos, shown = amount
    try:
        page = parse_nanos(name.removeprefix("hugepages-"))
    except QuantityError:
        page = 0
    whole = -(-nanos // _NANO)
    if page > 0 and page % _NANO == 0 and whole % (page // _NANO) == 0:
        return ErrorList()
    return ErrorList([invalid(at, shown, f"{shown} is not positive integer multiple of {name}")])


def _amount(name: str, raw: Any, at: FieldPath, errors: ErrorList) -> tuple[int, str] | None:
    """One amount in nanos with its canonical text, its own errors appended; ``None`` when it is no quantity."""
    if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
        return None  # a wrong type is the schema check's error
    text = raw if isinstance(raw, str) else str(raw)
    try:
        nanos, shown = parse_nanos(text), canonical_quantity(text)
    except QuantityError as problem:
        errors.append(invalid(at, raw, str(problem)))
        return None
    if nanos < 0:
        errors.append(invalid(at, shown, _NEGATIVE))
    if (name in _INTEGER_RESOURCES or _is_extended(name)) and -(-nanos // 10**6) % 1000:
        errors.append(invalid(at, shown, "must be an integer"))
    return nanos, shown


def resource_requirements_errors(resources: Any, path: FieldPath, limits_elsewhere: bool = False) -> ErrorList:
    """Every problem of one container's ``resources`` (``path``), as ``validateResourceRequirements`` finds them.

    ``limits_elsewhere``: the requirements are merged into a container that
    may hold the limits (a TrainJob's ``resourcesPerNode``), so a request
    without a limit here is not refused.
    """
    errors = ErrorList()
    if not isinstance(resources, Mapping):
        return errors
    limits_path, requests_path = path.child("limits"), path.child("requests")
    limits: dict[str, tuple[int, str]] = {}
    raw_limits = resources.get("limits")
    for name, raw in raw_limits.items() if isinstance(raw_limits, Mapping) else ():
        at = limits_path.key(str(name))
        errors.extend(_name_errors(str(name), at))
        amount = _amount(str(name), raw, at, errors)
        if amount is not None:
            limits[str(name)] = amount
            errors.extend(_page_errors(str(name), amount, at))
    raw_requests = resources.get("requests")
    for name, raw in raw_requests.items() if isinstance(raw_requests, Mapping) else ():
        at = requests_path.key(str(name))
        errors.extend(_name_errors(str(name), at))
        amount = _amount(str(name), raw, at, errors)
        if amount is None:
            continue
        limit = limits.get(str(name))
        has_limit = isinstance(raw_limits, Mapping) and name in raw_limits
        if limit is not None:
            errors.extend(_against_limit(str(name), amount, limit, requests_path))
        elif not has_limit and not limits_elsewhere and not _overcommit_allowed(str(name)):
            errors.append(required(limits_path, "Limit must be set for non overcommitable resources"))
        errors.extend(_page_errors(str(name), amount, at))
    names = [*_keys(raw_limits), *_keys(raw_requests)]
    if any(_is_huge_pages(name) for name in names) and not any(name in ("cpu", "memory") for name in names):
        errors.append(forbidden(path, "HugePages require cpu or memory"))
    return errors


def _keys(listed: Any) -> list[str]:
    return [str(key) for key in listed] if isinstance(listed, Mapping) else []


def _against_limit(name: str, request: tuple[int, str], limit: tuple[int, str], at: FieldPath) -> ErrorList:
    """A request beside its limit: equal for a resource that cannot be overcommitted, else at most the limit."""
    (asked, shown), (cap, cap_shown) = request, limit
    if asked != cap and not _overcommit_allowed(name):
        return ErrorList([invalid(at, shown, f"must be equal to {name} limit of {cap_shown}")])
    if asked > cap:
        return ErrorList([invalid(at, shown, f"must be less than or equal to {name} limit of {cap_shown}")])
    return ErrorList()
