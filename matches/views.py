"""Pages of live play: the lobby, a table's board, sign-up and a player's page.

Thin callers of :mod:`matches.services`; the board itself lives in ``static/board.js`` and
talks to :mod:`matches.live.consumers` over a WebSocket.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from django_ratelimit import ALL
from django_ratelimit.core import get_usage

from matches import access, services
from matches.errors import ServiceError
from matches.forms import MatchHistoryForm, SignUpForm, TableForm
from matches.gnubg.board import hints_offered
from matches.gnubg.board_views import analysis_strings
from matches.models import Match, MatchStatus, Player, Table
from matches.players import profiles
from matches.players.history import HistoryPage, Outcome, PageOutOfRange, history_page, link_maker
from matches.players.rating_graph import rating_graph_svg
from matches.review import can_review, review_data
from matches.selectors import lobby_tables, table_state, waiting_for
from matches.services import correspondence, vacation
from matches.services.correspondence import active_vacation
from matches.services.follows import follow, unfollow
from matches.services.rematch import rematch_refusal
from matches.ui_strings import board_strings, lobby_strings, review_strings
from tavla.engine.clock import SECONDS_PER_DAY


def _viewer(request: HttpRequest) -> Player | None:
    if request.user.is_authenticated:
        return services.player_for_user(request.user)
    return None


def lobby(request: HttpRequest) -> HttpResponse:
    """Open tables (kept up to date over ``/ws/lobby/``) and a form for a new table."""
    form = TableForm(initial={"name": _("%(name)s's table") % {
        "name": request.user.get_username()}}) if request.user.is_authenticated else None
    return render(request, "matches/lobby.html", {
        "form": form, "tables": lobby_tables(), "strings": lobby_strings(),
    })


@login_required
@require_POST
def table_new(request: HttpRequest) -> HttpResponse:
    """Create a table with the form's options and sit its creator down at it."""
    form = TableForm(request.POST)
    if not form.is_valid():
        return render(request, "matches/lobby.html", {
            "form": form, "tables": lobby_tables(), "strings": lobby_strings(),
        }, status=400)
    player = services.player_for_user(request.user)
    try:
        table = services.table_create(name=form.cleaned_data["name"], creator=player,
                                      reserve_for=form.cleaned_data["reserve_for"],
                                      **form.table_options())
        services.table_sit(table_id=table.pk, player=player)
    except ServiceError as error:
        form.add_error(None, error.detail)
        return render(request, "matches/lobby.html", {
            "form": form, "tables": lobby_tables(), "strings": lobby_strings(),
        }, status=400)
    return redirect("table", table_id=table.pk)


def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    """The board. The page carries the current state, so a reload shows it at once."""
    table = get_object_or_404(Table, pk=table_id)
    invite = request.GET.get("invite")
    if access.invite_is_valid(table, invite):
        # Keep the token in the session, and out of the address bar and the history.
        assert invite is not None
        access.remember_invite(request.session, table_id, invite)
        return redirect("table", table_id=table_id)
    invite = access.session_invite(request.session, table_id)
    try:
        viewer, _seated = access.board_access(table_id, request.user, invite)
    except ServiceError:
        raise Http404(_("This table is private.")) from None
    invitation = None
    if (not table.is_public and viewer is not None and table.created_by_id == viewer.pk
            and table.invite_token):
        invitation = request.build_absolute_uri(
            f"{reverse('table', args=[table_id])}?invite={table.invite_token}")
    return render(request, "matches/table.html", {
        "table_id": table_id,
        "state": table_state(table_id, viewer),
        "strings": board_strings(),
        "viewer": viewer,
        "invitation": invitation,
        "rematch": rematch_refusal(table) is None,
        "hint_match": hints_offered(table, viewer),
        "hint_strings": analysis_strings(),
    })


def match_review(request: HttpRequest, match_id: int) -> HttpResponse:
    """A finished match on the board, step by step, with its move list, ``.mat`` and dice
    audit; a match still being played opens its table instead."""
    match = get_object_or_404(Match.objects.select_related("player0", "player1", "table"),
                              pk=match_id)
    if not can_review(match, _viewer(request), staff=request.user.is_staff,
                      invite=access.session_invite(request.session, match.table_id)):
        raise Http404(_("This match was played at a private table."))
    if match.status == MatchStatus.PLAYING:
        return redirect("table", table_id=match.table_id)
    return render(request, "matches/review.html", {
        "match": match,
        "review": review_data(match),
        "strings": board_strings() | review_strings(),
    })


@login_required
@require_POST
def table_sit(request: HttpRequest, table_id: int) -> HttpResponse:
    get_object_or_404(Table, pk=table_id)
    seat = request.POST.get("seat")
    try:
        services.table_sit(table_id=table_id, player=services.player_for_user(request.user),
                           seat=int(seat) if seat in ("0", "1") else None,
                           invite=access.session_invite(request.session, table_id))
    except ServiceError as error:
        messages.error(request, error.detail)
    return redirect("table", table_id=table_id)


