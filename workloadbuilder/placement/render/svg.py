"""A placement drawn as nested boxes: zones holding blocks holding racks holding hosts, as SVG text.

``render_svg(request, cluster, placement)`` returns one self-contained SVG
document (no dependency, no file written: the caller saves it) whose
``viewBox`` scales it to the width of the window or page that shows it:

* every topology domain is a box (``<g class="domain">``) inside the box of
  the domain that holds it, labelled with its value; every node is a *cell*
  (``<g class="cell">``), a bar filled by how much of one resource was used
  before (grey), what the placed gang takes (orange) and what preemption
  evicts (a red stripe); each box's header carries the same bar for the
  whole domain; up to ``NAMED_CELLS`` (256) nodes, each cell carries the
  node's name; every cell's tooltip (``<title>``) names the node, its state
  and the free and used capacity of every resource it has;
* a cordoned node is hatched, a NotReady node (one with the
  ``node.kubernetes.io/not-ready`` or ``unreachable`` taint) outlined red,
  and a node with any other ``NoSchedule`` or ``NoExecute`` taint marked
  with a corner, each said in the legend;
* each placed group's chosen domain is outlined in the group's colour and
  tagged with its name (``<g class="chosen">``); a group without a topology
  constraint outlines the nodes its pods went to (the first 64 cells);
* for a group that could not be placed, the explanation's best candidate
  domain is outlined dashed and tagged with its shortfall
  (``<g class="shortfall">``: "best for workers: 8 of 20 pods, 12 short");
* a legend: the answer's first line, what the bars show, the colours and
  marks, and one line per group (where it went, or how short it fell).

``render_html`` puts the drawing beside the whole text answer (the
command's output, when the caller gives it), on one page.

The levels drawn are the request's topology keys and the well-known zone,
block and rack keys found on the nodes, coarsest first, as long as each
nests in the one before (a key that does not nest is left out). The
resource drawn is the first extended resource the request asks for
(``nvidia.com/gpu``), otherwise CPU. Up to ``max_cells`` (2,048) nodes each
get a cell; a larger cluster is aggregated: the cells become the domains of
the deepest level that has at most ``max_cells`` of them (a rack cell shows
the rack's total), or, when no level is coarse enough, runs of consecutive
nodes. So the drawing stays bounded (about ``max_cells`` cells and their
boxes) whatever the cluster's size.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from workloadbuilder.errors import InvalidArgumentError
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
    "MAX_CELLS",
    "NAMED_CELLS",
    "NOT_READY_COLOUR",
    "PLACED_COLOUR",
    "TAINTED_COLOUR",
    "USED_COLOUR",
    "render_html",
    "render_svg",
]

MAX_CELLS = 2048
"""Nodes drawn one by one up to this many; above it, cells aggregate whole domains."""

NAMED_CELLS = 256
"""Node cells carry the node's name up to this many nodes (above it, only their tooltips do)."""

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

# geometry, in pixels
_CELL_W, _CELL_H, _CELL_GAP = 40, 7, 1
_NAMED_CELL_H, _NAME_FONT = 12, 8
_PAD, _HEADER, _GAP, _TAG = 4, 14, 4, 12
_ASPECT = 1.6
_FONT, _CHAR = 9, 5.4
_LEGEND_LINE = 15


@dataclass
class _Usage:
    """One resource over some nodes, in millis."""

    alloc: int = 0
    used: int = 0
    placed: int = 0
    evicted: int = 0
    nodes: int = 0
    states: dict[str, int] = field(default_factory=dict)  # nodes per state (a key of _STATES)

    def add(self, other: _Usage) -> None:
        self.alloc += other.alloc
        self.used += other.used
        self.placed += other.placed
        self.evicted += other.evicted
        self.nodes += other.nodes
        for state, count in other.states.items():
            self.states[state] = self.states.get(state, 0) + count


_STATES = {
    "cordoned": ("cordoned", CORDONED_COLOUR),
    "not-ready": ("NotReady", NOT_READY_COLOUR),
    "tainted": ("tainted", TAINTED_COLOUR),
}
"""The node states drawn, by id: their legend text and colour."""


