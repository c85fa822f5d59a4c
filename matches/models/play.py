"""Players, tables, matches, games and the append-only event log.

Only :mod:`matches.services` writes to these models; everything else reads through
:mod:`matches.selectors` or the models directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from matches.rules import add_rule_fields, rule_names
from tavla.engine.clock import SECONDS_PER_DAY, TimeControl


class Player(models.Model):
    """A club member who plays: one per user."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="player",
        verbose_name=_("user"),
    )
    display_name = models.CharField(_("display name"), max_length=40)
    club = models.CharField(_("club"), max_length=60, blank=True, default="")
    rating = models.FloatField(_("rating"), default=1500.0)
    experience = models.PositiveIntegerField(
        _("experience"), default=0,
        help_text=_("Sum of the lengths of finished rated matches."),
    )
    # A bot plays through the same services as everyone (matches/gnubg/bots.py); its strength is
    # a key of tavla.analysis.levels.STRENGTHS.
    is_bot = models.BooleanField(_("bot"), default=False)
    bot_strength = models.CharField(_("bot strength"), max_length=20, blank=True)
    # A preference (matches.services.preferences): the server rolls for this player when a
    # double cannot help them (docs/protocol.md, "Preferences"). It rolls for everybody when
    # no double is possible at all.
    # Correspondence play: an e-mail when it becomes this player's turn (docs/correspondence.md);
    # every such mail carries a one-click link that turns it off.
    turn_emails = models.BooleanField(
        _("e-mail me when it is my turn"), default=True,
        help_text=_("In correspondence matches, an e-mail when it becomes your turn."))
    auto_roll = models.BooleanField(
        _("roll automatically"), default=False,
        help_text=_("Roll for me when doubling cannot help me: a single win at the current "
                    "cube value already wins me the match."))

    class Meta:
        verbose_name = _("player")
        verbose_name_plural = _("players")
        ordering = ["display_name"]

    def __str__(self) -> str:
        return self.display_name


class PlayingRules(models.Model):
    """What a table and a tournament's table template share: the rules of
    :mod:`matches.rules`, as fields (added from the declaration, see :class:`TableRules` and
    :class:`TemplateRules`)."""

    if TYPE_CHECKING:  # the fields, for mypy; a test checks they match the declaration
        crawford: bool
        cube_enabled: bool
        gammons_enabled: bool
        clock_enabled: bool
        clock_delay: float
        clock_reserve_seconds: float
        clock_reserve_per_point: float
        grace_seconds: float
        flag_penalty: str
        resignation: str
        is_public: bool
        is_rated: bool
        correspondence_days: int | None

    # A tournament's template has the rules a template sets (``Rule.template``).
    is_template: ClassVar[bool] = False

    class Meta:
        abstract = True

    def rule_values(self) -> dict[str, Any]:
        """These rules as keyword arguments of :func:`matches.services.table_create`."""
        return {name: getattr(self, name) for name in rule_names(template=self.is_template)}

    def time_control(self) -> TimeControl | None:
        if not self.clock_enabled:
            return None
        days = self.correspondence_days
        if days:
            # Correspondence: the delay is the whole allowance of each decision, and there
            # is no reserve (docs/correspondence.md).
            return TimeControl(delay=days * SECONDS_PER_DAY, reserve_seconds=0.0,
                               reserve_per_point=0.0, grace=self.grace_seconds)
        return TimeControl(
            delay=self.clock_delay,
            reserve_seconds=self.clock_reserve_seconds,
            reserve_per_point=self.clock_reserve_per_point,
            grace=self.grace_seconds,
        )


class TableRules(PlayingRules):
    """Every rule of :data:`matches.rules.RULES`, as a table's fields."""

    if TYPE_CHECKING:
        match_length: int | None

    class Meta:
        abstract = True


class TemplateRules(PlayingRules):
    """The rules a tournament's table template sets (a match length is set per round)."""

    is_template = True

    class Meta:
        abstract = True


add_rule_fields(TableRules)
add_rule_fields(TemplateRules)


