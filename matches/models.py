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


class AnalysisStatus(models.TextChoices):
    PENDING = "pending", _("Waiting")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


class MatchAnalysis(models.Model):
    """GNU Backgammon's analysis of a finished match (matches/gnubg/analysis.py), made on the
    analysis queue. ``players`` and ``decisions`` are :class:`tavla.analysis.MatchAnalysis`
    as JSON; ``pr0``/``pr1`` are copied out for the fair-play review."""

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="analysis",
                                 verbose_name=_("match"))
    status = models.CharField(_("status"), max_length=10, choices=AnalysisStatus.choices,
                              default=AnalysisStatus.PENDING)
    plies = models.PositiveSmallIntegerField(_("plies"), default=0)
    engine = models.CharField(_("engine"), max_length=40, blank=True)
    players: models.JSONField[Any] = models.JSONField(_("players"), default=list)
    decisions: models.JSONField[Any] = models.JSONField(_("decisions"), default=list)
    pr0 = models.FloatField(_("first player's PR"), null=True, blank=True)
    pr1 = models.FloatField(_("second player's PR"), null=True, blank=True)
    error = models.TextField(_("error"), blank=True)
    requested_at = models.DateTimeField(_("requested"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    seconds = models.FloatField(_("seconds taken"), null=True, blank=True)

    class Meta:
        verbose_name = _("match analysis")
        verbose_name_plural = _("match analyses")
        ordering = ["-requested_at"]

    def __str__(self) -> str:
        return f"analysis of {self.match_id}"
class AnalysisRequestKind(models.TextChoices):
    BOARD = "board", _("Analysis board")
    HINT = "hint", _("Hint")


class AnalysisRequest(models.Model):
    """One question a player asked gnubg (the analysis board, or a hint in practice against
    the bot), answered by a worker of the analysis queue (matches/gnubg/board.py).

    ``key`` names the question (position, Match ID, decision, plies): the same question asked
    again, by anyone, is answered from a finished row. A pending row counts towards the
    player's bound on simultaneous analysis requests until it is answered or times out."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+",
                               verbose_name=_("player"))
    kind = models.CharField(_("kind"), max_length=10, choices=AnalysisRequestKind.choices)
    key = models.CharField(_("question"), max_length=80, db_index=True)
    position_id = models.CharField(_("Position ID"), max_length=14)
    gnubg_match_id = models.CharField(_("Match ID"), max_length=12)
    decision = models.CharField(_("decision"), max_length=10)  # "checker" or "cube"
    plies = models.PositiveSmallIntegerField(_("plies"), default=0)
    match = models.ForeignKey(Match, on_delete=models.CASCADE, null=True, blank=True,
                              related_name="+", verbose_name=_("match"))
    match_version = models.PositiveIntegerField(_("match version"), null=True, blank=True)
    status = models.CharField(_("status"), max_length=10, choices=AnalysisStatus.choices,
                              default=AnalysisStatus.PENDING)
    result: models.JSONField[Any] = models.JSONField(_("answer"), null=True, blank=True)
    error = models.TextField(_("error"), blank=True)
    requested_at = models.DateTimeField(_("requested"), auto_now_add=True, db_index=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("analysis request")
        verbose_name_plural = _("analysis requests")
        ordering = ["-requested_at"]

    def __str__(self) -> str:
        return f"{self.kind} {self.position_id}:{self.gnubg_match_id} ({self.status})"


class DrillItem(models.Model):
    """One of a player's errors or blunders from an analysed match, to be practised again
    (matches/gnubg/practice.py): the position, the dice or the cube decision, gnubg's answers,
    and its place on the Leitner schedule (``box`` 1-5, due at ``due_at``)."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="drill_items",
                               verbose_name=_("player"))
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="+",
                              verbose_name=_("match"))
    game = models.PositiveSmallIntegerField(_("game"))
    index = models.PositiveIntegerField(_("decision in the game"))
    kind = models.CharField(_("kind"), max_length=10)  # move, double, no_double, take, drop
    position_id = models.CharField(_("Position ID"), max_length=14)
    gnubg_match_id = models.CharField(_("Match ID"), max_length=12)
    played = models.CharField(_("played"), max_length=60)
    best = models.CharField(_("best"), max_length=60)
    loss = models.FloatField(_("equity lost"))
    mark = models.CharField(_("mark"), max_length=10)
    # checker plays: [{"play", "equity", "loss"}] best first; cube decisions: the cube answer
    answers: models.JSONField[Any] = models.JSONField(_("gnubg's answers"))
    box = models.PositiveSmallIntegerField(_("box"), default=1)
    due_at = models.DateTimeField(_("due"), db_index=True)
    reviews = models.PositiveIntegerField(_("answers given"), default=0)
    right = models.PositiveIntegerField(_("right answers"), default=0)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("drill item")
        verbose_name_plural = _("drill items")
        ordering = ["due_at", "pk"]
        # A missed double and the play after it share a turn's index: the kind tells them apart.
        constraints = [models.UniqueConstraint(fields=["player", "match", "game", "index",
                                                       "kind"], name="drill_item_once")]

    def __str__(self) -> str:
        return f"{self.player} {self.kind} {self.position_id}"


