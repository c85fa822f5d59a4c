"""The table options, declared once: field, label, help, group and default of each.

Everything that lists the options derives from :data:`RULES`: the model fields of
:class:`matches.models.Table` and of a tournament's table template
(:class:`tournaments.models.Tournament`), the keyword arguments
:func:`matches.services.table_create` accepts, the REST serializers, the admin fieldsets, the
lobby's new-table form and the rules a board and the lobby show
(:func:`matches.selectors.rules_shown`). A new
table option is one more :class:`Rule` here (and its migration); ``tests/matches/test_rules.py``
adds a fake one and finds it everywhere.

Nothing here computes a list at import time: derived lists are asked for
(:func:`rule_names`, :func:`rule_fieldsets`) by the modules that use them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

from django import forms
from django.db import models
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise as Label


Kind = Literal["flag", "seconds", "points", "choice"]

_SAME: Final[Any] = object()  # "as for a table"
CHOICE_MAX_LENGTH: Final = 10  # the longest value a choice option may store


class FlagPenalty(models.TextChoices):
    GAME = "game", _("Lose the game (single × cube), go on with delay only")
    MATCH = "match", _("Lose the match (USBGF)")


class ResignationStyle(models.TextChoices):
    SINGLE = "single", _("Single game × cube")
    OFFER = "offer", _("Offer single, gammon or backgammon; the opponent accepts or refuses")


@dataclass(frozen=True)
class RuleGroup:
    """A heading under which the admin (and a reader) finds related options."""

    key: str
    label: Label


MATCH: Final = RuleGroup("match", _("Match and clock"))
SCORING: Final = RuleGroup("scoring", _("Cube and scoring"))
LISTING: Final = RuleGroup("listing", _("Listing and rating"))


@dataclass(frozen=True)
class Rule:
    """One table option.

    ``kind`` is ``flag`` (a boolean), ``seconds`` (a float, never negative), ``points`` (a
    positive integer or empty, between ``min_value`` and ``max_value``) or ``choice`` (one of
    ``choices``). ``shown`` is its key in :func:`rules_shown` (``None``: not shown there on its
    own; the clock's options are shown together as ``clock``). ``template`` says whether a
    tournament's table template sets it (a match length is set per round instead);
    ``template_label`` and ``template_default`` differ from a table's where given.
    ``form_label`` puts it on the lobby's new-table form (the clock's details come from a
    preset there), with ``form_initial`` as its first value.
    """

    name: str
    kind: Kind
    label: Label
    group: RuleGroup
    default: Any
    help: Label = ""
    choices: type[models.TextChoices] | None = None
    min_value: int | None = None
    max_value: int | None = None
    shown: str | None = None
    template: bool = True
    template_label: Label | None = None
    template_default: Any = _SAME
    form_label: Label | None = None
    form_initial: Any = _SAME

    def model_field(self, *, template: bool = False) -> models.Field[Any, Any]:
        """A fresh model field for a table (or, with ``template``, a tournament's template)."""
        label = self.template_label if template and self.template_label else self.label
        default = self.default
        if template and self.template_default is not _SAME:
            default = self.template_default
        common: dict[str, Any] = {"verbose_name": label, "help_text": self.help}
        if self.kind == "flag":
            return models.BooleanField(default=default, **common)
        if self.kind == "seconds":
            return models.FloatField(default=default, **common)
        if self.kind == "points":
            if default is not None:  # empty is a null field's default already
                common["default"] = default
            return models.PositiveSmallIntegerField(null=True, blank=True, **common)
        assert self.choices is not None, f"{self.name}: a choice needs its choices"
        return models.CharField(max_length=CHOICE_MAX_LENGTH, choices=self.choices.choices,
                                default=default, **common)

    def form_field(self) -> forms.Field:
        """The field of the lobby's new-table form (only for a rule with a ``form_label``)."""
        initial = self.default if self.form_initial is _SAME else self.form_initial
        common: dict[str, Any] = {"label": self.form_label, "initial": initial}
        if self.kind == "flag":
            return forms.BooleanField(required=False, **common)
        if self.kind == "seconds":
            return forms.FloatField(required=True, min_value=0, **common)
        if self.kind == "points":
            return forms.IntegerField(required=False, min_value=self.min_value,
                                      max_value=self.max_value, help_text=self.help, **common)
        assert self.choices is not None
        # Left out of a posted form, a choice keeps its default (older clients post no
        # field for an option added later).
        return forms.TypedChoiceField(choices=self.choices.choices, required=False,
                                      empty_value=self.default, **common)


# The declaration. Its order is the order of the form; the admin groups it.
RULES: tuple[Rule, ...] = (
    Rule("match_length", "points", _("match length"), MATCH, None,
         help=_("Points to win the match; empty for a money session."),
         min_value=1, max_value=99, shown="match_length", template=False,
         form_label=_("Match to (points)"), form_initial=3),
    Rule("cube_enabled", "flag", _("doubling cube"), SCORING, True, shown="cube",
         form_label=_("Doubling cube")),
    Rule("gammons_enabled", "flag", _("gammons and backgammons"), SCORING, True,
         shown="gammons", form_label=_("Gammons and backgammons count")),
    Rule("crawford", "flag", _("Crawford rule"), MATCH, True, shown="crawford",
         form_label=_("Crawford rule")),
    Rule("resignation", "choice", _("resignation"), SCORING, ResignationStyle.SINGLE,
         choices=ResignationStyle, shown="resignation", form_label=_("Resignation"),
         help=_("Single × cube, or an offer of 1, 2 or 3 points × cube the opponent answers.")),
    Rule("is_rated", "flag", _("rated"), LISTING, True, shown="rated", form_label=_("Rated")),
    # The form sets the clock from a preset (matches.forms.CLOCK_CHOICES) instead.
    # A tournament plays with the clock by default: one stalled match cannot stall a bracket.
    Rule("clock_enabled", "flag", _("clock"), MATCH, False, template_default=True),
    Rule("clock_delay", "seconds", _("delay per move (s)"), MATCH, 12.0),
    Rule("clock_reserve_seconds", "seconds", _("reserve (s)"), MATCH, 0.0),
    Rule("clock_reserve_per_point", "seconds", _("reserve per match point (s)"), MATCH, 120.0),
    Rule("grace_seconds", "seconds", _("grace for a disconnected player (s)"), MATCH, 60.0),
    # Correspondence play (docs/correspondence.md): set, the clock gives the player who must
    # act this many days each time the game waits for them, instead of the live clock's
    # seconds; empty is a live table. The form sets it with the "correspondence" preset.
    # A template's too: a ladder's, a league's or a tournament's tables may be played by
    # correspondence (an arena is live only: seasons.services.arena, docs/seasons.md).
    Rule("correspondence_days", "points", _("days per move (correspondence)"), MATCH, None,
         help=_("Correspondence play: days the player on turn has for each decision; "
                "empty for a live table."),
         min_value=1, max_value=7, shown="correspondence_days",
         form_label=_("Days per move (correspondence clock)"), form_initial=3),
    Rule("flag_penalty", "choice", _("a flag costs"), MATCH, FlagPenalty.GAME,
         choices=FlagPenalty, form_label=_("When a flag falls")),
    Rule("is_public", "flag", _("public"), LISTING, True, template_label=_("public tables"),
         form_label=_("Listed in the lobby")),
)


def rules_for(*, template: bool = False) -> tuple[Rule, ...]:
    """The rules a table has (all), or a tournament's table template (``template``)."""
    return tuple(rule for rule in RULES if rule.template or not template)


def rule_names(*, template: bool = False) -> tuple[str, ...]:
    """The field names of :func:`rules_for`: the keyword arguments of ``table_create``."""
    return tuple(rule.name for rule in rules_for(template=template))


def rule_fieldsets(*, template: bool = False, prefix: Label = "",
                   descriptions: dict[str, Label] | None = None) -> list[tuple[Any, Any]]:
    """Admin fieldsets, one per group, in declaration order; ``prefix`` goes before each
    group's label and ``descriptions`` (by group key) under it."""
    groups: dict[RuleGroup, list[str]] = {}
    for rule in rules_for(template=template):
        groups.setdefault(rule.group, []).append(rule.name)
    fieldsets: list[tuple[Any, Any]] = []
    for group, names in groups.items():
        options: dict[str, Any] = {"fields": names}
        if descriptions and group.key in descriptions:
            options["description"] = descriptions[group.key]
        title = format_lazy("{}{}", prefix, group.label) if prefix else group.label
        fieldsets.append((title, options))
    return fieldsets


def add_rule_fields(model: type[models.Model]) -> None:
    """Give an abstract model a field per rule (called once, right after its class); a
    model whose ``is_template`` is set gets the template's rules, labels and defaults."""
    assert model._meta.abstract, "rule fields go on an abstract model its tables inherit"
    template: bool = getattr(model, "is_template", False)
    for rule in rules_for(template=template):
        model.add_to_class(rule.name, rule.model_field(template=template))
