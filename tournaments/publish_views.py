"""Publishing an event: the public results page, standings and results as CSV, and every
match file in one zip. Anyone may read them, during the event and for good after it."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from tournaments import publishing, selectors, treasury
from tournaments.models import Tournament
from tournaments.permissions import can_see_money


def _visible(request: HttpRequest, pk: int) -> Tournament:
    return get_object_or_404(selectors.visible_tournaments(request.user), pk=pk)


def _download(body: str | bytes, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_GET
def results_page(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _visible(request, pk)
    return render(request, "tournaments/results.html", {
        "tournament": tournament,
        "bracket": selectors.bracket(tournament) if tournament.has_started else None,
        "standings": selectors.standings(tournament),
        "placings": selectors.placings(tournament),
        "divisions": [selectors.division_dict(d)
                      for d in tournament.divisions.order_by("division_order", "pk")],
    })


@require_GET
def standings_csv(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _visible(request, pk)
    return _download(publishing.standings_csv(tournament), "text/csv; charset=utf-8",
                     publishing.archive_name(tournament, "standings.csv"))


@require_GET
def results_csv(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _visible(request, pk)
    return _download(publishing.results_csv(tournament), "text/csv; charset=utf-8",
                     publishing.archive_name(tournament, "results.csv"))


@require_GET
def match_files(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _visible(request, pk)
    return _download(publishing.mat_archive(tournament), "application/zip",
                     publishing.archive_name(tournament, "matches.zip"))


@require_GET
def treasurer_csv(request: HttpRequest, pk: int) -> HttpResponse:
    """The treasurer's sheet (staff only): who paid, who owes, who is paid what."""
    tournament = _visible(request, pk)
    if not can_see_money(request.user, tournament):
        raise PermissionDenied
    return _download(treasury.treasurer_csv(tournament), "text/csv; charset=utf-8",
                     publishing.archive_name(tournament, "treasurer.csv"))