@dataclass(frozen=True)
class _Tag:
    """An outline around a drawn element, with its text (``shown`` only once for a group's many nodes)."""

    text: str
    colour: str
    kind: str  # "chosen" or "shortfall"
    shown: bool = True

    @property
    def dashed(self) -> bool:
        return self.kind == "shortfall"


@dataclass(eq=False)
class _Element:
    """A box (a domain holding others) or a cell (a node, or an aggregated domain)."""

    label: str
    key: str | None
    value: str | None
    parent: _Element | None
    nodes: list[int] = field(default_factory=list)
    children: list[_Element] = field(default_factory=list)
    is_cell: bool = False
    usage: _Usage = field(default_factory=_Usage)
    tags: list[_Tag] = field(default_factory=list)
    details: str = ""  # a node cell's tooltip after its usage: state and every resource's capacity
    grid: Any = None  # cells: (columns, per column); boxes: (column widths, row heights)
    x: int = 0
    y: int = 0
    w: int = 0
    h: int = 0


def render_svg(
    request: PlacementRequest,
    cluster: Cluster,
    placement: Placement,
    *,
    resource: str | None = None,
    levels: Sequence[str] | None = None,
    max_cells: int = MAX_CELLS,
    title: str | None = None,
) -> str:
    """The placement as an SVG document: the topology, what is used, where each group went, or its best try.

    Args:
        request: what was placed (its per-pod requests size the orange part).
        cluster: the cluster it was placed on, as it was before.
        placement: ``place(request, cluster, ...)``'s answer.
        resource: the resource the bars show (default: the first extended
            resource the request asks for, else ``cpu``).
        levels: topology keys to draw as boxes, outermost first (default:
            the request's keys and the well-known ones, where they nest).
        max_cells: draw nodes one by one up to this many, aggregate above.
        title: the first legend line (default: the answer's first line).

    Raises:
        ValueError: ``max_cells`` below 1.
    """
    if max_cells < 1:
        raise InvalidArgumentError("max_cells must be at least 1")
    resource = resource or _default_resource(request, cluster)
    chosen_levels = list(levels) if levels is not None else _levels(request, cluster, placement)
    usage = _node_usage(request, cluster, placement, resource)
    root, note = _tree(cluster, chosen_levels, usage, max_cells)
    cells = list(_cells(root))
    if all(cell.key is None and len(cell.nodes) == 1 for cell in cells):
        details = _node_details(request, cluster, placement)
        for cell in cells:
            cell.details = details[cell.nodes[0]]
    legend = _mark_groups(request, cluster, placement, root)
    _layout(root, named=len(cells) <= NAMED_CELLS and all(cell.details for cell in cells))
    lines = [
        _plain(title or placement.text.splitlines()[0]),
        f"{len(cluster):,} nodes; bars show {resource}{note}",
    ]
    return _document(root, lines, legend, resource)


def render_html(
    request: PlacementRequest, cluster: Cluster, placement: Placement, *, text: str | None = None, **options: Any
) -> str:
    """A standalone HTML page: the SVG of ``render_svg`` beside the whole text answer.

    Args:
        request: what was placed, as for ``render_svg``.
        cluster: the cluster it was placed on.
        placement: the answer.
        text: the answer in words (``workloadbuilder place`` passes its
            whole output: groups, nodes, capacity left, explanation);
            default: the answer's own ``text``.
        options: ``render_svg``'s keyword arguments.

    The drawing's legend carries the title; the page adds none of its own.
    The text's `code` spans are set as code, not left with their backticks.
    """
    svg = render_svg(request, cluster, placement, **options)
    body = svg.split("\n", 1)[1]  # drop the XML declaration
    heading = escape(_plain(options.get("title") or placement.text.splitlines()[0]))
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{heading}</title>\n"
        f"<style>{_PAGE_STYLE}</style>\n"
        "</head>\n<body>\n<main>\n"
        f'<figure class="drawing">\n{body}</figure>\n'
        f'<pre class="answer">{_html_text(text if text is not None else placement.text)}</pre>\n'
        "</main>\n</body>\n</html>\n"
    )


