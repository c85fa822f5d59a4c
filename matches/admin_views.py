"""The referee's pages inside the admin: the move-by-move replay, adjudicate, void, verify and
``.mat`` export of one match. :class:`matches.admin.MatchAdmin` wires them into its URLs.

Every change is a call to :mod:`matches.services`; these views only ask and show.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext_lazy as _

from matches import services
from matches.audit import ReplayStep, mat_export, mat_filename, replay_steps
from matches.errors import ServiceError
from matches.models import Match, MatchStatus
from matches.selectors import board_dict
from tavla.engine import EngineError
from tavla.engine.match import MatchState

if TYPE_CHECKING:
    from matches.admin import MatchAdmin

ADJUDICATE_PERMISSION = "matches.adjudicate_match"

# -- the board as SVG -------------------------------------------------------------------------

_COLUMN = 34
_MARGIN = 10
_BAR = 34
_HEIGHT = 380
_POINT_HEIGHT = 150
_RADIUS = 15
_HALF = 6 * _COLUMN
_BOARD_WIDTH = 2 * _MARGIN + 2 * _HALF + _BAR
_TRAY = 50
_WIDTH = _BOARD_WIDTH + _TRAY
_COLOURS = ("#f5f1e6", "#2b2b2b")  # player 0 light, player 1 dark
_STROKES = ("#7a6a4f", "#000000")


def _column_x(point: int) -> tuple[float, bool]:
    """Centre x of ``point`` (player 0's numbering) and whether it is on the top row.

    Player 0's home board is bottom right: 12..1 along the bottom, 13..24 along the top.
    """
    if point <= 12:
        index = 12 - point  # 12 -> leftmost, 1 -> rightmost
        top = False
    else:
        index = point - 13  # 13 -> leftmost, 24 -> rightmost
        top = True
    x = _MARGIN + index * _COLUMN + (_BAR if index >= 6 else 0) + _COLUMN / 2
    return x, top


def _checker(x: float, y: float, seat: int, label: str = "") -> str:
    circle = (f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{_RADIUS}" fill="{_COLOURS[seat]}" '
              f'stroke="{_STROKES[seat]}" stroke-width="1.5"/>')
    if label:
        circle += (f'<text x="{x:.1f}" y="{y + 5:.1f}" text-anchor="middle" font-size="13" '
                   f'font-weight="bold" fill="{_COLOURS[1 - seat]}">{label}</text>')
    return circle


def _stack(x: float, top: bool, count: int, seat: int, start: float | None = None) -> list[str]:
    parts = []
    shown = min(count, 5)
    for i in range(shown):
        offset = _RADIUS + i * 2 * _RADIUS
        base = start if start is not None else (_MARGIN if top else _HEIGHT - _MARGIN)
        y = base + offset if top else base - offset
        label = str(count) if count > 5 and i == shown - 1 else ""
        parts.append(_checker(x, y, seat, label))
    return parts


def board_svg(state: MatchState) -> SafeString:
    """The board of ``state`` from player 0's side as an inline SVG (light checkers are
    player 0's, moving from the top left round to the bottom right)."""
    board = board_dict(state.board)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_WIDTH} {_HEIGHT + 24}" '
        f'width="{_WIDTH}" height="{_HEIGHT + 24}" class="tavla-board" role="img" '
        f'aria-label="board">',
        f'<rect x="0" y="0" width="{_BOARD_WIDTH}" height="{_HEIGHT}" fill="#3d6b35" rx="6"/>',
        f'<rect x="{_MARGIN + _HALF}" y="0" width="{_BAR}" height="{_HEIGHT}" fill="#5a3e22"/>',
        f'<rect x="{_BOARD_WIDTH + 4}" y="0" width="{_TRAY - 4}" height="{_HEIGHT}" '
        f'fill="#5a3e22" rx="4"/>',
    ]
    for point in range(1, 25):
        x, top = _column_x(point)
        left, right = x - _COLUMN / 2 + 1, x + _COLUMN / 2 - 1
        fill = "#c9a66b" if point % 2 else "#8c3b2e"
        if top:
            tip = _MARGIN + _POINT_HEIGHT
            shape = f"{left:.1f},{_MARGIN} {right:.1f},{_MARGIN} {x:.1f},{tip}"
        else:
            tip = _HEIGHT - _MARGIN - _POINT_HEIGHT
            shape = f"{left:.1f},{_HEIGHT - _MARGIN} {right:.1f},{_HEIGHT - _MARGIN} {x:.1f},{tip}"
        parts.append(f'<polygon points="{shape}" fill="{fill}"/>')
        # Point numbers (player 0's): top ones inside the frame, bottom ones below it.
        label_y = _MARGIN - 1 if top else _HEIGHT + 16
        colour = "#ffffff" if top else "#333333"
        parts.append(f'<text x="{x:.1f}" y="{label_y}" text-anchor="middle" '
                     f'font-size="{9 if top else 11}" fill="{colour}">{point}</text>')
        count = board["points"][point - 1]
        if count:
            parts += _stack(x, top, abs(count), 0 if count > 0 else 1)
    bar_x = _MARGIN + _HALF + _BAR / 2
    # Player 0 enters at the top right, so their bar checkers wait on the top half.
    if board["bar"][0]:
        parts += _stack(bar_x, True, board["bar"][0], 0, start=_MARGIN + 40)
    if board["bar"][1]:
        parts += _stack(bar_x, False, board["bar"][1], 1, start=_HEIGHT - _MARGIN - 40)
    tray_x = _BOARD_WIDTH + 4 + (_TRAY - 4) / 2
    for seat, y in ((1, 40), (0, _HEIGHT - 30)):
        off = board["off"][seat]
        parts.append(_checker(tray_x, y, seat, str(off)))
        parts.append(f'<text x="{tray_x:.1f}" y="{y + (30 if seat else -22):.1f}" '
                     f'text-anchor="middle" font-size="10" fill="#ffffff">off</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - built from numbers only, no user text


# -- forms ------------------------------------------------------------------------------------


class AdjudicateForm(forms.Form):
    winner = forms.TypedChoiceField(label=_("Award to"), coerce=int, widget=forms.RadioSelect)
    scope = forms.ChoiceField(
        label=_("Award"), widget=forms.RadioSelect,
        choices=[("game", _("the current game")), ("match", _("the whole match"))],
    )
    points = forms.IntegerField(
        label=_("Points"), required=False, min_value=1,
        help_text=_("Empty: the cube value for a game; for the match, what the winner still "
                    "needs."),
    )
    reason = forms.CharField(label=_("Reason"), widget=forms.Textarea(attrs={"rows": 4}),
                             help_text=_("Recorded in the match's log with your name."))

    def __init__(self, *args: Any, match: Match, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["winner"]
        assert isinstance(field, forms.TypedChoiceField)
        field.choices = [(0, str(match.player0)), (1, str(match.player1))]


class VoidForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), widget=forms.Textarea(attrs={"rows": 4}),
                             help_text=_("Recorded in the match's log with your name."))


