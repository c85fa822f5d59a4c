"""``/api/bot-matches/``: the strengths a bot plays at, and starting a match against one.

A thin door to :func:`matches.gnubg.bots.bot_table_create`, which the lobby's "Play the bot"
page calls too: the same checks (:func:`matches.gnubg.bots.bot_match_options`), the same
per-account bound (``TAVLA_BOT_MATCHES_PER_PLAYER``, ``409 too_many_bot_matches``), and a
refused request changes nothing. See docs/protocol.md ("Playing a bot").
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from matches import services
from matches.gnubg.bots import (
    BOT_MATCH_OPTIONS,
    FIXED_RULES,
    bot_match_limit,
    bot_match_options,
    bot_matches_playing,
    bot_table_create,
)
from matches.models import Match, MatchStatus
from matches.rest.serializers import (
    RULE_FIELDS,
    ErrorSerializer,
    TableCreateSerializer,
    TableSerializer,
)
from matches.rest.views import TavlaAPIMixin, body_of, visible_tables
from matches.selectors import match_state
from tavla.analysis.levels import STRENGTHS
from tavla.engine.clock import PRESETS


class StrengthSerializer(serializers.Serializer[Any]):
    key = serializers.CharField(help_text="What to send as `strength`.")
    name = serializers.CharField(help_text="gnubg 1.07's name of the level.")
    plies = serializers.IntegerField(help_text="How deep the bot looks.")
    noise = serializers.FloatField(help_text="The bot's deterministic noise on gnubg's "
                                             "evaluations (calibrated: docs/analysis.md).")
    gnubg_noise = serializers.FloatField(help_text="gnubg 1.07's noise at its level of "
                                                   "this name.")


class BotMatchesSerializer(serializers.Serializer[Any]):
    strengths = StrengthSerializer(many=True, help_text="Weakest first.")
    limit = serializers.IntegerField(help_text="The most bot matches an account plays at "
                                               "once (TAVLA_BOT_MATCHES_PER_PLAYER; 0: none).")
    playing = serializers.IntegerField(allow_null=True,
                                       help_text="How many you play now (null: anonymous).")


class BotMatchRequestSerializer(serializers.Serializer[Any]):
    """Documents the body; :func:`matches.gnubg.bots.bot_match_options` checks it."""

    strength = serializers.ChoiceField(choices=list(STRENGTHS),
                                       help_text="The bot's level (gnubg 1.07's levels).")
    rated = serializers.BooleanField(required=False, default=False,
                                     help_text="Change both ratings (default false).")
    clock_preset = serializers.ChoiceField(
        choices=sorted(PRESETS), required=False, default="none",
        help_text="A named time control (default none); clock fields given too win.")

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        """The table's rules, as ``POST /api/tables/`` describes them (not is_public and
        is_rated: a bot's table is private and rated only with ``rated``)."""
        fields = super().get_fields()
        table_fields = TableCreateSerializer().get_fields()
        for name in RULE_FIELDS:
            if name not in FIXED_RULES and name not in BOT_MATCH_OPTIONS:
                fields[name] = table_fields[name]
        fields["match_length"] = serializers.IntegerField(
            min_value=1, max_value=99, allow_null=True, required=False, default=1,
            help_text="Points (1-99, default 1), or null for a money session.")
        return fields


class BotMatchSerializer(serializers.Serializer[Any]):
    table = TableSerializer(help_text="The new private table (seat 0 you, seat 1 the bot).")
    state = serializers.DictField(help_text="The match's state, for you (as "
                                            "GET /api/matches/<id>/ answers it).")


class BotMatchView(TavlaAPIMixin):
    """``GET``: the strengths and your count; ``POST``: start a match against a bot."""

    def get_permissions(self) -> list[permissions.BasePermission]:
        if self.request.method == "POST":
            return [permissions.IsAuthenticated()]
        return [permissions.AllowAny()]

    @extend_schema(summary="The bots' strengths and the bound on bot matches", tags=["bots"],
                   responses={200: BotMatchesSerializer})
    def get(self, request: Request) -> Response:
        user = request.user
        playing = (bot_matches_playing(services.player_for_user(user))
                   if user and user.is_authenticated else None)
        strengths = [{"key": s.key, "name": s.label, "plies": s.level.plies,
                      "noise": s.level.noise, "gnubg_noise": s.gnubg_noise}
                     for s in STRENGTHS.values()]
        return Response({"strengths": strengths, "limit": bot_match_limit(),
                         "playing": playing})

    @extend_schema(
        summary="Start a match against a bot",
        description="A private table with you in seat 0 and the bot of `strength` in seat 1; "
                    "the match starts at once (201). Any table rule may be given as for "
                    "`POST /api/tables/` except `is_public` and `is_rated`. Refused with "
                    "`409 too_many_bot_matches` when you already play "
                    "`TAVLA_BOT_MATCHES_PER_PLAYER` matches against bots, `400 "
                    "invalid_option` (naming the field) for a bad option; nothing changes.",
        tags=["bots"], request=BotMatchRequestSerializer,
        responses={201: BotMatchSerializer,
                   400: OpenApiResponse(ErrorSerializer, description="invalid_option, "
                                        "bad_request"),
                   409: OpenApiResponse(ErrorSerializer, description="too_many_bot_matches")},
    )
    def post(self, request: Request) -> Response:
        human = services.player_for_user(request.user)
        options = bot_match_options(body_of(request))
        table = bot_table_create(human=human, strength=options.strength, rated=options.rated,
                                 clock_preset=options.clock_preset, **options.rules)
        fresh = visible_tables(human).get(pk=table.pk)
        match = Match.objects.select_related("table", "player0", "player1").get(
            table=table, status=MatchStatus.PLAYING)
        data = dict(TableSerializer(fresh).data)
        data["invite"] = fresh.invite_token
        return Response({"table": data, "state": match_state(match, human)},
                        status=status.HTTP_201_CREATED)
