"""``GET /api/matches/<id>/analysis/``: gnubg's analysis of a finished match.

Readable by whoever may read the match (public tables' matches, and a player's own). A match
in progress is refused (409 ``match_live``): nothing about a live match is ever evaluated
or shown. See docs/analysis.md for the fields.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from matches.errors import ServiceError
from matches.gnubg.analysis import analysis_for, analysis_json
from matches.models import AnalysisStatus
from matches.rest.errors import error_response, service_error_response
from matches.rest.serializers import ErrorSerializer
from matches.rest.views import TavlaAPIMixin, viewer_of
from matches.selectors import visible_matches


class DecisionSerializer(serializers.Serializer[dict[str, object]]):
    game = serializers.IntegerField(help_text="Game number, from 1.")
    index = serializers.IntegerField(help_text="The action's place in its game, from 0.")
    player = serializers.IntegerField(help_text="Seat 0 or 1.")
    kind = serializers.ChoiceField(["move", "double", "no_double", "take", "drop", "resign",
                                    "accept_resign", "reject_resign"])
    position_id = serializers.CharField(help_text="GNU Backgammon Position ID, mover's view.")
    chosen = serializers.CharField(help_text="The play or cube action made.")
    best = serializers.CharField(help_text="gnubg's best play or cube action.")
    equity = serializers.FloatField(help_text="Equity of the choice (normalised, cubeful).")
    best_equity = serializers.FloatField()
    loss = serializers.FloatField(help_text="best_equity - equity, >= 0.")
    mark = serializers.ChoiceField(["", "doubtful", "error", "blunder"])
    counted = serializers.BooleanField(help_text="Counts towards PR (unforced, or a close "
                                                 "or actual cube decision).")
    dice = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    forced = serializers.BooleanField()
    luck = serializers.FloatField(allow_null=True, help_text="This roll's luck (equity).")
    luck_mark = serializers.CharField()
    cube = serializers.DictField(child=serializers.FloatField(), allow_null=True,
                                 help_text="no_double, double_take, double_pass (and mwc_*).")
    resign = serializers.DictField(
        child=serializers.FloatField(), allow_null=True, required=False,
        help_text="A resignation's level (1-3), play_on and resigned: what playing on and the "
                  "resignation are worth to the resigner (and mwc_* in a match). Resignations "
                  "are never counted, as in gnubg.")


class PlayerAnalysisSerializer(serializers.Serializer[dict[str, object]]):
    name = serializers.CharField()
    decisions = serializers.IntegerField()
    checker_decisions = serializers.IntegerField()
    cube_decisions = serializers.IntegerField()
    total_loss = serializers.FloatField()
    doubtful = serializers.IntegerField()
    blunders = serializers.IntegerField()
    rolls = serializers.IntegerField()
    luck = serializers.FloatField()
    pr = serializers.FloatField(help_text="Mean loss per counted decision × 500 (XG, Galaxy).")
    error_rate = serializers.FloatField()
    luck_rate = serializers.FloatField()
    rating = serializers.CharField(help_text="gnubg's error rating words.")
    luck_rating = serializers.CharField(help_text="gnubg's luck rating words.")

    def get_fields(self) -> dict[str, serializers.Field[object, object, object, object]]:
        # "errors" is a Serializer attribute, so that field cannot be declared in the body;
        # get_fields is DRF's public hook for the fields a serializer has.
        fields = super().get_fields()
        fields["errors"] = serializers.IntegerField()
        return fields


class MatchAnalysisSerializer(serializers.Serializer[dict[str, object]]):
    match = serializers.IntegerField()
    status = serializers.ChoiceField(AnalysisStatus.values)
    plies = serializers.IntegerField(help_text="The level the analysis used.")
    engine = serializers.CharField()
    players = PlayerAnalysisSerializer(many=True)
    decisions = DecisionSerializer(many=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    error = serializers.CharField()


class MatchAnalysisView(TavlaAPIMixin):
    @extend_schema(
        operation_id="matches_analysis",
        summary="gnubg's analysis of a finished match",
        responses={
            200: MatchAnalysisSerializer,
            202: OpenApiResponse(MatchAnalysisSerializer,
                                 description="Queued, not made yet (status pending)."),
            404: OpenApiResponse(ErrorSerializer, description="No such match, or none made."),
            409: OpenApiResponse(ErrorSerializer,
                                 description="match_live: the match is being played."),
        },
        tags=["matches"],
    )
    def get(self, request: Request, pk: int) -> Response:
        match = get_object_or_404(visible_matches(viewer_of(request)), pk=pk)
        try:
            analysis = analysis_for(match)
        except ServiceError as error:
            return service_error_response(error)
        if analysis is None:
            return error_response("not_found", "This match has not been analysed.")
        status = 200 if analysis.status == AnalysisStatus.DONE else 202
        return Response(analysis_json(analysis), status=status)