# -- views ------------------------------------------------------------------------------------


def _context(admin: MatchAdmin, request: HttpRequest, match: Match,
             title: str, **extra: Any) -> dict[str, Any]:
    return {
        **admin.admin_site.each_context(request),
        "opts": admin.model._meta,
        "original": match,
        "match": match,
        "title": title,
        "has_view_permission": admin.has_view_permission(request, match),
        "may_adjudicate": request.user.has_perm(ADJUDICATE_PERMISSION),
        "change_url": reverse("admin:matches_match_change", args=[match.pk]),
        **extra,
    }


def get_match(admin: MatchAdmin, request: HttpRequest, match_id: int) -> Match:
    match = get_object_or_404(
        Match.objects.select_related("player0", "player1", "table", "winner"), pk=match_id)
    if not admin.has_view_permission(request, match):
        raise PermissionDenied
    return match


def _step_row(index: int, step: ReplayStep) -> dict[str, Any]:
    state = step.state
    return {
        "index": index,
        "event": step.event,
        "description": step.description,
        "game": step.event.game_number,
        "score": f"{state.score[0]}–{state.score[1]}",
        "cube": state.cube_value,
        "changed": step.changed,
    }


def replay_view(admin: MatchAdmin, request: HttpRequest, match_id: int) -> HttpResponse:
    """The board after any event of the log (``?step=N``), with the whole log beside it."""
    match = get_match(admin, request, match_id)
    error = None
    steps: list[ReplayStep] = []
    try:
        steps = list(replay_steps(match))
    except (EngineError, ValueError, KeyError) as exc:
        error = str(exc)
    index = len(steps) - 1
    raw = request.GET.get("step")
    if raw is not None and raw.lstrip("-").isdigit():
        index = max(0, min(int(raw), len(steps) - 1))
    current = steps[index] if steps else None
    state = current.state if current else None
    context = _context(
        admin, request, match, f"Replay of match #{match.pk}",
        steps=[_step_row(i, step) for i, step in enumerate(steps)],
        step=_step_row(index, current) if current else None,
        index=index,
        previous=index - 1 if index > 0 else None,
        next=index + 1 if index + 1 < len(steps) else None,
        last=len(steps) - 1,
        board=board_svg(state) if state else "",
        state=state,
        dice=list(state.dice) if state and state.dice else None,
        pips=state.pip_counts() if state else None,
        on_roll=None if state is None or state.player_on_roll is None
        else match.players()[state.player_on_roll],
        cube_owner=None if state is None or state.cube_owner is None
        else match.players()[state.cube_owner],
        error=error,
    )
    return TemplateResponse(request, "admin/matches/match/replay.html", context)


