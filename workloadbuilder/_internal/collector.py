"""Pausing Python's cycle collector around work that makes no reference cycles.

A collection walks every object the process tracks; with a 50,000-node
cluster (and perhaps its parsed input) alive, each one costs tens of
milliseconds, and the steps that allocate many small objects (reading a
dump, indexing a cluster, placing) would trigger many of them. Reference
counting still frees everything these steps drop.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["quiet_gc"]


@contextmanager
def quiet_gc() -> Iterator[None]:
    """Pause the cycle collector for the block; it runs again after, if it ran before."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