@login_required
@require_POST
def table_invite(request: HttpRequest, table_id: int) -> HttpResponse:
    """A new invitation link for a private table; the old one stops working."""
    get_object_or_404(Table, pk=table_id)
    try:
        services.table_new_invite(table_id=table_id,
                                  player=services.player_for_user(request.user))
    except ServiceError as error:
        messages.error(request, error.detail)
    return redirect("table", table_id=table_id)


@login_required
@require_POST
def table_stand(request: HttpRequest, table_id: int) -> HttpResponse:
    get_object_or_404(Table, pk=table_id)
    try:
        services.table_stand(table_id=table_id, player=services.player_for_user(request.user))
    except ServiceError as error:
        messages.error(request, error.detail)
        return redirect("table", table_id=table_id)
    return redirect("lobby")


def _signup_rate(_group: str, _request: HttpRequest) -> str | None:
    per_hour = int(settings.TAVLA_SIGNUPS_PER_HOUR)
    return f"{per_hour}/h" if per_hour else None


def _signups_from(request: HttpRequest, *, count: bool = False) -> bool:
    """Whether the client's address has used up its sign-ups of this hour
    (``TAVLA_SIGNUPS_PER_HOUR``); with ``count``, count one more. django-ratelimit keeps the
    count in the cache (Redis, shared by every web process), by ``REMOTE_ADDR``: the client's
    address, from a trusted proxy's ``X-Forwarded-For`` only (tavla.site.proxies)."""
    usage = get_usage(request, group="tavla.signup", key="ip", rate=_signup_rate,
                      method=ALL, increment=count)
    return usage is not None and usage["count"] >= usage["limit"]


def signup(request: HttpRequest) -> HttpResponse:
    """Django's user-creation form; logs the new member in and opens the lobby. Only
    successful sign-ups count towards the address's hourly bound, so a typo costs nothing."""
    if request.method == "POST":
        form = SignUpForm(request.POST)
        if _signups_from(request):
            form.add_error(None, _("Too many accounts were created from your address in the "
                                   "last hour: try again later."))
            return render(request, "registration/signup.html", {"form": form}, status=429)
        if form.is_valid():
            user = form.save()
            services.player_for_user(user)
            _signups_from(request, count=True)
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect("lobby")
    else:
        form = SignUpForm()
    return render(request, "registration/signup.html", {"form": form})


@login_required
def my_page(request: HttpRequest) -> HttpResponse:
    return redirect("player", player_id=services.player_for_user(request.user).pk)


def player_page(request: HttpRequest, player_id: int) -> HttpResponse:
    """A player's rating, experience, rating history and recent matches."""
    player = get_object_or_404(Player, pk=player_id)
    matches = (Match.objects.filter(Q(player0=player) | Q(player1=player))
               .filter(Q(table__is_public=True) | Q(player0__user_id=request.user.pk)
                       | Q(player1__user_id=request.user.pk))
               .select_related("player0", "player1", "winner", "table")
               .order_by("-started_at")[:20])
    changes = {record.match_id: record.delta for record in player.rating_history.all()}
    rows = []
    for match in matches:
        seat = match.seat_of(player)
        opponent = match.player1 if seat == 0 else match.player0
        mine, theirs = (match.score0, match.score1) if seat == 0 else (match.score1, match.score0)
        if match.status == MatchStatus.PLAYING:
            outcome = "playing"
        elif match.winner_id is None:
            outcome = "none"
        else:
            outcome = "won" if match.winner_id == player.pk else "lost"
        rows.append({"match": match, "opponent": opponent, "score": (mine, theirs),
                     "outcome": outcome, "rating_change": changes.get(match.pk),
                     "length": match.snapshot.get("rules", {}).get("match_length")})
    return render(request, "matches/player.html", {
        "player": player, "rows": rows,
        "history": player.rating_history.select_related("match").order_by("-created_at")[:10],
        # Built from numbers and escaped text only (see matches.players.rating_graph).
        "rating_graph": mark_safe(rating_graph_svg(
            profiles.rating_points(player), title=_("Rating history"),
            format_number=lambda number: localized_digits(str(number)))),
        "opponents": profiles.record_against_opponents(player),
        "experience_words": profiles.experience_in_words(player.experience),
    })


def player_matches(request: HttpRequest, player_id: int) -> HttpResponse:
    """Every match of a player the viewer may see, filtered and paged
    (:mod:`matches.players.history`). A bad filter is a form error (400), never a guess."""
    player = get_object_or_404(Player, pk=player_id)
    form = MatchHistoryForm(request.GET)
    history = None
    if form.is_valid():
        try:
            history = history_page(player, _viewer(request), form.filters(),
                                   number=form.page_number(), size=form.rows_per_page())
        except PageOutOfRange as error:
            form.add_error("page", _("There is no page %(number)s: the last is %(last)s.") % {
                "number": error.number, "last": error.last})
    return render(request, "matches/player_matches.html", {
        "player": player, "form": form, "history": history,
        "rows": _history_rows(history) if history is not None else [],
    }, status=200 if history is not None else 400)