_PAGE_STYLE = (
    "body{font-family:sans-serif;margin:1em}"
    "main{display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start}"
    ".drawing{flex:3 1 40em;margin:0;min-width:0}.drawing svg{display:block;width:100%;height:auto}"
    ".answer{flex:2 1 28em;margin:0;min-width:0;font-size:13px;white-space:pre-wrap;overflow-wrap:anywhere}"
    "code{background:#f0f0f0;border-radius:3px;padding:0 2px}"
)


def _html_text(text: str) -> str:
    """Plain text as HTML: escaped, its `code` spans as ``<code>``."""
    return re.sub(r"`([^`\n]+)`", r"<code>\1</code>", escape(text))


def _plain(text: str) -> str:
    """Text for the drawing: its `code` spans without the backticks."""
    return re.sub(r"`([^`\n]+)`", r"\1", text)


# -- what to draw ---------------------------------------------------------------------


def _default_resource(request: PlacementRequest, cluster: Cluster) -> str:
    asked = sorted({r for group in request.groups for r, amount in group.requests.items() if amount > 0})
    for name in asked:
        if name not in _BASE and name in cluster.resource_index:
            return name
    return "cpu"


def _levels(request: PlacementRequest, cluster: Cluster, placement: Placement) -> list[str]:
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
    return key == HOST_KEY or all(labels.get(key) == name for labels, name in zip(cluster.labels, cluster.names))


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


def _node_usage(request: PlacementRequest, cluster: Cluster, placement: Placement, resource: str) -> list[_Usage]:
    r = cluster.resource_index.get(resource)
    out = []
    for i in range(len(cluster)):
        usage = _Usage(nodes=1, states=dict.fromkeys(_node_states(cluster, i), 1))
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
    """What the drawing marks on node ``i`` (keys of ``_STATES``): cordoned, NotReady, tainted.

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


def _node_details(request: PlacementRequest, cluster: Cluster, placement: Placement) -> list[str]:
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
        parts = [_STATES[state][0] for state in _node_states(cluster, i)]
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


# -- the tree of boxes and cells -----------------------------------------------------------


def _tree(cluster: Cluster, levels: list[str], usage: list[_Usage], max_cells: int) -> tuple[_Element, str]:
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
    root = _Element("the cluster", None, None, None)
    if depth == -1:
        size = math.ceil(len(cluster) / max_cells)
        note = f"; each cell is {size:,} consecutive nodes"
        for start in range(0, len(cluster), size):
            nodes = list(range(start, min(start + size, len(cluster))))
            label = f"{cluster.names[nodes[0]]} … {cluster.names[nodes[-1]]}"
            _add_cell(root, label, None, None, nodes, usage)
        return root, note
    index: dict[tuple[str | None, ...], _Element] = {(): root}
    for i in range(len(cluster)):
        path: tuple[str | None, ...] = ()
        box = root
        for d in range(min(depth + 1, len(levels))):
            path = (*path, columns[d][i])
            child = index.get(path)
            if child is None:
                value = path[-1]
                label = value if value is not None else f"(no {short_key(levels[d])})"
                child = index[path] = _Element(label, levels[d], value, box, is_cell=d == depth)
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
    box: _Element, label: str, key: str | None, value: str | None, nodes: list[int], usage: list[_Usage]
) -> None:
    cell = _Element(label, key, value, box, nodes=nodes, is_cell=True)
    for i in nodes:
        cell.usage.add(usage[i])
    box.children.append(cell)


def _sort(box: _Element) -> None:
    """Domains in label-value order (a missing label last), nodes in cluster order."""
    if box.children and box.children[0].key is not None:
        box.children.sort(key=lambda child: (child.value is None, child.value or ""))
    for child in box.children:
        if not child.is_cell:
            _sort(child)


def _sum(box: _Element) -> None:
    for child in box.children:
        if not child.is_cell:
            _sum(child)
        box.nodes.extend(child.nodes)
        box.usage.add(child.usage)


def _cells(box: _Element) -> Iterable[_Element]:
    for child in box.children:
        if child.is_cell:
            yield child
        else:
            yield from _cells(child)


# -- groups: outlines, tags and the legend ---------------------------------------------------


def _mark_groups(
    request: PlacementRequest, cluster: Cluster, placement: Placement, root: _Element
) -> list[tuple[str, str, bool]]:
    """Tag the elements each group chose (or its best try); the legend's lines as ``(text, colour, dashed)``."""
    cell_of = {i: cell for cell in _cells(root) for i in cell.nodes}
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


