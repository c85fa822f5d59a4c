"""Ladder and league pages: the lists, one ladder with its order, challenges and history,
and the players' answers. Every change goes through :mod:`seasons.services`."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from matches.errors import ServiceError
from matches.players.accounts import player_for_user
from seasons import selectors, services
from seasons.forms import EnrolForm, LadderForm, LeagueForm, WithdrawForm
from seasons.models import Ladder, LadderChallenge, League
from seasons.services.ladder import may_direct
from seasons.services.tables import template_clock_fields
from seasons.view_helpers import add_bots, create_page, director_page, perform, perform_form

T = TypeVar("T")


@require_GET
def ladder_list(request: HttpRequest) -> HttpResponse:
    return render(request, "seasons/ladder_list.html", {
        "ladders": selectors.ladder_rows(),
        "may_create": request.user.has_perm("seasons.add_ladder")})


@permission_required("seasons.add_ladder")
def ladder_new(request: HttpRequest) -> HttpResponse:
    return create_page(request, LadderForm, "seasons/ladder_new.html",
                       lambda data: _create_with_clock(services.ladder_create, request, data),
                       lambda ladder: reverse("ladders:ladder", args=[ladder.pk]))


def _create_with_clock(create: Callable[..., T], request: HttpRequest,
                       data: dict[str, Any]) -> T:
    """A ladder's or a league's form gives a clock preset and days per move; its service
    takes the template's clock fields those make, beside the form's other settings."""
    settings = dict(data)
    clock, days = settings.pop("clock"), settings.pop("days")
    return create(creator=player_for_user(request.user), **settings,
                  **template_clock_fields(clock, days))


@require_GET
def ladder_detail(request: HttpRequest, pk: int) -> HttpResponse:
    ladder = get_object_or_404(Ladder, pk=pk)
    return director_page(request, "seasons/ladder.html",
                         selectors.ladder_context(ladder, request.user),
                         lambda player: may_direct(ladder, player))


@login_required
@require_POST
def ladder_add_bots(request: HttpRequest, pk: int) -> HttpResponse:
    """The director's form: put gnubg bots of a strength on the ladder."""
    ladder = get_object_or_404(Ladder, pk=pk)
    add_bots(request, partial(services.ladder_add_bots, ladder_id=ladder.pk),
             _("%(count)s bots joined the ladder, at the bottom."))
    return _back(ladder.pk)


@require_GET
def ladder_live(request: HttpRequest, pk: int) -> HttpResponse:
    """The live part the page refetches when the socket says the ladder changed."""
    ladder = get_object_or_404(Ladder, pk=pk)
    return render(request, "seasons/_ladder_live.html",
                  selectors.ladder_context(ladder, request.user))


def _back(ladder_id: int) -> HttpResponse:
    return redirect(reverse("ladders:ladder", args=[ladder_id]))


@login_required
@require_POST
def ladder_join(request: HttpRequest, pk: int) -> HttpResponse:
    ladder = get_object_or_404(Ladder, pk=pk)
    perform(request, lambda: services.ladder_join(ladder_id=ladder.pk,
                                                  player=player_for_user(request.user)),
            lambda _entry: _("You are on the ladder, at the bottom."))
    return _back(ladder.pk)


@login_required
@require_POST
def ladder_leave(request: HttpRequest, pk: int) -> HttpResponse:
    ladder = get_object_or_404(Ladder, pk=pk)
    perform(request, lambda: services.ladder_leave(ladder_id=ladder.pk,
                                                   player=player_for_user(request.user)),
            lambda _none: _("You left the ladder."))
    return _back(ladder.pk)


@login_required
@require_POST
def ladder_challenge(request: HttpRequest, pk: int) -> HttpResponse:
    ladder = get_object_or_404(Ladder, pk=pk)
    try:
        defender = int(request.POST.get("defender", ""))
    except ValueError:
        messages.error(request, _("Choose a player to challenge."))
        return _back(ladder.pk)
    try:
        challenge = services.ladder_challenge(
            ladder_id=ladder.pk, challenger=player_for_user(request.user), defender_id=defender)
    except ServiceError as error:
        messages.error(request, error.detail)
    else:
        if challenge.match is not None:  # a bot accepts at once: to the table
            return redirect(reverse("table", args=[challenge.match.table_id]))
        messages.success(request, _("Challenge sent: the defender has %(days)s days to accept.")
                         % {"days": ladder.accept_days})
    return _back(ladder.pk)


