"""The projector's text is readable across a room: every colour the projector's styles give
text has a contrast of at least 4.5:1 (WCAG 2 AA) on every background it can sit on, computed
from the colours in ``static/css/tournament.css``."""

from __future__ import annotations

import re
from pathlib import Path

CSS = Path(__file__).resolve().parents[2] / "static" / "css" / "tournament.css"
RULE = re.compile(r"([^{}]+)\{([^}]*)\}")


def luminance(hex_colour: str) -> float:
    digits = hex_colour.lstrip("#")
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    channels = [int(digits[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, other: str) -> float:
    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def projector_rules() -> list[tuple[str, dict[str, str]]]:
    text = re.sub(r"/\*.*?\*/", "", CSS.read_text(), flags=re.S)
    text = text.split("@page")[0]  # print styles are not the projector's
    rules = []
    for selectors, body in RULE.findall(text):
        declarations = dict(
            (name.strip(), value.strip()) for name, _, value in
            (part.partition(":") for part in body.split(";") if ":" in part))
        for selector in selectors.split(","):
            if selector.strip().startswith("body.projector"):
                rules.append((selector.strip(), declarations))
    return rules


def backgrounds(rules: list[tuple[str, dict[str, str]]], selector: str) -> list[str]:
    """The page's background, and a match box's (plain and winner) for text inside one."""
    found = {s: d.get("background") for s, d in rules}
    colours = [found["body.projector"] or ""]
    if ".pairing" in selector or ".seed" in selector:
        colours += [found["body.projector .pairing"] or "",
                    found["body.projector .pairing .side.winner"] or ""]
    return colours


def test_every_projector_text_colour_is_at_least_4_5_to_1() -> None:
    rules = projector_rules()
    coloured = [(s, d["color"]) for s, d in rules if "color" in d]
    assert len(coloured) >= 6, coloured
    failures = []
    for selector, colour in coloured:
        assert re.fullmatch(r"#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}", colour), (selector, colour)
        for background in backgrounds(rules, selector):
            ratio = contrast(colour, background)
            if ratio < 4.5:
                failures.append(f"{selector}: {colour} on {background} is {ratio:.2f}:1")
    assert not failures, failures


def test_the_table_numbers_are_bright_on_the_projector() -> None:
    rules = dict(projector_rules())
    colour = rules["body.projector .pairing .board-number"]["color"]
    assert contrast(colour, rules["body.projector .pairing"]["background"]) >= 7


def test_no_projector_text_is_faded_by_opacity() -> None:
    for selector, declarations in projector_rules():
        if "opacity" in declarations:
            assert float(declarations["opacity"]) == 1, selector


def test_the_contrast_formula_matches_known_pairs() -> None:
    assert round(contrast("#000", "#fff"), 1) == 21.0
    assert round(contrast("#333", "#222"), 2) < 1.5  # the old table numbers: unreadable
    assert 4.4 < contrast("#767676", "#fff") < 4.6
