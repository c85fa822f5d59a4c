"""The write API of the director's desk, for directors and referees, mounted at
``/api/tournaments/`` next to :mod:`tournaments.api`:

- ``GET .../templates/`` — the templates a tournament is created from;
- ``POST .../from-template/`` — create a draft tournament from one (directors);
- ``GET .../<id>/actions/`` — the actions the requester may take now, with their fields;
- ``POST .../<id>/actions/<name>/`` — take one (one operation per action in the schema,
  each with its own input, from :data:`tournaments.desk.ACTIONS`);
- ``GET .../<id>/log/`` — the tournament's log, newest first (directors and referees);
- ``GET .../<id>/money/`` — the money settings, pools, side pools and payouts (the staff);
- ``POST .../players/import/``, ``GET .../players/export/``, ``POST .../players/rating/`` —
  the club's players and ratings (club directors).

The desk's pages take the same actions through the same :func:`tournaments.desk.perform`.
Errors are ``{"error": code, "detail": text}``; a refused request changes nothing.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import permissions, serializers, viewsets
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from matches.errors import ServiceError
from matches.rest.errors import error_response, service_error_response
from tournaments import desk, desk_log, selectors, services, treasury
from tournaments.models import Eligibility, Tournament
from tournaments.permissions import can_see_money
from tournaments.services.creation import TEMPLATES


class TemplateSerializer(serializers.Serializer[Any]):
    key = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # the field is named label
    format = serializers.CharField()
    options = serializers.DictField()
    match_lengths = serializers.ListField(child=serializers.IntegerField())


class CreateSerializer(serializers.Serializer[Any]):
    template = serializers.ChoiceField(choices=sorted(TEMPLATES))
    name = serializers.CharField(max_length=120)
    description = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    match_lengths = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=99), required=False,
        min_length=1, max_length=20, help_text="Points to win, round by round.")
    rounds = serializers.IntegerField(required=False, min_value=1, max_value=30,
                                      help_text="Swiss only: the number of rounds.")
    over_the_board = serializers.BooleanField(required=False, default=False)
    max_entries = serializers.IntegerField(required=False, allow_null=True, min_value=2,
                                           max_value=10000)
    entry_fee = serializers.DecimalField(required=False, max_digits=9, decimal_places=2,
                                         min_value=0)
    seeding = serializers.ChoiceField(choices=["rating", "random"], required=False,
                                      default="rating")
    correspondence_days = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=7,
        help_text="Play by correspondence: days per move instead of the live clock.")
    auto_pair = serializers.BooleanField(
        required=False, default=True,
        help_text="Swiss and round robin: pair each round as soon as the last one is in.")
    payout_table = serializers.CharField(required=False, max_length=60,
                                         help_text="A preset or percentages, e.g. 50/30/20.")
    consolation_percent = serializers.DecimalField(
        required=False, max_digits=5, decimal_places=2, min_value=0, max_value=100,
        help_text="The consolation flight's share of the prize pool.")
    event = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=2**31 - 1,
        help_text="Create a division of this event (a draft to check-in event you direct).")
    eligibility = serializers.ChoiceField(choices=Eligibility.choices, required=False,
                                          default=Eligibility.OPEN,
                                          help_text="A division's: who plays in it.")
    min_rating = serializers.FloatField(required=False, allow_null=True, min_value=0,
                                        max_value=5000)
    max_rating = serializers.FloatField(required=False, allow_null=True, min_value=0,
                                        max_value=5000,
                                        help_text="Below this rating (exclusive).")
    min_experience = serializers.IntegerField(required=False, allow_null=True, min_value=0,
                                              max_value=2**31 - 1)
    max_experience = serializers.IntegerField(required=False, allow_null=True, min_value=0,
                                              max_value=2**31 - 1,
                                              help_text="Below this experience (exclusive).")
    division_order = serializers.IntegerField(required=False, default=0, min_value=0,
                                              max_value=1000)


class ImportSerializer(serializers.Serializer[Any]):
    csv = serializers.CharField(max_length=2_000_000, allow_blank=False, trim_whitespace=False,
                                help_text="The CSV text: name,club,rating,experience.")
    dry_run = serializers.BooleanField(default=True,
                                       help_text="Only report what would change (default).")


class RatingSerializer(serializers.Serializer[Any]):
    player = serializers.IntegerField(min_value=1)
    rating = serializers.FloatField(min_value=0, max_value=5000)
    reason = serializers.CharField(max_length=500)


class FieldSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    type = serializers.CharField()
    required = serializers.BooleanField()  # type: ignore[assignment]  # the field's name
    label = serializers.CharField()  # type: ignore[assignment]  # the field is named label
    choices = serializers.ListField(child=serializers.CharField(), required=False,
                                    help_text="A choice field's values.")


# The tables' REST API has an ActionSerializer too: the schema needs two names.
@extend_schema_serializer(component_name="DeskAction")
class ActionSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # the field is named label
    role = serializers.ChoiceField(choices=[desk.DIRECTOR, desk.REFEREE, "club"])
    target = serializers.ChoiceField(choices=["tournament", "entry", "pairing", "round",
                                              "side_pool", "division"])
    url = serializers.CharField()
    fields = FieldSerializer(many=True)  # type: ignore[assignment]  # the field's name


class ActionResultSerializer(serializers.Serializer[Any]):
    action = serializers.CharField()
    detail = serializers.CharField()
    tournament = serializers.DictField(help_text="The tournament as GET <id>/ gives it.")
    entry = serializers.DictField(required=False, help_text="The entry acted on.")
    pairing = serializers.DictField(required=False, help_text="The pairing acted on.")


class LogLineSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    at = serializers.DateTimeField()
    tournament = serializers.IntegerField()
    actor = serializers.CharField(allow_null=True)
    action = serializers.CharField()
    reason = serializers.CharField()
    data = serializers.DictField()  # type: ignore[assignment]  # the field's name


def csv_response(text: str) -> HttpResponse:
    response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="players.csv"'
    return response


def field_type(field: serializers.Field[Any, Any, Any, Any]) -> str:
    for kind, name in ((serializers.BooleanField, "boolean"),
                       (serializers.IntegerField, "integer"),
                       (serializers.FloatField, "number"),
                       (serializers.DecimalField, "decimal"),
                       (serializers.DateTimeField, "datetime")):
        if isinstance(field, kind):
            return name
    return "string"


def describe_fields(spec: desk.DeskAction) -> list[dict[str, Any]]:
    """An action's input, field by field, for ``GET actions/`` and the desk's forms."""
    described = []
    for name, field in spec.fields().items():
        line: dict[str, Any] = {"name": name, "type": field_type(field),
                                "required": bool(field.required),
                                "label": str(field.label or name)}
        if isinstance(field, serializers.ChoiceField):
            line["choices"] = [str(key) for key in field.choices]
        described.append(line)
    return described


def describe(tournament: Tournament, spec: desk.DeskAction) -> dict[str, Any]:
    return {
        "name": spec.name, "label": str(spec.label), "role": spec.role, "target": spec.target,
        "url": f"/api/tournaments/{tournament.pk}/actions/{spec.name}/",
        "fields": describe_fields(spec),
    }


def log_line(line: Any) -> dict[str, Any]:
    return {"id": line.pk, "at": line.created_at, "tournament": line.tournament_id,
            "actor": line.actor.get_username() if line.actor_id else None,
            "action": line.action, "reason": line.reason, "data": line.data}


class DeskViewSet(viewsets.GenericViewSet[Tournament]):
    authentication_classes = [TokenAuthentication, SessionAuthentication]
    permission_classes = [permissions.IsAuthenticatedOrReadOnly]
    serializer_class = ActionSerializer
    lookup_value_regex = r"[0-9]+"

    def get_queryset(self) -> Any:
        return selectors.visible_tournaments(self.request.user)

    def _tournament(self, pk: Any) -> Tournament:
        try:
            return self.get_queryset().get(pk=int(pk))
        except (Tournament.DoesNotExist, ValueError):
            raise Http404 from None

    @extend_schema(responses=TemplateSerializer(many=True))
    @action(detail=False, methods=["get"])
    def templates(self, request: Request) -> Response:
        """The templates a tournament is created from."""
        return Response([{"key": t.key, "label": str(t.label), "format": t.format,
                          "options": t.options, "match_lengths": list(t.match_lengths)}
                         for t in TEMPLATES.values()])

    @extend_schema(request=CreateSerializer, responses={201: OpenApiTypes.OBJECT})
    @action(detail=False, methods=["post"], url_path="from-template")
    def from_template(self, request: Request) -> Response:
        """Create a draft tournament from a template; its creator directs it."""
        data = CreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            tournament = services.tournament_create_from_template(actor=request.user,
                                                                  **data.validated_data)
        except ServiceError as error:
            return service_error_response(error)
        return Response(selectors.tournament_dict(tournament), status=201)

    @extend_schema(request=ImportSerializer, responses=OpenApiTypes.OBJECT)
    @action(detail=False, methods=["post"], url_path="players/import")
    def players_import(self, request: Request) -> Response:
        """Import players from CSV (club directors): a report line per line; a dry run, or
        a file with any bad line, changes nothing."""
        data = ImportSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        report = services.players_import(csv_text=data.validated_data["csv"],
                                         actor=request.user,
                                         dry_run=data.validated_data["dry_run"])
        return Response(report.as_dict())

    @extend_schema(responses={(200, "text/csv"): OpenApiTypes.STR,
                              403: OpenApiResponse(description="Not a club director.")})
    @action(detail=False, methods=["get"], url_path="players/export")
    def players_export(self, request: Request) -> HttpResponse:
        """Every player as the import's CSV (club directors)."""
        if not request.user.is_authenticated:
            return error_response("not_authenticated", "Log in first.")
        return csv_response(services.players_export(actor=request.user))

    @extend_schema(request=RatingSerializer, responses=OpenApiTypes.OBJECT)
    @action(detail=False, methods=["post"], url_path="players/rating")
    def player_rating(self, request: Request) -> Response:
        """Set a player's club rating with a reason (club directors), logged in the
        player's rating history."""
        data = RatingSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player = services.player_set_rating(player_id=data.validated_data["player"],
                                            rating=data.validated_data["rating"],
                                            actor=request.user,
                                            reason=data.validated_data["reason"])
        return Response({"player": player.pk, "name": player.display_name,
                         "rating": player.rating})

    @extend_schema(responses=ActionSerializer(many=True))
    @action(detail=True, methods=["get"])
    def actions(self, request: Request, pk: Any = None) -> Response:
        """The actions the requester may take now (none for players and anonymous users)."""
        tournament = self._tournament(pk)
        return Response([describe(tournament, spec)
                         for spec in desk.allowed_actions(request.user, tournament)])

    @extend_schema(responses={200: LogLineSerializer(many=True),
                              403: OpenApiResponse(description="Not a referee or director.")})
    @action(detail=True, methods=["get"])
    def log(self, request: Request, pk: Any = None) -> Response:
        """Who did what and why, newest first (its divisions' lines too); directors and
        referees only."""
        tournament = self._tournament(pk)
        if desk.role_of(request.user, tournament) is None:
            return error_response("forbidden", "Only a referee or the director reads the log.")
        return Response([log_line(line) for line in desk_log.log_of(tournament)])

    @extend_schema(responses={200: OpenApiTypes.OBJECT,
                              403: OpenApiResponse(description="Not the event's staff.")})
    @action(detail=True, methods=["get"])
    def money(self, request: Request, pk: Any = None) -> Response:
        """The money settings, the prize pool, what each place of each flight and side pool
        gets and, once finished, who is paid what (the event's staff: its director,
        referees, staff members)."""
        tournament = self._tournament(pk)
        if not can_see_money(request.user, tournament):
            return error_response("forbidden", "Only the event's staff see its money.")
        return Response(treasury.money_dict(tournament))

    def _act(self, request: Request, pk: Any, spec: desk.DeskAction) -> Response:
        tournament = self._tournament(pk)
        data = request.data if isinstance(request.data, dict) else {}
        try:
            result = desk.perform(request.user, tournament, spec, data)
        except ServiceError as error:
            return service_error_response(error)
        tournament.refresh_from_db()
        return Response({"action": spec.name, "detail": str(spec.done),
                         "tournament": selectors.tournament_dict(tournament),
                         **(desk.result_dict(result) or {})})


def _endpoint(spec: desk.DeskAction) -> Any:
    def act(self: DeskViewSet, request: Request, pk: Any = None) -> Response:
        return self._act(request, pk, spec)

    act.__name__ = act.__qualname__ = f"action_{spec.name}"
    who = "directors" if spec.role == desk.DIRECTOR else "referees and directors"
    act.__doc__ = f"The desk's action `{spec.name}` ({who})."
    decorated = action(detail=True, methods=["post"], url_path=f"actions/{spec.name}",
                       url_name=f"action-{spec.name.replace('_', '-')}")(act)
    return extend_schema(request=spec.input, responses=ActionResultSerializer,
                         operation_id=f"tournaments_action_{spec.name}")(decorated)


# One operation per desk action, each with its own input in the schema.
for _spec in desk.ACTIONS:
    setattr(DeskViewSet, f"action_{_spec.name}", _endpoint(_spec))
