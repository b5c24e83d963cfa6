"""Kubernetes resource quantities (``500m``, ``64Gi``, ``1e3``) parsed exactly as apimachinery parses them.

A port of ``k8s.io/apimachinery/pkg/api/resource.ParseQuantity``: the same
scanner, the same three suffix families (decimal SI, binary SI, decimal
exponent), the same rounding (any non-zero amount is rounded up, away from
zero, to a whole nano unit) and the same error messages. The placement engine
keeps every resource as an integer number of *millis*: CPU as
``Quantity.MilliValue()``, every other resource as ``Quantity.Value()`` times
1000, because that is how kube-scheduler reads them (``MilliCPU`` and whole
bytes or devices, both rounded up).

The forms nodes and pods mostly write (``"110"``, ``"191450m"``,
``"2001321736Ki"``) are read by a short path that gives the same amounts as
the full scanner; every other string is parsed in full and memoized, as a
real cluster repeats a handful of request strings across thousands of pods.
``column_millis`` reads a whole column of a node dump (every node's memory)
at once, with the same amounts.

Going the other way, ``format_millis`` writes an amount as a canonical
quantity string and ``readable_quantity`` as people read it (``852.6``
cores, ``6.4Ti``), for the command line and the placement drawing.
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

from workloadbuilder.errors import WorkloadBuilderError

__all__ = [
    "ERR_FORMAT_WRONG",
    "ERR_NUMERIC",
    "ERR_SUFFIX",
    "MAX_CACHED",
    "QuantityError",
    "clear_cache",
    "column_millis",
    "format_millis",
    "parse_nanos",
    "readable_quantity",
    "resource_millis",
]

_SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT_WRONG = f"quantities must match the regular expression '{_SPLIT_RE}'"
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"

_DIGITS = frozenset("0123456789")
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_DECIMAL_SI = {"": 0, "n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SI = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_NANO = 10**9
_MAX_INT64 = 2**63 - 1
_LIMIT = _MAX_INT64 * _NANO
_BINARY_SUFFIXES = (("Ei", 2**60), ("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10))
_BYTE_RESOURCES = ("memory", "ephemeral-storage", "storage")
_WHOLE_UNITS = {
    "k": 10**3 * 1000,
    "M": 10**6 * 1000,
    "G": 10**9 * 1000,
    "T": 10**12 * 1000,
    "Ki": 2**10 * 1000,
    "Mi": 2**20 * 1000,
    "Gi": 2**30 * 1000,
    "Ti": 2**40 * 1000,
}
"""The whole-unit suffixes the short path reads, with the millis of one unit (of CPU or any other resource)."""
_SUFFIX_LETTERS = "mkMGTKi"
_COMMON_DIGITS = 18
_MAX_MILLIS = _MAX_INT64 * 1000


class QuantityError(WorkloadBuilderError, ValueError):
    """A string that is not a Kubernetes quantity; ``str()`` is apimachinery's error message."""


def _scan(text: str) -> tuple[bool, str, str, str, str]:
    """Split a quantity into (positive, value, numerator, denominator, suffix), as ``parseQuantityString`` does.

    ``value`` is the signed number as written (used when the exact decimal is
    needed), ``numerator`` has its leading zeros stripped.
    """
    positive = True
    pos = 0
    end = len(text)
    if pos < end and text[0] in "+-":
        positive = text[0] == "+"
        pos += 1
    while pos < end and text[pos] == "0":  # leading zeros
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos >= end:
        return positive, text, text[start:], "", ""
    num = text[start:pos] or "0"
    denom = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
        if pos >= end:
            return positive, text, num, denom, ""
    value = text[:pos]
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise QuantityError(ERR_FORMAT_WRONG)
    return positive, value, num, denom, text[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int]:
    """(base, exponent) of a suffix, or ``QuantityError`` where ``quantitySuffixer.interpret`` fails."""
    if suffix in _DECIMAL_SI:
        return 10, _DECIMAL_SI[suffix]
    if suffix in _BINARY_SI:
        return 2, _BINARY_SI[suffix]
    if len(suffix) > 1 and suffix[0] in "eE":
        exponent = suffix[1:]
        sign_free = exponent[1:] if exponent[0] in "+-" else exponent
        if not sign_free or not set(sign_free) <= _DIGITS or len(sign_free.lstrip("0")) > 19:
            raise QuantityError(ERR_SUFFIX)  # not digits, or beyond int64 for any digits
        parsed = -_integer(sign_free) if exponent[0] == "-" else _integer(sign_free)
        if not -(2**63) <= parsed <= _MAX_INT64:  # strconv.ParseInt(..., 64) fails
            raise QuantityError(ERR_SUFFIX)
        wrapped = (parsed + 2**31) % 2**32 - 2**31  # Go's int32(parsed)
        return 10, wrapped
    raise QuantityError(ERR_SUFFIX)


