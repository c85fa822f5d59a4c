"""The REST API of match play: thin callers of :mod:`matches.services` and selectors.

Anyone may read players, public tables and public matches; a player also sees their own
private ones. Writing needs a logged-in user (session or ``Authorization: Token <key>``
from ``POST /api/token/``). Errors are ``{"error": code, "detail": text}`` (see
:mod:`matches.rest.errors`); a refused request changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms
from django.contrib.auth import authenticate
from django.db.models import Prefetch, Q, QuerySet
from django.http import HttpResponse, QueryDict
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.authentication import (
    BaseAuthentication,
    SessionAuthentication,
    TokenAuthentication,
)
from rest_framework.authtoken.models import Token
from rest_framework.decorators import action
from rest_framework.generics import get_object_or_404
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from matches import services, validation
from matches.audit import dice_audit, mat_export, mat_filename
from matches.forms import MatchHistoryForm
from matches.models import Match, MatchStatus, Player, RatingRecord, Table
from matches.players.history import PageOutOfRange, history_page
from matches.rest.errors import error_response
from matches.rest.serializers import (
    ActionSerializer,
    ClientSeedSerializer,
    DiceAuditSerializer,
    ErrorSerializer,
    EventSerializer,
    HistoryPageSerializer,
    HistoryRowSerializer,
    MatchFilterSerializer,
    MatchHistorySerializer,
    MatchStateSerializer,
    MatchSummarySerializer,
    PlayerDetailSerializer,
    PlayerSerializer,
    RematchSerializer,
    SitSerializer,
    TableCreateSerializer,
    TableFilterSerializer,
    TableSerializer,
    TakebackSerializer,
    TokenRequestSerializer,
    TokenSerializer,
)
from matches.selectors import (
    acting_plays,
    for_viewer,
    match_events,
    match_history,
    match_state,
    public_state,
    visible_matches,
)
from matches.services.dice_seeds import match_client_seed
from matches.services.rematch import match_rematch
from matches.services.takeback import match_takeback
from tavla.security import lockout_message
from tavla.throttles import TokenRateThrottle


def _errors(*codes: int) -> dict[int, OpenApiResponse]:
    texts = {
        400: "Malformed request or invalid input.",
        401: "Not logged in.",
        403: "Not allowed: not your match, not your turn.",
        404: "No such object (or not visible to you).",
        409: "The request conflicts with the current state: stale_version, illegal_action, "
             "match_over, seat_taken, …",
    }
    return {code: OpenApiResponse(ErrorSerializer, description=texts[code]) for code in codes}


class TavlaAPIMixin(APIView):
    """Token first, so an anonymous write gets 401 with ``WWW-Authenticate: Token``."""

    authentication_classes: Sequence[type[BaseAuthentication]] = [
        TokenAuthentication, SessionAuthentication,
    ]
    permission_classes = [permissions.IsAuthenticatedOrReadOnly]


def body_of(request: Request) -> Any:
    """The request's body as the validators read it: JSON as sent; a form's fields as
    strings (so a form cannot send a number: REST bodies are JSON, as socket messages are)."""
    data = request.data
    return data.dict() if isinstance(data, QueryDict) else data


def viewer_of(request: Request) -> Player | None:
    """The requesting user's player, or None for anonymous readers."""
    user = request.user
    if not user or not user.is_authenticated:
        return None
    return services.player_for_user(user)


# -- token -------------------------------------------------------------------------------------


class TokenView(APIView):
    """Exchange a username and password for an API token (the same token every time)."""

    authentication_classes: Sequence[type[BaseAuthentication]] = []
    permission_classes = [permissions.AllowAny]
    throttle_classes = [TokenRateThrottle]

    @extend_schema(request=TokenRequestSerializer,
                   responses={200: TokenSerializer, **_errors(400, 401)},
                   summary="Obtain an API token", tags=["auth"])
    def post(self, request: Request) -> Response:
        serializer = TokenRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = authenticate(request._request, username=serializer.validated_data["username"],
                            password=serializer.validated_data["password"])
        if getattr(request._request, "axes_locked_out", False):
            return error_response("locked_out", lockout_message())
        if user is None or not user.is_active:
            return error_response("authentication_failed", "Wrong username or password.")
        token, _created = Token.objects.get_or_create(user=user)
        player = services.player_for_user(user)
        return Response({"token": token.key, "player": PlayerSerializer(player).data})


