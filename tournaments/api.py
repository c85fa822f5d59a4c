"""The REST API of tournaments, mounted at ``/api/tournaments/``: thin callers of
:mod:`tournaments.services` and :mod:`tournaments.selectors`.

- ``GET /api/tournaments/`` and ``GET /api/tournaments/<id>/``
- ``GET .../<id>/entries/``, ``GET .../<id>/standings/``, ``GET .../<id>/bracket/``,
  ``GET .../<id>/placings/`` (places 1 to 4 of main, consolation and last chance)
- ``POST .../<id>/register/``, ``.../<id>/withdraw/``, ``.../<id>/check-in/`` (logged in)
- ``POST .../<id>/pairings/<pairing id>/report/`` with ``winner`` (entry id) and optional
  ``winner_points`` and ``loser_points``; ``.../confirm/``; ``.../reject/`` (over the board)

Anyone may read; writing needs a logged-in user (session or ``Authorization: Token``).
Errors are ``{"error": code, "detail": text}`` with the code's status in
:data:`matches.errors.ERROR_STATUS` (codes: docs/tournaments.md); a refused request changes
nothing.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, viewsets
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from matches.errors import ServiceError
from matches.rest.errors import service_error_response
from matches.services import player_for_user
from tournaments import selectors, services
from tournaments.models import Eligibility, Pairing, Tournament


class EntrySerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    player_id = serializers.IntegerField()
    name = serializers.CharField()
    rating = serializers.FloatField()
    seed = serializers.IntegerField(allow_null=True)
    status = serializers.CharField()
    checked_in = serializers.BooleanField()


class StandingSerializer(EntrySerializer):
    rank = serializers.IntegerField(allow_null=True)
    wins = serializers.IntegerField()
    losses = serializers.IntegerField()
    byes = serializers.IntegerField()
    tiebreaks = serializers.DictField(child=serializers.IntegerField())


class DivisionSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    order = serializers.IntegerField()
    eligibility = serializers.ChoiceField(choices=Eligibility.choices)
    eligibility_text = serializers.CharField()
    min_rating = serializers.FloatField(allow_null=True)
    max_rating = serializers.FloatField(allow_null=True)
    min_experience = serializers.IntegerField(allow_null=True)
    max_experience = serializers.IntegerField(allow_null=True)
    format = serializers.CharField()
    status = serializers.CharField()
    entries = serializers.IntegerField()
    url = serializers.CharField()


class TournamentSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    description = serializers.CharField()
    format = serializers.CharField()
    format_options = serializers.DictField()
    seeding = serializers.CharField()
    rng_seed = serializers.IntegerField(allow_null=True)
    status = serializers.CharField()
    match_lengths = serializers.ListField(child=serializers.IntegerField())
    over_the_board = serializers.BooleanField()
    no_show_minutes = serializers.IntegerField(allow_null=True)
    late_penalty = serializers.DictField(
        child=serializers.IntegerField(), allow_null=True,
        help_text="Late-arrival penalty: {points, per_minutes} to the opponent, or null.")
    entries = serializers.IntegerField()
    max_entries = serializers.IntegerField(allow_null=True)
    champion = EntrySerializer(allow_null=True)
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    url = serializers.CharField()
    event = serializers.IntegerField(allow_null=True,
                                     help_text="For a division: the event it belongs to.")
    division = DivisionSerializer(allow_null=True)
    divisions = DivisionSerializer(many=True, help_text="For an event: its divisions.")
    placings = serializers.ListField(
        child=serializers.DictField(), required=False,
        help_text="One tournament only: places 1 to 4 of each flight (see placings/).")


class PlaceSerializer(EntrySerializer):
    place = serializers.IntegerField()


class PlacingsSerializer(serializers.Serializer[Any]):
    flight = serializers.ChoiceField(choices=["main", "consolation", "last_chance"])
    label = serializers.CharField()  # type: ignore[assignment]  # the field is named label
    places = PlaceSerializer(many=True)


class ReportSerializer(serializers.Serializer[Any]):
    winner = serializers.IntegerField(help_text="The winner's entry id.")
    winner_points = serializers.IntegerField(required=False, allow_null=True, min_value=0)
    loser_points = serializers.IntegerField(required=False, allow_null=True, min_value=0)


class TournamentViewSet(viewsets.GenericViewSet[Tournament]):
    authentication_classes = [TokenAuthentication, SessionAuthentication]
    permission_classes = [permissions.IsAuthenticatedOrReadOnly]
    serializer_class = TournamentSerializer

    def get_queryset(self) -> Any:
        return selectors.visible_tournaments(self.request.user)

    def _tournament(self, pk: Any) -> Tournament:
        try:
            return self.get_queryset().get(pk=int(pk))
        except (Tournament.DoesNotExist, ValueError):
            raise Http404 from None

    def list(self, request: Request) -> Response:
        return Response([selectors.tournament_dict(t) for t in self.get_queryset()])

    def retrieve(self, request: Request, pk: Any = None) -> Response:
        tournament = self._tournament(pk)
        return Response({**selectors.tournament_dict(tournament),
                         "placings": selectors.placings(tournament)})

    @extend_schema(responses=EntrySerializer(many=True))
    @action(detail=True, methods=["get"])
    def entries(self, request: Request, pk: Any = None) -> Response:
        tournament = self._tournament(pk)
        entries = [selectors.entry_dict(e) for e in selectors.entries_of(tournament)]
        for division in tournament.divisions.order_by("division_order", "pk"):
            # An event lists its divisions' entries too, each saying which division.
            entries += [{**selectors.entry_dict(e), "division": division.name}
                        for e in selectors.entries_of(division)]
        return Response(entries)

    @extend_schema(responses=PlacingsSerializer(many=True))
    @action(detail=True, methods=["get"])
    def placings(self, request: Request, pk: Any = None) -> Response:
        """Places 1 to 4 of each flight (main, consolation, last chance) once settled."""
        return Response(selectors.placings(self._tournament(pk)))

    @extend_schema(responses=StandingSerializer(many=True))
    @action(detail=True, methods=["get"])
    def standings(self, request: Request, pk: Any = None) -> Response:
        return Response(selectors.standings(self._tournament(pk)))

    @extend_schema(responses=OpenApiTypes.OBJECT)
    @action(detail=True, methods=["get"])
    def bracket(self, request: Request, pk: Any = None) -> Response:
        """Every pairing by bracket and round, with players, results and live tables."""
        return Response(selectors.bracket(self._tournament(pk)))

    def _entry_call(self, request: Request, pk: Any, call: Any) -> Response:
        tournament = self._tournament(pk)
        try:
            entry = call(tournament, player_for_user(request.user))
        except ServiceError as error:
            return service_error_response(error)
        entry.refresh_from_db()
        return Response(selectors.entry_dict(entry))

    @extend_schema(request=None, responses=EntrySerializer)
    @action(detail=True, methods=["post"])
    def register(self, request: Request, pk: Any = None) -> Response:
        return self._entry_call(request, pk, lambda t, p: services.entry_register(
            tournament_id=t.pk, player=p))

    @extend_schema(request=None, responses=EntrySerializer)
    @action(detail=True, methods=["post"])
    def withdraw(self, request: Request, pk: Any = None) -> Response:
        return self._entry_call(request, pk, lambda t, p: services.player_withdraw(
            tournament_id=t.pk, player=p))

    @extend_schema(request=None, responses=EntrySerializer)
    @action(detail=True, methods=["post"], url_path="check-in")
    def check_in(self, request: Request, pk: Any = None) -> Response:
        return self._entry_call(request, pk, lambda t, p: services.entry_check_in(
            tournament_id=t.pk, player=p))

    def _pairing_call(self, pk: Any, pairing_id: Any, call: Any) -> Response:
        tournament = self._tournament(pk)
        if not Pairing.objects.filter(pk=int(pairing_id), tournament=tournament).exists():
            raise Http404
        try:
            row = call(int(pairing_id))
        except ServiceError as error:
            return service_error_response(error)
        row = Pairing.objects.select_related("round", "entry_a__player",
                                             "entry_b__player").get(pk=row.pk)
        return Response(selectors.pairing_dict(row, selectors.live_matches(tournament)))

    @extend_schema(request=ReportSerializer, responses=OpenApiTypes.OBJECT)
    @action(detail=True, methods=["post"], url_path=r"pairings/(?P<pairing_id>\d+)/report")
    def report(self, request: Request, pk: Any = None, pairing_id: Any = None) -> Response:
        """The winner of a match played over the board reports it."""
        data = ReportSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return self._pairing_call(pk, pairing_id, lambda pid: services.pairing_report(
            pairing_id=pid, user=request.user, winner_entry_id=data.validated_data["winner"],
            winner_points=data.validated_data.get("winner_points"),
            loser_points=data.validated_data.get("loser_points")))

    @extend_schema(request=None, responses=OpenApiTypes.OBJECT)
    @action(detail=True, methods=["post"], url_path=r"pairings/(?P<pairing_id>\d+)/confirm")
    def confirm(self, request: Request, pk: Any = None, pairing_id: Any = None) -> Response:
        """The opponent (or a referee) confirms a report; never the reporter."""
        return self._pairing_call(pk, pairing_id, lambda pid: services.pairing_confirm(
            pairing_id=pid, user=request.user))

    @extend_schema(request=None, responses=OpenApiTypes.OBJECT)
    @action(detail=True, methods=["post"], url_path=r"pairings/(?P<pairing_id>\d+)/reject")
    def reject(self, request: Request, pk: Any = None, pairing_id: Any = None) -> Response:
        data = request.data if isinstance(request.data, dict) else {}
        reason = str(data.get("reason", ""))
        return self._pairing_call(pk, pairing_id, lambda pid: services.pairing_reject_report(
            pairing_id=pid, user=request.user, reason=reason))
