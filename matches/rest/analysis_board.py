"""The analysis board, hints and the practice drill over REST (docs/analysis.md).

``POST /api/analysis/board/`` asks gnubg about a position (202 while a worker evaluates, 200
when the same question was answered before); ``GET /api/analysis/requests/<id>/`` polls it;
``POST /api/matches/<id>/hint/`` asks for a hint in unrated practice against the bot;
``GET /api/practice/`` gives the next drill item due and ``POST
/api/practice/<id>/answer/`` answers it. All need a logged-in player.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from matches import services
from matches.errors import ServiceError
from matches.gnubg.board import (
    READY,
    board_request,
    hint_request,
    question_from,
    request_for,
    request_json,
)
from matches.gnubg.practice import drill_answer, practice_json
from matches.models import AnalysisRequest
from matches.rest.errors import service_error_response
from matches.rest.serializers import ErrorSerializer
from matches.rest.views import TavlaAPIMixin, body_of

_TEXTS = {
    400: "invalid_position (naming the field), invalid_play or invalid_option.",
    401: "Not logged in.",
    403: "live_position (the position of your own match in progress), hints_not_allowed, "
         "not_a_player.",
    404: "No such object of yours.",
    409: "no_decision, match_over.",
    429: "too_many_analyses: the account's bound on analysis requests waiting for gnubg.",
}


def _errors(*codes: int) -> dict[int, OpenApiResponse]:
    return {code: OpenApiResponse(ErrorSerializer, description=_TEXTS[code]) for code in codes}


class BoardQuestionSerializer(serializers.Serializer[dict[str, Any]]):
    xgid = serializers.CharField(required=False, help_text="An XGID (with or without XGID=).")
    position_id = serializers.CharField(required=False, help_text="GNU Backgammon Position "
                                        "ID, from the side of the player on roll.")
    match_id = serializers.CharField(required=False, help_text="GNU Backgammon Match ID.")
    dice = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=6),
                                 min_length=2, max_length=2, required=False, allow_null=True,
                                 help_text="The roll to play; null for the cube decision.")
    plies = serializers.IntegerField(required=False, min_value=0, max_value=2, default=0)


class AnalysisRequestSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    kind = serializers.CharField(help_text="board or hint.")
    status = serializers.ChoiceField(["evaluating", "ready", "timed_out", "failed"])
    decision = serializers.ChoiceField(["checker", "cube"])
    plies = serializers.IntegerField()
    position_id = serializers.CharField()
    match_id = serializers.CharField()
    xgid = serializers.CharField()
    dice = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    player_on_roll = serializers.IntegerField()
    board = serializers.DictField(help_text="points, bar, off from the player on roll's side.")
    match = serializers.IntegerField(allow_null=True)
    match_version = serializers.IntegerField(allow_null=True)
    share_url = serializers.CharField()
    answer = serializers.DictField(allow_null=True, help_text=(
        "When ready: plays [{play, equity, loss}] best first, or cube {no_double, "
        "double_take, double_pass, verdict, best, response, ...}; and engine."))
    detail = serializers.CharField()


def _request_response(row: AnalysisRequest) -> Response:
    data = request_json(row)
    return Response(data, status=200 if data["status"] == READY else 202)


class AnalysisBoardView(TavlaAPIMixin):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        operation_id="analysis_board", summary="Ask gnubg about a position",
        request=BoardQuestionSerializer,
        responses={200: AnalysisRequestSerializer,
                   202: OpenApiResponse(AnalysisRequestSerializer,
                                        description="Queued: poll its analysis request."),
                   **_errors(400, 401, 403, 429)},
        tags=["analysis"])
    def post(self, request: Request) -> Response:
        player = services.player_for_user(request.user)
        try:
            row = board_request(player=player, question=question_from(body_of(request)))
        except ServiceError as error:
            return service_error_response(error)
        return _request_response(row)


class AnalysisRequestView(TavlaAPIMixin):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        operation_id="analysis_request", summary="An analysis board question or hint, and "
        "its answer once a worker gave it",
        responses={200: AnalysisRequestSerializer,
                   202: OpenApiResponse(AnalysisRequestSerializer,
                                        description="Still evaluating."),
                   **_errors(401, 404)},
        tags=["analysis"])
    def get(self, request: Request, pk: int) -> Response:
        try:
            row = request_for(pk, services.player_for_user(request.user))
        except ServiceError as error:
            return service_error_response(error)
        return _request_response(row)


class HintView(TavlaAPIMixin):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        operation_id="matches_hint", summary="gnubg's hint in unrated practice against the bot",
        request=None,
        responses={200: AnalysisRequestSerializer,
                   202: OpenApiResponse(AnalysisRequestSerializer,
                                        description="Queued: poll its analysis request."),
                   **_errors(401, 403, 404, 409, 429)},
        tags=["analysis"])
    def post(self, request: Request, pk: int) -> Response:
        try:
            row = hint_request(match_id=pk, player=services.player_for_user(request.user))
        except ServiceError as error:
            return service_error_response(error)
        return _request_response(row)


class DrillItemSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    kind = serializers.CharField(help_text="The decision of the match, as the analysis "
                                 "calls it: move, double, no_double, take or drop.")
    question = serializers.ChoiceField(["checker", "double", "take"])
    board = serializers.DictField()
    dice = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    cube = serializers.DictField()
    score = serializers.ListField(child=serializers.IntegerField())
    match_length = serializers.IntegerField()
    crawford = serializers.BooleanField()
    box = serializers.IntegerField()
    due_at = serializers.DateTimeField()
    match = serializers.IntegerField()
    game = serializers.IntegerField()
    position_id = serializers.CharField()
    match_id = serializers.CharField()
    legal_plays = serializers.ListField(child=serializers.DictField(), allow_null=True)


class PracticeSerializer(serializers.Serializer[dict[str, Any]]):
    items = serializers.IntegerField()
    due = serializers.IntegerField()
    boxes = serializers.DictField(child=serializers.IntegerField())
    next_due_at = serializers.DateTimeField(allow_null=True)
    item = DrillItemSerializer(allow_null=True)


class DrillAnswerSerializer(serializers.Serializer[dict[str, Any]]):
    answer = serializers.CharField(help_text="A play's notation, double, no_double, take or "
                                             "pass.")


class DrillResultSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    right = serializers.BooleanField()
    loss = serializers.FloatField()
    answer = serializers.CharField()
    best = serializers.CharField()
    played = serializers.CharField()
    played_loss = serializers.FloatField()
    mark = serializers.CharField()
    answers = serializers.DictField()
    box = serializers.IntegerField()
    due_at = serializers.DateTimeField()


class PracticeView(TavlaAPIMixin):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(operation_id="practice", summary="Your drill: the next item due",
                   responses={200: PracticeSerializer, **_errors(401)}, tags=["analysis"])
    def get(self, request: Request) -> Response:
        return Response(practice_json(services.player_for_user(request.user)))


class DrillAnswerView(TavlaAPIMixin):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(operation_id="practice_answer", summary="Answer a drill item",
                   request=DrillAnswerSerializer,
                   responses={200: DrillResultSerializer, **_errors(400, 401, 404)},
                   tags=["analysis"])
    def post(self, request: Request, pk: int) -> Response:
        body = body_of(request)
        answer = body.get("answer") if isinstance(body, dict) else None
        try:
            result = drill_answer(player=services.player_for_user(request.user), item_id=pk,
                                  answer=answer)
        except ServiceError as error:
            return service_error_response(error)
        return Response(result)
