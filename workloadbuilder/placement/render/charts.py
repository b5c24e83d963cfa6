"""SVG charts of capacity planning and simulation answers: copies per domain, utilization over time.

Both are self-contained SVG documents with a ``viewBox`` (they scale to the
window), a title, labelled axes and a ``<title>`` tooltip on every bar or
step, so the figure a mark stands for can be read by hovering it.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from workloadbuilder.placement.planning.capacity import Capacity
from workloadbuilder.placement.planning.simulate import Simulation

__all__ = ["axis_unit", "capacity_svg", "time_ticks", "utilization_svg"]

_WIDTH = 800
_BAR = 22
_LEFT = 200
_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


def capacity_svg(answer: Capacity) -> str:
    """Copies that fit per domain (each domain alone), one horizontal bar per domain, for each topology key."""
    rows: list[tuple[str, str, int]] = [
        (key, value, n) for key, values in answer.per_domain.items() for value, n in values.items()
    ]
    most = max((n for _, _, n in rows), default=0) or 1
    top = 60
    height = top + _BAR * max(1, len(rows)) + 40
    scale = (_WIDTH - _LEFT - 60) / most
    parts = [
        _head(height, f"{answer.copies} cop{'y' if answer.copies == 1 else 'ies'} fit in all"),
        _text(20, 44, "copies per domain, each domain alone" if rows else "the input names no topology key", 13),
    ]
    for i, (key, value, n) in enumerate(rows):
        y = top + i * _BAR
        parts.append(_text(_LEFT - 8, y + 15, value, 12, anchor="end"))
        parts.append(
            f'<rect x="{_LEFT}" y="{y + 3}" width="{n * scale:.1f}" height="{_BAR - 6}" fill="{_COLOURS[0]}">'
            f"<title>{escape(f'{key}={value}: {n} cop' + ('y' if n == 1 else 'ies'))}</title></rect>"
        )
        parts.append(_text(_LEFT + n * scale + 6, y + 15, str(n), 12))
    return "\n".join([*parts, "</svg>", ""])


def utilization_svg(simulation: Simulation) -> str:
    """Utilization over time per resource: one step line per resource, from 0 to the makespan (or the last event)."""
    series = simulation.utilization
    end = max((point[0] for points in series.values() for point in points), default=0.0) or 1.0
    top, plot_height, bottom = 60, 300, 40
    height = top + plot_height + bottom + 20 * len(series)
    scale_x = (_WIDTH - 120) / end
    parts = [
        _head(height, "utilization over time"),
        f'<line x1="80" y1="{top + plot_height}" x2="{_WIDTH - 40}" y2="{top + plot_height}" stroke="#444"/>',
        f'<line x1="80" y1="{top}" x2="80" y2="{top + plot_height}" stroke="#444"/>',
    ]
    for share in (0.0, 0.25, 0.5, 0.75, 1.0):  # a tick and a faint grid line every quarter
        y = top + plot_height * (1 - share)
        parts.append(f'<line x1="76" y1="{y:.1f}" x2="{_WIDTH - 40}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(_text(72, y + 4, f"{share:.0%}", 11, anchor="end"))
    ticks = time_ticks(end)
    unit, size = axis_unit(ticks)
    for tick in ticks:
        x, y = 80 + tick * scale_x, top + plot_height
        parts.append(f'<line x1="{x:.1f}" y1="{y}" x2="{x:.1f}" y2="{y + 5}" stroke="#444"/>')
        parts.append(_text(x, y + 18, f"{tick / size:g} {unit}", 11, anchor="middle"))
    for k, (resource, points) in enumerate(sorted(series.items())):
        colour = _COLOURS[k % len(_COLOURS)]
        path = []
        for j, (time, fraction) in enumerate(points):
            x = 80 + time * scale_x
            y = top + plot_height * (1 - fraction)
            path.append(f"M{x:.1f} {y:.1f}" if j == 0 else f"H{x:.1f} V{y:.1f}")
            until = points[j + 1][0] if j + 1 < len(points) else end
            parts.append(
                f'<rect x="{x:.1f}" y="{y - 3:.1f}" width="{max(1.0, (until - time) * scale_x):.1f}" height="6" '
                f'fill="{colour}" fill-opacity="0.15"><title>{escape(f"{resource}: {fraction:.1%} from {time:g} s")}'
                "</title></rect>"
            )
        if points:
            path.append(f"H{80 + end * scale_x:.1f}")
        parts.append(f'<path d="{" ".join(path)}" fill="none" stroke="{colour}" stroke-width="2"/>')
        legend_y = top + plot_height + bottom + 20 * k
        parts.append(f'<rect x="80" y="{legend_y - 10}" width="12" height="12" fill="{colour}"/>')
        parts.append(_text(98, legend_y, resource, 12))
    return "\n".join([*parts, "</svg>", ""])


_STEPS = (0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400)
"""Tick spacings in seconds, each a round number of seconds, minutes, hours or days."""


def time_ticks(end: float, most: int = 8) -> list[float]:
    """Round times from 0 to ``end`` seconds for an axis: at most ``most`` + 1 ticks, a round step apart.

    Examples:
        >>> time_ticks(6000)
        [0, 900, 1800, 2700, 3600, 4500, 5400]
    """
    step: float = next((step for step in _STEPS if end / step <= most), 0)
    if not step:  # beyond days: whole days, in a round number of them
        days = end / 86400 / most
        magnitude = 10 ** max(0, len(str(int(days))) - 1)
        step = 86400 * next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= days)
    count = int(end / step + 1e-9)  # 1 / 0.2 is 4.999...: the tick at 1 s is kept
    return [round(k * step, 6) for k in range(count + 1)]


def axis_unit(ticks: list[float]) -> tuple[str, int]:
    """The one unit an axis's tick labels share: the largest (``d``, ``h``, ``min``, ``s``) every tick is whole in.

    Examples:
        >>> axis_unit([0, 900, 1800])
        ('min', 60)
    """
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if len(ticks) > 1 and all(tick % size == 0 for tick in ticks):
            return unit, size
    return "s", 1


def _head(height: int, title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_WIDTH} {height}" width="100%" '
        f'font-family="sans-serif" role="img" aria-label={quoteattr(title)}>\n'
        f"<title>{escape(title)}</title>\n" + _text(20, 24, title, 16, weight="bold")
    )


def _text(x: float, y: float, text: str, size: int, anchor: str = "start", weight: str = "normal") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
        f'font-weight="{weight}">{escape(text)}</text>'
    )
