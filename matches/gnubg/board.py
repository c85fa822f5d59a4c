"""The analysis board and hints: a player asks gnubg about one decision, a worker answers.

A question is a position (a Position ID from the side of the player on roll), the Match ID
fields of the moment (cube, score, dice) and the plies (0-2). With dice the answer ranks
every legal play; without, it is the cube decision of the player on roll. The web process
only stores the question (:class:`matches.models.AnalysisRequest`) and queues the task
``matches.answer_analysis_request`` on the analysis queue; a worker stores the answer on the
row (:func:`matches.gnubg.evaluation.answer_request`) and the page polls
:func:`request_json` until it is there, or says that no worker answered in
:func:`request_timeout` seconds, as the adjudication page does.

Refusals (:class:`ServiceError`, nothing stored): ``invalid_position`` for input that is no
position or decision; ``live_position`` when the position is the live position of an
unfinished match the requester plays in (either side's view: the board never helps a player
during their own match); ``too_many_analyses`` when the account already has
:func:`requests_per_account` requests waiting (its finished matches' analyses included);
``hints_not_allowed`` for a hint anywhere but an unrated match against a bot;
``no_decision`` for a hint when the player has nothing to decide.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Final
from urllib.parse import urlencode

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from matches.errors import ServiceError
from matches.models import (
    AnalysisRequest,
    AnalysisRequestKind,
    AnalysisStatus,
    Match,
    MatchAnalysis,
    MatchStatus,
    Player,
    Table,
)
from matches.selectors import board_dict
from matches.state import load_state
from tavla.celery import app
from tavla.engine import (
    EngineError,
    MatchInfo,
    Phase,
    Position,
    Xgid,
    decode_match_id,
    encode_match_id,
    parse_xgid,
)
from tavla.engine.match_id import match_info

logger = logging.getLogger(__name__)

#: The analysis queue's task (:mod:`matches.gnubg.tasks`), asked for by its registered name.
ANSWER_TASK: Final = "matches.answer_analysis_request"

CHECKER: Final = "checker"
CUBE: Final = "cube"

# What a poll answers; every status but EVALUATING is final.
READY: Final = "ready"
EVALUATING: Final = "evaluating"
TIMED_OUT: Final = "timed_out"
FAILED: Final = "failed"


def requests_per_account() -> int:
    """``TAVLA_ANALYSIS_REQUESTS_PER_ACCOUNT`` (2): analysis requests one account may have
    waiting for a worker at once."""
    return int(getattr(settings, "TAVLA_ANALYSIS_REQUESTS_PER_ACCOUNT", 2))


def request_timeout() -> float:
    """``TAVLA_ANALYSIS_REQUEST_SECONDS`` (60): how long a request waits for a worker (and
    counts towards the bound) before it is given up."""
    return float(getattr(settings, "TAVLA_ANALYSIS_REQUEST_SECONDS", 60))


@dataclass(frozen=True, slots=True)
class Question:
    """One decision to ask gnubg about. ``position`` is from the side of
    ``info.player_on_roll``; ``decision`` is ``checker`` (``info.dice`` rolled) or ``cube``."""

    position: Position
    info: MatchInfo
    plies: int

    @property
    def decision(self) -> str:
        return CHECKER if self.info.dice != (0, 0) else CUBE

    @property
    def position_id(self) -> str:
        return self.position.to_id()

    @property
    def match_id(self) -> str:
        return encode_match_id(self.info)

    @property
    def key(self) -> str:
        text = f"{self.position_id}:{self.match_id}:{self.plies}"
        return hashlib.sha256(text.encode()).hexdigest()[:40]

    def xgid(self) -> str:
        return Xgid.from_match_info(self.position, self.info).notation()

    def share_url(self) -> str:
        """The analysis board's page with this question in its address."""
        return reverse("analysis-board") + "?" + urlencode(
            {"xgid": self.xgid(), "plies": self.plies})


def _bad(detail: str, field: str) -> ServiceError:
    return ServiceError("invalid_position", detail, field=field)


