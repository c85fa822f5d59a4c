"""The form a club organiser creates an arena with."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from matches.gnubg.bot_views import STRENGTH_LABELS
from tavla.analysis.levels import STRENGTHS
from tavla.engine.clock import PRESETS


class ArenaForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=80)
    starts_in = forms.IntegerField(label=_("Starts in (minutes)"), min_value=0,
                                   max_value=7 * 24 * 60, initial=0)
    minutes = forms.IntegerField(label=_("Lasts (minutes)"), min_value=5, max_value=12 * 60,
                                 initial=60)
    match_length = forms.IntegerField(label=_("Match length (points)"), min_value=1,
                                      max_value=25, initial=3)
    clock = forms.ChoiceField(label=_("Clock"), initial="fast",
                              choices=[(name, name) for name in PRESETS])


class LadderForm(forms.Form):
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
    clock = forms.ChoiceField(label=_("Clock"), initial="normal",
                              choices=[(name, name) for name in PRESETS])


class AddBotsForm(forms.Form):
    """A director adds gnubg bots to an arena or a ladder (docs/seasons.md, "Bots")."""

    strength = forms.ChoiceField(label=_("Bot strength"), initial="intermediate",
                                 choices=[(key, STRENGTH_LABELS.get(key, level.label))
                                          for key, level in STRENGTHS.items()])
    count = forms.IntegerField(label=_("How many"), min_value=1, max_value=20, initial=1)
