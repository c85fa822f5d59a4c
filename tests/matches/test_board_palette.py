"""The board's colours, computed from its style sheet: points that differ by lightness, not
only by hue, and checkers and move rings that stand out from every point (WCAG 2 contrast,
at least 3:1, as WCAG asks of graphical objects)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CSS = Path(__file__).resolve().parents[2] / "static" / "css" / "board.css"
MINIMUM = 3.0


def _rules(text: str) -> dict[str, dict[str, str]]:
    """Every ``selector { property: value; ... }`` block (comments dropped), by selector."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    rules: dict[str, dict[str, str]] = {}
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", text):
        declarations = {}
        for declaration in body.split(";"):
            name, _, value = declaration.partition(":")
            if value:
                declarations[name.strip()] = value.strip()
        for selector in selectors.split(","):
            rules.setdefault(" ".join(selector.split()), {}).update(declarations)
    return rules


RULES = _rules(CSS.read_text())


def colour(selector: str, prop: str) -> str:
    """The colour ``prop`` of ``selector``, with ``var(--x)`` resolved from ``:root``."""
    value = RULES[selector][prop]
    while (match := re.fullmatch(r"var\((--[\w-]+)\)", value)) is not None:
        value = RULES[":root"][match.group(1)]
    assert re.fullmatch(r"#[0-9a-fA-F]{6}", value), f"{selector} {prop}: {value} is not #rrggbb"
    return value


def luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


POINTS = {"light points": colour("#board .point.odd", "fill"),
          "dark points": colour("#board .point.even", "fill")}
CHECKERS = {seat: (colour(f"#board .checker.seat{seat}", "fill"),
                   colour(f"#board .checker.seat{seat}", "stroke")) for seat in (0, 1)}


def test_the_contrast_formula() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#777777") == pytest.approx(1.0)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)


def test_the_two_point_colours_differ_by_lightness() -> None:
    assert contrast(*POINTS.values()) >= MINIMUM


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("point", list(POINTS))
def test_each_checker_stands_out_from_each_point(seat: int, point: str) -> None:
    """By its fill or by its rim (the rim is its edge: WCAG's "visual boundary")."""
    fill, rim = CHECKERS[seat]
    assert max(contrast(fill, POINTS[point]), contrast(rim, POINTS[point])) >= MINIMUM


def test_the_two_sides_checkers_differ_by_lightness() -> None:
    assert contrast(CHECKERS[0][0], CHECKERS[1][0]) >= MINIMUM


@pytest.mark.parametrize("point", list(POINTS))
def test_the_move_rings_and_targets_show_on_every_point(point: str) -> None:
    assert contrast(colour("#board .movable", "stroke"), POINTS[point]) >= MINIMUM
    assert contrast(colour("#board .target", "stroke"), POINTS[point]) >= MINIMUM
    assert contrast(colour("#board .hit:focus-visible", "stroke"), POINTS[point]) >= MINIMUM
