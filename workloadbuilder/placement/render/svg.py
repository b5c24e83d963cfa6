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
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.placement.answer import Placement
from workloadbuilder.placement.cluster.model import Cluster
from workloadbuilder.placement.explain.wording import count_of, short_key
from workloadbuilder.placement.k8s.quantity import readable_quantity
from workloadbuilder.placement.render.tree import (
    CORDONED_COLOUR,
    EVICTED_COLOUR,
    FREE_COLOUR,
    MAX_CELLS,
    NONE_COLOUR,
    NOT_READY_COLOUR,
    PLACED_COLOUR,
    STATES,
    TAINTED_COLOUR,
    USED_COLOUR,
    Element,
    Usage,
    build_tree,
    cells_of,
    default_resource,
    levels_to_draw,
    mark_groups,
    node_details,
    node_usage,
)
from workloadbuilder.placement.request.model import PlacementRequest

__all__ = ["NAMED_CELLS", "render_html", "render_svg"]


NAMED_CELLS = 256
"""Node cells carry the node's name up to this many nodes (above it, only their tooltips do)."""


# geometry, in pixels
_CELL_W, _CELL_H, _CELL_GAP = 40, 7, 1
_NAMED_CELL_H, _NAME_FONT = 12, 8
_PAD, _HEADER, _GAP, _TAG = 4, 14, 4, 12
_ASPECT = 1.6
_FONT, _CHAR = 9, 5.4
_LEGEND_LINE = 15


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
    resource = resource or default_resource(request, cluster)
    chosen_levels = list(levels) if levels is not None else levels_to_draw(request, cluster, placement)
    usage = node_usage(request, cluster, placement, resource)
    root, note = build_tree(cluster, chosen_levels, usage, max_cells)
    cells = list(cells_of(root))
    if all(cell.key is None and len(cell.nodes) == 1 for cell in cells):
        details = node_details(request, cluster, placement)
        for cell in cells:
            cell.details = details[cell.nodes[0]]
    legend = mark_groups(request, cluster, placement, root)
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
    # a standalone SVG stops growing at 1.5 times its size; on the page it takes the width it is given
    body = _STANDALONE_CAP.sub(r"\1", body, count=1)
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


_STANDALONE_CAP = re.compile(r'(<svg\b[^>]*?) style="max-width:[0-9]+px"')
"""The width cap of ``render_svg``'s root element, which the HTML page drops."""

_PAGE_STYLE = (
    "body{font-family:sans-serif;margin:1em}"
    "main{display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start}"
    ".drawing{flex:3 1 40em;margin:0;min-width:0}.drawing svg{display:block;width:100%;max-width:none;height:auto}"
    ".answer{flex:2 1 28em;margin:0;min-width:0;font-size:13px;white-space:pre-wrap;overflow-wrap:anywhere}"
    "code{background:#f0f0f0;border-radius:3px;padding:0 2px}"
)


def _html_text(text: str) -> str:
    """Plain text as HTML: escaped, its `code` spans as ``<code>``."""
    return re.sub(r"`([^`\n]+)`", r"<code>\1</code>", escape(text))


def _plain(text: str) -> str:
    """Text for the drawing: its `code` spans without the backticks."""
    return re.sub(r"`([^`\n]+)`", r"\1", text)


# -- layout --------------------------------------------------------------------------------


def _label_width(text: str) -> int:
    return int(len(text) * _CHAR) + 1


def _layout(box: Element, named: bool) -> None:
    """Sizes bottom-up, then positions top-down, all in whole pixels; ``named`` cells are tall enough for a name."""
    _size(box, named)
    _place(box, 0, 0)


def _size(box: Element, named: bool) -> None:
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


def _place(box: Element, x: int, y: int) -> None:
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


def _document(root: Element, lines: list[str], legend: list[tuple[str, str, bool]], resource: str) -> str:
    swatches = [
        ("used before", USED_COLOUR),
        ("placed now", PLACED_COLOUR),
        ("evicted", EVICTED_COLOUR),
        ("free", FREE_COLOUR),
    ]
    head = len(lines) + 1 + len(legend)
    top = head * _LEGEND_LINE + 8
    swatch_texts = [text for text, _ in swatches] + [text for text, _ in STATES.values()]
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
    for state, (text, _) in STATES.items():
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


def _walk(box: Element) -> Iterable[Element]:
    yield box
    for child in box.children:
        yield from _walk(child)


def _draw_box(box: Element, out: list[str], resource: str, depth: int) -> None:
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


def _draw_cell(cell: Element, out: list[str], resource: str) -> None:
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


def _bar(out: list[str], x: int, y: int, w: int, h: int, usage: Usage) -> None:
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


def _draw_tags(element: Element, out: list[str]) -> None:
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


def _describe(element: Element, resource: str) -> str:
    usage = element.usage
    what = element.label if element.key is None else f"{short_key(element.key)} {element.label}"
    if element.parent is None:
        what = "the cluster"
    text = f"{what}: {count_of(usage.nodes, 'node')}"
    states = [f"{count} {STATES[state][0]}" for state, count in usage.states.items() if count]
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


def _part(width: int, amount: int, total: int) -> float:
    return round(width * min(amount, total) / total, 1) if amount > 0 else 0.0


def _n(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"
