"""A player's rating history as a small server-drawn SVG: no script, no library, no CDN.

``rating_graph_svg`` is pure (values in, markup out) so it is tested without a database. The
markup uses presentation attributes and CSS classes only — no ``style=""`` — so the site's
Content-Security-Policy needs no exception for it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from html import escape

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 14, 30  # room for the axis labels


@dataclass(frozen=True, slots=True)
class RatingPoint:
    at: datetime
    rating: float


def _nice_step(span: float) -> float:
    """The smallest round grid step (1, 2 or 5 × 10ⁿ) giving at most six lines over ``span``."""
    magnitude = 1.0
    while True:
        for factor in (1, 2, 5):
            if span / (factor * magnitude) <= 6:
                return factor * magnitude
        magnitude *= 10


def rating_graph_svg(points: Sequence[RatingPoint], *, title: str,
                     format_number: Callable[[int], str] = str) -> str:
    """An SVG line chart of ``points`` (oldest first), or ``""`` when there is nothing to draw.

    ``format_number`` turns an axis number into text (e.g. with Persian digits).
    """
    if not points:
        return ""
    fmt = format_number
    ratings = [p.rating for p in points]
    low, high = min(ratings), max(ratings)
    if high - low < 10:  # a flat history still gets a readable band
        low, high = low - 5, high + 5
    step = _nice_step(high - low)
    low = (low // step) * step
    high = -((-high) // step) * step
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(index: int) -> float:
        return LEFT + (inner_w * index / (len(points) - 1) if len(points) > 1 else inner_w / 2)

    def y(rating: float) -> float:
        return TOP + inner_h * (high - rating) / (high - low)

    parts = [f'<svg class="rating-graph" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
             f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
             f"<title>{escape(title)}</title>"]
    value = low
    while value <= high + step / 2:
        gy = y(value)
        parts.append(f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{gy:.1f}" '
                     f'y2="{gy:.1f}"/>')
        parts.append(f'<text class="axis" x="{LEFT - 6}" y="{gy + 4:.1f}" text-anchor="end">'
                     f"{escape(fmt(int(round(value))))}</text>")
        value += step
    for index in (0, len(points) - 1):
        parts.append(f'<text class="axis" x="{x(index):.1f}" y="{HEIGHT - 8}" '
                     f'text-anchor="{"start" if index == 0 else "end"}">'
                     f"{escape(points[index].at.date().isoformat())}</text>")
    path = " ".join(f"{x(i):.1f},{y(p.rating):.1f}" for i, p in enumerate(points))
    parts.append(f'<polyline class="line" points="{path}" fill="none"/>')
    for i, p in enumerate(points):
        parts.append(f'<circle class="dot" cx="{x(i):.1f}" cy="{y(p.rating):.1f}" r="3">'
                     f"<title>{escape(p.at.date().isoformat())}: {p.rating:.2f}</title></circle>")
    parts.append("</svg>")
    return "".join(parts)
