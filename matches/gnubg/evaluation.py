"""Everything of the site that evaluates with GNU Backgammon: a finished match's analysis,
a bot's turn, a referee's adjudication figures, the analysis board's and hints' answers and
the practice drill's items.

Only the workers of the analysis and bot queues load this module: the tasks of
:mod:`matches.gnubg.tasks` import it when they run, and a web process refuses to load
gnubg at all (:mod:`tavla.analysis.gnubg_guard`), because gnubg crashes the process when it
evaluates on a request thread.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from matches import services
from matches.audit import mat_export
from matches.errors import ServiceError
from matches.gnubg.adjudication import store_answer
from matches.gnubg.analysis import analysis_plies
from matches.gnubg.board import CHECKER
from matches.gnubg.practice import CUBE_KINDS, DRILL_MARKS, TAKE_KINDS, analyses_of, question_of
from matches.models import (
    AnalysisRequest,
    AnalysisStatus,
    DrillItem,
    Match,
    MatchAnalysis,
    Player,
)
from matches.state import full_state, load_state
from tavla.analysis import bots as bot_brain
from tavla.analysis import read_mat
from tavla.analysis.adjudication import match_winning_chances
from tavla.analysis.analyse import AnalysisRules, analyse_record
from tavla.analysis.board import cube_answer, cube_answer_from, engine_name, ranked_plays
from tavla.analysis.resign import from_events
from tavla.engine import Position, decode_match_id, encode_match_id
from tavla.engine.actions import Double, Drop, PlayMove, Take
from tavla.engine.game import Phase
from tavla.engine.plays import Play

logger = logging.getLogger(__name__)



def adjudication_chances(*, match_id: int, version: int) -> tuple[float, float] | None:
    """Evaluate ``match_id`` as it stands at ``version`` and store the answer for the
    referee's page (:func:`matches.gnubg.adjudication.store_answer`); return the chances
    (player 0, player 1), or None.

    The row is read once and its own snapshot evaluated, so the figures are those of
    ``version`` exactly. A match that is over or has moved on gets no answer: the page
    already tells the referee so. A money session, or an evaluation that fails, is answered
    without figures, so the page stops waiting.
    """
    match = Match.objects.select_related("player0", "player1").filter(pk=match_id).first()
    if match is None or match.is_finished or match.version != version:
        return None
    try:
        chances = match_winning_chances(load_state(match))
    except Exception as error:  # noqa: BLE001 - the help is optional; the adjudication is not
        logger.exception("gnubg could not evaluate match %s for adjudication", match_id)
        store_answer(match=match, version=version, chances=None,
                     detail=f"{type(error).__name__}: {error}")
        return None
    store_answer(match=match, version=version, chances=chances,
                 detail="" if chances else "a money session: no match to win")
    return chances


def analysis_run(match_id: int) -> MatchAnalysis:
    """Analyse the match now (the task calls this). Records a failure on the row rather
    than raising, except for a match that is not finished (``match_live``)."""
    match = Match.objects.select_related("player0", "player1", "table").get(pk=match_id)
    if not match.is_finished:
        raise ServiceError("match_live", _("A match is analysed only once it is over."))
    plies = analysis_plies()
    analysis, _created = MatchAnalysis.objects.get_or_create(match=match)
    started = time.perf_counter()
    try:
        # The table's rules, which the .mat cannot carry: cube, gammons, the cube's cap.
        rules = AnalysisRules.of(load_state(match).rules)
        # The resignation offers and their answers, which the .mat cannot carry (it shows a
        # flag or a referee's decision as a resignation too): from the games' events.
        resignations = {game.number: from_events(game.events)
                        for game in full_state(match).games}
        result = analyse_record(read_mat(mat_export(match)), plies, rules=rules,
                                resignations=resignations)
    except Exception as error:  # noqa: BLE001 - stored for the referee, then re-raised
        analysis.status = AnalysisStatus.FAILED
        analysis.error = f"{type(error).__name__}: {error}"
        analysis.finished_at = timezone.now()
        analysis.save()
        raise
    data = result.to_dict()
    analysis.status = AnalysisStatus.DONE
    analysis.plies = plies
    analysis.engine = result.engine
    analysis.players = data["players"]
    analysis.decisions = data["decisions"]
    analysis.pr0, analysis.pr1 = (player.pr if player.decisions else None
                                  for player in result.players)
    analysis.error = ""
    analysis.finished_at = timezone.now()
    analysis.seconds = time.perf_counter() - started
    analysis.save()
    try:
        drill_items_from_analysis(analysis)
    except Exception:  # noqa: BLE001 - the analysis stands without its drill items
        logger.exception("could not make the drill items of match %s", match_id)
    return analysis


def answer_request(request_id: int) -> AnalysisRequest | None:
    """Answer the analysis board's or a hint's question ``request_id`` and store the answer
    on its row (a failure is stored as such). A row already answered is left alone."""
    row = AnalysisRequest.objects.filter(pk=request_id).first()
    if row is None or row.status != AnalysisStatus.PENDING:
        return row
    try:
        position = Position.from_id(row.position_id)
        info = decode_match_id(row.gnubg_match_id)
        if row.decision == CHECKER:
            plays = ranked_plays(position, info, info.dice, row.plies)
            result: dict[str, Any] = {
                "plays": [{"play": p.play, "equity": p.equity, "loss": p.loss} for p in plays]}
        else:
            result = {"cube": cube_answer(position, info, row.plies)}
        result["engine"] = engine_name()
    except Exception as error:  # noqa: BLE001 - stored, so the page stops waiting
        logger.exception("gnubg could not answer analysis request %s", request_id)
        row.status, row.error = AnalysisStatus.FAILED, f"{type(error).__name__}: {error}"
        row.finished_at = timezone.now()
        row.save(update_fields=["status", "error", "finished_at"])
        return row
    row.status, row.result, row.finished_at = AnalysisStatus.DONE, result, timezone.now()
    row.save(update_fields=["status", "result", "finished_at"])
    return row


def drill_items_from_analysis(analysis: MatchAnalysis) -> int:
    """Make the drill items of ``analysis``: each error or blunder of a person (not a bot)
    that has none yet. A checker play's item holds gnubg's ranking of every play of the roll
    at the analysis's depth. Returns how many were made."""
    if analysis.status != AnalysisStatus.DONE:
        return 0
    match = Match.objects.select_related("player0", "player1", "table").get(
        pk=analysis.match_id)
    players = match.players()
    # A resignation is no drill item: its question is not a board's (play or cube).
    wanted = [d for d in analysis.decisions
              if d.get("mark") in DRILL_MARKS and not players[d["player"]].is_bot
              and not d["kind"].endswith("resign")]
    if not wanted:
        return 0
    record = read_mat(mat_export(match))
    game_index = {game.number: index for index, game in enumerate(record.games)}
    made = 0
    for decision in wanted:
        player = players[decision["player"]]
        if DrillItem.objects.filter(player=player, match=match, game=decision["game"],
                                    index=decision["index"], kind=decision["kind"]).exists():
            continue
        position, info = question_of(record, game_index[decision["game"]], decision)
        kind = decision["kind"]
        if kind == "move":
            plays = ranked_plays(position, info, info.dice, analysis.plies)
            answers: dict[str, Any] = {
                "plays": [{"play": p.play, "equity": p.equity, "loss": p.loss} for p in plays]}
        elif kind in CUBE_KINDS or kind in TAKE_KINDS:
            cube = decision.get("cube") or {}
            answers = cube_answer_from(cube["no_double"], cube["double_take"],
                                       cube["double_pass"])
        else:
            continue
        DrillItem.objects.create(
            player=player, match=match, game=decision["game"], index=decision["index"],
            kind=kind, position_id=position.to_id(),
            gnubg_match_id=encode_match_id(info), played=decision["chosen"][:60],
            best=decision["best"][:60], loss=decision["loss"], mark=decision["mark"],
            answers=answers, due_at=timezone.now())
        made += 1
    return made


