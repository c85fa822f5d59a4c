"""The analysis board's page and the practice page. Both only render: the questions and the
answers go through the REST API (``matches.rest.analysis_board``), which queues gnubg's work
for a worker (:mod:`matches.gnubg.board`, :mod:`matches.gnubg.practice`)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from matches import services
from matches.gnubg.practice import practice_json
from matches.ui_strings import board_strings


def analysis_strings() -> dict[str, str]:
    """The words the two pages' scripts show (translated here, like the board's)."""
    return {
        "evaluating": _("gnubg is thinking…"),
        "timed_out": _("No analysis worker answered in time: ask again later."),
        "failed": _("gnubg could not evaluate this position."),
        "rank": _("Rank"),
        "play": _("Play"),
        "equity": _("Equity"),
        "loss": _("Loss"),
        "no_play": _("No legal play: the turn passes."),
        "no_double": _("No double"),
        "double_take": _("Double, take"),
        "double_pass": _("Double, pass"),
        "verdict": _("Verdict"),
        "verdict_no_double_take": _("No double, take"),
        "verdict_double_take": _("Double, take"),
        "verdict_double_pass": _("Double, pass"),
        "verdict_too_good_take": _("Too good to double, take"),
        "verdict_too_good_pass": _("Too good to double, pass"),
        "share": _("Link to share"),
        "right": _("Right!"),
        "wrong": _("Wrong."),
        "best_was": _("gnubg's best: {best}"),
        "you_lost": _("Your answer loses {loss}."),
        "you_played": _("In the match you played {played} (lost {loss})."),
        "next_item": _("Next position"),
        "nothing_due": _("Nothing to practise now. Come back at {time}."),
        "no_items": _("No mistakes to practise yet: your errors and blunders appear here "
                      "once your matches are analysed."),
        "question_checker": _("Your roll: {dice}. Play the best move."),
        "question_double": _("Your turn: double or not?"),
        "question_take": _("You are doubled: take or pass?"),
        "answer_double": _("Double"),
        "answer_no_double": _("No double"),
        "answer_take": _("Take"),
        "answer_pass": _("Pass"),
        "box": _("Box {box} of 5"),
        "due_count": _("{due} due of {items}"),
        "setup_hint": _("Drag checkers to set up a position; drag one off the board to "
                        "remove it."),
        "score_line": _("Score {a}–{b}, match to {n}"),
    }


@login_required
def analysis_board(request: HttpRequest) -> HttpResponse:
    """Paste an XGID or a Position ID and Match ID (or set the checkers up), choose the dice
    or the cube decision and the plies, and see gnubg's ranked answers."""
    return render(request, "matches/analysis_board.html", {
        "strings": board_strings() | analysis_strings(),
        "initial": {"xgid": request.GET.get("xgid", ""),
                    "plies": request.GET.get("plies", "0")},
    })


@login_required
def practice(request: HttpRequest) -> HttpResponse:
    """The drill of the player's own errors and blunders."""
    data: dict[str, Any] = practice_json(services.player_for_user(request.user))
    return render(request, "matches/practice.html", {
        "strings": board_strings() | analysis_strings(),
        "practice": data,
    })