def _mark_placed(group: GroupPlacement, name: str, colour: str, cluster: Cluster, cell_of: dict[int, _Element]) -> None:
    """Outline the group's domain; without one, the cells its pods went to (the first few, the first labelled)."""
    if group.domains:
        target = _target(cluster, group.domains, cell_of)
        if target is not None:
            target.tags.append(_Tag(name, colour, "chosen"))
        return
    nodes = sorted({cluster.node_index[pod.node] for pod in group.pods})
    cells = list({id(cell_of[i]): cell_of[i] for i in nodes}.values())[:_NODE_OUTLINES]
    for k, cell in enumerate(cells):
        cell.tags.append(_Tag(name, colour, "chosen", shown=k == 0))


def _mark_best(level: dict[str, Any], name: str, cluster: Cluster, cell_of: dict[int, _Element]) -> str:
    """Outline a failed group's best candidate domain with its shortfall; the legend's text for it."""
    unit = "pods" if level["kind"] == "PodGroup" else "child groups"
    fits, need = level["best"]["fits"], level["need"]
    short = f"{need - fits} short"
    if (level["best"].get("alone") or 0) >= need:
        short += " (fits alone, not after the groups before it)"
    text = f"best for {name}: {fits} of {need} {unit}, {short}"
    target = _target(cluster, level["best"]["domain"], cell_of)
    if target is not None:
        target.tags.append(_Tag(text, BEST_COLOUR, "shortfall"))
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


def _target(cluster: Cluster, domains: dict[str, str], cell_of: dict[int, _Element]) -> _Element | None:
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
        element: _Element | None = cell
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


# -- layout --------------------------------------------------------------------------------


def _label_width(text: str) -> int:
    return int(len(text) * _CHAR) + 1


def _layout(box: _Element, named: bool) -> None:
    """Sizes bottom-up, then positions top-down, all in whole pixels; ``named`` cells are tall enough for a name."""
    _size(box, named)
    _place(box, 0, 0)


def _size(box: _Element, named: bool) -> None:
    for child in box.children:
        if child.is_cell:
            child.w, child.h = _CELL_W, _CELL_H
            if named:
                child.w = max(_CELL_W, int(len(child.label) * _NAME_FONT * 0.6) + 6)
                child.h = _NAMED_CELL_H
        else:
            _size(child, named)
    n = len(box.children)
    if box.children and box.children[0].is_cell:
        cell_w, cell_h = max(c.w for c in box.children), box.children[0].h
        for cell in box.children:
            cell.w = cell_w
        per_column = max(16, math.ceil(math.sqrt(n * cell_w / (cell_h + _CELL_GAP) / _ASPECT)))
        columns = math.ceil(n / per_column)
        per_column = math.ceil(n / columns)
        content_w = columns * cell_w + (columns - 1) * _GAP
        content_h = per_column * (cell_h + _CELL_GAP) - _CELL_GAP
        box.grid = (columns, per_column)
    elif box.children:
        mean_w = sum(c.w for c in box.children) / n
        mean_h = sum(c.h for c in box.children) / n
        columns = min(n, max(1, round(math.sqrt(n * mean_h / mean_w * _ASPECT))))
        rows = math.ceil(n / columns)
        columns = math.ceil(n / rows)
        widths = [max(c.w for c in box.children[k::columns]) for k in range(columns)]
        heights = [max(c.h for c in box.children[r * columns : (r + 1) * columns]) for r in range(rows)]
        content_w = sum(widths) + (columns - 1) * _GAP
        content_h = sum(heights) + (rows - 1) * _GAP
        box.grid = (widths, heights)
    else:
        content_w = content_h = 0
        box.grid = None
    box.w = (
        max(content_w, _label_width(box.label) + 30, *(_label_width(tag.text) + 4 for tag in box.tags if tag.shown))
        + 2 * _PAD
    )
    box.h = _HEADER + content_h + _PAD + _TAG * sum(tag.shown for tag in box.tags)