def adjudicate_view(admin: MatchAdmin, request: HttpRequest, match_id: int) -> HttpResponse:
    match = get_match(admin, request, match_id)
    if not request.user.has_perm(ADJUDICATE_PERMISSION):
        raise PermissionDenied
    change_url = reverse("admin:matches_match_change", args=[match.pk])
    if match.is_finished:
        messages.error(request, _("This match is over: there is nothing to adjudicate."))
        return HttpResponseRedirect(change_url)
    form = AdjudicateForm(request.POST or None, match=match)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            services.match_adjudicate(
                match_id=match.pk, referee=request.user,
                winner=match.players()[data["winner"]], scope=data["scope"],
                reason=data["reason"], points=data["points"],
            )
        except ServiceError as error:
            form.add_error(None, error.detail)
        else:
            admin.log_change(request, match, f"Adjudicated the {data['scope']}: "
                                             f"{data['reason']}")
            messages.success(request, format_html(
                "The {} was awarded to {}.", data["scope"], match.players()[data["winner"]]))
            return HttpResponseRedirect(change_url)
    context = _context(admin, request, match, f"Adjudicate match #{match.pk}", form=form,
                       state=MatchState.from_dict(match.snapshot))
    return TemplateResponse(request, "admin/matches/match/adjudicate.html", context)


def void_view(admin: MatchAdmin, request: HttpRequest, match_id: int) -> HttpResponse:
    match = get_match(admin, request, match_id)
    if not request.user.has_perm(ADJUDICATE_PERMISSION):
        raise PermissionDenied
    change_url = reverse("admin:matches_match_change", args=[match.pk])
    if match.is_finished:
        messages.error(request, _("This match is over: it can no longer be voided."))
        return HttpResponseRedirect(change_url)
    form = VoidForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.match_void(match_id=match.pk, referee=request.user,
                                reason=form.cleaned_data["reason"])
        except ServiceError as error:
            form.add_error(None, error.detail)
        else:
            admin.log_change(request, match, f"Voided: {form.cleaned_data['reason']}")
            messages.success(request, _("The match was voided."))
            return HttpResponseRedirect(change_url)
    context = _context(admin, request, match, f"Void match #{match.pk}", form=form)
    return TemplateResponse(request, "admin/matches/match/void.html", context)


def report_verification(request: HttpRequest, matches: Iterable[Match]) -> None:
    for match in matches:
        result = services.match_verify(match_id=match.pk)
        if result.ok:
            messages.success(request, f"Match #{match.pk} verified: {result.detail}.")
        else:
            messages.error(request, f"Match #{match.pk} does NOT verify: {result.detail}.")


def verify_view(admin: MatchAdmin, request: HttpRequest, match_id: int) -> HttpResponse:
    match = get_match(admin, request, match_id)
    if request.method != "POST":
        return HttpResponse(status=405, headers={"Allow": "POST"})
    report_verification(request, [match])
    return HttpResponseRedirect(reverse("admin:matches_match_change", args=[match.pk]))


def mat_view(admin: MatchAdmin, request: HttpRequest, match_id: int) -> HttpResponse:
    return mat_response(Match.objects.filter(pk=get_match(admin, request, match_id).pk))


def mat_response(matches: QuerySet[Match]) -> HttpResponse:
    """One match as a ``.mat`` download; several as a zip of ``.mat`` files."""
    chosen = list(matches.select_related("player0", "player1", "table"))
    if len(chosen) == 1:
        response = HttpResponse(mat_export(chosen[0]), content_type="text/plain; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{mat_filename(chosen[0])}"'
        return response
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for match in chosen:
            archive.writestr(mat_filename(match), mat_export(match))
    response = HttpResponse(buffer.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = 'attachment; filename="tavla-matches.zip"'
    return response


def status_label(match: Match) -> str:
    return str(MatchStatus(match.status).label)