def _unreadable(error: EngineError, field: str) -> ServiceError:
    """``field`` as the engine could not read it. The engine (pure, no Django) names the exact
    fault in English: a reader of another language gets the field's sentence in their own,
    an English reader the sentence and the engine's reason."""
    sentence = {
        "xgid": _("This XGID cannot be read: it looks like "
                  "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10."),
        "position_id": _("This Position ID cannot be read: it is 14 characters, "
                         "like 4HPwATDgc/ABMA."),
        "match_id": _("This Match ID cannot be read: it is 12 characters, like cAkAAAAAAAAA."),
        "dice": _("These dice do not fit this position's Match ID."),
    }[field]
    if (get_language() or "en").split("-")[0] == "en":
        sentence = f"{sentence} {error}"
    return _bad(sentence, field)


def question_from(data: Any) -> Question:
    """Read a question from a request body: ``xgid``, or ``position_id`` and ``match_id``;
    optional ``dice`` ([d1, d2] to set the roll, or null for the cube decision before the
    roll) and ``plies`` (0, 1 or 2; default 0). Raises ``invalid_position`` naming the field."""
    if not isinstance(data, dict):
        raise _bad(_("Send a JSON object with an xgid, or a position_id and a match_id."), "xgid")
    plies = data.get("plies", 0)
    if isinstance(plies, bool) or not isinstance(plies, int) or plies not in (0, 1, 2):
        raise _bad(_("plies is 0, 1 or 2, not %(plies)r.") % {"plies": plies}, "plies")
    xgid_text = data.get("xgid")
    if xgid_text not in (None, ""):
        if "position_id" in data or "match_id" in data:
            raise _bad(_("Send an xgid or a position_id and match_id, not both."), "xgid")
        try:
            xgid = parse_xgid(xgid_text)
            position, info = xgid.position, xgid.match_info()
        except EngineError as error:
            raise _unreadable(error, "xgid") from error
    else:
        position_id, match_id = data.get("position_id"), data.get("match_id")
        if not position_id or not match_id:
            raise _bad(_("Send an xgid, or a position_id and a match_id."), "xgid")
        try:
            position = Position.from_id(position_id)
        except EngineError as error:
            raise _unreadable(error, "position_id") from error
        try:
            info = decode_match_id(match_id)
        except EngineError as error:
            raise _unreadable(error, "match_id") from error
    if "dice" in data:
        info = _with_dice(info, data["dice"])
    return _checked(Question(position, info, plies))


def _with_dice(info: MatchInfo, dice: Any) -> MatchInfo:
    if dice is None:
        values = (0, 0)
    elif (isinstance(dice, list) and len(dice) == 2
          and all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice)):
        values = (max(dice), min(dice))
    else:
        raise _bad(_("dice are two numbers 1-6, or null for a cube decision, not %(dice)r.")
                   % {"dice": dice},
                   "dice")
    try:
        return MatchInfo(
            cube_value=info.cube_value, cube_owner=info.cube_owner,
            player_on_roll=info.player_on_roll, crawford=info.crawford,
            turn=info.player_on_roll, dice=values, match_length=info.match_length,
            score=info.score, jacoby=info.jacoby)
    except EngineError as error:
        raise _unreadable(error, "dice") from error


def cube_access(info: MatchInfo) -> str:
    """Why the player on roll may not double here ("" if they may): the cube is the
    opponent's, this is the Crawford game, the cube is at 64, or it is dead (doubling could
    not win more than the match)."""
    mover = info.player_on_roll
    if info.cube_owner not in (None, mover):
        return _("The cube belongs to the opponent: the player on roll cannot double.")
    if info.crawford:
        return _("Nobody doubles in the Crawford game.")
    if info.cube_value >= 64:
        return _("The cube is at 64: it goes no higher.")
    if info.match_length and info.score[mover] + info.cube_value >= info.match_length:
        return _("The cube is dead: the player on roll already wins the match with it.")
    return ""


def _checked(question: Question) -> Question:
    """Refuse what no decision is: a finished game, a resignation, or a cube decision the
    player on roll has no access to."""
    info, position = question.info, question.position
    if position.is_game_over():
        raise _bad(_("The game in this position is over: one side has no checker left."),
                   "position_id")
    if info.resignation:
        raise _bad(_("A resignation is offered in this Match ID: there is no play or cube "
                     "decision to analyse."), "match_id")
    if info.match_length and max(info.score) >= info.match_length:
        raise _bad(_("The match in this Match ID is over."), "match_id")
    if question.decision == CUBE:
        problem = cube_access(info)
        if problem:
            raise _bad(_("%(problem)s Choose dice for a checker play instead.")
                       % {"problem": problem}, "dice")
    return question


