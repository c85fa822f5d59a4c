"""What the REST API reads and writes, for its schema. Output is shaped here; input is
checked by :mod:`matches.validation` (the socket's checks too), so the request serializers
below only describe the bodies. Every change still goes through :mod:`matches.services`.

``MatchStateSerializer`` only documents :func:`matches.selectors.match_state` (the one dict the
API and the WebSocket both send); the view returns that dict as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from matches.models import (
    Event,
    Match,
    MatchStatus,
    Player,
    RatingRecord,
    Table,
)
from matches.players.history import link_maker
from matches.rules import RULES, rule_names
from matches.validation import ACTIONS, MAX_SECONDS
from tavla.engine.clock import TABLE_PRESETS

# -- errors ------------------------------------------------------------------------------------


class ErrorSerializer(serializers.Serializer[Any]):
    """Every error the API returns."""

    error = serializers.CharField(help_text="A stable code for programs, e.g. stale_version.")
    detail = serializers.CharField(help_text="What went wrong, for people.")
    # The error shape has a "fields" key; as a declared field it leaves Serializer.fields be.
    fields = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()), required=False,
        help_text="Validation errors only: the messages of each invalid field.",
    )


# -- players -----------------------------------------------------------------------------------


class PlayerSerializer(serializers.ModelSerializer[Player]):
    username = serializers.CharField(source="user.username", read_only=True)

    class Meta:
        model = Player
        fields = ["id", "username", "display_name", "rating", "experience"]


class RatingRecordSerializer(serializers.ModelSerializer[RatingRecord]):
    delta = serializers.FloatField(read_only=True)

    class Meta:
        model = RatingRecord
        fields = ["match", "before", "after", "delta", "created_at"]


class PlayerDetailSerializer(PlayerSerializer):
    rating_history = RatingRecordSerializer(many=True, read_only=True)

    class Meta(PlayerSerializer.Meta):
        fields = [*PlayerSerializer.Meta.fields, "rating_history"]


class PlayerBriefSerializer(serializers.ModelSerializer[Player]):
    class Meta:
        model = Player
        fields = ["id", "display_name", "rating"]


# -- tables ------------------------------------------------------------------------------------

# Every table option (matches.rules), in the declaration's order.
RULE_FIELDS = list(rule_names())


class TableSerializer(serializers.ModelSerializer[Table]):
    seat0 = PlayerBriefSerializer(read_only=True, allow_null=True)
    seat1 = PlayerBriefSerializer(read_only=True, allow_null=True)
    free_seats = serializers.SerializerMethodField()
    current_match = serializers.SerializerMethodField()

    class Meta:
        model = Table
        fields = ["id", "name", "created_by", "created_at", "seat0", "seat1", "free_seats",
                  "current_match", *RULE_FIELDS]
        read_only_fields = fields

    def get_free_seats(self, table: Table) -> list[int]:
        return [seat for seat, taken in enumerate((table.seat0_id, table.seat1_id)) if not taken]

    def get_current_match(self, table: Table) -> int | None:
        """The id of the match being played at the table, if any."""
        playing = getattr(table, "playing_matches", None)
        if playing is not None:  # prefetched by the view
            return playing[0].pk if playing else None
        match = table.matches.filter(status=MatchStatus.PLAYING).order_by("-pk").first()
        return None if match is None else match.pk


class TableCreateSerializer(serializers.ModelSerializer[Table]):
    """A new table's name and rules; ``clock_preset`` fills in the clock fields (checked by
    :func:`matches.validation.table_options`)."""

    clock_preset = serializers.ChoiceField(
        choices=sorted(TABLE_PRESETS), required=False, write_only=True,
        help_text="A named time control: sets clock_enabled and the clock fields.",
    )
    reserve_for = serializers.PrimaryKeyRelatedField(
        queryset=Player.objects.all(), required=False, allow_null=True, write_only=True,
        help_text="A player's id: the other seat is kept for them.",
    )

    class Meta:
        model = Table
        fields = ["name", "clock_preset", "reserve_for", *RULE_FIELDS]
        extra_kwargs = {"name": {"required": True}, **{
            rule.name: {"min_value": rule.min_value, "max_value": rule.max_value,
                        "allow_null": True, "required": False, "default": None}
            for rule in RULES if rule.kind == "points"}, **{
            rule.name: {"min_value": 0, "max_value": MAX_SECONDS}
            for rule in RULES if rule.kind == "seconds"}}


class TableFilterSerializer(serializers.Serializer[Any]):
    """Query parameters of the table list."""

    public = serializers.BooleanField(required=False, allow_null=True, default=None)
    rated = serializers.BooleanField(required=False, allow_null=True, default=None)
    cube = serializers.BooleanField(required=False, allow_null=True, default=None)
    gammons = serializers.BooleanField(required=False, allow_null=True, default=None)
    clock = serializers.BooleanField(required=False, allow_null=True, default=None)
    match_length = serializers.RegexField(
        r"^(money|[1-9][0-9]?)$", required=False,
        help_text="Points (1-99), or 'money' for money sessions.",
    )
    free_seat = serializers.BooleanField(
        required=False, allow_null=True, default=None,
        help_text="true: at least one seat is free; false: both seats are taken.",
    )


class RematchSerializer(serializers.Serializer[Any]):
    accept = serializers.BooleanField(default=True,
                                      help_text="false withdraws or declines the rematch.")


class TakebackSerializer(serializers.Serializer[Any]):
    answer = serializers.ChoiceField(
        choices=["request", "accept", "decline"],
        help_text="request: take back your last play (casual play, until your opponent acts); "
                  "accept or decline: answer your opponent's request (your own decline "
                  "withdraws yours).")


class SitSerializer(serializers.Serializer[Any]):
    seat = serializers.ChoiceField(choices=[0, 1], required=False, allow_null=True, default=None,
                                   help_text="0 or 1; omit for the first free seat.")
    invite = serializers.CharField(required=False, allow_blank=True, max_length=64,
                                   help_text="A private table's invitation token.")


# -- matches -----------------------------------------------------------------------------------


class MatchSummarySerializer(serializers.ModelSerializer[Match]):
    player0 = PlayerBriefSerializer(read_only=True)
    player1 = PlayerBriefSerializer(read_only=True)
    status = serializers.SerializerMethodField()
    winner = serializers.SerializerMethodField(
        help_text="The winner's seat (0 or 1), as in the state; null while playing or when "
                  "nobody won.")
    winner_player_id = serializers.IntegerField(source="winner_id", read_only=True,
                                                allow_null=True)
    match_length = serializers.IntegerField(source="table.match_length", read_only=True,
                                            allow_null=True)

    class Meta:
        model = Match
        fields = ["id", "table", "player0", "player1", "status", "score0", "score1", "winner",
                  "winner_player_id", "match_length", "version", "started_at", "finished_at"]
        read_only_fields = fields

    def get_status(self, match: Match) -> str:
        return MatchStatus(match.status).name.lower()

    def get_winner(self, match: Match) -> int | None:
        if match.winner_id is None:
            return None
        return 0 if match.winner_id == match.player0_id else 1


class MatchFilterSerializer(serializers.Serializer[Any]):
    status = serializers.ChoiceField(
        choices=[status.name.lower() for status in MatchStatus], required=False,
    )
    # Ids are 64-bit: a larger number is invalid input, not a database overflow.
    player = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1,
                                      help_text="A player's id.")
    table = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1,
                                     help_text="A table's id.")


class SeatStateSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    id = serializers.IntegerField()
    name = serializers.CharField()
    rating = serializers.FloatField()
    pips = serializers.IntegerField()
    score = serializers.IntegerField()
    reserve = serializers.FloatField(allow_null=True, help_text="Clock reserve in seconds.")


class BoardSerializer(serializers.Serializer[Any]):
    points = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Player 0's points 1-24: positive counts are player 0's checkers, "
                  "negative player 1's.",
    )
    bar = serializers.ListField(child=serializers.IntegerField(),
                                help_text="Checkers on the bar of (player 0, player 1).")
    off = serializers.ListField(child=serializers.IntegerField(),
                                help_text="Checkers borne off by (player 0, player 1).")


class CubeSerializer(serializers.Serializer[Any]):
    value = serializers.IntegerField()
    owner = serializers.IntegerField(allow_null=True, help_text="null: centred.")
    may_double = serializers.BooleanField()


class ResignOfferSerializer(serializers.Serializer[Any]):
    player = serializers.IntegerField(help_text="The seat that offered to resign.")
    level = serializers.IntegerField(help_text="1 single game, 2 gammon, 3 backgammon.")


class LegalPlaySerializer(serializers.Serializer[Any]):
    notation = serializers.CharField(help_text="Send this as `play` ('' is a pass).")
    moves = serializers.ListField(
        child=serializers.ListField(child=serializers.JSONField()),
        help_text="[from, to, hit] in the mover's numbering (25 bar, 0 off).",
    )
    position_id = serializers.CharField()


class ClientSeedsStateSerializer(serializers.Serializer[Any]):
    open = serializers.BooleanField(help_text="True until the first roll: send yours now.")
    due = serializers.DateTimeField(allow_null=True,
                                    help_text="When the window closes (a missing seed is "
                                              "then recorded empty).")
    sent = serializers.ListField(child=serializers.BooleanField(),
                                 help_text="Whether player 0 and player 1 have sent one.")


class ClientSeedSerializer(serializers.Serializer[Any]):
    """A player's contribution to the dice of a match (docs/dice.md)."""

    seed = serializers.RegexField(
        r"^([0-9a-fA-F]{2}){0,64}$", allow_blank=True,
        help_text="0 to 64 random bytes in hex (32 recommended, from a CSPRNG).")


