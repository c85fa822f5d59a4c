"""Tournaments, entries, rounds, pairings and the director's log.

The formats (:mod:`tournaments.formats`) are pure: they see entries as integer ids
(``Entry.pk``) and pairings as slot ids. These models store what they return, one
:class:`Pairing` row per slot, and only :mod:`tournaments.services` writes to them.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from matches.models import Match, Player, Table, TemplateRules


class TournamentStatus(models.IntegerChoices):
    """Ordered like scalachess statuses: ``status >= RUNNING`` means the draw is made."""

    DRAFT = 10, _("Draft")
    REGISTRATION = 20, _("Registration open")
    CHECK_IN = 30, _("Check-in")
    RUNNING = 40, _("Running")
    FINISHED = 50, _("Finished")


class FormatName(models.TextChoices):
    """The registered formats (:data:`tournaments.formats.FORMATS`)."""

    SINGLE_ELIMINATION = "single_elimination", _("Single elimination")
    DOUBLE_ELIMINATION = "double_elimination", _("Double elimination")
    PROGRESSIVE_CONSOLATION = "progressive_consolation", _("Progressive consolation")
    SWISS = "swiss", _("Swiss")
    SWISS_CUT = "swiss_cut", _("Swiss, then a knockout of the top players")
    ROUND_ROBIN = "round_robin", _("Round robin")


class SeedingMethod(models.TextChoices):
    RANDOM = "random", _("Random draw (recorded)")
    RATING = "rating", _("By rating")
    MANUAL = "manual", _("Manual order (the entries' seed numbers)")


ELIMINATION_FORMATS = frozenset({FormatName.SINGLE_ELIMINATION, FormatName.DOUBLE_ELIMINATION,
                                 FormatName.PROGRESSIVE_CONSOLATION})


class Eligibility(models.TextChoices):
    """Who may play in a division of an event."""

    OPEN = "open", _("Anyone")
    RATING = "rating", _("By rating range")
    EXPERIENCE = "experience", _("By experience range")
    ASSIGNED = "assigned", _("The director assigns players")


def default_match_lengths() -> list[int]:
    return [3]


def default_format_options() -> dict[str, Any]:
    return {}


class Tournament(TemplateRules):
    name = models.CharField(_("name"), max_length=120)
    description = models.TextField(_("description"), blank=True)
    director = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="directed_tournaments", verbose_name=_("director"),
    )
    status = models.PositiveSmallIntegerField(
        _("status"), choices=TournamentStatus.choices, default=TournamentStatus.DRAFT,
        db_index=True,
    )
    # Format and seeding
    format = models.CharField(
        _("format"), max_length=32, choices=FormatName.choices,
        default=FormatName.SINGLE_ELIMINATION,
    )
    format_options: models.JSONField[Any] = models.JSONField(
        _("format options"), default=default_format_options, blank=True,
        help_text=_('For example {"rounds": 5} (Swiss), {"consolation": true} (single '
                    'elimination), {"bracket_reset": true} (double elimination), '
                    '{"double": true} (round robin).'),
    )
    seeding = models.CharField(
        _("seeding"), max_length=10, choices=SeedingMethod.choices, default=SeedingMethod.RANDOM,
    )
    rng_seed = models.BigIntegerField(
        _("random draw seed"), null=True, blank=True, editable=False,
        help_text=_("Drawn from server randomness and recorded, so the draw can be checked."),
    )
    max_entries = models.PositiveIntegerField(_("maximum entries"), null=True, blank=True)
    # Rounds
    match_lengths: models.JSONField[Any] = models.JSONField(
        _("match lengths by round"), default=default_match_lengths,
        help_text=_("Points to win, round by round, e.g. [3, 5, 7]; the last one is used for "
                    "every later round and for a grand final."),
    )
    auto_pair = models.BooleanField(
        _("pair rounds automatically"), default=True,
        help_text=_("Swiss and round robin: pair the next round as soon as the current one is "
                    "complete. Off: the director pairs each round."),
    )
    over_the_board = models.BooleanField(
        _("played over the board"), default=False,
        help_text=_("Matches are played on physical boards: no online tables are created; "
                    "the winner reports the score and the opponent or a referee confirms it."),
    )
    no_show_minutes = models.PositiveSmallIntegerField(
        _("no-show limit (minutes)"), null=True, blank=True, default=15,
        validators=[MinValueValidator(1, _("The no-show limit is at least 1 minute "
                                           "(leave it empty for no limit)."))],
        help_text=_("A paired player who has not sat down this long after the pairing loses "
                    "by forfeit and is withdrawn from later rounds (both absent: both lose). "
                    "Empty: no limit."),
    )
    late_penalty_points = models.PositiveSmallIntegerField(
        _("late-arrival penalty (points)"), default=0,
        help_text=_("Points the opponent starts the match with for each period a player is "
                    "late sitting down (UK Open and NVBC: 1 point per 5 minutes). 0: none."),
    )
    late_penalty_minutes = models.PositiveSmallIntegerField(
        _("late-arrival period (minutes)"), default=5,
        validators=[MinValueValidator(1, _("The late-arrival period is at least 1 minute."))],
        help_text=_("A penalty is due for each full period late, counted from the pairing."),
    )
    # The table template (the rules every match of the tournament is played by) comes from
    # TemplateRules: see matches.rules.
    # Progress
    current_round = models.PositiveSmallIntegerField(
        _("round released"), default=0, editable=False,
        help_text=_("Swiss and round robin: the highest round whose matches were started."),
    )
    champion = models.ForeignKey(
        "Entry", on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        verbose_name=_("champion"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    # Divisions: a division is a tournament of its own (its own format and bracket) whose
    # ``event`` is the tournament players register for.
    event = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="divisions",
        verbose_name=_("event"),
        help_text=_("Set on a division: the event it belongs to. Players register for the "
                    "event and are placed in the first division (by order) they are "
                    "eligible for."),
    )
    division_order = models.PositiveSmallIntegerField(_("division order"), default=0)
    eligibility = models.CharField(
        _("eligibility"), max_length=12, choices=Eligibility.choices, default=Eligibility.OPEN,
    )
    min_rating = models.FloatField(_("minimum rating"), null=True, blank=True)
    max_rating = models.FloatField(_("maximum rating"), null=True, blank=True,
                                   help_text=_("Below this rating (exclusive)."))
    min_experience = models.PositiveIntegerField(_("minimum experience"), null=True, blank=True)
    max_experience = models.PositiveIntegerField(
        _("maximum experience"), null=True, blank=True,
        help_text=_("Below this experience (exclusive): the sum of the lengths of the "
                    "player's finished rated matches."))
    # Money: bookkeeping only, no payment is processed.
    entry_fee = models.DecimalField(_("entry fee"), max_digits=9, decimal_places=2,
                                    default=Decimal("0"), validators=[MinValueValidator(0)])
    currency = models.CharField(_("currency"), max_length=8, blank=True, default="EUR")
    return_percent = models.DecimalField(
        _("return to players (%)"), max_digits=5, decimal_places=2, default=Decimal("100"),
        validators=[MinValueValidator(0), MaxValueValidator(100)],
        help_text=_("The prize pool is entry fee × paid entries × this percentage."))
    payout_table = models.CharField(
        _("payout table"), max_length=60, default="50/30/20", blank=True,
        help_text=_("Percentages of the pool by final place, e.g. 50/30/20 or 40/30/20/10."))
    consolation_percent = models.DecimalField(
        _("consolation flight's share (%)"), max_digits=5, decimal_places=2,
        default=Decimal("0"), validators=[MinValueValidator(0), MaxValueValidator(100)],
        help_text=_("The part of the prize pool paid to the consolation flight's places; "
                    "the main flight gets the rest."))
    consolation_payout_table = models.CharField(
        _("consolation payout table"), max_length=60, default="100", blank=True)
    last_chance_percent = models.DecimalField(
        _("last chance flight's share (%)"), max_digits=5, decimal_places=2,
        default=Decimal("0"), validators=[MinValueValidator(0), MaxValueValidator(100)],
        help_text=_("The part of the prize pool paid to the last chance flight's places."))
    last_chance_payout_table = models.CharField(
        _("last chance payout table"), max_length=60, default="100", blank=True)
    forfeit_prize_on_disqualification = models.BooleanField(
        _("a disqualified player forfeits their place and prize"), default=True,
        help_text=_("On: a disqualified player is not ranked, placed or paid; the places and "
                    "money below move up."))

    class Meta:
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")
        ordering = ["-created_at"]
        permissions = [
            ("referee_tournament", _("Can referee tournaments: enter and correct results, "
                                     "record double forfeits, reinstate players")),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(no_show_minutes__isnull=True) | Q(no_show_minutes__gte=1),
                name="no_show_at_least_one_minute",
            ),
            models.CheckConstraint(condition=Q(late_penalty_minutes__gte=1),
                                   name="late_period_at_least_one_minute"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_elimination(self) -> bool:
        return self.format in ELIMINATION_FORMATS

    @property
    def has_started(self) -> bool:
        return self.status >= TournamentStatus.RUNNING

    @property
    def accepts_entries(self) -> bool:
        return self.status in (TournamentStatus.REGISTRATION, TournamentStatus.CHECK_IN)

    def match_length_for(self, bracket: str, number: int) -> int:
        """Round ``number`` of any bracket plays ``match_lengths[number - 1]``; later rounds
        and the grand final play the last length. A Swiss cut's knockout round k counts as
        round ``rounds`` + k (see :meth:`round_sequence`)."""
        lengths = [int(n) for n in (self.match_lengths or [])] or [1]
        if bracket == "final":
            return lengths[-1]
        return lengths[min(self.round_sequence(bracket, number), len(lengths)) - 1]

    def round_sequence(self, bracket: str, number: int) -> int:
        """Where round ``number`` of ``bracket`` comes in the event's order of rounds: its
        number, except that a Swiss cut's knockout goes on from the Swiss (its round k is
        round ``rounds`` + k; its consolation's round k is played alongside knockout round
        k + 1, whose losers it waits for: round ``rounds`` + k + 1), for match lengths and for
        releasing rounds one by one."""
        if self.format == FormatName.SWISS_CUT and bracket in ("knockout", "third_place",
                                                               "consolation"):
            rounds = (self.format_options or {}).get("rounds")
            if isinstance(rounds, int) and not isinstance(rounds, bool):
                # Consolation round k waits for knockout round k's losers: it is played
                # alongside knockout round k + 1.
                return rounds + number + (bracket == "consolation")
        return number


class EntryStatus(models.IntegerChoices):
    ACTIVE = 10, _("Active")
    WITHDRAWN = 20, _("Withdrawn")
    DISQUALIFIED = 30, _("Disqualified")


class Entry(models.Model):
    """A player in a tournament; its ``pk`` is the entrant id the formats see."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries",
                                   verbose_name=_("tournament"))
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="entries",
                               verbose_name=_("player"))
    seed = models.PositiveIntegerField(
        _("seed"), null=True, blank=True,
        help_text=_("1 is the top seed. Set by the draw; with manual seeding, set it here."),
    )
    status = models.PositiveSmallIntegerField(
        _("status"), choices=EntryStatus.choices, default=EntryStatus.ACTIVE,
    )
    checked_in = models.BooleanField(_("checked in"), default=False)
    paid = models.BooleanField(_("paid"), default=False,
                               help_text=_("The entry fee was paid (marked at check-in)."))
    late = models.BooleanField(_("late entry"), default=False, editable=False,
                               help_text=_("Entered after the start."))
    registered_at = models.DateTimeField(_("registered"), auto_now_add=True)
    left_at = models.DateTimeField(_("withdrawn or disqualified"), null=True, blank=True)

    class Meta:
        verbose_name = _("entry")
        verbose_name_plural = _("entries")
        ordering = ["tournament", "seed", "registered_at"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player"], name="one_entry_per_player"),
        ]

    def __str__(self) -> str:
        return str(self.player)

    @property
    def is_active(self) -> bool:
        return self.status == EntryStatus.ACTIVE