def _history_rows(history: HistoryPage) -> list[dict[str, Any]]:
    """Each row with its words and links made here, once per page rather than per row in
    the template (where translating and reversing took most of a long page's time)."""
    outcomes = {Outcome.WON: _("won"), Outcome.LOST: _("lost"), Outcome.PLAYING: _("playing"),
                Outcome.NONE: _("no result")}
    rated, unrated, money = _("rated"), _("unrated"), _("money")
    review, table, mat = link_maker("match-review"), link_maker("table"), link_maker(
        "api-match-mat")
    profile, tournament = link_maker("player"), link_maker("tournaments:detail")
    rows = []
    for row in history.rows:
        match = row.match
        rows.append({
            "row": row, "outcome": outcomes[row.outcome],
            "length": match.match_length or money, "rated": rated if match.rated else unrated,
            "opponent_url": profile(row.opponent.pk),
            "review_url": review(match.pk) if row.finished else table(match.table_id),
            "mat_url": mat(match.pk) if row.finished else None,
            "tournament_url": tournament(row.tournament_id) if row.tournament_id else None,
        })
    return rows


PERSIAN_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")


def localized_digits(text: str) -> str:
    """``text`` with Persian digits when the page is in Persian."""
    return text.translate(PERSIAN_DIGITS) if get_language() == "fa" else text


@login_required
@require_POST
def player_follow(request: HttpRequest, player_id: int) -> HttpResponse:
    """Follow a player, or stop (``follow=0``): the profile page's button. The lobby then
    shows where they play."""
    other = get_object_or_404(Player, pk=player_id)
    me = services.player_for_user(request.user)
    name = {"name": other.display_name}
    try:
        if request.POST.get("follow") == "0":
            unfollow(player=me, followed=other)
            messages.success(request, _("You no longer follow %(name)s.") % name)
        else:
            follow(player=me, followed=other)
            messages.success(request, _("You follow %(name)s: the lobby shows their tables.")
                             % name)
    except ServiceError:
        messages.error(request, _("You cannot follow %(name)s.") % name)
    return redirect("player", player_id=other.pk)


# -- correspondence: your turn, vacations, turn mails (docs/correspondence.md) ---------------


@login_required
def your_turn(request: HttpRequest) -> HttpResponse:
    """Every match waiting for the viewer, the nearest deadline first (none last)."""
    player = services.player_for_user(request.user)
    rows = []
    for match in waiting_for(player):
        opponent = match.player1 if match.player0_id == player.pk else match.player0
        rows.append({"match": match, "opponent": opponent,
                     "days": match.table.correspondence_days})
    return render(request, "matches/your_turn.html", {
        "rows": rows, "vacation": active_vacation(player.pk, timezone.now()),
    })


@login_required
def vacation_page(request: HttpRequest) -> HttpResponse:
    """A player's vacation from correspondence play, and their turn-mail preference."""
    player = services.player_for_user(request.user)
    now = timezone.now()
    status = 200
    if request.method == "POST":
        action = request.POST.get("action")
        try:
            if action == "start":
                raw = (request.POST.get("days") or "").strip()
                if raw and not raw.isdigit():
                    raise ServiceError("invalid_option",
                                       _("A vacation lasts a whole number of days, 1 or more."))
                vacation.vacation_start(player=player, days=int(raw) if raw else None)
                messages.success(request, _("Your vacation has started."))
            elif action == "stop":
                vacation.vacation_stop(player=player)
                messages.success(request, _("Welcome back: your vacation has ended."))
            elif action == "turn_emails":
                correspondence.player_set_turn_emails(
                    player=player, on=request.POST.get("turn_emails") == "on")
                messages.success(request, _("Your preference is saved."))
            else:
                raise ServiceError("bad_request", _("Unknown action."))
            return redirect("vacation")
        except ServiceError as error:
            messages.error(request, error.detail)
            status = 400
        player.refresh_from_db()
    return render(request, "matches/vacation.html", {
        "player": player, "current": active_vacation(player.pk, now),
        "days_left": vacation.seconds_left(player, now) / SECONDS_PER_DAY,
        "allowance": vacation.allowance_days(),
    }, status=status)


@csrf_exempt  # the signed token is the authority; mail clients post without a form (RFC 8058)
def turn_mail_unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """The one-click link of every turn mail: a page with one button (a link scanner's GET
    changes nothing); its POST, or a mail client's one-click POST, turns the mails off."""
    try:
        if request.method == "POST":
            player = correspondence.unsubscribe(token)
            return render(request, "matches/unsubscribe.html",
                          {"player": player, "done": True})
        player = correspondence.player_for_unsubscribe(token)
    except ServiceError:
        return render(request, "matches/unsubscribe.html", {"invalid": True}, status=400)
    return render(request, "matches/unsubscribe.html", {"player": player, "done": False})