class MatchStateSerializer(serializers.Serializer[Any]):
    """The state of a match (documents ``matches.selectors.match_state``)."""

    type = serializers.CharField(help_text="Always 'state'.")
    protocol = serializers.IntegerField(help_text="The protocol version (docs/protocol.md).")
    match_id = serializers.IntegerField()
    table_id = serializers.IntegerField()
    version = serializers.IntegerField(help_text="Send it back as expected_version.")
    status = serializers.CharField()
    phase = serializers.CharField(
        help_text="opening_roll, turn_start, cube_offered, move, game_over or match_over.",
    )
    game_number = serializers.IntegerField()
    match_length = serializers.IntegerField(allow_null=True)
    rules = serializers.DictField(child=serializers.JSONField())
    crawford = serializers.BooleanField()
    players = SeatStateSerializer(many=True)
    score = serializers.ListField(child=serializers.IntegerField())
    board = BoardSerializer()
    player_on_roll = serializers.IntegerField(allow_null=True)
    player_to_act = serializers.IntegerField(allow_null=True)
    resign_offer = ResignOfferSerializer(
        allow_null=True, help_text="A resignation waiting for player_to_act's accept_resign or "
                                   "reject_resign; null when none.")
    dice = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    cube = CubeSerializer()
    deadline = serializers.DateTimeField(allow_null=True)
    clock = serializers.DictField(child=serializers.JSONField(), allow_null=True)
    position_id = serializers.CharField()
    gnubg_match_id = serializers.CharField()
    your_seat = serializers.IntegerField(allow_null=True)
    viewer_id = serializers.IntegerField(allow_null=True, help_text="Your player id.")
    server_time = serializers.FloatField(help_text="The server's clock, epoch seconds.")
    winner = serializers.IntegerField(allow_null=True, help_text="The match winner's seat.")
    winner_player_id = serializers.IntegerField(allow_null=True)
    games = serializers.ListField(
        child=serializers.DictField(child=serializers.JSONField()),
        help_text="Earlier games as summaries (no events), the current game last with its "
                  "events; GET .../history/ has every event.")
    dice_commitment = serializers.CharField()
    rematch_offers = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Once the match is over: the seats whose player asked for a rematch.")
    takeback = serializers.DictField(
        child=serializers.IntegerField(), allow_null=True,
        help_text='{"asked_by": seat} while a takeback request waits for its answer; else null.')
    never_double = serializers.ListField(
        child=serializers.IntegerField(),
        help_text='The seats whose player chose "never double" in this match.')
    client_seeds = ClientSeedsStateSerializer(
        help_text="Whether the match still takes client seeds (before its first roll) and "
                  "who has sent one.")
    legal_plays = LegalPlaySerializer(
        many=True, allow_null=True,
        help_text="Only for the player who must play now; null otherwise.",
    )
    table = serializers.DictField(child=serializers.JSONField(),
                                  help_text="The table: name, rules, seats, playing.")