class ChatRoom(models.TextChoices):
    """A table has two rooms, kept apart while a match is played (see ``matches.chat.rooms``)."""

    PLAYERS = "players", _("players")
    SPECTATORS = "spectators", _("spectators")


class ChatMessage(models.Model):
    """One line of table chat. Never deleted: a referee's removal hides it and is logged."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="chat_messages",
                              verbose_name=_("table"))
    match = models.ForeignKey(Match, on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="+", verbose_name=_("match"))
    author = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+",
                               verbose_name=_("author"))
    room = models.CharField(_("room"), max_length=12, choices=ChatRoom.choices)
    text = models.CharField(_("text"), max_length=300)
    # A quick phrase's code (matches.chat.phrases): each reader sees it in their own language;
    # ``text`` keeps its English words for the admin and for clients that do not know it.
    phrase = models.CharField(_("quick phrase"), max_length=20, blank=True, default="")
    created_at = models.DateTimeField(_("time"), auto_now_add=True, db_index=True)
    deleted_at = models.DateTimeField(_("removed at"), null=True, blank=True)

    class Meta:
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")
        ordering = ["-created_at", "-pk"]
        permissions = [("moderate_chat", "Can read, remove and review reports of table chat")]

    def __str__(self) -> str:
        return f"{self.author}: {self.text[:40]}"


class ChatBlock(models.Model):
    """``blocker`` never sees ``blocked``'s messages again, at any table."""

    blocker = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="chat_blocks",
                                verbose_name=_("blocker"))
    blocked = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+",
                                verbose_name=_("blocked"))
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        verbose_name = _("chat block")
        verbose_name_plural = _("chat blocks")
        constraints = [models.UniqueConstraint(fields=["blocker", "blocked"],
                                               name="one_chat_block_per_pair")]


class ChatReport(models.Model):
    """A player's report of a message to the referees."""

    message = models.ForeignKey(ChatMessage, on_delete=models.CASCADE, related_name="reports",
                                verbose_name=_("message"))
    reporter = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+",
                                 verbose_name=_("reported by"))
    reason = models.CharField(_("reason"), max_length=300, blank=True)
    created_at = models.DateTimeField(_("time"), auto_now_add=True)
    reviewed = models.BooleanField(_("reviewed"), default=False)

    class Meta:
        verbose_name = _("chat report")
        verbose_name_plural = _("chat reports")
        ordering = ["reviewed", "-created_at"]
        constraints = [models.UniqueConstraint(fields=["message", "reporter"],
                                               name="one_report_per_message_and_reporter")]


class ChatModeration(models.Model):
    """The append-only log of what referees did to chat messages."""

    message = models.ForeignKey(ChatMessage, on_delete=models.CASCADE,
                                related_name="moderations", verbose_name=_("message"))
    referee = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                related_name="+", verbose_name=_("referee"))
    action = models.CharField(_("action"), max_length=20)
    reason = models.CharField(_("reason"), max_length=300)
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        verbose_name = _("chat moderation")
        verbose_name_plural = _("chat moderations")
        ordering = ["-created_at"]


# -- finding a game: seeks, challenges, follows (matches.services.seeks / challenges / follows)