_CHUNK = 4000
"""Decimal digits converted at a time: ``int()`` refuses strings of more than 4,300 digits."""


def _integer(digits: str) -> int:
    """The number a string of decimal digits writes, however long (inf.Dec reads any length)."""
    if len(digits) <= _CHUNK:
        return int(digits)
    value = 0
    for start in range(0, len(digits), _CHUNK):
        chunk = digits[start : start + _CHUNK]
        value = value * 10 ** len(chunk) + int(chunk)
    return value


def _ceil_div(numerator: int, denominator: int) -> int:
    """Divide two positive integers, rounding up (``inf.RoundUp`` on a magnitude)."""
    return -(-numerator // denominator)


def _parse(text: str) -> int:
    if not text:
        raise QuantityError(ERR_FORMAT_WRONG)
    if text == "0":
        return 0
    positive, value, num, denom, suffix = _scan(text)
    base, exponent = _interpret(suffix)
    # Only the exact-decimal path reads `value`, and it fails when `value` has
    # no digit; the int64 path takes the scanner's "0" numerator instead.
    if _needs_exact_decimal(num, denom, base, exponent) and not _DIGITS.intersection(value):
        raise QuantityError(ERR_NUMERIC)
    digits = _integer(num + denom)
    if digits == 0:
        return 0
    if base == 2:
        nanos = _ceil_div(digits * (1 << exponent) * _NANO, 10 ** len(denom))
    else:
        shift = exponent - len(denom) + 9
        if shift > 60:  # far beyond int64 in any unit: no need to build a huge integer
            nanos = _LIMIT
        elif shift >= 0:
            nanos = digits * 10**shift
        elif -shift > len(num) + len(denom) + 1:  # below one nano: rounds up to exactly one
            nanos = 1
        else:
            nanos = _ceil_div(digits, 10**-shift)
    # apimachinery caps binary SI at 2^63-1; decimal amounts that large overflow
    # int64 as soon as they are read, so they saturate here too.
    nanos = min(nanos, _LIMIT)
    return nanos if positive else -nanos


def _needs_exact_decimal(num: str, denom: str, base: int, exponent: int) -> bool:
    """Whether ``ParseQuantity`` leaves its int64 fast path for ``inf.Dec``.

    The fast path needs enough int64 precision for the digits (and, for
    binary suffixes, a whole number and the power of two).
    """
    if base == 10:
        return 18 - (len(num) + len(denom)) < 0 or exponent - len(denom) < -9
    if denom:
        return True
    return 15 - len(num) - int(exponent * 3 / 10) - 1 < 0


def _common_millis(is_cpu: bool, text: str) -> int | None:
    """``resource_millis`` of a common-form quantity (up to 18 ASCII digits, then ``m``, ``Ki``... or nothing).

    Such a string has no sign, no decimal point and no exponent: its amount
    is the whole number times its suffix, capped as the full parser caps
    it. ``None`` sends every other string to the full parser.
    """
    digits = text.rstrip(_SUFFIX_LETTERS)
    if not 0 < len(digits) <= _COMMON_DIGITS or not digits.isascii() or not digits.isdigit():
        return None
    number = int(digits)
    suffix = text[len(digits) :]
    if not suffix:
        return number * 1000
    if suffix == "m":
        return number if is_cpu else -(-number // 1000) * 1000
    unit = _WHOLE_UNITS.get(suffix)
    if unit is None:
        return None
    millis = number * unit
    return millis if millis < _MAX_MILLIS else _MAX_MILLIS


_NANOS: dict[str, int] = {}


def parse_nanos(text: str) -> int:
    """The exact amount of a quantity string, in nano units (``"500m"`` gives ``500_000_000``).

    Raises:
        QuantityError: the string is not a quantity; the message is apimachinery's.

    Examples:
        >>> parse_nanos("1.5Gi") == 1536 * 2**20 * 10**9
        True
        >>> parse_nanos("0.1n")  # anything above zero rounds up to one nano
        1
    """
    nanos = _NANOS.get(text)
    if nanos is None:
        nanos = _parse(text)
        _remember(_NANOS, text, nanos)
    return nanos


_MILLIS: dict[tuple[bool, str], int] = {}

MAX_CACHED = 65_536
"""Distinct quantity strings each cache keeps: its memory stays a few MB whatever the input holds."""


def resource_millis(resource: str, text: str) -> int:
    """A quantity of ``resource`` as kube-scheduler counts it, in millis.

    CPU is ``MilliValue()`` (rounded up to a whole milli-core); every other
    resource is ``Value()`` (rounded up to a whole byte or device) times 1000,
    so all resources share one integer unit. Amounts beyond int64 saturate
    (Go would overflow).

    Raises:
        QuantityError: the string is not a quantity.

    Examples:
        >>> resource_millis("cpu", "1.5"), resource_millis("memory", "1.5"), resource_millis("cpu", "1n")
        (1500, 2000, 1)
    """
    is_cpu = resource == "cpu"
    millis = _common_millis(is_cpu, text)
    if millis is not None:
        return millis
    key = (is_cpu, text)
    millis = _MILLIS.get(key)
    if millis is None:
        millis = _millis(is_cpu, parse_nanos(text))
        _remember(_MILLIS, key, millis)
    return millis


_COMMON_UNITS = {"": 1000, **_WHOLE_UNITS}
"""The millis of one unit of each common-form suffix, for any resource (``m`` is CPU's alone: see ``column_millis``)."""

_SAMPLE = 64
"""The strings ``column_millis`` looks at first to tell a column of a few repeated strings from one of distinct ones."""


def column_millis(resource: str, texts: list[Any]) -> list[int] | None:
    """``resource_millis`` of every string of ``texts``, or ``None`` when one is not a quantity of at least zero.

    A column of a node dump (every node's memory) is either a few strings
    repeated (pods, GPUs), read once each, or distinct strings of one
    common form (``"535315479Ki"`` on every node), read with one C-level
    step per check and per operation instead of one Python call per string;
    anything else is read string by string. ``None`` also when an entry is
    not a string: the caller then reads the column entry by entry, with its
    errors.

    Examples:
        >>> column_millis("cpu", ["191450m", "96", "1.5"]), column_millis("memory", ["64Gi", "1Ki"])
        ([191450, 96000, 1500], [68719476736000, 1024000])
        >>> column_millis("memory", ["1Ki", "-1"]) is None
        True
    """
    if set(map(type, texts)) - {str}:
        return None
    if len(set(texts[:_SAMPLE])) * 2 <= min(len(texts), _SAMPLE):
        distinct = list(dict.fromkeys(texts))
        amounts = _distinct_millis(resource, distinct)
        return None if amounts is None else list(map(dict(zip(distinct, amounts, strict=True)).__getitem__, texts))
    return _distinct_millis(resource, texts)


def _distinct_millis(resource: str, texts: list[str]) -> list[int] | None:
    """``column_millis`` of strings mostly distinct: the common form with the first string's suffix, or one by one."""
    amounts = _one_suffix_millis(resource, texts)
    if amounts is not None:
        return amounts
    out = []
    for text in texts:
        try:
            amount = resource_millis(resource, text)
        except QuantityError:
            return None
        if amount < 0:
            return None
        out.append(amount)
    return out


def _one_suffix_millis(resource: str, texts: list[str]) -> list[int] | None:
    """The millis of strings that are all up to 18 ASCII digits and the first one's suffix, else ``None``.

    The amounts are ``_common_millis``'s, reached by whole-list steps: strip
    the suffix, check the digits and their count, read the numbers, scale
    them, cap them.
    """
    if not texts:
        return []
    first = texts[0]
    suffix = first[len(first.rstrip(_SUFFIX_LETTERS)) :]
    unit = 1 if suffix == "m" and resource == "cpu" else _COMMON_UNITS.get(suffix)
    if unit is None:
        return None
    digits = list(map(str.removesuffix, texts, repeat(suffix))) if suffix else texts
    lengths = list(map(len, digits))
    if sum(lengths) + len(suffix) * len(texts) != sum(map(len, texts)):  # some string has another suffix
        return None
    if min(lengths) == 0 or max(lengths) > _COMMON_DIGITS:
        return None
    joined = "".join(digits)
    if not joined.isascii() or not joined.isdigit():
        return None
    millis = list(map(unit.__mul__, map(int, digits)))
    return millis if max(millis) < _MAX_MILLIS else [min(amount, _MAX_MILLIS) for amount in millis]


def _millis(is_cpu: bool, nanos: int) -> int:
    """Nanos as kube-scheduler counts them, in millis: milli-cores for CPU, whole units times 1000 otherwise."""
    return _ceil_up(nanos, 10**6) if is_cpu else _ceil_up(nanos, _NANO) * 1000


def _remember(cache: dict[Any, int], key: Any, value: int) -> None:
    """Memoize, within ``MAX_CACHED`` entries: a full cache starts afresh (real clusters repeat a few hundred)."""
    if len(cache) >= MAX_CACHED:
        cache.clear()
    cache[key] = value


def clear_cache() -> None:
    """Forget every memoized quantity (for benchmarks that time parsing from cold)."""
    _NANOS.clear()
    _MILLIS.clear()


def _ceil_up(amount: int, unit: int) -> int:
    """Round towards positive infinity, as ``ScaledValue`` does for the positive amounts resources hold."""
    return -(-amount // unit)


def format_millis(resource: str, millis: int) -> str:
    """A canonical quantity string for an amount in millis: ``"1500m"``, ``"64"``, ``"512Gi"``.

    CPU keeps millis when it is not whole; byte resources use the largest
    binary suffix that divides them exactly, as Kubernetes canonicalizes
    binary SI quantities; other resources are plain counts.

    Examples:
        >>> format_millis("cpu", 1500), format_millis("memory", 512 * 2**30 * 1000)
        ('1500m', '512Gi')
        >>> format_millis("nvidia.com/gpu", 8000)
        '8'
    """
    if millis % 1000:
        return f"{millis}m"
    whole = millis // 1000
    if whole and (resource in _BYTE_RESOURCES or resource.startswith("hugepages-")):
        for suffix, factor in _BINARY_SUFFIXES:
            if whole % factor == 0:
                return f"{whole // factor}{suffix}"
    return str(whole)


def readable_quantity(resource: str, millis: int) -> str:
    """An amount for people: CPU in cores, bytes with a binary suffix (one decimal), counts as they are.

    Examples:
        >>> readable_quantity("cpu", 852600), readable_quantity("memory", 6682368 * 2**20 * 1000)
        ('852.6', '6.4Ti')
        >>> readable_quantity("pods", 1749000), readable_quantity("cpu", 100)
        ('1749', '0.1')
    """
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        amount = millis / 1000
        for suffix, factor in (("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
            if amount >= factor:
                return f"{_trim(amount / factor, 1)}{suffix}"
        return _trim(amount, 0)
    return _trim(millis / 1000, 3)


def _trim(value: float, places: int) -> str:
    """``value`` with at most ``places`` decimals and no trailing zeros: ``852.6``, not ``852.600``."""
    text = f"{value:.{places}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