class MatchHistorySerializer(serializers.Serializer[Any]):
    """Every game of a match with all its events."""

    type = serializers.CharField(help_text="Always 'history'.")
    protocol = serializers.IntegerField()
    match_id = serializers.IntegerField()
    version = serializers.IntegerField()
    games = serializers.ListField(child=serializers.DictField(child=serializers.JSONField()))


class EventSerializer(serializers.ModelSerializer[Event]):
    actor: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True,
    )

    class Meta:
        model = Event
        fields = ["sequence", "game_number", "kind", "actor", "payload", "created_at"]
        read_only_fields = fields


class ActionSerializer(serializers.Serializer[Any]):
    """A player's action on the version of the match they saw (checked by
    :func:`matches.validation.action_input`, as on the socket)."""

    action = serializers.ChoiceField(
        choices=list(ACTIONS),
        help_text="end_session closes a money session (resigning a game in progress).",
    )
    play = serializers.CharField(
        required=False, allow_blank=True, trim_whitespace=True,
        help_text="For action=play: one of legal_plays[].notation ('' passes when that is "
                  "the only play).",
    )
    level = serializers.IntegerField(
        required=False, min_value=1, max_value=3,
        help_text="For action=resign on a table whose rules.resignation is 'offer': 1 single "
                  "game, 2 gammon, 3 backgammon (times the cube); the opponent then sends "
                  "accept_resign or reject_resign.",
    )
    expected_version = serializers.IntegerField(min_value=0)