def _history_parameters() -> list[OpenApiParameter]:
    """The query parameters of a player's history, from the form that validates them (the
    page's too), so the schema cannot drift from what is accepted."""
    parameters = []
    for name, field in MatchHistoryForm.base_fields.items():
        kind: Any = OpenApiTypes.STR
        if isinstance(field, forms.IntegerField):
            kind = OpenApiTypes.INT
        elif isinstance(field, forms.DateField):
            kind = OpenApiTypes.DATE
        enum = None
        if isinstance(field, forms.ChoiceField):
            enum = [str(value) for value, _label in list(field.choices)  # type: ignore[arg-type]
                    if value]
        description = {
            "opponent": "The opponent's user name.",
            "result": "The match's result for this player.",
            "length": "A match length in points (1-99), or `money` for money sessions.",
            "rated": "`true`: rated matches only; `false`: unrated only.",
            "since": "The first day (YYYY-MM-DD) the matches started on, included.",
            "until": "The last day (YYYY-MM-DD) the matches started on, included.",
            "page": "The page, from 1 (newest matches first).",
            "page_size": "Matches per page, 1-100 (default 20).",
        }[name]
        parameters.append(OpenApiParameter(name, kind, OpenApiParameter.QUERY, required=False,
                                           enum=enum, description=description))
    return parameters


def _history_error(form: MatchHistoryForm) -> Response:
    fields = {name: [str(message) for message in messages]
              for name, messages in form.errors.items()}
    detail = "; ".join(f"{name}: {' '.join(messages)}" for name, messages in fields.items())
    return error_response("bad_request", detail, fields=fields)


# -- players -----------------------------------------------------------------------------------


@extend_schema_view(
    list=extend_schema(summary="List players", tags=["players"]),
    retrieve=extend_schema(summary="A player with their rating history", tags=["players"],
                           responses={200: PlayerDetailSerializer, **_errors(404)}),
)
class PlayerViewSet(TavlaAPIMixin, viewsets.ReadOnlyModelViewSet[Player]):
    serializer_class = PlayerSerializer

    def get_queryset(self) -> QuerySet[Player]:
        queryset = Player.objects.select_related("user").order_by("display_name", "pk")
        if self.action == "retrieve":
            history = RatingRecord.objects.order_by("created_at", "pk")
            queryset = queryset.prefetch_related(Prefetch("rating_history", queryset=history))
        return queryset

    def get_serializer_class(self) -> type[PlayerSerializer]:
        return PlayerDetailSerializer if self.action in ("retrieve", "me") else PlayerSerializer

    @extend_schema(summary="The logged-in user's player", tags=["players"],
                   responses={200: PlayerDetailSerializer, **_errors(401)})
    @action(detail=False, methods=["get"], permission_classes=[permissions.IsAuthenticated])
    def me(self, request: Request) -> Response:
        player = services.player_for_user(request.user)
        return Response(PlayerDetailSerializer(player).data)

    @extend_schema(
        summary="Every match of a player, filtered and paged, newest first", tags=["players"],
        description="The matches you may see: those at public tables, and your own. Bad "
                    "filters are a 400 `bad_request` naming each bad field in `fields`; so is "
                    "a page past the last.",
        parameters=_history_parameters(),
        responses={200: HistoryPageSerializer, **_errors(400, 404)},
    )
    @action(detail=True, methods=["get"], url_path="matches")
    def matches(self, request: Request, pk: str | None = None) -> Response:
        player = self.get_object()
        form = MatchHistoryForm(request.query_params)
        if not form.is_valid():
            return _history_error(form)
        try:
            history = history_page(player, viewer_of(request), form.filters(),
                                   number=form.page_number(), size=form.rows_per_page())
        except PageOutOfRange as error:
            form.add_error("page", _("There is no page %(number)s: the last is %(last)s.")
                           % {"number": error.number, "last": error.last})
            return _history_error(form)
        page = history.page

        def link(number: int) -> str:
            query = request.query_params.copy()
            query["page"] = str(number)
            return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")

        return Response({
            "count": history.count, "page": page.number, "pages": history.pages,
            "page_size": form.rows_per_page(),
            "next": link(page.next_page_number()) if page.has_next() else None,
            "previous": link(page.previous_page_number()) if page.has_previous() else None,
            "results": HistoryRowSerializer(history.rows, many=True).data,
        })


