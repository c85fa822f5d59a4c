"""Tournament pages: the list, a tournament's page (bracket or standings, live), and the
buttons players press (register, withdraw, check in, report and confirm a result).

Thin callers of :mod:`tournaments.services`; a refused request becomes a message on the page.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from matches.errors import ServiceError
from matches.models import Player
from matches.services import player_for_user
from tournaments import selectors, services, treasury
from tournaments.models import Pairing, Tournament, TournamentStatus
from tournaments.permissions import can_see_money


def _visible(request: HttpRequest, pk: int) -> Tournament:
    return get_object_or_404(selectors.visible_tournaments(request.user), pk=pk)


def _viewer(request: HttpRequest) -> Player | None:
    if not request.user.is_authenticated:
        return None
    return Player.objects.filter(user=request.user).first()


def live_context(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    """What the live part of the page shows; the same for the first render and refetches."""
    viewer = _viewer(request)
    entry = selectors.entry_of(tournament, viewer)
    divisions = [selectors.division_dict(d)
                 for d in tournament.divisions.order_by("division_order", "pk")]
    my_division = selectors.division_of_player(tournament, viewer) if divisions else None
    if my_division is not None:
        entry = selectors.entry_of(my_division, viewer)
    my_pairings = list(selectors.open_pairings_of(tournament, viewer)) if viewer else []
    live = selectors.live_matches(tournament) if my_pairings else {}
    return {
        "tournament": tournament,
        "bracket": selectors.bracket(tournament) if tournament.has_started else None,
        "standings": selectors.standings(tournament),
        "placings": selectors.placings(tournament),
        "divisions": divisions,
        "my_division": my_division,
        "event": tournament.event,
        "eligibility": selectors.eligibility_text(tournament) if tournament.event_id else "",
        "money": treasury.money_summary(tournament)
        if can_see_money(request.user, tournament) else None,
        "entries": [selectors.entry_dict(e) for e in selectors.entries_of(tournament)],
        "my_entry": entry,
        "my_pairings": [
            {"row": row, "info": selectors.pairing_dict(row, live),
             "i_reported": row.reported_by_id == request.user.pk,
             "opponent_reported": row.has_report and row.reported_by_id != request.user.pk}
            for row in my_pairings
        ],
        "is_referee": selectors.is_referee(request.user, tournament),
        "statuses": TournamentStatus,
    }


@require_GET
def tournament_list(request: HttpRequest) -> HttpResponse:
    tournaments = selectors.visible_tournaments(request.user)
    return render(request, "tournaments/list.html", {"tournaments": tournaments})


@require_GET
def rules_for_directors(request: HttpRequest) -> HttpResponse:
    """The forfeit, withdrawal, no-show, late-arrival and referee rules (``docs/
    tournaments.md`` says the same)."""
    return render(request, "tournaments/rules.html")


@require_GET
def tournament_detail(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _visible(request, pk)
    return render(request, "tournaments/detail.html", live_context(request, tournament))


@require_GET
def tournament_live(request: HttpRequest, pk: int) -> HttpResponse:
    """The live fragment the page refetches when the socket says something changed."""
    tournament = _visible(request, pk)
    return render(request, "tournaments/_live.html", live_context(request, tournament))


def _back(tournament: Tournament) -> HttpResponseRedirect:
    return redirect(reverse("tournaments:detail", args=[tournament.pk]))


def _run(request: HttpRequest, tournament: Tournament, done: str, call: Any) -> HttpResponse:
    try:
        call()
    except ServiceError as error:
        messages.error(request, error.detail)
    else:
        messages.success(request, done)
    return _back(tournament)


@login_required
@require_POST
def register(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _visible(request, pk)
    return _run(request, tournament, _("You are registered."), lambda: services.entry_register(
        tournament_id=tournament.pk, player=player_for_user(request.user)))


@login_required
@require_POST
def withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _visible(request, pk)
    return _run(request, tournament, _("You have withdrawn."), lambda: services.player_withdraw(
        tournament_id=tournament.pk, player=player_for_user(request.user)))


@login_required
@require_POST
def check_in(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _visible(request, pk)
    return _run(request, tournament, _("You are checked in."), lambda: services.entry_check_in(
        tournament_id=tournament.pk, player=player_for_user(request.user)))


def _int_or_none(value: str | None) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except ValueError:
        return None


@login_required
@require_POST
def report(request: HttpRequest, pk: int, pairing_id: int) -> HttpResponse:
    tournament = _visible(request, pk)
    get_object_or_404(Pairing, pk=pairing_id, tournament=tournament)
    return _run(request, tournament, _("Result reported: your opponent confirms it."),
                lambda: services.pairing_report(
                    pairing_id=pairing_id, user=request.user,
                    winner_entry_id=_int_or_none(request.POST.get("winner")) or 0,
                    winner_points=_int_or_none(request.POST.get("winner_points")),
                    loser_points=_int_or_none(request.POST.get("loser_points"))))


@login_required
@require_POST
def confirm(request: HttpRequest, pk: int, pairing_id: int) -> HttpResponse:
    tournament = _visible(request, pk)
    get_object_or_404(Pairing, pk=pairing_id, tournament=tournament)
    if request.POST.get("reject"):
        return _run(request, tournament, _("Report rejected."), lambda: services.
                    pairing_reject_report(pairing_id=pairing_id, user=request.user,
                                          reason=request.POST.get("reason", "")))
    return _run(request, tournament, _("Result confirmed."), lambda: services.pairing_confirm(
        pairing_id=pairing_id, user=request.user))