class DiceRollAuditSerializer(serializers.Serializer[Any]):
    sequence = serializers.IntegerField(help_text="The event that logged the roll.")
    kind = serializers.CharField(help_text="opening_roll or roll.")
    game = serializers.IntegerField(help_text="The game the roll was made in, from 1.")
    dice = serializers.ListField(child=serializers.IntegerField())
    scripted = serializers.BooleanField()
    recomputed = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    matches = serializers.BooleanField(allow_null=True)


class DiceAuditSerializer(serializers.Serializer[Any]):
    algorithm = serializers.CharField(
        help_text="tavla-dice-1 (server seed and both client seeds, docs/dice.md); "
                  "tavla-dice-0 for matches from before client seeds.")
    commitment = serializers.CharField(help_text="SHA-256 of the seed, published at the start.")
    client_seeds = serializers.ListField(
        child=serializers.CharField(allow_blank=True), allow_null=True, min_length=2,
        max_length=2,
        help_text="Player 0's and player 1's client seeds (hex; '' for none sent), once the "
                  "first roll is made; null before.")
    seed_revealed = serializers.BooleanField()
    seed = serializers.CharField(allow_null=True, help_text="Hex; revealed when the match ends.")
    commitment_matches = serializers.BooleanField(allow_null=True)
    dice_were_scripted = serializers.BooleanField()
    scripted_rolls = serializers.IntegerField()
    dice_used = serializers.IntegerField(
        help_text="How many fair dice the seed has given: two per fair roll.")
    rolls = DiceRollAuditSerializer(many=True)
    verified = serializers.BooleanField(
        allow_null=True,
        help_text="After the end: the seed matches the commitment and every fair roll "
                  "recomputes to the logged one; null before the end.",
    )
    detail = serializers.CharField()


class TokenRequestSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    password = serializers.CharField(style={"input_type": "password"}, trim_whitespace=False)


class TokenSerializer(serializers.Serializer[Any]):
    token = serializers.CharField(help_text="Send as the header `Authorization: Token <token>`.")
    player = PlayerSerializer()


# -- a player's match history ------------------------------------------------------------------


class TournamentBriefSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()


class HistoryRowSerializer(serializers.Serializer[Any]):
    """One match of a player's history, from that player's side
    (:class:`matches.players.history.HistoryRow`)."""

    id = serializers.IntegerField(source="match.pk")
    table = serializers.IntegerField(source="match.table_id")
    status = serializers.SerializerMethodField()
    started_at = serializers.DateTimeField(source="match.started_at")
    finished_at = serializers.DateTimeField(source="match.finished_at", allow_null=True)
    opponent = PlayerBriefSerializer()
    score = serializers.ListField(child=serializers.IntegerField(),
                                  help_text="The player's score, then the opponent's.")
    result = serializers.ChoiceField(
        source="outcome", choices=["won", "lost", "playing", "none"],
        help_text="For the player: won, lost, playing (not over), none (voided, or a money "
                  "session ended without a winner).")
    match_length = serializers.IntegerField(source="match.match_length", allow_null=True,
                                            help_text="null: a money session.")
    rated = serializers.BooleanField(source="match.rated")
    rating_change = serializers.FloatField(allow_null=True,
                                           help_text="The player's rating change, if rated.")
    tournament = serializers.SerializerMethodField()
    review_url = serializers.SerializerMethodField(
        help_text="The review page (a match being played: its table's page).")
    mat_url = serializers.SerializerMethodField(
        help_text="The Jellyfish .mat export; null while the match is being played.")

    def get_status(self, row: Any) -> str:
        return MatchStatus(row.match.status).name.lower()

    @extend_schema_field(TournamentBriefSerializer(allow_null=True))
    def get_tournament(self, row: Any) -> dict[str, Any] | None:
        if row.tournament_id is None:
            return None
        return {"id": row.tournament_id, "name": row.tournament_name}

    # Reversed once per page, not once per row (matches.players.history.link_maker); not at
    # import, when the URLs are still being loaded.
    @cached_property
    def _links(self) -> dict[str, Callable[[int], str]]:
        return {name: link_maker(name) for name in ("match-review", "table", "api-match-mat")}

    def get_review_url(self, row: Any) -> str:
        if not row.finished:
            return self._links["table"](row.match.table_id)
        return self._links["match-review"](row.match.pk)

    def get_mat_url(self, row: Any) -> str | None:
        return self._links["api-match-mat"](row.match.pk) if row.finished else None


class HistoryPageSerializer(serializers.Serializer[Any]):
    count = serializers.IntegerField(help_text="Matches that fit the filters, on every page.")
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    page_size = serializers.IntegerField()
    next = serializers.CharField(allow_null=True, help_text="The next (older) page's URL.")
    previous = serializers.CharField(allow_null=True,
                                     help_text="The previous (newer) page's URL.")
    results = HistoryRowSerializer(many=True)