def collect_drill(player_id: int) -> int:
    """Make the drill items of every analysis of ``player_id``'s matches made so far."""
    player = Player.objects.filter(pk=player_id).first()
    if player is None:
        return 0
    return sum(drill_items_from_analysis(analysis) for analysis in analyses_of(player))



def bot_act(*, match_id: int, version: int) -> bool:
    """Make the bot's move in ``match_id`` if a bot must act at ``version``; True if it
    acted. Runs in a worker of the bot queue. The bot's choice depends on the match's state
    alone (gnubg's deterministic noise: :mod:`tavla.analysis.bots`)."""
    match = Match.objects.select_related("player0", "player1").filter(pk=match_id).first()
    if match is None or match.is_finished or match.version != version:
        return False
    state = load_state(match)
    seat = state.player_to_act
    if seat is None:
        return False
    player = match.players()[seat]
    if not player.is_bot:
        return False
    if state.resign_offer is not None:
        # A resignation offered to a bot: it accepts (it has no evaluator to weigh it by).
        action, play = "accept_resign", None
    else:
        choice = bot_brain.choose(state, seat, player.bot_strength or "intermediate")
        action, play = _service_action(state.phase, choice)
    try:
        services.match_act(match_id=match_id, player=player, action=action,
                           expected_version=version, play=play)
    except ServiceError as error:
        if error.code in ("stale_version", "match_over", "not_your_turn"):
            return False
        raise
    return True


def _service_action(phase: Phase, choice: Any) -> tuple[str, str | None]:
    if isinstance(choice, PlayMove):
        play = choice.play
        return "play", play.notation() if isinstance(play, Play) else str(play)
    if isinstance(choice, Double):
        return "double", None
    if isinstance(choice, Take):
        return "take", None
    if isinstance(choice, Drop):
        return "drop", None
    if phase is Phase.TURN_START:
        return "roll", None
    raise ServiceError("illegal_action",
                       _("the bot has nothing to do in phase %(phase)s") % {"phase": phase.value})