@login_required
@require_POST
def challenge_answer(request: HttpRequest, pk: int, answer: str) -> HttpResponse:
    challenge = get_object_or_404(LadderChallenge, pk=pk)
    player = player_for_user(request.user)
    try:
        if answer == "accept":
            accepted = services.ladder_accept(challenge_id=challenge.pk, player=player)
        else:
            services.ladder_decline(challenge_id=challenge.pk, player=player)
    except ServiceError as error:
        messages.error(request, error.detail)
        return _back(challenge.ladder_id)
    if answer == "accept" and accepted.match is not None:
        return redirect(reverse("table", args=[accepted.match.table_id]))
    messages.success(request, _("Declined: the challenger takes your place by forfeit."))
    return _back(challenge.ladder_id)


# -- leagues: who may create one directs it (the permission arenas and ladders ask) --------

LEAGUE_PERMISSION = "seasons.add_league"


@require_GET
def league_list(request: HttpRequest) -> HttpResponse:
    return render(request, "seasons/league_list.html", {
        "leagues": selectors.league_rows(),
        "may_create": request.user.has_perm(LEAGUE_PERMISSION)})


@permission_required(LEAGUE_PERMISSION)
def league_new(request: HttpRequest) -> HttpResponse:
    return create_page(request, LeagueForm, "seasons/league_new.html",
                       lambda data: _create_with_clock(services.league_create, request, data),
                       lambda league: reverse("leagues:league", args=[league.pk]),
                       created=_("The league is created: enrol its players."))


@require_GET
def league_detail(request: HttpRequest, pk: int) -> HttpResponse:
    league = get_object_or_404(League, pk=pk)
    may_direct = request.user.has_perm(LEAGUE_PERMISSION)
    return render(request, "seasons/league.html", {
        **selectors.league_context(league, request.user), "may_direct": may_direct,
        "enrol_form": EnrolForm(prefix="enrol") if may_direct else None,
        "withdraw_form": WithdrawForm(prefix="withdraw") if may_direct else None})


def _to_league(league_id: int) -> HttpResponse:
    return redirect(reverse("leagues:league", args=[league_id]))


@permission_required(LEAGUE_PERMISSION)
@require_POST
def league_enrol(request: HttpRequest, pk: int) -> HttpResponse:
    league = get_object_or_404(League, pk=pk)
    perform_form(request, EnrolForm(request.POST, prefix="enrol"),
                 lambda form: services.league_enrol(league_id=league.pk, usernames=form.names()),
                 lambda players: ngettext("%(count)s player enrolled.",
                                          "%(count)s players enrolled.", len(players))
                 % {"count": len(players)},
                 invalid=_("Give the user names of the players to enrol."))
    return _to_league(league.pk)


@permission_required(LEAGUE_PERMISSION)
@require_POST
def league_withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    league = get_object_or_404(League, pk=pk)
    perform_form(request, WithdrawForm(request.POST, prefix="withdraw"),
                 lambda form: services.league_withdraw(league_id=league.pk,
                                                       usernames=form.names()),
                 lambda players: ngettext(
                     "%(count)s player withdrawn: out of the next season.",
                     "%(count)s players withdrawn: out of the next season.", len(players))
                 % {"count": len(players)},
                 invalid=_("Give the user names of the players to withdraw."))
    return _to_league(league.pk)


@permission_required(LEAGUE_PERMISSION)
@require_POST
def league_start(request: HttpRequest, pk: int) -> HttpResponse:
    """Start the first season, or close the last one (promotion and relegation) and start
    the next."""
    league = get_object_or_404(League, pk=pk)
    perform(request, lambda: services.league_start_season(league_id=league.pk,
                                                          actor=request.user),
            lambda season: _("Season %(number)s has started.") % {"number": season.number})
    return _to_league(league.pk)