class GameTerms(models.Model):
    """What a seek or a challenge asks for: the match length, a named time control
    (``tavla.engine.clock.PRESETS``) and whether it is rated. The table's other rules are
    the defaults of :mod:`matches.rules`."""

    match_length = models.PositiveSmallIntegerField(_("match length"))
    clock_preset = models.CharField(_("time control"), max_length=12, default="none")
    rated = models.BooleanField(_("rated"), default=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True, db_index=True)
    expires_at = models.DateTimeField(_("expires"), db_index=True)
    table = models.ForeignKey(Table, on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="+", verbose_name=_("table"))

    class Meta:
        abstract = True

    def terms(self) -> tuple[int, str, bool]:
        return self.match_length, self.clock_preset, self.rated


class SeekStatus(models.TextChoices):
    OPEN = "open", _("open")
    PAIRED = "paired", _("paired")
    CANCELLED = "cancelled", _("cancelled")
    EXPIRED = "expired", _("expired")


class SeekPool(models.Model):
    """One row per kind of seek (its terms): two seeks of the same terms posted at the same
    moment each lock this row first, so the second sees the first and pairs with it
    (without it, neither would see the other's uncommitted row and both would wait)."""

    match_length = models.PositiveSmallIntegerField(_("match length"))
    clock_preset = models.CharField(_("time control"), max_length=12)
    rated = models.BooleanField(_("rated"))

    class Meta:
        verbose_name = _("seek pool")
        verbose_name_plural = _("seek pools")
        constraints = [models.UniqueConstraint(fields=["match_length", "clock_preset", "rated"],
                                               name="one_seek_pool_per_terms")]


class Seek(GameTerms):
    """A player's wish for a game on these terms with anyone: paired with the first seek of
    the same terms by another player."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="seeks",
                               verbose_name=_("player"))
    status = models.CharField(_("status"), max_length=10, choices=SeekStatus.choices,
                              default=SeekStatus.OPEN, db_index=True)

    class Meta:
        verbose_name = _("seek")
        verbose_name_plural = _("seeks")
        ordering = ["created_at", "pk"]


class ChallengeStatus(models.TextChoices):
    OPEN = "open", _("open")
    ACCEPTED = "accepted", _("accepted")
    DECLINED = "declined", _("declined")
    CANCELLED = "cancelled", _("cancelled")
    EXPIRED = "expired", _("expired")


class Challenge(GameTerms):
    """One player's invitation to another for a game on these terms."""

    challenger = models.ForeignKey(Player, on_delete=models.CASCADE,
                                   related_name="challenges_sent", verbose_name=_("challenger"))
    challenged = models.ForeignKey(Player, on_delete=models.CASCADE,
                                   related_name="challenges_received",
                                   verbose_name=_("challenged"))
    status = models.CharField(_("status"), max_length=10, choices=ChallengeStatus.choices,
                              default=ChallengeStatus.OPEN, db_index=True)

    class Meta:
        verbose_name = _("challenge")
        verbose_name_plural = _("challenges")
        ordering = ["-created_at", "-pk"]


class Follow(models.Model):
    """``follower`` follows ``followed``: the lobby shows the followed player's tables."""

    follower = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="follows",
                                 verbose_name=_("follower"))
    followed = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="followers",
                                 verbose_name=_("followed"))
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        verbose_name = _("follow")
        verbose_name_plural = _("follows")
        constraints = [
            models.UniqueConstraint(fields=["follower", "followed"], name="one_follow_per_pair"),
            models.CheckConstraint(condition=~models.Q(follower=models.F("followed")),
                                   name="no_follow_of_oneself"),
        ]
class Vacation(models.Model):
    """A player's vacation from correspondence play (matches.services.vacation).

    Started, it reserves up to ``ends_by`` from the player's allowance of the calendar year
    it started in; ``ended_at`` is set when the player comes back earlier. A vacation is
    over once ``ended_at`` is set or ``ends_by`` has passed.
    """

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="vacations",
                               verbose_name=_("player"))
    started_at = models.DateTimeField(_("started"))
    ends_by = models.DateTimeField(_("ends at the latest"))
    ended_at = models.DateTimeField(_("ended"), null=True, blank=True)

    class Meta:
        verbose_name = _("vacation")
        verbose_name_plural = _("vacations")
        ordering = ["-started_at"]
        indexes = [models.Index(fields=["player", "-started_at"], name="vacation_player_newest")]

    def __str__(self) -> str:
        return f"{self.player} {self.started_at:%Y-%m-%d}"

    def end(self) -> Any:
        """When the vacation ends (or ended): on the player's return, or at ``ends_by``."""
        return self.ended_at if self.ended_at is not None and self.ended_at < self.ends_by \
            else self.ends_by
