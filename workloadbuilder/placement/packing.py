"""Exact feasibility of fixed demands: pods of several groups onto shared nodes, devices onto claims.

Once the complete strategy has chosen a domain (and a claim reach) for every
group, what is left is a packing question: can each PodGroup put its
``minCount`` pods on its allowed nodes, all at once? Groups that share no
node are independent. Groups of one pod shape only compete for pod *slots*,
so a max-flow answers exactly. Groups of different shapes need a search over
nodes: each node takes a *maximal* combination (no group that still needs
pods could add one more), which loses no solution, since a pod placed later
could as well move to the earlier node; and the rest of the search depends
only on which node comes next and what is still needed, so a state that
failed once is not searched again.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from workloadbuilder.placement.snapshot import Shape

__all__ = ["Demand", "max_flow", "pack"]


class BudgetExhausted(Exception):
    """The search spent its step budget before reaching an answer."""


@dataclass
class Demand:
    """``minimum`` pods of ``shape`` that must land on ``nodes`` (node indexes, ascending)."""

    key: Hashable
    shape: Shape
    nodes: list[int]
    minimum: int


def max_flow(
    edges: dict[Hashable, dict[Hashable, int]], source: Hashable, sink: Hashable
) -> dict[Hashable, dict[Hashable, int]]:
    """A maximum flow (Edmonds-Karp) on a small graph: ``edges[u][v]`` is the capacity of u → v.

    Returns the flow on every edge that carries some.
    """
    residual: dict[Hashable, dict[Hashable, int]] = {}
    for u, out in edges.items():
        for v, capacity in out.items():
            residual.setdefault(u, {})[v] = residual.get(u, {}).get(v, 0) + capacity
            residual.setdefault(v, {}).setdefault(u, 0)
    while True:
        parent: dict[Hashable, Hashable] = {source: source}
        queue = deque([source])
        while queue and sink not in parent:
            u = queue.popleft()
            for v, capacity in residual.get(u, {}).items():
                if capacity > 0 and v not in parent:
                    parent[v] = u
                    queue.append(v)
        if sink not in parent:
            break
        path_flow, v = None, sink
        while v != source:
            u = parent[v]
            path_flow = residual[u][v] if path_flow is None else min(path_flow, residual[u][v])
            v = u
        v = sink
        while v != source:
            u = parent[v]
            residual[u][v] -= path_flow  # type: ignore[operator]
            residual[v][u] += path_flow  # type: ignore[operator]
            v = u
    flow: dict[Hashable, dict[Hashable, int]] = {}
    for u, out in edges.items():
        for v, capacity in out.items():
            used = capacity - residual[u][v]
            if used > 0:
                flow.setdefault(u, {})[v] = used
    return flow


def pack(
    demands: Sequence[Demand],
    free: Callable[[int], Sequence[int]],
    tick: Callable[[], None],
) -> dict[Hashable, dict[int, int]] | None:
    """Pods per node for every demand, or ``None`` when they cannot all be placed together.

    Args:
        demands: what must be placed; a demand's nodes are where it may go.
        free: each node's free capacity now.
        tick: called once per search step; raises ``BudgetExhausted`` to stop.

    Returns:
        ``{demand.key: {node: pods}}`` covering every demand's minimum.
    """
    answer: dict[Hashable, dict[int, int]] = {demand.key: {} for demand in demands}
    for component in _components(demands):
        if len({demand.shape.uid for demand in component}) == 1:
            part = _pack_one_shape(component, free)
        else:
            part = _pack_shapes(component, free, tick)
        if part is None:
            return None
        answer.update(part)
    return answer


def _components(demands: Sequence[Demand]) -> list[list[Demand]]:
    """Demands grouped so that no two groups share a node."""
    owner: dict[int, int] = {}
    parent = list(range(len(demands)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for d, demand in enumerate(demands):
        for i in demand.nodes:
            other = owner.setdefault(i, d)
            if other != d:
                parent[find(d)] = find(other)
    groups: dict[int, list[Demand]] = {}
    for d, demand in enumerate(demands):
        if demand.minimum > 0:
            groups.setdefault(find(d), []).append(demand)
    return list(groups.values())


def _pack_one_shape(
    component: list[Demand], free: Callable[[int], Sequence[int]]
) -> dict[Hashable, dict[int, int]] | None:
    """One shape: demands → node classes (nodes allowed for the same demands) → slots, as a max-flow."""
    shape = component[0].shape
    members: dict[int, list[int]] = {}
    for d, demand in enumerate(component):
        for i in demand.nodes:
            members.setdefault(i, []).append(d)
    classes: dict[tuple[int, ...], list[int]] = {}
    for i in sorted(members):
        classes.setdefault(tuple(members[i]), []).append(i)
    edges: dict[Hashable, dict[Hashable, int]] = {"source": {}}
    for d, demand in enumerate(component):
        edges["source"][("demand", d)] = demand.minimum
        edges[("demand", d)] = {}
    slots: dict[tuple[int, ...], list[int]] = {}
    for signature, nodes in classes.items():
        fits = [shape.fits(free(i)) for i in nodes]
        slots[signature] = fits
        for d in signature:
            edges[("demand", d)][("class", signature)] = sum(fits)
        edges[("class", signature)] = {"sink": sum(fits)}
    flow = max_flow(edges, "source", "sink")
    if sum(flow.get("source", {}).values()) < sum(demand.minimum for demand in component):
        return None
    answer: dict[Hashable, dict[int, int]] = {}
    left = {signature: list(fits) for signature, fits in slots.items()}
    for d, demand in enumerate(component):
        per_node: dict[int, int] = {}
        for target, amount in flow.get(("demand", d), {}).items():
            signature = target[1]
            for j, i in enumerate(classes[signature]):
                take = min(amount, left[signature][j])
                if take:
                    per_node[i] = per_node.get(i, 0) + take
                    left[signature][j] -= take
                    amount -= take
                if not amount:
                    break
        answer[demand.key] = per_node
    return answer


def _pack_shapes(
    component: list[Demand], free: Callable[[int], Sequence[int]], tick: Callable[[], None]
) -> dict[Hashable, dict[int, int]] | None:
    """Several shapes: a search over nodes, each taking a maximal combination of pods."""
    allowed: dict[int, list[int]] = {}
    for d, demand in enumerate(component):
        for i in demand.nodes:
            allowed.setdefault(i, []).append(d)
    nodes = sorted(allowed)
    shapes = [demand.shape for demand in component]
    caps = [[shapes[d].fits(free(i)) if d in allowed[i] else 0 for d in range(len(component))] for i in nodes]
    suffix = [[0] * len(component) for _ in range(len(nodes) + 1)]
    for p in range(len(nodes) - 1, -1, -1):
        suffix[p] = [a + b for a, b in zip(suffix[p + 1], caps[p])]
    remaining = [demand.minimum for demand in component]
    chosen: list[tuple[int, ...]] = []
    failed: set[tuple[int, tuple[int, ...]]] = set()

    def search(p: int) -> bool:
        if not any(remaining):
            return True
        state = (p, tuple(remaining))
        if p == len(nodes) or state in failed or any(r > s for r, s in zip(remaining, suffix[p])):
            return False
        tick()
        for combo in _maximal_combos(free(nodes[p]), allowed[nodes[p]], shapes, remaining):
            for d, x in enumerate(combo):
                remaining[d] -= x
            chosen.append(combo)
            if search(p + 1):
                return True
            chosen.pop()
            for d, x in enumerate(combo):
                remaining[d] += x
        failed.add(state)
        return False

    if not search(0):
        return None
    answer: dict[Hashable, dict[int, int]] = {demand.key: {} for demand in component}
    for i, combo in zip(nodes, chosen):
        for d, x in enumerate(combo):
            if x:
                answer[component[d].key][i] = x
    return answer


def _maximal_combos(
    free: Sequence[int], allowed: list[int], shapes: list[Shape], remaining: list[int]
) -> list[tuple[int, ...]]:
    """Every way to put pods on one node after which no demand that still needs pods could add one.

    Largest first, so the search tries filling a node before leaving it
    emptier.
    """
    out: list[tuple[int, ...]] = []
    combo = [0] * len(shapes)

    def extend(position: int, room: list[int]) -> None:
        if position == len(allowed):
            for d in allowed:
                if remaining[d] - combo[d] > 0 and shapes[d].fits(room) > 0:
                    return
            out.append(tuple(combo))
            return
        d = allowed[position]
        most = min(remaining[d], shapes[d].fits(room))
        vector = shapes[d].vector
        for x in range(most, -1, -1):
            combo[d] = x
            extend(position + 1, [f - x * q for f, q in zip(room, vector)])
        combo[d] = 0

    extend(0, list(free))
    return sorted(set(out), reverse=True)
