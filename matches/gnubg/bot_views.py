""""Play the bot": the lobby's form and the view that seats a player against a gnubg bot."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from matches import services
from matches.errors import ServiceError
from matches.gnubg.bots import bot_match_limit, bot_table_create
from tavla.analysis.levels import STRENGTHS

LENGTHS = (1, 3, 5, 7)
# The engine's strengths carry English labels; the page shows these (same keys).
STRENGTH_LABELS = {"beginner": _("Beginner"), "casual_player": _("Casual player"),
                   "intermediate": _("Intermediate"), "advanced": _("Advanced"),
                   "expert": _("Expert"), "world_class": _("World class")}


def _length_choices() -> list[tuple[int, str]]:
    """Called per form, so the words are in the page's language (not the import's)."""
    return [(n, gettext("%(n)d points") % {"n": n} if n > 1 else gettext("1 point"))
            for n in LENGTHS]


class BotForm(forms.Form):
    strength = forms.ChoiceField(
        label=_("Strength"), initial="intermediate",
        choices=[(key, STRENGTH_LABELS.get(key, strength.label))
                 for key, strength in STRENGTHS.items()],
        help_text=_("GNU Backgammon's own levels: beginner to advanced play with gnubg's "
                    "noise, expert without it; world class thinks 2 plies ahead."),
    )
    match_length = forms.TypedChoiceField(
        label=_("Match to"), coerce=int, initial=3,
        choices=_length_choices,
    )
    cube_enabled = forms.BooleanField(label=_("doubling cube"), required=False, initial=True)
    rated = forms.BooleanField(label=_("rated"), required=False, initial=False,
                               help_text=_("Off by default: a match against a bot changes "
                                           "no rating unless you ask for it."))


@login_required
@require_POST
def play_bot(request: HttpRequest) -> HttpResponse:
    """Start a match against the bot of the chosen strength and go to its table (the
    service the REST call ``POST /api/bot-matches/`` uses too, with its bound)."""
    form = BotForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose a strength and a match length."))
        return redirect("lobby")
    player = services.player_for_user(request.user)
    try:
        table = bot_table_create(
            human=player, strength=form.cleaned_data["strength"],
            match_length=form.cleaned_data["match_length"],
            cube_enabled=form.cleaned_data["cube_enabled"],
            rated=form.cleaned_data["rated"],
        )
    except ServiceError as error:
        if error.code == "too_many_bot_matches":
            messages.error(request, gettext(
                "You are already playing %(limit)d matches against bots, the most at once. "
                "Finish or resign one first.") % {"limit": bot_match_limit()})
        else:
            messages.error(request, error.detail)
        return redirect("lobby")
    return redirect("table", table_id=table.pk)
