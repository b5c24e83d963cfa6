"""Words for explanations: topology keys, counts, group names and claim pins as a person reads them."""

from __future__ import annotations

from collections.abc import Sequence

from workloadbuilder.placement.framework.claims import ClaimPin

__all__ = ["count_of", "domains_of", "names_of", "pin_text", "reason_count", "short_key"]


def short_key(key: str | None) -> str:
    """A topology key's last segment, for prose: ``topology.example.com/rack`` → ``rack``."""
    if key is None:
        return "domain"
    return key.rsplit("/", 1)[-1]


def count_of(n: int, noun: str) -> str:
    """``1 rack``, ``3 racks``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def domains_of(n: int, key: str | None) -> str:
    """``3 racks``, but ``4 network-node-layer-3 domains`` where the key's last segment does not end in a letter.

    Examples:
        >>> domains_of(3, "topology.kubernetes.io/rack"), domains_of(4, "example.com/network-node-layer-3")
        ('3 racks', '4 network-node-layer-3 domains')
        >>> domains_of(1, "example.com/network-node-layer-3")
        '1 network-node-layer-3 domain'
    """
    short = short_key(key)
    return count_of(n, short) if short[-1:].isalpha() else count_of(n, f"{short} domain")


# the reasons a node is out of reach (``stages.unusable_reasons``, ``exclusions``) whose head is a noun
_PLURAL_REASONS = (
    ("untolerated taint", "untolerated taints"),
    ("node affinity/selector mismatch", "node affinity/selector mismatches"),
)


def reason_count(n: int, reason: str) -> str:
    """How many nodes a reason keeps out: ``1 untolerated taint``, ``7 untolerated taints``, ``2 cordoned``.

    Examples:
        >>> reason_count(7, "untolerated taint nvidia.com/gpu=present:NoSchedule"), reason_count(1, "not ready")
        ('7 untolerated taints nvidia.com/gpu=present:NoSchedule', '1 not ready')
    """
    if n != 1:
        for singular, plural in _PLURAL_REASONS:
            if reason == singular or reason.startswith(singular + " "):
                return f"{n} {plural}{reason[len(singular) :]}"
    return f"{n} {reason}"


def names_of(names: Sequence[str], shown: int = 3) -> str:
    """Group names for prose, each in backquotes: the first ``shown`` of a longer list, and how many more."""
    text = ", ".join(f"`{name}`" for name in names[:shown])
    return text + (f" and {len(names) - shown} more" if len(names) > shown else "")


def pin_text(pin: ClaimPin, subject: str = "it") -> str:
    """Why a claim keeps pods out: it pins ``subject`` to who reaches its devices, and how it got them."""
    pools = ", ".join(f"`{pool}`" for pool in pin.pools)
    how = f"it was allocated already, from {pools}" if pin.earlier else f"first-fit for the first pod took {pools}"
    return f"pins {subject} to {pin.reach}: {how}"
