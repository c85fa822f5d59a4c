"""Finding a game over REST: seeks, challenges, follows and who is online.

Thin callers of :mod:`matches.services.seeks`, :mod:`matches.services.challenges` and
:mod:`matches.services.follows`; the live side (``seek.paired``, ``challenge.*``) reaches the
player's ``/ws/notices/`` sockets. See docs/protocol.md ("Finding a game").
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from matches import validation
from matches.errors import ServiceError
from matches.models import Player, Seek
from matches.rest.serializers import ErrorSerializer
from matches.rest.views import TavlaAPIMixin, body_of, viewer_of
from matches.services import player_for_user
from matches.services.challenges import (
    challenge_accept,
    challenge_cancel,
    challenge_data,
    challenge_decline,
    challenge_send,
    challenges_of,
    find_player,
)
from matches.services.follows import follow, followed_tables, online_players, unfollow
from matches.services.seeks import open_seeks, seek_cancel, seek_data, seek_post
from tavla.engine.clock import PRESETS


def _errors(**codes: str) -> dict[int, OpenApiResponse]:
    return {int(code[1:]): OpenApiResponse(ErrorSerializer, description=text)
            for code, text in codes.items()}


# -- documentation of the shapes ---------------------------------------------------------------


class SeekerSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    rating = serializers.IntegerField()


class TermsSerializer(serializers.Serializer[Any]):
    """The terms of a seek or a challenge (the table's other rules are the defaults)."""

    match_length = serializers.IntegerField(min_value=1, max_value=validation.MAX_SEEK_LENGTH,
                                            required=False, default=5,
                                            help_text="Points, 1 to 25 (default 5).")
    clock_preset = serializers.ChoiceField(choices=sorted(PRESETS), required=False,
                                           default="none",
                                           help_text="A named time control (default none).")
    rated = serializers.BooleanField(required=False, default=False,
                                     help_text="Change both ratings (default false).")


class SeekSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    player = SeekerSerializer()
    match_length = serializers.IntegerField()
    clock_preset = serializers.CharField()
    rated = serializers.BooleanField()
    status = serializers.ChoiceField(choices=["open", "paired", "cancelled", "expired"])
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    table_id = serializers.IntegerField(allow_null=True, help_text="The table, once paired.")
    table_url = serializers.CharField(allow_null=True)
    mine = serializers.BooleanField(help_text="Posted by you.")


class ChallengeRequestSerializer(TermsSerializer):
    player = serializers.IntegerField(required=False, help_text="The challenged player's id.")
    username = serializers.CharField(required=False, help_text="Or their user or display name.")


class ChallengeSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    challenger = SeekerSerializer()
    challenged = SeekerSerializer()
    match_length = serializers.IntegerField()
    clock_preset = serializers.CharField()
    rated = serializers.BooleanField()
    status = serializers.ChoiceField(
        choices=["open", "accepted", "declined", "cancelled", "expired"])
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    table_id = serializers.IntegerField(allow_null=True, help_text="The table, once accepted.")
    table_url = serializers.CharField(allow_null=True)


class ChallengeListSerializer(serializers.Serializer[Any]):
    incoming = ChallengeSerializer(many=True)
    outgoing = ChallengeSerializer(many=True)


class TableBriefSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    url = serializers.CharField()
    playing = serializers.BooleanField(help_text="A match is being played there.")
    free_seat = serializers.BooleanField(help_text="A seat is free to take.")


class OnlinePlayerSerializer(SeekerSerializer):
    followed = serializers.BooleanField(help_text="You follow this player.")
    me = serializers.BooleanField()
    table = TableBriefSerializer(allow_null=True, help_text="Their public table now.")


class FollowRequestSerializer(serializers.Serializer[Any]):
    player = serializers.IntegerField(help_text="The id of the player to follow.")


class FollowedSerializer(serializers.Serializer[Any]):
    player = SeekerSerializer()
    online = serializers.BooleanField()
    table = TableBriefSerializer(allow_null=True, help_text="Their public table now.")


def _object(request: Request) -> dict[str, Any]:
    return validation.message_object(body_of(request))


def _player_field(data: dict[str, Any], name: str = "player") -> Player:
    value = data.get(name)
    if value is None:
        raise ServiceError("invalid_option",
                           _("%(name)s is a player's id.") % {"name": name}, field=name)
    return find_player(player_id=validation.object_id(value, name))


# -- seeks ---------------------------------------------------------------------------------------


class SeekListView(TavlaAPIMixin):
    @extend_schema(summary="The open seeks, oldest first", tags=["finding a game"],
                   responses={200: SeekSerializer(many=True)})
    def get(self, request: Request) -> Response:
        viewer = viewer_of(request)
        return Response([seek_data(seek, viewer=viewer) for seek in open_seeks()])

    @extend_schema(
        summary="Seek a game: paired at once with an open seek of the same terms",
        description="201 with the seek: `status` `paired` with its `table_id` when another "
                    "player's open seek had the same terms (both players' `/ws/notices/` "
                    "get `seek.paired`), else `open`. Refused: `409 seek_exists`, "
                    "`429 too_many_seeks`, `400 invalid_option`; nothing changes.",
        tags=["finding a game"], request=TermsSerializer,
        responses={201: SeekSerializer, **_errors(
            s400="invalid_option, bad_request", s401="Not logged in.",
            s403="forbidden (a bot)", s409="seek_exists",
            s429="too_many_seeks")})
    def post(self, request: Request) -> Response:
        player = player_for_user(request.user)
        seek = seek_post(player=player, terms=validation.game_terms(_object(request)))
        fresh = Seek.objects.select_related("player").get(pk=seek.pk)
        return Response(seek_data(fresh, viewer=player), status=status.HTTP_201_CREATED)


class SeekDetailView(TavlaAPIMixin):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Withdraw your open seek", tags=["finding a game"],
                   responses={204: None, **_errors(s401="Not logged in.",
                                                  s404="not_found", s409="seek_closed")})
    def delete(self, request: Request, pk: int) -> Response:
        seek_cancel(seek_id=pk, player=player_for_user(request.user))
        return Response(status=status.HTTP_204_NO_CONTENT)