# -- tables ------------------------------------------------------------------------------------


def visible_tables(viewer: Player | None, invite: str | None = None) -> QuerySet[Table]:
    """Public tables, the private tables a viewer created, sits at or is reserved for, and
    the one whose invitation token is ``invite``."""
    queryset = Table.objects.select_related("seat0", "seat1").prefetch_related(
        Prefetch("matches", queryset=Match.objects.filter(status=MatchStatus.PLAYING)
                 .order_by("-pk").only("pk", "table_id"), to_attr="playing_matches")
    )
    visible = Q(is_public=True)
    if invite:
        visible |= Q(invite_token=invite)
    if viewer is not None:
        visible |= (Q(created_by=viewer) | Q(seat0=viewer) | Q(seat1=viewer)
                    | Q(reserved0=viewer) | Q(reserved1=viewer))
    return queryset.filter(visible)


def _table_data(table: Table) -> dict[str, Any]:
    return dict(TableSerializer(table).data)


def _with_invite(data: dict[str, Any], table: Table, viewer: Player | None) -> dict[str, Any]:
    """A private table's invitation token, shown to its creator alone."""
    if not table.is_public and viewer is not None and table.created_by_id == viewer.pk:
        data["invite"] = table.invite_token
    return data


@extend_schema_view(
    list=extend_schema(summary="List tables", tags=["tables"],
                       parameters=[TableFilterSerializer],
                       responses={200: TableSerializer(many=True), **_errors(400)}),
    retrieve=extend_schema(summary="A table", tags=["tables"],
                           responses={200: TableSerializer, **_errors(404)}),
)
class TableViewSet(TavlaAPIMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin,
                   viewsets.GenericViewSet[Table]):
    serializer_class = TableSerializer

    def get_queryset(self) -> QuerySet[Table]:
        return visible_tables(viewer_of(self.request), self._invite()).order_by(
            "-created_at", "-pk")

    def _invite(self) -> str | None:
        """A private table's invitation token: ``?invite=`` or ``"invite"`` in the body."""
        invite = self.request.query_params.get("invite")
        if not invite and isinstance(self.request.data, dict):
            invite = self.request.data.get("invite")
        return invite if isinstance(invite, str) and invite else None

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        filters = TableFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        wanted = filters.validated_data
        queryset = self.get_queryset()
        for param, field in (("public", "is_public"), ("rated", "is_rated"),
                             ("cube", "cube_enabled"), ("gammons", "gammons_enabled"),
                             ("clock", "clock_enabled")):
            if wanted.get(param) is not None:
                queryset = queryset.filter(**{field: wanted[param]})
        length = wanted.get("match_length")
        if length == "money":
            queryset = queryset.filter(match_length__isnull=True)
        elif length:
            queryset = queryset.filter(match_length=int(length))
        if wanted.get("free_seat") is True:
            queryset = queryset.filter(Q(seat0__isnull=True) | Q(seat1__isnull=True))
        elif wanted.get("free_seat") is False:
            queryset = queryset.filter(seat0__isnull=False, seat1__isnull=False)
        return Response([_table_data(table) for table in queryset])

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        table = self.get_object()
        return Response(_with_invite(_table_data(table), table, viewer_of(request)))

    @extend_schema(summary="Create a table", tags=["tables"], request=TableCreateSerializer,
                   responses={201: TableSerializer, **_errors(400, 401)})
    def create(self, request: Request) -> Response:
        creator = viewer_of(request)
        options = validation.table_options(body_of(request), creator=creator)
        table = services.table_create(name=options.name, creator=creator,
                                      clock_preset=options.clock_preset,
                                      reserve_for=options.reserve_for, **options.rules)
        return Response(_with_invite(_table_data(self._fresh(table.pk)), table, creator),
                        status=status.HTTP_201_CREATED)

    def _fresh(self, pk: int) -> Table:
        return visible_tables(viewer_of(self.request), self._invite()).get(pk=pk)

    @extend_schema(summary="Sit at a table (the match starts when both seats are taken)",
                   tags=["tables"], request=SitSerializer,
                   responses={200: TableSerializer, **_errors(400, 401, 403, 404, 409)})
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def sit(self, request: Request, pk: str | None = None) -> Response:
        table = self.get_object()
        wanted = validation.sit_input(body_of(request))
        services.table_sit(table_id=table.pk, player=services.player_for_user(request.user),
                           seat=wanted.seat, invite=wanted.invite or self._invite())
        return Response(_table_data(self._fresh(table.pk)))

    @extend_schema(summary="Leave your seat", tags=["tables"], request=None,
                   responses={200: TableSerializer, **_errors(401, 404, 409)})
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def stand(self, request: Request, pk: str | None = None) -> Response:
        table = self.get_object()
        services.table_stand(table_id=table.pk, player=services.player_for_user(request.user))
        return Response(_table_data(self._fresh(table.pk)))


