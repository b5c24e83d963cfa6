"""What a placement drawing shows, before any geometry: the tree of domain boxes and node cells, and their marks.

``build_tree`` nests the cluster's topology domains (the levels
``levels_to_draw`` picks, coarsest first) into boxes holding node cells, or
aggregated cells above ``MAX_CELLS`` nodes; ``node_usage`` fills each cell's
bar (used before, placed now, evicted) for one resource and its node states
(cordoned, NotReady, tainted); ``mark_groups`` outlines where each group went,
or its best try, and returns the legend lines. ``render.svg`` lays this out
and draws it. The colours are shared by both.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from workloadbuilder.placement.answer import GroupPlacement, Placement
from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.cluster.nodes import NOT_READY_TAINTS
from workloadbuilder.placement.explain.wording import count_of, short_key
from workloadbuilder.placement.k8s.quantity import readable_quantity
from workloadbuilder.placement.k8s.resources import POD_MILLIS
from workloadbuilder.placement.request.model import PlacementRequest

__all__ = [
    "BEST_COLOUR",
    "CORDONED_COLOUR",
    "EVICTED_COLOUR",
    "FREE_COLOUR",
    "GROUP_COLOURS",
    "HOST_KEY",
    "MAX_CELLS",
    "NONE_COLOUR",
    "NOT_READY_COLOUR",
    "PLACED_COLOUR",
    "STATES",
    "TAINTED_COLOUR",
    "USED_COLOUR",
    "WELL_KNOWN_LEVELS",
    "Element",
    "Tag",
    "Usage",
    "build_tree",
    "cells_of",
    "default_resource",
    "levels_to_draw",
    "mark_groups",
    "node_details",
    "node_usage",
]

MAX_CELLS = 2048
"""Nodes drawn one by one up to this many; above it, cells aggregate whole domains."""


USED_COLOUR = "#9e9e9e"


PLACED_COLOUR = "#f28e2b"


EVICTED_COLOUR = "#e15759"


FREE_COLOUR = "#ffffff"


CORDONED_COLOUR = "#424242"


NOT_READY_COLOUR = "#d32f2f"


TAINTED_COLOUR = "#6a1b9a"


NONE_COLOUR = "#eeeeee"


BEST_COLOUR = "#c2185b"


GROUP_COLOURS = ("#1f77b4", "#7b3294", "#1a9850", "#17becf", "#8c564b", "#bcbd22", "#393b79", "#e377c2")
"""Outline colours of placed groups, in request order (cycled)."""


HOST_KEY = "kubernetes.io/hostname"


WELL_KNOWN_LEVELS = (
    "topology.kubernetes.io/region",
    "topology.kubernetes.io/zone",
    "topology.example.com/block",
    "topology.example.com/rack",
)


_BASE = frozenset({"cpu", "memory", "pods", "ephemeral-storage"})


_REPELLING = frozenset({"NoSchedule", "NoExecute"})  # taint effects that keep a pod without its toleration off


_LEGEND_GROUPS = 20


_NODE_OUTLINES = 64  # nodes outlined for a group without a topology constraint


@dataclass
class Usage:
    """One resource over some nodes, in millis."""

    alloc: int = 0
    used: int = 0
    placed: int = 0
    evicted: int = 0
    nodes: int = 0
    states: dict[str, int] = field(default_factory=dict)  # nodes per state (a key of STATES)

    def add(self, other: Usage) -> None:
        self.alloc += other.alloc
        self.used += other.used
        self.placed += other.placed
        self.evicted += other.evicted
        self.nodes += other.nodes
        for state, count in other.states.items():
            self.states[state] = self.states.get(state, 0) + count


STATES = {
    "cordoned": ("cordoned", CORDONED_COLOUR),
    "not-ready": ("NotReady", NOT_READY_COLOUR),
    "tainted": ("tainted", TAINTED_COLOUR),
}
"""The node states drawn, by id: their legend text and colour."""


@dataclass(frozen=True)
class Tag:
    """An outline around a drawn element, with its text (``shown`` only once for a group's many nodes)."""

    text: str
    colour: str
    kind: str  # "chosen" or "shortfall"
    shown: bool = True

    @property
    def dashed(self) -> bool:
        return self.kind == "shortfall"


@dataclass(eq=False)
class Element:
    """A box (a domain holding others) or a cell (a node, or an aggregated domain)."""

    label: str
    key: str | None
    value: str | None
    parent: Element | None
    nodes: list[int] = field(default_factory=list)
    children: list[Element] = field(default_factory=list)
    is_cell: bool = False
    usage: Usage = field(default_factory=Usage)
    tags: list[Tag] = field(default_factory=list)
    details: str = ""  # a node cell's tooltip after its usage: state and every resource's capacity
    grid: Any = None  # cells: (columns, per column); boxes: (column widths, row heights)
    x: int = 0
    y: int = 0
    w: int = 0
    h: int = 0


def default_resource(request: PlacementRequest, cluster: Cluster) -> str:
    """The resource the bars show: the first extended resource the request asks for that nodes have, else ``cpu``."""
    asked = sorted({r for group in request.groups for r, amount in group.requests.items() if amount > 0})
    for name in asked:
        if name not in _BASE and name in cluster.resource_index:
            return name
    return "cpu"


def levels_to_draw(request: PlacementRequest, cluster: Cluster, placement: Placement) -> list[str]:
    """Topology keys to draw, coarsest first, each nesting in the one before.

    Of keys that cut the nodes the same way (one rack per block), one is
    drawn: the request's own, else the first well-known one.
    """
    asked = {group.topology_key for group in request.groups if group.topology_key}
    asked.update(key for group in placement.groups for key in group.domains)
    counts = {}
    for key in asked | set(WELL_KNOWN_LEVELS):
        domains = cluster.domains(key)
        if domains and not _per_node(cluster, key):  # a per-node key (hostname) is the cell level
            counts[key] = len(domains)

    def rank(key: str) -> tuple[int, bool, int, str]:
        known = WELL_KNOWN_LEVELS.index(key) if key in WELL_KNOWN_LEVELS else len(WELL_KNOWN_LEVELS)
        return counts[key], key not in asked, known, key

    chosen: list[str] = []
    for key in sorted(counts, key=rank):
        if not chosen or (_nests(cluster, key, chosen) and counts[key] > counts[chosen[-1]]):
            chosen.append(key)
    return chosen


def _per_node(cluster: Cluster, key: str) -> bool:
    pairs = zip(cluster.labels, cluster.names, strict=True)
    return key == HOST_KEY or all(labels.get(key) == name for labels, name in pairs)


def _nests(cluster: Cluster, key: str, outer: list[str]) -> bool:
    """Whether every domain of ``key`` lies inside one domain of the keys already chosen."""
    owner: dict[str, tuple[str | None, ...]] = {}
    columns = [cluster.label_values(k) for k in outer]
    for i, value in enumerate(cluster.label_values(key)):
        if value is None:
            continue
        path = tuple(column[i] for column in columns)
        if owner.setdefault(value, path) != path:
            return False
    return True


def node_usage(request: PlacementRequest, cluster: Cluster, placement: Placement, resource: str) -> list[Usage]:
    """Per node: ``resource`` allocatable, used before, placed now and evicted, and the node\'s states."""
    r = cluster.resource_index.get(resource)
    out = []
    for i in range(len(cluster)):
        usage = Usage(nodes=1, states=dict.fromkeys(_node_states(cluster, i), 1))
        if r is not None:
            usage.alloc, usage.used = cluster.allocatable[r][i], min(cluster.used[r][i], cluster.allocatable[r][i])
        out.append(usage)
    if r is None:
        return out
    per_pod = {group.name: group.requests.get(resource, 0) for group in request.groups}
    for group in placement.groups:
        for pod in group.pods:
            out[cluster.node_index[pod.node]].placed += per_pod.get(group.name, 0)
    running = {(pod.name, pod.node): pod.requests[r] for pod in cluster.running_pods}
    for victim in placement.victims:
        for pod in victim.pods:
            i = cluster.node_index[pod.node]
            out[i].evicted += running.get((pod.name, i), 0)
    return out


def _node_states(cluster: Cluster, i: int) -> list[str]:
    """What the drawing marks on node ``i`` (keys of ``STATES``): cordoned, NotReady, tainted.

    NotReady is what the node lifecycle controller's taints say
    (``node.kubernetes.io/not-ready``, ``unreachable``); tainted is any
    other taint that keeps pods off (``NoSchedule``, ``NoExecute``).
    """
    taints = cluster.taints[i]
    states = [] if cluster.schedulable[i] else ["cordoned"]
    if any(taint.key in NOT_READY_TAINTS for taint in taints):
        states.append("not-ready")
    if any(taint.key not in NOT_READY_TAINTS and taint.effect in _REPELLING for taint in taints):
        states.append("tainted")
    return states


def _taints_text(cluster: Cluster, i: int) -> list[str]:
    """The node's taints as kubectl shows them (``key=value:Effect``)."""
    return [f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}" for t in cluster.taints[i]]


def node_details(request: PlacementRequest, cluster: Cluster, placement: Placement) -> list[str]:
    """Per node, its tooltip's tail: its state, then each resource it has, used (before and now) and free."""
    placed: list[dict[str, int]] = [{} for _ in range(len(cluster))]
    per_pod = {group.name: group.requests for group in request.groups}
    for group in placement.groups:
        for pod in group.pods:
            taken = placed[cluster.node_index[pod.node]]
            for name, amount in {"pods": POD_MILLIS, **per_pod.get(group.name, {})}.items():  # a pod takes a slot
                taken[name] = taken.get(name, 0) + amount
    out = []
    for i in range(len(cluster)):
        parts = [STATES[state][0] for state in _node_states(cluster, i)]
        taints = _taints_text(cluster, i)
        if taints:
            parts.append("taints " + ", ".join(taints))
        for r, name in enumerate(cluster.resources):
            alloc = cluster.allocatable[r][i]
            if alloc <= 0:
                continue
            used = min(cluster.used[r][i] + placed[i].get(name, 0), alloc)
            parts.append(
                f"{name} {readable_quantity(name, used)} used, {readable_quantity(name, alloc - used)} free "
                f"of {readable_quantity(name, alloc)}"
            )
        out.append("; ".join(parts))
    return out


def build_tree(cluster: Cluster, levels: list[str], usage: list[Usage], max_cells: int) -> tuple[Element, str]:
    """The root box, with cells at the finest level that keeps at most ``max_cells`` of them."""
    columns = [cluster.label_values(key) for key in levels]
    depth, note = len(levels), ""
    if len(cluster) > max_cells:
        counts = [
            len({tuple(column[i] for column in columns[: d + 1]) for i in range(len(cluster))})
            for d in range(len(levels))
        ]
        fitting = [d for d, count in enumerate(counts) if count <= max_cells]
        if fitting:
            depth = fitting[-1]
            note = f"; each cell is a {short_key(levels[depth])} ({counts[depth]:,} of them)"
        else:
            depth = -1
    root = Element("the cluster", None, None, None)
    if depth == -1:
        size = math.ceil(len(cluster) / max_cells)
        note = f"; each cell is {size:,} consecutive nodes"
        for start in range(0, len(cluster), size):
            nodes = list(range(start, min(start + size, len(cluster))))
            label = f"{cluster.names[nodes[0]]} … {cluster.names[nodes[-1]]}"
            _add_cell(root, label, None, None, nodes, usage)
        return root, note
    index: dict[tuple[str | None, ...], Element] = {(): root}
    for i in range(len(cluster)):
        path: tuple[str | None, ...] = ()
        box = root
        for d in range(min(depth + 1, len(levels))):
            path = (*path, columns[d][i])
            child = index.get(path)
            if child is None:
                value = path[-1]
                label = value if value is not None else f"(no {short_key(levels[d])})"
                child = index[path] = Element(label, levels[d], value, box, is_cell=d == depth)
                box.children.append(child)
            box = child
        if box.is_cell:
            box.nodes.append(i)
            box.usage.add(usage[i])
        else:
            _add_cell(box, cluster.names[i], None, None, [i], usage)
    _sort(root)
    _sum(root)
    return root, note


def _add_cell(
    box: Element, label: str, key: str | None, value: str | None, nodes: list[int], usage: list[Usage]
) -> None:
    cell = Element(label, key, value, box, nodes=nodes, is_cell=True)
    for i in nodes:
        cell.usage.add(usage[i])
    box.children.append(cell)


def _sort(box: Element) -> None:
    """Domains in label-value order (a missing label last), nodes in cluster order."""
    if box.children and box.children[0].key is not None:
        box.children.sort(key=lambda child: (child.value is None, child.value or ""))
    for child in box.children:
        if not child.is_cell:
            _sort(child)


def _sum(box: Element) -> None:
    for child in box.children:
        if not child.is_cell:
            _sum(child)
        box.nodes.extend(child.nodes)
        box.usage.add(child.usage)


def cells_of(box: Element) -> Iterable[Element]:
    """The cells under ``box``, depth first, in drawing order."""
    for child in box.children:
        if child.is_cell:
            yield child
        else:
            yield from cells_of(child)


def mark_groups(
    request: PlacementRequest, cluster: Cluster, placement: Placement, root: Element
) -> list[tuple[str, str, bool]]:
    """Tag the elements each group chose (or its best try); the legend's lines as ``(text, colour, dashed)``."""
    cell_of = {i: cell for cell in cells_of(root) for i in cell.nodes}
    names = _display_names(placement.groups)
    best = _best_tries(placement)
    legend: list[tuple[str, str, bool]] = []
    for group in placement.groups:
        name, pods = names[group.name], _pods_below(group, placement)
        if pods:
            colour = GROUP_COLOURS[sum(dashed is False for _, _, dashed in legend) % len(GROUP_COLOURS)]
            _mark_placed(group, name, colour, cluster, cell_of)
            legend.append((f"{name} ({group.kind}): {count_of(pods, 'pod')} in {_where(group.domains)}", colour, False))
        elif group.name in best:
            text = _mark_best(best[group.name], name, cluster, cell_of)
            legend.append((f"{name} ({group.kind}): not placed; {text}", BEST_COLOUR, True))
        else:
            legend.append((f"{name} ({group.kind}): not placed", BEST_COLOUR, True))
    if len(legend) > _LEGEND_GROUPS:
        more = len(legend) - _LEGEND_GROUPS + 1
        legend = [*legend[: _LEGEND_GROUPS - 1], (f"… and {more} more groups", "#000000", False)]
    return legend


def _mark_placed(group: GroupPlacement, name: str, colour: str, cluster: Cluster, cell_of: dict[int, Element]) -> None:
    """Outline the group's domain; without one, the cells its pods went to (the first few, the first labelled)."""
    if group.domains:
        target = _target(cluster, group.domains, cell_of)
        if target is not None:
            target.tags.append(Tag(name, colour, "chosen"))
        return
    nodes = sorted({cluster.node_index[pod.node] for pod in group.pods})
    cells = list({id(cell_of[i]): cell_of[i] for i in nodes}.values())[:_NODE_OUTLINES]
    for k, cell in enumerate(cells):
        cell.tags.append(Tag(name, colour, "chosen", shown=k == 0))


def _mark_best(level: dict[str, Any], name: str, cluster: Cluster, cell_of: dict[int, Element]) -> str:
    """Outline a failed group's best candidate domain with its shortfall; the legend's text for it."""
    unit = "pods" if level["kind"] == "PodGroup" else "child groups"
    fits, need = level["best"]["fits"], level["need"]
    short = f"{need - fits} short"
    if (level["best"].get("alone") or 0) >= need:
        short += " (fits alone, not after the groups before it)"
    text = f"best for {name}: {fits} of {need} {unit}, {short}"
    target = _target(cluster, level["best"]["domain"], cell_of)
    if target is not None:
        target.tags.append(Tag(text, BEST_COLOUR, "shortfall"))
    return f"{text} in {_where(level['best']['domain'])}"


def _display_names(groups: list[GroupPlacement]) -> dict[str, str]:
    """Each group's template name where it names one group only, its own name otherwise."""
    templates: dict[str, int] = {}
    for group in groups:
        if group.template:
            templates[group.template] = templates.get(group.template, 0) + 1
    return {g.name: g.template if g.template and templates[g.template] == 1 else g.name for g in groups}


def _pods_below(group: GroupPlacement, placement: Placement) -> int:
    if group.kind == "PodGroup":
        return len(group.pods)
    return sum(_pods_below(child, placement) for child in placement.groups if child.parent == group.name)


def _best_tries(placement: Placement) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for root in placement.explanation.get("roots", []):
        for level in root.get("levels", []):
            if level.get("best") is not None:
                for name in (level["group"], *level.get("alike", [])):
                    out.setdefault(name, level)
    return out


def _target(cluster: Cluster, domains: dict[str, str], cell_of: dict[int, Element]) -> Element | None:
    """The drawn element for a domain path: its own box where its key is drawn, else the smallest that holds it."""
    if not domains:
        return None
    *outer, (key, value) = domains.items()
    domain = cluster.domains(key).get(value)
    nodes = [i for i in domain.nodes if all(cluster.labels[i].get(k) == v for k, v in outer)] if domain else []
    if not nodes:
        return None
    chains = []
    for cell in {id(cell_of[i]): cell_of[i] for i in nodes}.values():
        chain = []
        element: Element | None = cell
        while element is not None:
            chain.append(element)
            element = element.parent
        chains.append(chain[::-1])
    common = chains[0][0]
    for depth in range(min(len(chain) for chain in chains)):
        if any(chain[depth] is not chains[0][depth] for chain in chains):
            break
        common = chains[0][depth]
    same = common  # a box holding exactly the same nodes may be the domain's own (a rack of one node)
    while same.parent is not None and len(same.parent.nodes) == len(common.nodes):
        same = same.parent
        if (same.key, same.value) == (key, value):
            return same
    return common


def _where(domains: dict[str, str]) -> str:
    if not domains:
        return "the cluster"
    return ", ".join(f"{short_key(key)} {value}" for key, value in domains.items())
