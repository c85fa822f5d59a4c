"""Forms of the live-play pages: a new table's options, and signing up."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from matches.models import Player
from matches.players.accounts import player_for_user
from matches.rules import RULES
from matches.services.tables import CORRESPONDENCE_DEFAULT_DAYS
from tavla.engine.clock import CORRESPONDENCE_PRESET, PRESETS

CLOCK_CHOICES = [
    ("none", _("No clock")),
    ("fast", _("Fast: 8 s per move + 20 s per point")),
    ("normal", _("Normal: 10 s per move + 1 min per point")),
    ("casual", _("Casual: 15 s per move + 3 min per point")),
    ("usbgf", _("Tournament: 12 s per move + 2 min per point")),
    ("correspondence", _("Correspondence: days per move (below)")),
]


class TableForm(forms.Form):
    """A new table: the options of :func:`matches.services.table_create` that have a
    ``form_label`` in :mod:`matches.rules`, with the clock as a preset."""

    name = forms.CharField(label=_("Name"), max_length=80)
    reserve_for = forms.CharField(
        label=_("Keep the other seat for"), max_length=150, required=False,
        help_text=_("A member's user name: only they may take the other seat."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for rule in RULES:
            if rule.name == "clock_enabled":  # the preset stands for the clock's rules
                self.fields["clock"] = forms.ChoiceField(
                    label=_("Clock"), choices=CLOCK_CHOICES, initial="none")
            if rule.form_label is not None:
                self.fields[rule.name] = rule.form_field()
        self.fields["reserve_for"] = self.fields.pop("reserve_for")  # last, after the rules


    def clean_reserve_for(self) -> Player | None:
        username = (self.cleaned_data.get("reserve_for") or "").strip()
        if not username:
            return None
        player = Player.objects.filter(user__username__iexact=username).first()
        if player is None:
            user = get_user_model().objects.filter(username__iexact=username).first()
            if user is None:
                raise forms.ValidationError(_("No member is called %(name)s."),
                                            params={"name": username})
            player = player_for_user(user)
        return player

    def table_options(self) -> dict[str, Any]:
        """Keyword arguments for ``services.table_create`` (call after ``is_valid()``)."""
        data = self.cleaned_data
        options: dict[str, Any] = {
            rule.name: data[rule.name] for rule in RULES if rule.form_label is not None
        }
        control = PRESETS.get(data["clock"])
        options["clock_enabled"] = control is not None
        # The days count only with the correspondence clock; a live table has none.
        days = options.pop("correspondence_days", None)
        options["correspondence_days"] = None
        if data["clock"] == CORRESPONDENCE_PRESET:
            options.update(clock_enabled=True,
                           correspondence_days=days or CORRESPONDENCE_DEFAULT_DAYS)
        elif control is not None:
            options.update(clock_delay=control.delay,
                           clock_reserve_seconds=control.reserve_seconds,
                           clock_reserve_per_point=control.reserve_per_point)
        if options["match_length"] is None:
            options["is_rated"] = False  # money sessions are never rated
        return options


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]
    """Django's own sign-up form; a player is created on first use."""

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined,misc]
        fields = ("username",)