class Table(TableRules):
    """Where two players sit, and the rules the matches at it are played by."""

    name = models.CharField(_("name"), max_length=80)
    created_by = models.ForeignKey(
        Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    seat0 = models.ForeignKey(
        Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        verbose_name=_("first seat"),
    )
    seat1 = models.ForeignKey(
        Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        verbose_name=_("second seat"),
    )
    # A tournament pairing reserves the table for its two players.
    reserved0 = models.ForeignKey(
        Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        verbose_name=_("reserved for"),
    )
    reserved1 = models.ForeignKey(
        Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        verbose_name=_("reserved for"),
    )
    # A late-arrival penalty (a tournament's rule, set when the pairing reserves the table):
    # late_penalty_points to the opponent per full late_penalty_minutes a player sits down
    # after reserved_at, as the match's starting score
    # (matches.services.late_penalty.late_start_score).
    reserved_at = models.DateTimeField(_("reserved at"), null=True, blank=True)
    late_penalty_points = models.PositiveSmallIntegerField(_("late-arrival penalty (points)"),
                                                           default=0)
    late_penalty_minutes = models.PositiveSmallIntegerField(_("late-arrival period (minutes)"),
                                                            default=5)
    seat0_since = models.DateTimeField(_("first seat taken at"), null=True, blank=True)
    seat1_since = models.DateTimeField(_("second seat taken at"), null=True, blank=True)
    # The secret of a private table's invitation link (see matches.access); never serialised.
    invite_token = models.CharField(_("invitation token"), max_length=64, blank=True,
                                    editable=False)
    # Rolls copied to each match started here, honoured only where settings allow scripted
    # dice (tests and demonstrations); the match's dice audit then says they were scripted.
    scripted_dice: models.JSONField[Any] = models.JSONField(
        _("scripted dice"), default=list, blank=True,
    )
    bots_rated = models.BooleanField(
        _("rated against a bot"), default=False,
        help_text=_("A match between a person and a bot changes ratings only if this is set."),
    )

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name


class MatchStatus(models.IntegerChoices):
    """Ordered like scalachess statuses: everything from FINISHED on is over."""

    PLAYING = 20, _("Playing")
    FINISHED = 30, _("Finished")
    FORFEITED = 35, _("Forfeited")
    ADJUDICATED = 38, _("Adjudicated")
    VOIDED = 40, _("Voided")


class Match(models.Model):
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="matches",
                              verbose_name=_("table"))
    player0 = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+",
                                verbose_name=_("first player"))
    player1 = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+",
                                verbose_name=_("second player"))
    status = models.PositiveSmallIntegerField(
        _("status"), choices=MatchStatus.choices, default=MatchStatus.PLAYING, db_index=True,
    )
    score0 = models.PositiveSmallIntegerField(_("first player's score"), default=0)
    score1 = models.PositiveSmallIntegerField(_("second player's score"), default=0)
    winner = models.ForeignKey(Player, on_delete=models.PROTECT, null=True, blank=True,
                               related_name="+", verbose_name=_("winner"))
    snapshot: models.JSONField[Any] = models.JSONField(_("engine state"))
    version = models.PositiveIntegerField(_("version"), default=0)
    # The sequence number of the next event of the log: kept here, under the match's row
    # lock, so writing an event needs no query for the last number.
    next_sequence = models.PositiveIntegerField(_("next event number"), default=0,
                                                editable=False)
    deadline = models.DateTimeField(_("deadline"), null=True, blank=True, db_index=True)
    dice_commitment = models.CharField(_("dice commitment (SHA-256)"), max_length=64)
    dice_seed = models.CharField(_("dice seed"), max_length=64, editable=False)
    dice_counter = models.PositiveIntegerField(_("dice used"), default=0)
    # Each player's contribution to the dice (hex, docs/dice.md); None until they send it or
    # the window closes (then ""). The first roll waits for both, or for the window's end.
    client_seed0 = models.CharField(_("first player's client seed"), max_length=128,
                                    null=True, blank=True)
    client_seed1 = models.CharField(_("second player's client seed"), max_length=128,
                                    null=True, blank=True)
    client_seeds_due = models.DateTimeField(
        _("client seeds accepted until"), null=True, blank=True, db_index=True)
    # 1: tavla-dice-1 (server seed and both client seeds); 0: tavla-dice-0, matches played
    # before client seeds existed (server seed alone).
    dice_algorithm = models.PositiveSmallIntegerField(_("dice algorithm"), default=1)
    seed_revealed = models.BooleanField(_("seed revealed"), default=False)
    # Tests and demonstrations may script the dice (only where settings.TAVLA_SCRIPTED_DICE
    # allows it); such a match says so in its dice audit.
    scripted_dice: models.JSONField[Any] = models.JSONField(
        _("scripted dice"), default=list, blank=True,
    )
    dice_were_scripted = models.BooleanField(_("dice were scripted"), default=False)
    clock: models.JSONField[Any] = models.JSONField(_("clock"), null=True, blank=True)
    started_at = models.DateTimeField(_("started"), auto_now_add=True, db_index=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    has_bot = models.BooleanField(_("a bot plays"), default=False)
    # The match's own length and whether it counts for ratings, copied when it starts (and
    # settled when it ends): the table's rules may change for its next match, and a player's
    # match history filters on both without reading the engine state.
    match_length = models.PositiveSmallIntegerField(_("match length"), null=True, blank=True)
    rated = models.BooleanField(_("rated"), default=False)
    # Seats whose player asked for a rematch once this match was over (matches.services.rematch).
    rematch_offers: models.JSONField[Any] = models.JSONField(
        _("rematch asked by seats"), default=list, blank=True)
    # The seat asking to take back its last play (casual play, matches.services.takeback),
    # until the opponent answers or acts.
    takeback_seat = models.PositiveSmallIntegerField(_("takeback asked by seat"), null=True,
                                                     blank=True)
    # Who must act now (None when nobody must, or the match is over) and since when: the
    # "your turn" page and the header's count read these (an index on both), and a
    # correspondence turn's e-mail is sent for this pair (matches.services.correspondence).
    to_act = models.ForeignKey(Player, on_delete=models.PROTECT, null=True, blank=True,
                               related_name="+", verbose_name=_("player to act"))
    turn_since = models.DateTimeField(_("turn began"), null=True, blank=True)
    # Seats whose player chose "never double" for this match: the server rolls for them.
    never_double: models.JSONField[Any] = models.JSONField(
        _("never double (seats)"), default=list, blank=True)

    class Meta:
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        ordering = ["-started_at"]
        permissions = [("adjudicate_match", _("Can adjudicate and void matches"))]
        # A board's connect and sync read "the table's newest match": with the plain
        # table index PostgreSQL may walk the primary key backwards instead.
        # A player's match history (matches.players.history) needs no index of its own:
        # PostgreSQL reads a player's rows from either seat through the two foreign keys'
        # indexes (a bitmap OR) and sorts them, 17 ms for 500 of 5,000 on a loaded machine
        # (EXPLAIN ANALYZE, benchmarks/match_history.py); (player, started_at) indexes were
        # tried and left unused by the planner.
        indexes = [models.Index(fields=["table", "-id"], name="match_table_newest"),
                   # "Your turn": a player's matches waiting for them, oldest deadline first.
                   models.Index(fields=["to_act", "deadline"], name="match_to_act_deadline",
                                condition=models.Q(to_act__isnull=False))]

    def __str__(self) -> str:
        return f"#{self.pk} {self.player0} – {self.player1}"

    @property
    def is_finished(self) -> bool:
        return self.status >= MatchStatus.FINISHED

    def players(self) -> tuple[Player, Player]:
        return self.player0, self.player1

    def seat_of(self, player: Player) -> int | None:
        if player.pk == self.player0_id:
            return 0
        if player.pk == self.player1_id:
            return 1
        return None


class GameEnding(models.TextChoices):
    SINGLE = "single", _("Single game")
    GAMMON = "gammon", _("Gammon")
    BACKGAMMON = "backgammon", _("Backgammon")
    DROP = "drop", _("Double dropped")
    RESIGN = "resign", _("Resignation")
    TIMEOUT = "timeout", _("Time ran out")
    FORFEIT = "forfeit", _("Forfeit")
    ADJUDICATED = "adjudicated", _("Adjudicated")


class Game(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="games",
                              verbose_name=_("match"))
    number = models.PositiveSmallIntegerField(_("game number"))
    winner = models.ForeignKey(Player, on_delete=models.PROTECT, null=True, blank=True,
                               related_name="+", verbose_name=_("winner"))
    points = models.PositiveSmallIntegerField(_("points"), default=0)
    cube_value = models.PositiveSmallIntegerField(_("cube value"), default=1)
    ending = models.CharField(_("ended by"), max_length=12, choices=GameEnding.choices,
                              blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    # The finished game's whole record (engine JSON, every event): the match's snapshot keeps
    # only the current game's events, so that it does not grow with the match.
    record = models.JSONField(_("record"), null=True, blank=True, editable=False)

    class Meta:
        verbose_name = _("game")
        verbose_name_plural = _("games")
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="game_number_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.match} game {self.number}"


class LogKind(models.TextChoices):
    """Engine actions keep the engine's own names, so the log replays through the engine."""

    START = "start", _("Match started")
    OPENING_ROLL = "opening_roll", _("Opening roll")
    ROLL = "roll", _("Roll")
    PLAY = "play", _("Play")
    DOUBLE = "double", _("Double")
    TAKE = "take", _("Take")
    DROP = "drop", _("Drop")
    RESIGN = "resign", _("Resign")
    ACCEPT_RESIGN = "accept_resign", _("Resignation accepted")
    REJECT_RESIGN = "reject_resign", _("Resignation refused")
    TIMEOUT = "timeout", _("Flag fell")
    FORFEIT = "forfeit", _("Forfeit")
    ADJUDICATE = "adjudicate", _("Adjudication")
    NEW_GAME = "new_game", _("New game")
    END_SESSION = "end_session", _("Session ended")
    GAME_END = "game_end", _("Game ended")
    MATCH_END = "match_end", _("Match ended")
    VOID = "void", _("Voided")
    TAKEBACK_REQUEST = "takeback_request", _("Takeback asked")
    TAKEBACK_ACCEPT = "takeback_accept", _("Takeback accepted")
    TAKEBACK_DECLINE = "takeback_decline", _("Takeback declined")


class Event(models.Model):
    """One entry of a match's append-only log; ``sequence`` has no gap and no duplicate."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="events",
                              verbose_name=_("match"))
    sequence = models.PositiveIntegerField(_("sequence"))
    game_number = models.PositiveSmallIntegerField(_("game"), default=0)
    kind = models.CharField(_("kind"), max_length=16, choices=LogKind.choices)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True,
                              blank=True, related_name="+", verbose_name=_("actor"))
    payload: models.JSONField[Any] = models.JSONField(_("payload"), default=dict)
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        verbose_name = _("event")
        verbose_name_plural = _("events")
        ordering = ["match", "sequence"]
        constraints = [
            models.UniqueConstraint(fields=["match", "sequence"], name="event_sequence_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.match_id}#{self.sequence} {self.kind}"


class RatingRecord(models.Model):
    """A rating change: caused by one finished rated match, or (no match) set by a club
    director, who is named with their reason (``tournaments.services.player_set_rating``)."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="rating_history",
                               verbose_name=_("player"))
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_records",
                              verbose_name=_("match"), null=True, blank=True)
    before = models.FloatField(_("before"))
    after = models.FloatField(_("after"))
    set_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                               blank=True, related_name="+", verbose_name=_("set by"))
    reason = models.TextField(_("reason"), blank=True)
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        constraints = [
            models.UniqueConstraint(fields=["player", "match"], name="one_rating_change_per_match"),
        ]

    @property
    def delta(self) -> float:
        return self.after - self.before
