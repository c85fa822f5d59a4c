"""Pages for running the room: the printable draw sheet, score cards for over-the-board
pairings, and the projector. Reads only; public like the event page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from tournaments import publishing, selectors
from tournaments.models import PairingStatus, Tournament

# A score card has a line per game up to this many (a long match goes on the back).
MAX_CARD_GAMES = 9


def _visible(request: HttpRequest, pk: int) -> Tournament:
    return get_object_or_404(selectors.visible_tournaments(request.user), pk=pk)


def _sheet_context(tournament: Tournament) -> dict[str, object]:
    return {
        "tournament": tournament,
        "bracket": selectors.bracket(tournament) if tournament.has_started else None,
        "standings": selectors.standings(tournament),
        "placings": selectors.placings(tournament),
    }


@require_GET
def draw_sheet(request: HttpRequest, pk: int) -> HttpResponse:
    """Every bracket and the standings, laid out for A4 landscape (``static/css/
    tournament.css``, ``@media print``)."""
    tournament = _visible(request, pk)
    return render(request, "tournaments/draw_sheet.html", _sheet_context(tournament))


@require_GET
def score_cards(request: HttpRequest, pk: int) -> HttpResponse:
    """A score card for each pairing being played (``?round=N`` for one round), in table
    number order: four to an A4 landscape page."""
    tournament = _visible(request, pk)
    rows = tournament.pairings.filter(status=PairingStatus.PAIRED).select_related(
        "round", "entry_a__player", "entry_b__player")
    number = request.GET.get("round", "")
    if number.isdigit():
        rows = rows.filter(round__number=int(number))
    titles = publishing.round_titles(tournament)
    cards = [
        {
            "row": row,
            "round_title": titles.get((row.round.bracket, row.round.number), row.slot),
            "games": range(1, min(2 * row.round.match_length - 1, MAX_CARD_GAMES) + 1),
        }
        for row in sorted(rows, key=lambda r: (r.board_number is None, r.board_number or 0,
                                               r.order))
    ]
    return render(request, "tournaments/score_cards.html",
                  {"tournament": tournament, "cards": cards})


@require_GET
def projector(request: HttpRequest, pk: int) -> HttpResponse:
    """Full screen for the room: each bracket and the standings in turn, scaled to the
    screen, every ``?seconds=`` (default 15), live. ``?fragment=1``: the slides alone."""
    tournament = _visible(request, pk)
    seconds = request.GET.get("seconds", "")
    context = {**_sheet_context(tournament),
               "seconds": int(seconds) if seconds.isdigit() else 15}
    template = ("tournaments/_projector_slides.html" if request.GET.get("fragment")
                else "tournaments/projector.html")
    return render(request, template, context)
