"""Whether the roots placed before a failing root are why it fails, and which of them.

Roots are separate scheduling cycles, each on what the earlier ones left.
When a root fails, ``interplay`` places it again, alone, on the cluster as
given (kube-scheduler's cycle on a fresh snapshot). If it fits there, the
earlier roots took the room it needs: the ones named are those holding pods
on the nodes it would have used alone (and any holding group claims, whose
devices it may have needed), so the claim "without them it fits" holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.explain.wording import names_of, short_key
from workloadbuilder.placement.framework.outcome import Outcome
from workloadbuilder.placement.framework.snapshot import Snapshot
from workloadbuilder.placement.request.model import GroupRequest
from workloadbuilder.placement.strategies.kube_scheduler import KubeScheduler

__all__ = ["interplay"]


def interplay(
    root: GroupRequest, earlier: Sequence[tuple[GroupRequest, Outcome]], cluster: Cluster
) -> dict[str, Any] | None:
    """``{"roots": [...], "text": ...}`` naming the earlier placed roots that took what ``root`` needs, or ``None``.

    ``earlier`` holds the roots placed before ``root`` in this ``place``
    call, in queue order, with their outcomes. ``None`` when none was placed
    or when ``root`` does not fit even alone on ``cluster`` (then its own
    explanation says why).
    """
    placed = [(group, outcome) for group, outcome in earlier if outcome.success]
    if not placed:
        return None
    alone, _ = KubeScheduler(Snapshot(cluster)).schedule(root)
    if not alone.success:
        return None
    nodes = {i for result in alone.results.values() for i in result.nodes}
    held = {
        group.name: sum(1 for result in outcome.results.values() for i in result.nodes if i in nodes)
        for group, outcome in placed
    }
    claims = {group.name for group, outcome in placed if any(result.claims for result in outcome.results.values())}
    named = [group.name for group, _ in placed if held[group.name] or group.name in claims]
    if not named:  # nothing of theirs on those nodes: their devices or labels' reach, say all of them
        named = [group.name for group, _ in placed]
    one = len(named) == 1
    result = alone.results.get(root.name)
    where = ""
    if result is not None and result.domains:
        where = " in " + ", ".join(f"{short_key(key)} {value}" for key, value in result.domains.items())
    text = (
        f"{names_of(named)} {'was' if one else 'were'} placed first and took the room `{root.name}` needs: "
        f"without {'it' if one else 'them'}, `{root.name}` fits{where}"
    )
    holders = [name for name in named if held[name]]
    if holders:
        first = holders[0]
        parts = [f"`{first}` placed {held[first]} {'pod' if held[first] == 1 else 'pods'}"]
        parts += [f"`{name}` {held[name]}" for name in holders[1:3]]
        text += (", where " if where else " on the nodes where ") + " and ".join(parts)
    return {"roots": named, "text": text}
