"""Printing for the room, checked with Chromium's own print to PDF: the draw sheet of a
64-player double elimination fits A4 landscape pages with nothing cut off, and so do the
score cards; the projector scales each bracket to the screen."""

from __future__ import annotations

import io
import re
import unicodedata
from typing import Any

import pytest
from django.contrib.auth.models import User

from matches.services import player_for_user
from tests.e2e.servers import WebServer
from tournaments import services
from tournaments.models import Tournament

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

A4_LANDSCAPE_PT = (841.89, 595.28)


def event(players: int, **fields: Any) -> Tournament:
    director = User.objects.create_superuser("director", password="x")
    tournament = Tournament.objects.create(name="Club championship 2026", director=director,
                                           seeding="rating", is_rated=False, **fields)
    services.tournament_open_registration(tournament_id=tournament.pk, actor=director)
    for number in range(1, players + 1):
        user = User.objects.create_user(f"p{number}")
        player = player_for_user(user)
        # The longest names a player can have: they must wrap, not overflow.
        player.display_name = f"Alexandrina Konstantinopoulou-{number:02d}"[:40]
        player.rating = 2000 - number
        player.save()
        services.entry_register(tournament_id=tournament.pk, player=player)
    services.tournament_start(tournament_id=tournament.pk, actor=director)
    return tournament


OVERFLOW_SCRIPT = """() => {
    const width = document.documentElement.clientWidth;
    const bad = [];
    const boxes = '.bracket, .round, .pairing, .side, .card, table';
    for (const el of document.querySelectorAll(boxes)) {
        const rect = el.getBoundingClientRect();
        if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1
            || rect.right > width + 1 || rect.left < -1)
            bad.push(`${el.className} ${el.dataset.slot || ''} `
                     + `${Math.round(rect.left)}..${Math.round(rect.right)} of ${width}`);
    }
    const page = document.documentElement.scrollWidth;
    if (page > width + 1) bad.push('page ' + page);
    return bad;
}"""


def overflowing(page: Any) -> list[str]:
    """Elements whose content is wider (or taller) than their box, or that reach past the
    page."""
    return page.evaluate(OVERFLOW_SCRIPT)


def pdf_pages(pdf: bytes) -> tuple[list[tuple[float, float]], str]:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf))
    sizes = [(float(p.mediabox.width), float(p.mediabox.height)) for p in reader.pages]
    text = "\n".join(page.extract_text() for page in reader.pages)
    return sizes, unicodedata.normalize("NFKC", text)  # the "fi" ligature back to two letters


def print_page(browser: Any, url: str, artifacts: Any, name: str) -> tuple[bytes, list[str]]:
    # The CSS page box of A4 landscape with 8 mm margins is 281 mm wide: 1062 CSS px.
    page = browser.new_page(viewport={"width": 1062, "height": 733})
    try:
        page.goto(url)
        page.emulate_media(media="print")
        problems = overflowing(page)
        page.screenshot(path=str(artifacts / f"{name}.png"), full_page=True)
        pdf = page.pdf(prefer_css_page_size=True, print_background=True)
        (artifacts / f"{name}.pdf").write_bytes(pdf)
        return pdf, problems
    finally:
        page.close()


def test_a_64_player_double_elimination_draw_sheet_fits_a4_landscape(
    live_server_process: WebServer, browser: Any, artifacts: Any
) -> None:
    tournament = event(64, format="double_elimination", match_lengths=[3, 5, 7])
    slots = set(tournament.pairings.values_list("slot", flat=True))
    assert len(slots) == 63 + 62 + 2  # winners', losers', grand final and its reset
    pdf, problems = print_page(browser, f"{live_server_process.url}/tournaments/{tournament.pk}"
                               "/draw-sheet/", artifacts, "draw-sheet-64-double-elimination")
    assert problems == []
    sizes, text = pdf_pages(pdf)
    assert sizes and all(abs(w - A4_LANDSCAPE_PT[0]) < 1 and abs(h - A4_LANDSCAPE_PT[1]) < 1
                         for w, h in sizes), sizes
    # Every match box made it onto paper: its slot is in the PDF's text.
    printed = set(re.findall(r"\b(?:[WL]\d+-\d+|GF2?)\b", text))
    assert slots <= printed, sorted(slots - printed)[:10]
    # ...and so did every player's whole name (the 64 first-round names, wrapped or not).
    flat = re.sub(r"\s+", "", text)
    for number in range(1, 65):
        assert f"Konstantinopoulou-{number:02d}" in flat
    assert "Losers' bracket" in text and "Grand final" in text


def test_score_cards_print_four_to_an_a4_landscape_page(
    live_server_process: WebServer, browser: Any, artifacts: Any
) -> None:
    tournament = event(16, format="swiss", format_options={"rounds": 4}, over_the_board=True,
                       match_lengths=[7])
    rows = list(tournament.pairings.filter(round__number=1).order_by("order"))
    assert len(rows) == 8
    pdf, problems = print_page(browser, f"{live_server_process.url}/tournaments/{tournament.pk}"
                               "/score-cards/", artifacts, "score-cards-16-swiss")
    assert problems == []
    sizes, text = pdf_pages(pdf)
    assert len(sizes) == 2  # eight cards, four a page
    assert all(abs(w - A4_LANDSCAPE_PT[0]) < 1 for w, _ in sizes)
    for row in rows:
        assert row.slot in text


def test_projector_scales_the_widest_bracket_to_the_screen(
    live_server_process: WebServer, browser: Any, artifacts: Any
) -> None:
    tournament = event(16, format="double_elimination")
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(f"{live_server_process.url}/tournaments/{tournament.pk}/projector/?seconds=3")
        slide = page.locator(".slide.current")
        assert slide.get_attribute("data-slide") == "winners"
        for _ in range(4):  # winners', losers', grand final, standings, then round again
            box = slide.bounding_box()
            assert box is not None
            assert box["x"] >= -1 and box["y"] >= -1
            assert box["x"] + box["width"] <= 1921 and box["y"] + box["height"] <= 1081
            current = slide.get_attribute("data-slide")
            page.screenshot(path=str(artifacts / f"projector-{current}.png"))
            page.wait_for_function(
                "(name) => document.querySelector('.slide.current').dataset.slide !== name",
                arg=current, timeout=6000)
        shown = page.evaluate(
            "Array.from(document.querySelectorAll('.slide')).map(s => s.dataset.slide)")
        assert shown == ["winners", "losers", "final", "standings"]
    finally:
        page.close()