# -- matches -----------------------------------------------------------------------------------


@extend_schema_view(
    list=extend_schema(summary="List matches", tags=["matches"],
                       parameters=[MatchFilterSerializer],
                       responses={200: MatchSummarySerializer(many=True), **_errors(400)}),
)
class MatchViewSet(TavlaAPIMixin, mixins.ListModelMixin, viewsets.GenericViewSet[Match]):
    serializer_class = MatchSummarySerializer

    def get_queryset(self) -> QuerySet[Match]:
        return visible_matches(viewer_of(self.request)).order_by("-started_at", "-pk")

    def get_object(self) -> Match:
        # DRF's helper: an id that is not a number ("abc") is a 404 like a missing one.
        return get_object_or_404(self.get_queryset(), pk=self.kwargs["pk"])

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        filters = MatchFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        wanted = filters.validated_data
        queryset = self.get_queryset()
        if "status" in wanted:
            queryset = queryset.filter(status=MatchStatus[wanted["status"].upper()])
        if "player" in wanted:
            queryset = queryset.filter(Q(player0=wanted["player"]) | Q(player1=wanted["player"]))
        if "table" in wanted:
            queryset = queryset.filter(table=wanted["table"])
        page = self.paginate_queryset(queryset)
        if page is not None:
            return self.get_paginated_response(MatchSummarySerializer(page, many=True).data)
        return Response(MatchSummarySerializer(queryset, many=True).data)

    @extend_schema(summary="The state of a match (legal plays for the player who must play)",
                   tags=["matches"], responses={200: MatchStateSerializer, **_errors(404)})
    def retrieve(self, request: Request, pk: str | None = None) -> Response:
        return Response(match_state(self.get_object(), viewer_of(request)))

    @extend_schema(summary="The event log, in order", tags=["matches"],
                   responses={200: EventSerializer(many=True), **_errors(404)})
    @action(detail=True, methods=["get"])
    def events(self, request: Request, pk: str | None = None) -> Response:
        match = self.get_object()
        return Response(EventSerializer(match_events(match), many=True).data)

    @extend_schema(summary="Export as a Jellyfish .mat file", tags=["matches"],
                   responses={(200, "text/plain"): OpenApiTypes.STR, **_errors(404)})
    @action(detail=True, methods=["get"], url_path="mat")
    def mat(self, request: Request, pk: str | None = None) -> HttpResponse:
        match = self.get_object()
        response = HttpResponse(mat_export(match), content_type="text/plain; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{mat_filename(match)}"'
        return response

    @extend_schema(summary="Dice audit: the commitment; after the end the seed and every roll "
                           "recomputed", tags=["matches"],
                   responses={200: DiceAuditSerializer, **_errors(404)})
    @action(detail=True, methods=["get"])
    def dice(self, request: Request, pk: str | None = None) -> Response:
        return Response(dice_audit(self.get_object()))

    @extend_schema(
        summary="Rematch: ask for (or accept) the next match of a finished one, or decline",
        description="When both players have asked, a new match starts at once at the same "
                    "table with the same rules: 201 with its state. Otherwise 200 with the "
                    "finished match's state, whose `rematch_offers` lists the seats asking. "
                    "`accept: false` withdraws or declines (clears the offers).",
        tags=["matches"], request=RematchSerializer,
        responses={200: MatchStateSerializer, 201: MatchStateSerializer,
                   **_errors(400, 401, 403, 404, 409)},
    )
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def rematch(self, request: Request, pk: str | None = None) -> Response:
        match = self.get_object()
        serializer = RematchSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        player = services.player_for_user(request.user)
        result = match_rematch(match_id=match.pk, player=player,
                               accept=serializer.validated_data["accept"])
        fresh = Match.objects.select_related("table", "player0", "player1").get(pk=result.pk)
        return Response(match_state(fresh, player),
                        status=status.HTTP_201_CREATED if result.pk != match.pk else 200)

    @extend_schema(
        summary="Takeback in casual play: ask to take back your last play, or answer",
        description="See docs/protocol.md, \"Takeback\": asked after your own play until "
                    "your opponent acts; accepted, the match goes back to your turn with the "
                    "same dice. Refused on rated (`takeback_rated`), tournament "
                    "(`takeback_tournament`) and bot (`takeback_bot`) matches. Answers the "
                    "match's new state.",
        tags=["matches"], request=TakebackSerializer,
        responses={200: MatchStateSerializer, **_errors(400, 401, 403, 404, 409)},
    )
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def takeback(self, request: Request, pk: str | None = None) -> Response:
        match = self.get_object()
        serializer = TakebackSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        player = services.player_for_user(request.user)
        match_takeback(match_id=match.pk, player=player,
                       answer=serializer.validated_data["answer"])
        fresh = Match.objects.select_related("table", "player0", "player1").get(pk=match.pk)
        return Response(match_state(fresh, player))

    @extend_schema(
        summary="Contribute your client seed to the dice (before the first roll)",
        tags=["matches"], request=ClientSeedSerializer,
        responses={200: MatchStateSerializer, **_errors(400, 401, 403, 404, 409)},
    )
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def seed(self, request: Request, pk: str | None = None) -> Response:
        match = self.get_object()
        seed = validation.client_seed(validation.message_object(body_of(request)).get("seed"))
        player = services.player_for_user(request.user)
        match_client_seed(match_id=match.pk, player=player, seed=seed)
        fresh = Match.objects.select_related("table", "player0", "player1").get(pk=match.pk)
        return Response(match_state(fresh, player))

    @extend_schema(
        summary="Act: roll, double, take, drop, play, resign (with a level), accept_resign or "
                "reject_resign on the version you saw",
        tags=["matches"], request=ActionSerializer,
        responses={200: MatchStateSerializer, **_errors(400, 401, 403, 404, 409)},
    )
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def actions(self, request: Request, pk: str | None = None) -> Response:
        match = self.get_object()
        wanted = validation.action_input(body_of(request))
        player = services.player_for_user(request.user)
        if wanted.action == "end_session":
            services.match_end_session(match_id=match.pk, player=player,
                                       expected_version=wanted.expected_version)
            fresh = visible_matches(player).get(pk=match.pk)
            return Response(match_state(fresh, player))
        result = services.match_act(match_id=match.pk, player=player, action=wanted.action,
                                    play=wanted.play, level=wanted.level,
                                    expected_version=wanted.expected_version)
        # The service returns the match as saved, with its players and table: no re-read.
        return Response(for_viewer(public_state(result.match, result.state), player.pk,
                                   acting_plays(result.state)))

    @extend_schema(summary="Every game of the match with all its events (the state carries "
                           "only the current game's)", tags=["matches"],
                   responses={200: MatchHistorySerializer, **_errors(404)})
    @action(detail=True, methods=["get"])
    def history(self, request: Request, pk: str | None = None) -> Response:
        return Response(match_history(self.get_object()))
