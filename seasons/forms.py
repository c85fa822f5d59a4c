"""The forms a club organiser creates an arena, a ladder or a league with."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from matches.forms import CLOCK_CHOICES
from matches.gnubg.bot_views import STRENGTH_LABELS
from matches.services.tables import CORRESPONDENCE_DEFAULT_DAYS
from seasons.services.league import LIMITS as LEAGUE_LIMITS
from tavla.analysis.levels import STRENGTHS
from tavla.engine.clock import CORRESPONDENCE_PRESET, PRESETS

#: An arena is live only: its matches are paired and finished within its few hours.
LIVE_CLOCKS = [(name, label) for name, label in CLOCK_CHOICES if name in PRESETS]


class ArenaForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=80)
    starts_in = forms.IntegerField(label=_("Starts in (minutes)"), min_value=0,
                                   max_value=7 * 24 * 60, initial=0)
    minutes = forms.IntegerField(label=_("Lasts (minutes)"), min_value=5, max_value=12 * 60,
                                 initial=60)
    match_length = forms.IntegerField(label=_("Match length (points)"), min_value=1,
                                      max_value=25, initial=3)
    clock = forms.ChoiceField(label=_("Clock"), initial="fast", choices=LIVE_CLOCKS)


class ClockOrDaysForm(forms.Form):
    """A live clock preset, or correspondence with ``days`` per move (1 to 7)."""

    clock = forms.ChoiceField(label=_("Clock"), initial="normal", choices=CLOCK_CHOICES)
    days = forms.IntegerField(label=_("Days per move (correspondence clock)"), min_value=1,
                              max_value=7, required=False, initial=CORRESPONDENCE_DEFAULT_DAYS)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("clock") == CORRESPONDENCE_PRESET and not data.get("days"):
            if "days" not in self.errors:
                self.add_error("days", _("Give the days per move: 1 to 7."))
        return data


class LadderForm(ClockOrDaysForm):
    name = forms.CharField(label=_("Name"), max_length=80)
    scope = forms.CharField(label=_("Division (empty: the whole club)"), max_length=80,
                            required=False)
    reach = forms.IntegerField(label=_("Challenge up to (places above)"), min_value=1,
                               max_value=20, initial=3)
    accept_days = forms.IntegerField(label=_("Days to accept a challenge"), min_value=1,
                                     max_value=30, initial=3)
    play_days = forms.IntegerField(label=_("Days to finish the match"), min_value=1,
                                   max_value=60, initial=7)
    inactivity_days = forms.IntegerField(label=_("Inactive after (days without a match)"),
                                         min_value=1, max_value=365, initial=14)
    drop_places = forms.IntegerField(label=_("Drop for inactivity (places)"), min_value=0,
                                     max_value=50, initial=2)
    match_length = forms.IntegerField(label=_("Match length (points)"), min_value=1,
                                      max_value=25, initial=5)
    field_order = ["name", "scope", "reach", "accept_days", "play_days", "inactivity_days",
                   "drop_places", "match_length", "clock", "days"]


def _limited(label: Any, field: str, initial: int) -> forms.IntegerField:
    low, high = LEAGUE_LIMITS[field]
    return forms.IntegerField(label=label, min_value=low, max_value=high, initial=initial)


class LeagueForm(ClockOrDaysForm):
    name = forms.CharField(label=_("Name"), max_length=80)
    divisions = _limited(_("Divisions"), "divisions", 2)
    division_size = _limited(_("Players per division (at most)"), "division_size", 6)
    match_length = _limited(_("Match length (points)"), "match_length", 3)
    round_days = _limited(_("Days per round (the round's deadline)"), "round_days", 7)
    move = _limited(_("Promoted and relegated per division"), "move", 1)
    field_order = ["name", "divisions", "division_size", "match_length", "clock", "days",
                   "round_days", "move"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["clock"].initial = CORRESPONDENCE_PRESET


class EnrolForm(forms.Form):
    """User names of players to enrol."""

    usernames = forms.CharField(
        label=_("Players to enrol: user names, one a line or separated by commas"),
        max_length=4000, widget=forms.Textarea(attrs={"rows": 3}))

    def names(self) -> list[str]:
        text = self.cleaned_data["usernames"].replace(",", "\n")
        return [line.strip() for line in text.splitlines() if line.strip()]


class WithdrawForm(EnrolForm):
    """User names of enrolled players to withdraw."""

    usernames = forms.CharField(
        label=_("Players to withdraw: user names, one a line or separated by commas"),
        max_length=4000, widget=forms.Textarea(attrs={"rows": 2}))


class AddBotsForm(forms.Form):
    """A director adds gnubg bots to an arena or a ladder (docs/seasons.md, "Bots")."""

    strength = forms.ChoiceField(label=_("Bot strength"), initial="intermediate",
                                 choices=[(key, STRENGTH_LABELS.get(key, level.label))
                                          for key, level in STRENGTHS.items()])
    count = forms.IntegerField(label=_("How many"), min_value=1, max_value=20, initial=1)