class Round(models.Model):
    """One round of one bracket, with the match length its matches are played to."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="rounds",
                                   verbose_name=_("tournament"))
    bracket = models.CharField(_("bracket"), max_length=16, default="main")
    number = models.PositiveSmallIntegerField(_("round"))
    match_length = models.PositiveSmallIntegerField(_("match length"))
    starts_at = models.DateTimeField(_("starts at"), null=True, blank=True,
                                     help_text=_("When the round is called, shown to players."))

    class Meta:
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        ordering = ["tournament", "bracket", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "bracket", "number"],
                                    name="one_round_per_number"),
        ]

    def __str__(self) -> str:
        return f"{self.bracket} {self.number}"


class PairingStatus(models.IntegerChoices):
    """From DECIDED on, the pairing is over."""

    WAITING = 10, _("Waiting for players")
    PAIRED = 20, _("Paired")
    DECIDED = 40, _("Decided")
    BYE = 45, _("Bye")
    VOID = 50, _("Not played")


class ResultSource(models.TextChoices):
    MATCH = "match", _("Played online")
    BYE = "bye", _("Bye")
    FORFEIT = "forfeit", _("Forfeit")
    NO_SHOW = "no_show", _("No-show")
    DOUBLE_FORFEIT = "double_forfeit", _("Double forfeit: both lose")
    REPORT = "report", _("Reported and confirmed")
    REFEREE = "referee", _("Entered by a referee")
    OVERRIDE = "override", _("Director's override")


class Pairing(models.Model):
    """One slot of a tournament: a match to play (or a bye), as the format named it."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE,
                                   related_name="pairings", verbose_name=_("tournament"))
    slot = models.CharField(_("slot"), max_length=16)
    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="pairings",
                              verbose_name=_("round"))
    order = models.PositiveIntegerField(_("order"), default=0)
    # The format's sides in its notation ("17", "bye", "winner:W1-3"), and the entries once known
    side_a = models.CharField(_("side A"), max_length=32)
    side_b = models.CharField(_("side B"), max_length=32)
    entry_a = models.ForeignKey(Entry, on_delete=models.PROTECT, null=True, blank=True,
                                related_name="+", verbose_name=_("player A"))
    entry_b = models.ForeignKey(Entry, on_delete=models.PROTECT, null=True, blank=True,
                                related_name="+", verbose_name=_("player B"))
    status = models.PositiveSmallIntegerField(
        _("status"), choices=PairingStatus.choices, default=PairingStatus.WAITING, db_index=True,
    )
    table = models.OneToOneField(Table, on_delete=models.SET_NULL, null=True, blank=True,
                                 related_name="tournament_pairing", verbose_name=_("table"))
    match = models.OneToOneField(Match, on_delete=models.SET_NULL, null=True, blank=True,
                                 related_name="tournament_pairing", verbose_name=_("match"))
    paired_at = models.DateTimeField(_("paired"), null=True, blank=True)
    board_number = models.PositiveSmallIntegerField(
        _("table number"), null=True, blank=True,
        help_text=_("The physical table or board in the room (over the board)."))
    # Result
    winner = models.ForeignKey(Entry, on_delete=models.PROTECT, null=True, blank=True,
                               related_name="+", verbose_name=_("winner"))
    loser = models.ForeignKey(Entry, on_delete=models.PROTECT, null=True, blank=True,
                              related_name="+", verbose_name=_("loser"))
    winner_points = models.PositiveSmallIntegerField(_("winner's points"), null=True, blank=True)
    loser_points = models.PositiveSmallIntegerField(_("loser's points"), null=True, blank=True)
    result_source = models.CharField(_("result from"), max_length=16,
                                     choices=ResultSource.choices, blank=True)
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)
    # Over the board: the winner reports, the opponent or a referee confirms.
    reported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+", verbose_name=_("reported by"),
    )
    reported_winner = models.ForeignKey(Entry, on_delete=models.PROTECT, null=True, blank=True,
                                        related_name="+", verbose_name=_("reported winner"))
    reported_winner_points = models.PositiveSmallIntegerField(
        _("reported winner's points"), null=True, blank=True)
    reported_loser_points = models.PositiveSmallIntegerField(
        _("reported loser's points"), null=True, blank=True)
    reported_at = models.DateTimeField(_("reported"), null=True, blank=True)
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+", verbose_name=_("confirmed by"),
    )
    confirmed_at = models.DateTimeField(_("confirmed"), null=True, blank=True)

    class Meta:
        verbose_name = _("pairing")
        verbose_name_plural = _("pairings")
        ordering = ["tournament", "order"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "slot"], name="one_pairing_per_slot"),
        ]

    def __str__(self) -> str:
        return f"{self.tournament} {self.slot}"

    @property
    def is_over(self) -> bool:
        return self.status >= PairingStatus.DECIDED

    @property
    def has_report(self) -> bool:
        return self.reported_by_id is not None and self.status == PairingStatus.PAIRED

    def entries(self) -> tuple[Entry, ...]:
        return tuple(e for e in (self.entry_a, self.entry_b) if e is not None)


