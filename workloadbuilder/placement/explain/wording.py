"""Words for explanations: topology keys, counts, group names and claim pins as a person reads them."""

from __future__ import annotations

from collections.abc import Sequence

from workloadbuilder.placement.framework.claims import ClaimPin

__all__ = ["count_of", "names_of", "pin_text", "short_key"]


def short_key(key: str | None) -> str:
    """A topology key's last segment, for prose: ``topology.example.com/rack`` → ``rack``."""
    if key is None:
        return "domain"
    return key.rsplit("/", 1)[-1]


def count_of(n: int, noun: str) -> str:
    """``1 rack``, ``3 racks``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def names_of(names: Sequence[str], shown: int = 3) -> str:
    """Group names for prose, each in backquotes: the first ``shown`` of a longer list, and how many more."""
    text = ", ".join(f"`{name}`" for name in names[:shown])
    return text + (f" and {len(names) - shown} more" if len(names) > shown else "")


def pin_text(pin: ClaimPin, subject: str = "it") -> str:
    """Why a claim keeps pods out: it pins ``subject`` to who reaches its devices, and how it got them."""
    pools = ", ".join(f"`{pool}`" for pool in pin.pools)
    how = f"it was allocated already, from {pools}" if pin.earlier else f"first-fit for the first pod took {pools}"
    return f"pins {subject} to {pin.reach}: {how}"
