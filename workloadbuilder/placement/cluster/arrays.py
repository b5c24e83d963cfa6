"""Exact integer arrays for the columnar cluster state.

Amounts are integer millis, and some exceed what a 64-bit integer holds
once added up over a domain (a block's memory in millis) or multiplied by a
score's 100. Every array here is ``int64`` when its values leave room for the
arithmetic done on it, and an ``object`` array of Python integers otherwise:
numpy's elementwise operators then give Python's exact results, only slower.
Pod counts are capped at ``FIT_CAP`` per node, far above any node's pod limit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "FIT_CAP",
    "INT64_SAFE",
    "IntArray",
    "column_gcds",
    "exact",
    "exact_sum",
    "gcd_of",
    "group_sums",
    "headroom",
    "plus",
]

IntArray = npt.NDArray[Any]
"""An ``int64`` or ``object`` array of exact integers."""

FIT_CAP = 2**31
"""The most pods of one shape a node is counted to hold (a node's pod limit is far lower)."""

INT64_SAFE = 2**62
"""Magnitudes below this leave room in ``int64`` for adding two of them."""


def headroom(values: IntArray | Sequence[int], factor: int = 1) -> bool:
    """Whether ``values`` times ``factor`` (and sums of two of them) stay inside ``int64``."""
    if len(values) == 0:
        return True
    array = np.asarray(values)
    if array.dtype == object:
        return bool(max(abs(int(v)) for v in array.flat) * factor < INT64_SAFE)
    return bool(int(np.abs(array).max()) * factor < INT64_SAFE // 2)


def exact(values: IntArray | Sequence[int], factor: int = 1) -> IntArray:
    """``values`` as an ``int64`` array when ``factor`` times them fits, else as an ``object`` array.

    A list is converted to an array once, for the headroom check and the result.
    """
    array = values if isinstance(values, np.ndarray) else np.asarray(values)
    if headroom(array, factor):
        if isinstance(values, np.ndarray) and values.dtype != object:
            return values
        return array.astype(np.int64, copy=False)
    return np.array([int(v) for v in values], dtype=object)


def plus(values: IntArray, amount: int) -> IntArray:
    """``values + amount``, exactly (in Python integers when ``int64`` could overflow)."""
    if values.dtype != object and abs(amount) < INT64_SAFE // 2 and headroom(values):
        return values + amount
    return np.array([int(v) + amount for v in values], dtype=object)


def gcd_of(values: IntArray) -> int:
    """The greatest common divisor of ``values`` (0 when every one is 0 or there are none), exactly."""
    if len(values) == 0:
        return 0
    if values.dtype == object:
        return math.gcd(*(int(v) for v in values))
    return abs(int(np.gcd.reduce(values)))


def column_gcds(rows: IntArray) -> tuple[int, ...]:
    """``gcd_of`` each column of a 2-D exact array."""
    return tuple(gcd_of(rows[:, r]) for r in range(rows.shape[1]))


def exact_sum(values: IntArray, bound: int | None = None) -> int:
    """The sum of ``values``, exactly (``int64`` sums wrap around silently past 2**63).

    With ``bound`` (at least every value's magnitude) small enough that no
    partial sum can wrap, the ``int64`` array is added as it is; otherwise
    as its high and low 32 bits, each sum of which fits 64 bits for fewer
    than 2**31 values.
    """
    if len(values) == 0:
        return 0
    if values.dtype == object or len(values) >= 2**31:
        return sum(int(v) for v in values)
    if bound is not None and bound * len(values) < 2**63:
        return int(values.sum())
    return (int((values >> 32).sum()) << 32) + int((values & 0xFFFFFFFF).sum())


def group_sums(
    codes: npt.NDArray[np.int64],
    values: IntArray | Sequence[int],
    groups: int,
    bound: int | None = None,
    complete: bool = False,
    runs: npt.NDArray[np.int64] | None = None,
) -> IntArray:
    """``values`` added up per code (``0 <= code < groups``; negative codes belong to no group), exactly.

    Float weights are exact while every partial sum stays below 2**53, so
    each ``int64`` value is added as its high and low 32 bits; sums past
    2**62 come back as Python integers. ``bound``, when given, is a bound on
    every value's magnitude (small values are added in one pass);
    ``complete`` says that no code is negative; ``runs``, that the codes
    are every group's in turn (each group's values one run, in order) and
    where each run starts.
    """
    array = np.asarray(values)
    if runs is not None and bound is not None and array.dtype != object and bound * len(array) < INT64_SAFE:
        return np.add.reduceat(array, runs).astype(np.int64) if len(array) else np.zeros(groups, dtype=np.int64)
    if complete:
        keys, column = codes, array
    else:
        member = codes >= 0
        keys = codes[member]
        column = array[member]
    if column.dtype != object:
        if bound is not None and bound * len(column) < 2**52:
            return np.bincount(keys, weights=column, minlength=groups).astype(np.int64)
        if len(column) < 2**20:
            # Each value is high * 2**32 + low: both halves add up exactly as float weights.
            high = np.bincount(keys, weights=column >> 32, minlength=groups).astype(np.int64)
            low = np.bincount(keys, weights=column & 0xFFFFFFFF, minlength=groups).astype(np.int64)
            if headroom(high, 2**33):
                return (high << 32) + low
            return np.array([(int(h) << 32) + int(lo) for h, lo in zip(high, low, strict=True)], dtype=object)
    out = np.zeros(groups, dtype=object)
    np.add.at(out, keys, np.array([int(v) for v in column], dtype=object))
    return out