class SidePool(models.Model):
    """An optional side pool or jackpot: its own fee, return and payout table, paid out by
    the main flight's final places among the entries in it."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE,
                                   related_name="side_pools", verbose_name=_("tournament"))
    name = models.CharField(_("name"), max_length=60)
    fee = models.DecimalField(_("fee"), max_digits=9, decimal_places=2,
                              validators=[MinValueValidator(0)])
    return_percent = models.DecimalField(
        _("return to players (%)"), max_digits=5, decimal_places=2, default=Decimal("100"),
        validators=[MinValueValidator(0), MaxValueValidator(100)])
    payout_table = models.CharField(_("payout table"), max_length=60, default="100")
    entries = models.ManyToManyField(Entry, blank=True, related_name="side_pools",
                                     verbose_name=_("entries (paid in)"))

    class Meta:
        verbose_name = _("side pool")
        verbose_name_plural = _("side pools")
        ordering = ["tournament", "pk"]

    def __str__(self) -> str:
        return self.name


class TournamentLog(models.Model):
    """Append-only: who changed what in a tournament, why and when."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="log",
                                   verbose_name=_("tournament"))
    pairing = models.ForeignKey(Pairing, on_delete=models.SET_NULL, null=True, blank=True,
                                related_name="log", verbose_name=_("pairing"))
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                              blank=True, related_name="+", verbose_name=_("who"))
    action = models.CharField(_("what"), max_length=32)
    reason = models.TextField(_("why"), blank=True)
    data: models.JSONField[Any] = models.JSONField(_("details"), default=dict, blank=True)
    created_at = models.DateTimeField(_("when"), auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("log entry")
        verbose_name_plural = _("log")
        ordering = ["tournament", "created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.action}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise ValueError("The tournament log is append-only.")
        super().save(*args, **kwargs)
