"""A small inline-SVG line chart: weekly values with their error bars, a baseline, each week's band and marked weeks.

Drawn by hand so the report needs no library, no script and no network: the SVG is text inside the HTML file.
Every label is XML-escaped here, since judge and dimension names come from the warehouse.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

WIDTH, HEIGHT = 360, 210
LEFT, RIGHT, TOP, BOTTOM = 46, 14, 30, 40
INK, GRID, LINE, BAND, ALERT = "#333333", "#e3e3e3", "#1f4e79", "#cfe2f3", "#c0392b"


@dataclass(frozen=True)
class ChartPoint:
    label: str  # the x-axis label ("W45")
    value: float | None
    low: float | None = None  # the error bar (None: no bar)
    high: float | None = None
    marked: bool = False  # drawn in red and labelled "alert"
    # the band this week's value is read against, shaded over its slot alone (None: none this week)
    band_low: float | None = None
    band_high: float | None = None
    band_label: str = ""


@dataclass(frozen=True)
class Band:
    """A dashed line at `centre` across the plot, shaded from `low` to `high` when both are given."""

    centre: float
    low: float | None
    high: float | None
    label: str


def line_chart(points: Sequence[ChartPoint], *, heading: str, y_label: str, band: Band | None = None,
               reference: float | None = 0.0, description: str = "") -> str:
    """The SVG text: `heading` above the plot, `y_label` on the y axis, a dashed line at `reference` (0 by default)."""
    values = [v for p in points for v in (p.value, p.low, p.high, p.band_low, p.band_high) if v is not None]
    if band is not None:
        values += [v for v in (band.centre, band.low, band.high) if v is not None]
    if reference is not None:
        values.append(reference)
    low, high = (min(values), max(values)) if values else (-1.0, 1.0)
    ticks = _nice_ticks(low, high)
    y_min, y_max = ticks[0], ticks[-1]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x_at(i: int) -> float:
        return LEFT + (plot_w * (i + 0.5) / max(len(points), 1))

    def y_at(v: float) -> float:
        return TOP + plot_h * (1 - (v - y_min) / (y_max - y_min))

    parts: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-label="{escape(heading + ". " + description)}" font-family="Helvetica, Arial, sans-serif" '
        f'font-size="11">',
        f"<title>{escape(heading)}</title>",
        f'<text x="{LEFT}" y="16" font-size="12" font-weight="bold" fill="{INK}">{escape(heading)}</text>',
    ]
    for tick in ticks:
        y = y_at(tick)
        parts.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" stroke="{GRID}"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" fill="{INK}">{_tick_label(tick)}</text>')
    slot = plot_w / max(len(points), 1)
    for i, point in enumerate(points):
        if point.band_low is not None and point.band_high is not None:
            top, bottom = y_at(point.band_high), y_at(point.band_low)
            parts.append(f'<rect x="{x_at(i) - slot / 2:.1f}" y="{top:.1f}" width="{slot:.1f}" '
                         f'height="{max(bottom - top, 1):.1f}" fill="{BAND}" opacity="0.8">'
                         f"<title>{escape(point.band_label)}</title></rect>")
    if band is not None:
        if band.low is not None and band.high is not None:
            top, bottom = y_at(band.high), y_at(band.low)
            parts.append(f'<rect x="{LEFT}" y="{top:.1f}" width="{plot_w}" height="{max(bottom - top, 1):.1f}" '
                         f'fill="{BAND}" opacity="0.8"><title>{escape(band.label)}</title></rect>')
        centre = y_at(band.centre)
        parts.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{centre:.1f}" y2="{centre:.1f}" '
                     f'stroke="{LINE}" stroke-dasharray="5 3" stroke-width="1"/>')
    if reference is not None and y_min <= reference <= y_max:
        y = y_at(reference)
        parts.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" stroke="{INK}" '
                     f'stroke-width="1"/>')
    parts.append(f'<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{TOP + plot_h}" stroke="{INK}"/>')
    path = [(x_at(i), y_at(p.value)) for i, p in enumerate(points) if p.value is not None]
    if len(path) > 1:
        d = " ".join(f"{'M' if k == 0 else 'L'}{x:.1f},{y:.1f}" for k, (x, y) in enumerate(path))
        parts.append(f'<path d="{d}" fill="none" stroke="{LINE}" stroke-width="1.5"/>')
    for i, point in enumerate(points):
        x = x_at(i)
        parts.append(f'<text x="{x:.1f}" y="{TOP + plot_h + 14}" text-anchor="middle" fill="{INK}">'
                     f"{escape(point.label)}</text>")
        if point.value is None:
            continue
        colour = ALERT if point.marked else LINE
        if point.low is not None and point.high is not None:
            parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{y_at(point.high):.1f}" y2="{y_at(point.low):.1f}" '
                         f'stroke="{colour}" stroke-width="1.2"/>')
        y = y_at(point.value)
        radius = 4.5 if point.marked else 3
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{radius}" fill="{colour}">'
                     f"<title>{escape(point.label)}: {point.value:+.2f}</title></circle>")
        if point.marked:
            above = y_at(point.high) if point.high is not None else y
            parts.append(f'<text x="{x:.1f}" y="{max(above - 6, TOP - 2):.1f}" text-anchor="middle" fill="{ALERT}" '
                         f'font-weight="bold">alert</text>')
    parts.append(f'<text x="12" y="{TOP + plot_h / 2:.1f}" text-anchor="middle" fill="{INK}" '
                 f'transform="rotate(-90 12 {TOP + plot_h / 2:.1f})">{escape(y_label)}</text>')
    parts.append(f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 6}" text-anchor="middle" fill="{INK}">'
                 "ISO week</text>")
    parts.append("</svg>")
    return "".join(parts)


def _nice_ticks(low: float, high: float, target: int = 5) -> list[float]:
    """Round tick values covering [low, high]: steps of 1, 2, 2.5 or 5 times a power of ten."""
    if math.isclose(low, high):
        low, high = low - 0.5, high + 0.5
    raw = (high - low) / target
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.floor(low / step) * step
    last = math.ceil(high / step) * step
    n = int(round((last - first) / step))
    return [round(first + i * step, 10) for i in range(n + 1)]


def _tick_label(value: float) -> str:
    text = f"{value:+.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("+0", "-0") else text