def live_match_of(player: Player, position: Position) -> Match | None:
    """An unfinished match ``player`` plays in whose live board is ``position``, from either
    side's view (the engine's own equality of positions), or None."""
    matches = Match.objects.filter(Q(player0=player) | Q(player1=player),
                                   status=MatchStatus.PLAYING)
    for match in matches:
        board = load_state(match).board
        if position in (board, board.swap()):
            return match
    return None


def in_flight(player: Player) -> int:
    """The player's analysis requests waiting for a worker now: board questions and hints
    asked less than :func:`request_timeout` seconds ago and not answered, and analyses of
    their finished matches requested as recently and not made yet."""
    since = timezone.now() - timedelta(seconds=request_timeout())
    asked = AnalysisRequest.objects.filter(player=player, status=AnalysisStatus.PENDING,
                                           requested_at__gte=since).count()
    analyses = MatchAnalysis.objects.filter(
        Q(match__player0=player) | Q(match__player1=player), status=AnalysisStatus.PENDING,
        requested_at__gte=since).count()
    return asked + analyses


def _ask(row: AnalysisRequest) -> None:
    row_id = row.pk

    def enqueue() -> None:
        try:
            app.signature(ANSWER_TASK, args=(row_id,)).apply_async(expires=request_timeout())
        except Exception:  # noqa: BLE001 - the page then says no worker answered
            logger.exception("could not queue analysis request %s", row_id)

    transaction.on_commit(enqueue)


def _request(*, player: Player, question: Question, kind: str, match: Match | None = None,
             ) -> AnalysisRequest:
    """Caller holds the player's row lock. An answered question is answered again from its
    row; the same question still waiting is the same request."""
    done = AnalysisRequest.objects.filter(key=question.key, status=AnalysisStatus.DONE).first()
    since = timezone.now() - timedelta(seconds=request_timeout())
    waiting = AnalysisRequest.objects.filter(
        key=question.key, player=player, status=AnalysisStatus.PENDING,
        requested_at__gte=since).first()
    if waiting is not None and match is None:
        return waiting
    if done is None and in_flight(player) >= requests_per_account():
        raise ServiceError(
            "too_many_analyses",
            _("You already have %(n)d analysis requests waiting for gnubg (the analysis board, "
              "hints and your matches' analyses): wait for their answers and ask again.")
            % {"n": requests_per_account()})
    row = AnalysisRequest.objects.create(
        player=player, kind=kind, key=question.key, position_id=question.position_id,
        gnubg_match_id=question.match_id, decision=question.decision, plies=question.plies,
        match=match, match_version=match.version if match is not None else None)
    if done is not None:
        row.status, row.result, row.finished_at = done.status, done.result, timezone.now()
        row.save(update_fields=["status", "result", "finished_at"])
    else:
        _ask(row)
    return row


@transaction.atomic(durable=True)
def board_request(*, player: Player, question: Question) -> AnalysisRequest:
    """Ask gnubg about ``question`` for ``player`` (the analysis board). Raises
    ``live_position`` or ``too_many_analyses``; see the module's description."""
    Player.objects.select_for_update().get(pk=player.pk)
    live = live_match_of(player, question.position)
    if live is not None:
        raise ServiceError(
            "live_position",
            _("This is the position of a match you are playing now: the analysis board does "
              "not help during your own match. Ask again once the match is over."))
    return _request(player=player, question=question, kind=AnalysisRequestKind.BOARD)