def _place(box: _Element, x: int, y: int) -> None:
    box.x, box.y = x, y
    top, left = y + _HEADER, x + _PAD
    if box.grid is None:
        return
    if box.children[0].is_cell:
        columns, per_column = box.grid
        width = (box.w - 2 * _PAD - (columns - 1) * _GAP) // columns  # cells stretch to the box's width
        for k, cell in enumerate(box.children):
            column, row = divmod(k, per_column)
            cell.x, cell.y, cell.w = left + column * (width + _GAP), top + row * (cell.h + _CELL_GAP), width
        return
    widths, heights = box.grid
    for k, child in enumerate(box.children):
        row, column = divmod(k, len(widths))
        _place(child, left + sum(widths[:column]) + column * _GAP, top + sum(heights[:row]) + row * _GAP)


# -- SVG -------------------------------------------------------------------------------------


def _document(root: _Element, lines: list[str], legend: list[tuple[str, str, bool]], resource: str) -> str:
    swatches = [
        ("used before", USED_COLOUR),
        ("placed now", PLACED_COLOUR),
        ("evicted", EVICTED_COLOUR),
        ("free", FREE_COLOUR),
    ]
    head = len(lines) + 1 + len(legend)
    top = head * _LEGEND_LINE + 8
    swatch_texts = [text for text, _ in swatches] + [text for text, _ in _STATES.values()]
    width = (
        max(
            root.w,
            sum(16 + _label_width(text) + 18 for text in swatch_texts) * 11 // 9,
            *(_label_width(line) * 12 // 9 + 30 for line in lines),
            *(_label_width(text) * 11 // 9 + 40 for text, _, _ in legend),
        )
        + 16
    )
    height = top + root.h + 8
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        (  # no fixed size: the viewBox scales the drawing to the width that shows it, up to 1.5 times its own
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%" '
            f'style="max-width:{3 * width // 2}px" font-family="sans-serif" data-resource={quoteattr(resource)}>'
        ),
        "<defs>",
        (
            '<pattern id="wb-cordoned" width="4" height="4" patternUnits="userSpaceOnUse" '
            f'patternTransform="rotate(45)"><rect width="2" height="4" fill="{CORDONED_COLOUR}"/></pattern>'
        ),
        "</defs>",
        f'<rect class="background" x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
        '<g class="legend">',
    ]
    y = _LEGEND_LINE
    for k, line in enumerate(lines):
        weight = ' font-weight="bold"' if k == 0 else ""
        out.append(f'<text x="8" y="{y}" font-size="12"{weight}>{escape(line)}</text>')
        y += _LEGEND_LINE
    x = 8
    for text, colour in swatches:
        out.append(
            f'<rect class="swatch" x="{x}" y="{y - 9}" width="12" height="10" fill="{colour}" stroke="#757575"/>'
            f'<text x="{x + 16}" y="{y}" font-size="11">{text}</text>'
        )
        x += 16 + _label_width(text) + 18
    for state, (text, _) in _STATES.items():
        out.append(
            f'<rect class="swatch" x="{x}" y="{y - 9}" width="12" height="10" fill="{FREE_COLOUR}" stroke="#757575"/>'
        )
        _marks(out, x, y - 9, 12, 10, {state: 1}, 1)
        out.append(f'<text x="{x + 16}" y="{y}" font-size="11">{text}</text>')
        x += 16 + _label_width(text) + 18
    y += _LEGEND_LINE
    for text, colour, dashed in legend:
        dash = ' stroke-dasharray="4 2"' if dashed else ""
        out.append(
            f'<rect class="swatch" x="8" y="{y - 9}" width="12" height="10" fill="none" stroke="{colour}" '
            f'stroke-width="2"{dash}/><text x="26" y="{y}" font-size="11">{escape(text)}</text>'
        )
        y += _LEGEND_LINE
    out.append("</g>")
    out.append(f'<g class="topology" transform="translate(8,{top})">')
    _draw_box(root, out, resource, 0)
    tagged = [element for element in _walk(root) if element.tags]
    for element in tagged:
        _draw_tags(element, out)
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _walk(box: _Element) -> Iterable[_Element]:
    yield box
    for child in box.children:
        yield from _walk(child)


def _draw_box(box: _Element, out: list[str], resource: str, depth: int) -> None:
    """The box, its label and usage bar, and everything inside it, as one nested ``<g class="domain">``."""
    fill = "#f5f7fa" if depth % 2 == 0 else "#ffffff"
    level = short_key(box.key) if box.key is not None else "cluster"
    attrs = f" data-key={quoteattr(box.key)}" if box.key is not None else ""
    attrs += f" data-value={quoteattr(box.value)}" if box.value is not None else ""
    out.append(f'<g class="domain" data-level={quoteattr(level)}{attrs}>')
    out.append(f"<title>{escape(_describe(box, resource))}</title>")
    out.append(f'<rect x="{box.x}" y="{box.y}" width="{box.w}" height="{box.h}" fill="{fill}" stroke="#9e9e9e"/>')
    out.append(
        f'<text class="label" x="{box.x + _PAD}" y="{box.y + 10}" font-size="{_FONT}">{escape(box.label)}</text>'
    )
    _bar(out, box.x + box.w - _PAD - 24, box.y + 4, 24, 6, box.usage)
    for child in box.children:
        if child.is_cell:
            _draw_cell(child, out, resource)
        else:
            _draw_box(child, out, resource, depth + 1)
    out.append("</g>")


def _draw_cell(cell: _Element, out: list[str], resource: str) -> None:
    kind = "node" if len(cell.nodes) == 1 and cell.key is None else "aggregate"
    attrs = f" data-key={quoteattr(cell.key)} data-value={quoteattr(cell.value or '')}" if cell.key is not None else ""
    out.append(f'<g class="cell" data-kind="{kind}"{attrs}>')
    out.append(f"<title>{escape(_describe(cell, resource))}</title>")
    _bar(out, cell.x, cell.y, cell.w, cell.h, cell.usage)
    if cell.h >= _NAMED_CELL_H:
        out.append(
            f'<text class="name" x="{cell.x + 2}" y="{cell.y + cell.h - 3}" font-size="{_NAME_FONT}" '
            'stroke="#ffffff" stroke-width="2" stroke-opacity="0.8" paint-order="stroke">'
            f"{escape(cell.label)}</text>"
        )
    out.append("</g>")


def _bar(out: list[str], x: int, y: int, w: int, h: int, usage: _Usage) -> None:
    """A bar: used before (grey), then placed now (orange), free (white); evicted as a red stripe; then node marks."""
    if usage.alloc <= 0:
        out.append(_rect("none", x, y, w, h, NONE_COLOUR, ' stroke="#bdbdbd" stroke-width="0.5"'))
        _marks(out, x, y, w, h, usage.states, usage.nodes)
        return
    out.append(_rect("free", x, y, w, h, FREE_COLOUR, ' stroke="#bdbdbd" stroke-width="0.5"'))
    used_w = _part(w, max(usage.used - usage.evicted, 0), usage.alloc)
    placed_w = min(_part(w, usage.placed, usage.alloc), w - used_w)
    evicted_w = min(_part(w, usage.evicted, usage.alloc), w - used_w)
    if used_w:
        out.append(_rect("used", x, y, used_w, h, USED_COLOUR))
    if placed_w:
        out.append(_rect("placed", x + used_w, y, placed_w, h, PLACED_COLOUR))
    if evicted_w:
        out.append(_rect("evicted", x + used_w, y + h - 2, evicted_w, 2, EVICTED_COLOUR))
    _marks(out, x, y, w, h, usage.states, usage.nodes)


def _marks(out: list[str], x: float, y: float, w: float, h: float, states: dict[str, int], nodes: int) -> None:
    """Node states over a bar: the cordoned share hatched, NotReady outlined red, a tainted corner marked."""
    cordoned = states.get("cordoned", 0)
    if cordoned:
        share = w if cordoned >= nodes else _part(int(w), cordoned, nodes)
        out.append(_rect("cordoned", x, y, share, h, "url(#wb-cordoned)"))
    if states.get("not-ready"):
        extra = f' stroke="{NOT_READY_COLOUR}" stroke-width="1.5"'
        out.append(_rect("not-ready", x + 0.5, y + 0.5, max(w - 1, 0), max(h - 1, 0), "none", extra))
    if states.get("tainted"):
        corner, right = min(h, w, 6), x + w
        triangle = f"M{_n(right - corner)},{_n(y)} L{_n(right)},{_n(y)} L{_n(right)},{_n(y + corner)} Z"
        out.append(f'<path class="tainted" d="{triangle}" fill="{TAINTED_COLOUR}"/>')


def _rect(kind: str, x: float, y: float, w: float, h: float, fill: str, extra: str = "") -> str:
    return f'<rect class="{kind}" x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" fill="{fill}"{extra}/>'


def _draw_tags(element: _Element, out: list[str]) -> None:
    """Outlines around the element, one inside the other; their texts inside a box, above a cell."""
    shown = [tag for tag in element.tags if tag.shown]
    for k, tag in enumerate(element.tags):
        dash = ' stroke-dasharray="5 3"' if tag.dashed else ""
        grow = k * 2
        out.append(f'<g class="{tag.kind}" data-target={quoteattr(element.label)}>')
        out.append(
            f'<rect x="{element.x - 1 - grow}" y="{element.y - 1 - grow}" width="{element.w + 2 + 2 * grow}" '
            f'height="{element.h + 2 + 2 * grow}" fill="none" stroke="{tag.colour}" stroke-width="2"{dash}/>'
        )
        if tag.shown:
            line = shown.index(tag)
            style = f'font-size="{_FONT}" fill="{tag.colour}" font-weight="bold"'
            x = element.x + (_PAD if not element.is_cell else 0)
            if element.is_cell:  # above the cell (below one in the first row), on a white backing
                first_row = element.parent is not None and element.y == element.parent.y + _HEADER
                y = element.y + element.h + 2 + _FONT + line * _TAG if first_row else element.y - 3 - line * _TAG
                out.append(
                    f'<rect x="{x}" y="{y - _FONT}" width="{_label_width(tag.text)}" height="{_FONT + 2}" '
                    'fill="#ffffff" fill-opacity="0.85"/>'
                )
            else:
                y = element.y + element.h - _PAD - (len(shown) - 1 - line) * _TAG
            out.append(f'<text x="{x}" y="{y}" {style}>{escape(tag.text)}</text>')
        out.append("</g>")


# -- words and numbers -------------------------------------------------------------------------------


def _describe(element: _Element, resource: str) -> str:
    usage = element.usage
    what = element.label if element.key is None else f"{short_key(element.key)} {element.label}"
    if element.parent is None:
        what = "the cluster"
    text = f"{what}: {count_of(usage.nodes, 'node')}"
    states = [f"{count} {_STATES[state][0]}" for state, count in usage.states.items() if count]
    if states and not element.details:
        text += f" ({', '.join(states)})"
    if usage.alloc:
        free = usage.alloc - usage.used + usage.evicted - usage.placed
        text += (
            f"; {resource}: {readable_quantity(resource, usage.used)} of {readable_quantity(resource, usage.alloc)}"
            f" used before, {readable_quantity(resource, usage.placed)} placed now"
        )
        if usage.evicted:
            text += f", {readable_quantity(resource, usage.evicted)} evicted"
        text += f", {readable_quantity(resource, max(free, 0))} free"
    return f"{text}\n{element.details}" if element.details else text


def _where(domains: dict[str, str]) -> str:
    if not domains:
        return "the cluster"
    return ", ".join(f"{short_key(key)} {value}" for key, value in domains.items())


def _part(width: int, amount: int, total: int) -> float:
    return round(width * min(amount, total) / total, 1) if amount > 0 else 0.0


def _n(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"