# -- challenges ----------------------------------------------------------------------------------


class ChallengeListView(TavlaAPIMixin):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Your open challenges, sent and received", tags=["finding a game"],
                   responses={200: ChallengeListSerializer, **_errors(s401="Not logged in.")})
    def get(self, request: Request) -> Response:
        return Response(challenges_of(player_for_user(request.user)))

    @extend_schema(
        summary="Challenge a player (by id or name)",
        description="201 with the challenge; the challenged player's `/ws/notices/` get "
                    "`challenge.received`. Refused: `404 not_found` (no such player), "
                    "`400 invalid_option` (yourself, a bot, bad terms), `403 forbidden` "
                    "(a block between you), `409 challenge_exists`, "
                    "`429 too_many_challenges`; nothing changes.",
        tags=["finding a game"], request=ChallengeRequestSerializer,
        responses={201: ChallengeSerializer, **_errors(
            s400="invalid_option, bad_request", s401="Not logged in.", s403="forbidden",
            s404="not_found", s409="challenge_exists",
            s429="too_many_challenges")})
    def post(self, request: Request) -> Response:
        challenger = player_for_user(request.user)
        data = _object(request)
        terms = validation.game_terms(data, extra=("player", "username"))
        if data.get("player") is not None:
            challenged = _player_field(data)
        else:
            name = data.get("username")
            if not isinstance(name, str) or not name.strip():
                raise ServiceError("invalid_option",
                                              _("Name the player: player (an id) or username."),
                                              field="username")
            challenged = find_player(username=name[:150])
        challenge = challenge_send(challenger=challenger, challenged=challenged, terms=terms)
        return Response(challenge_data(challenge), status=status.HTTP_201_CREATED)


_ANSWER_ERRORS = _errors(s401="Not logged in.", s403="forbidden (not yours to answer)",
                         s404="not_found", s409="challenge_closed")


class ChallengeAcceptView(TavlaAPIMixin):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Accept a challenge: the table opens with both seated",
                   tags=["finding a game"], request=None,
                   responses={200: ChallengeSerializer, **_ANSWER_ERRORS})
    def post(self, request: Request, pk: int) -> Response:
        challenge = challenge_accept(challenge_id=pk, player=player_for_user(request.user))
        return Response(challenge_data(challenge))


class ChallengeDeclineView(TavlaAPIMixin):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Decline a challenge (the challenger is told)",
                   tags=["finding a game"], request=None,
                   responses={200: ChallengeSerializer, **_ANSWER_ERRORS})
    def post(self, request: Request, pk: int) -> Response:
        challenge = challenge_decline(challenge_id=pk, player=player_for_user(request.user))
        return Response(challenge_data(challenge))


class ChallengeDetailView(TavlaAPIMixin):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Withdraw your challenge (the challenged player is told)",
                   tags=["finding a game"], responses={200: ChallengeSerializer,
                                                       **_ANSWER_ERRORS})
    def delete(self, request: Request, pk: int) -> Response:
        challenge = challenge_cancel(challenge_id=pk, player=player_for_user(request.user))
        return Response(challenge_data(challenge))


# -- follows and who is online -----------------------------------------------------------------


class FollowListView(TavlaAPIMixin):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="The players you follow, with their tables now",
                   tags=["finding a game"],
                   responses={200: FollowedSerializer(many=True), **_errors(
                       s401="Not logged in.")})
    def get(self, request: Request) -> Response:
        return Response(followed_tables(player_for_user(request.user)))

    @extend_schema(summary="Follow a player (201; 200 if you already did)",
                   tags=["finding a game"], request=FollowRequestSerializer,
                   responses={201: SeekerSerializer, 200: SeekerSerializer,
                              **_errors(s400="invalid_option (yourself), bad_request",
                                        s401="Not logged in.", s404="not_found",
                                        s409="too_many_follows")})
    def post(self, request: Request) -> Response:
        followed = _player_field(_object(request))
        created = follow(player=player_for_user(request.user), followed=followed)
        return Response({"id": followed.pk, "name": followed.display_name,
                         "rating": round(followed.rating)},
                        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class FollowDetailView(TavlaAPIMixin):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Stop following a player", tags=["finding a game"],
                   responses={204: None, **_errors(s401="Not logged in.",
                                                  s404="not_found")})
    def delete(self, request: Request, pk: int) -> Response:
        unfollow(player=player_for_user(request.user), followed=find_player(player_id=pk))
        return Response(status=status.HTTP_204_NO_CONTENT)


class OnlineView(TavlaAPIMixin):
    @extend_schema(summary="The players online now (a lobby or home page open)",
                   tags=["finding a game"], responses={200: OnlinePlayerSerializer(many=True)})
    def get(self, request: Request) -> Response:
        return Response(online_players(viewer_of(request)))