def hint_question(match: Match, player: Player) -> Question:
    """The decision ``player`` faces in ``match`` as a question, if hints are allowed there.

    Raises ``not_a_player``, ``match_over``, ``hints_not_allowed`` (a rated table, or a
    human opponent) or ``no_decision`` (not the player's decision, or only a roll without
    cube access)."""
    seat = match.seat_of(player)
    if seat is None:
        raise ServiceError("not_a_player", _("Only the players of this match may ask for hints."))
    if match.is_finished:
        raise ServiceError("match_over", _("The match is over."))
    opponent = match.players()[1 - seat]
    table = match.table
    if not opponent.is_bot:
        raise ServiceError("hints_not_allowed",
                           _("Hints are given only in practice against the bot, never "
                             "against a person."))
    if table.is_rated or table.bots_rated:
        raise ServiceError("hints_not_allowed",
                           _("Hints are given only in unrated practice: this match is rated."))
    state = load_state(match)
    if state.player_to_act != seat or state.resign_offer is not None:
        raise ServiceError("no_decision", _("It is not your decision now: no hint to give."))
    info = match_info(state)
    position = state.position_for(info.player_on_roll)
    phase = state.phase
    if phase is Phase.TURN_START and (not state.may_double() or cube_access(info)):
        raise ServiceError("no_decision", _("You cannot double now: roll the dice, then ask "
                                            "for a hint on the play."))
    if phase not in (Phase.MOVE, Phase.TURN_START, Phase.CUBE_OFFERED):
        raise ServiceError("no_decision", _("There is no decision to hint at now."))
    if phase is Phase.CUBE_OFFERED:
        # The doubled player's take or pass: the doubler's cube decision answers it.
        info = MatchInfo(cube_value=info.cube_value, cube_owner=info.cube_owner,
                         player_on_roll=info.player_on_roll, crawford=info.crawford,
                         turn=info.player_on_roll, match_length=info.match_length,
                         score=info.score)
    return Question(position, info, plies=hint_plies())


def hints_offered(table: Table, viewer: Player | None) -> Match | None:
    """The unfinished match at ``table`` where ``viewer`` plays the bot, unrated: where the
    table page offers the hint button (the server checks again on every request)."""
    if viewer is None or table.is_rated or table.bots_rated:
        return None
    match = Match.objects.filter(table=table, status=MatchStatus.PLAYING).select_related(
        "player0", "player1").order_by("-pk").first()
    if match is None:
        return None
    seat = match.seat_of(viewer)
    if seat is None or not match.players()[1 - seat].is_bot:
        return None
    return match


def hint_plies() -> int:
    """Hints think as deep as the analysis of finished matches (``TAVLA_ANALYSIS_PLIES``)."""
    return int(getattr(settings, "TAVLA_ANALYSIS_PLIES", 0))


@transaction.atomic(durable=True)
def hint_request(*, match_id: int, player: Player) -> AnalysisRequest:
    """Ask gnubg for ``player``'s hint in ``match_id`` at its current version."""
    Player.objects.select_for_update().get(pk=player.pk)
    match = Match.objects.select_related("table", "player0", "player1").filter(
        pk=match_id).first()
    if match is None:
        raise ServiceError("not_found", _("No such match."))
    question = hint_question(match, player)
    return _request(player=player, question=question, kind=AnalysisRequestKind.HINT,
                    match=match)


def request_status(row: AnalysisRequest) -> str:
    if row.status == AnalysisStatus.DONE:
        return READY
    if row.status == AnalysisStatus.FAILED:
        return FAILED
    waited = (timezone.now() - row.requested_at).total_seconds()
    return TIMED_OUT if waited >= request_timeout() else EVALUATING


def request_json(row: AnalysisRequest) -> dict[str, Any]:
    """A request as the API and the pages serve it (docs/analysis.md, "Analysis board")."""
    question = Question(Position.from_id(row.position_id), decode_match_id(row.gnubg_match_id),
                        row.plies)
    status = request_status(row)
    detail = ""
    if status == TIMED_OUT:
        detail = _("No analysis worker answered within %(seconds)s s: ask again later.") % {
            "seconds": f"{request_timeout():g}"}
    elif status == FAILED:
        detail = _("gnubg could not evaluate this position.")
    return {
        "id": row.pk,
        "kind": row.kind,
        "status": status,
        "decision": row.decision,
        "plies": row.plies,
        "position_id": row.position_id,
        "match_id": row.gnubg_match_id,
        "xgid": question.xgid(),
        "dice": list(question.info.dice) if question.decision == CHECKER else None,
        "player_on_roll": question.info.player_on_roll,
        "board": board_dict(question.position),  # the player on roll at the bottom
        "match": row.match_id,
        "match_version": row.match_version,
        "share_url": question.share_url(),
        "answer": row.result if status == READY else None,
        "detail": detail,
    }


def request_for(request_id: int, player: Player) -> AnalysisRequest:
    """The player's own request ``request_id``; ``not_found`` for anyone else's."""
    row = AnalysisRequest.objects.filter(pk=request_id, player=player).first()
    if row is None:
        raise ServiceError("not_found", _("No such analysis request of yours."))
    return row
