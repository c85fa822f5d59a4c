"""Practise your mistakes: a player's errors and blunders from their analysed matches come
back as drill items on a Leitner schedule.

Where items come from: every decision of a finished match's analysis
(:class:`matches.models.MatchAnalysis`) that a person (not a bot) made and gnubg marked
``error`` or ``blunder``. A worker makes the items (:func:`matches.gnubg.evaluation.
drill_items_from_analysis`) right after it analyses a match, and for analyses made before
a player first opens the practice page (the task ``matches.collect_drill``, queued by
:func:`drill_collect_once`); a checker play's item holds gnubg's ranking of every legal play
of that roll at the analysis's depth, a cube decision's the three equities of the analysis.
Answering needs no gnubg: :func:`drill_answer` looks the answer up.

The schedule (Leitner boxes): a new item is in box 1 and due at once. A right answer (one
that loses at most :data:`RIGHT_WITHIN` equity) moves it up a box and it comes back after
:data:`BOX_DAYS` of its new box (1, 2, 4, 8, 16 days; box 5 stays in box 5); a wrong answer
puts it back in box 1, due again after :data:`RETRY_MINUTES` minutes.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any, Final

from django.core.cache import cache
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from matches.errors import ServiceError
from matches.models import AnalysisStatus, DrillItem, MatchAnalysis, Player
from matches.selectors import board_dict
from tavla.analysis.matread import GameRecord, MatRecord
from tavla.celery import app
from tavla.engine import MatchInfo, Position, decode_match_id, legal_plays

logger = logging.getLogger(__name__)

#: The marks that make a drill item.
DRILL_MARKS: Final = ("error", "blunder")
#: An answer losing at most this much equity (normalised) is right: gnubg's best, or a
#: play that ties with it.
RIGHT_WITHIN: Final = 0.005
#: Days until an item comes back after a right answer, by the box it moves to.
BOX_DAYS: Final = {1: 1, 2: 2, 3: 4, 4: 8, 5: 16}
#: Minutes until an item answered wrong comes back (in box 1).
RETRY_MINUTES: Final = 10
#: The worker's task that makes the items of a player's past analyses.
COLLECT_TASK: Final = "matches.collect_drill"

CUBE_KINDS: Final = ("double", "no_double")
TAKE_KINDS: Final = ("take", "drop")


def question_of(record: MatRecord, game_index: int, decision: dict[str, Any]
                ) -> tuple[Position, MatchInfo]:
    """The position (from gnubg's player on roll) and Match ID fields of one analysed
    ``decision`` of ``record`` (as :mod:`tavla.analysis.analyse` stores it): the cube and
    its owner as they were before that action, the game's score, the Crawford game."""
    game = record.games[game_index]
    index, player, kind = decision["index"], decision["player"], decision["kind"]
    value, owner = _cube_before(game, index)
    position = Position.from_id(decision["position_id"])
    crawford = game_index == _crawford_game(record)
    length = record.match_length
    if kind in TAKE_KINDS:
        # The analysis stores the taker's view; gnubg's player on roll is the doubler.
        doubler = 1 - player
        return position.swap(), MatchInfo(
            cube_value=value, cube_owner=owner, player_on_roll=doubler, crawford=crawford,
            turn=player, double_offered=True, match_length=length, score=game.score)
    dice = decision.get("dice")
    rolled = (max(dice), min(dice)) if kind == "move" and dice else (0, 0)
    return position, MatchInfo(
        cube_value=value, cube_owner=owner, player_on_roll=player, crawford=crawford,
        turn=player, dice=rolled, match_length=length, score=game.score)


def _cube_before(game: GameRecord, index: int) -> tuple[int, int | None]:
    value, owner = 1, None
    for turn in game.turns[:index]:
        if turn.kind == "take":
            value, owner = value * 2, turn.player
    return value, owner


def _crawford_game(record: MatRecord) -> int | None:
    """The index of the Crawford game: the game right after a player first reaches N-1."""
    if not record.crawford or not record.match_length:
        return None
    target = record.match_length - 1
    for index, game in enumerate(record.games):
        if max(game.score) == target:
            previous = record.games[index - 1].score if index else (0, 0)
            return index if target not in previous else None
    return None


def drill_collect_once(player: Player) -> None:
    """Queue the making of ``player``'s items from their analyses made so far, once (the
    worker makes the items of each new analysis itself)."""
    key = f"tavla:drill:collected:{player.pk}"
    if not cache.add(key, 1, None):
        return
    player_id = player.pk

    def enqueue() -> None:
        try:
            app.signature(COLLECT_TASK, args=(player_id,)).apply_async()
        except Exception:  # noqa: BLE001 - the page works with the items there are
            logger.exception("could not queue the drill items of player %s", player_id)
            cache.delete(key)

    transaction.on_commit(enqueue)


def analyses_of(player: Player) -> list[MatchAnalysis]:
    return list(MatchAnalysis.objects.filter(
        Q(match__player0=player) | Q(match__player1=player),
        status=AnalysisStatus.DONE).select_related("match"))


def schedule(box: int, right: bool, now: datetime) -> tuple[int, datetime]:
    """The Leitner step: the item's new box and when it is due again."""
    if not right:
        return 1, now + timedelta(minutes=RETRY_MINUTES)
    box = min(5, box + 1)
    return box, now + timedelta(days=BOX_DAYS[box])


def due_items(player: Player, now: datetime | None = None) -> Any:
    return DrillItem.objects.filter(player=player, due_at__lte=now or timezone.now())


def next_item(player: Player) -> DrillItem | None:
    """The item due longest ago, or None when nothing is due."""
    return due_items(player).order_by("due_at", "pk").first()


def drill_summary(player: Player) -> dict[str, Any]:
    items = DrillItem.objects.filter(player=player)
    boxes = {box: items.filter(box=box).count() for box in range(1, 6)}
    upcoming = items.filter(due_at__gt=timezone.now()).order_by("due_at").first()
    return {"items": sum(boxes.values()), "due": due_items(player).count(),
            "boxes": boxes, "next_due_at": upcoming.due_at.isoformat() if upcoming else None}


def item_question(item: DrillItem) -> dict[str, Any]:
    """What the player sees before answering (nothing of the answer): the board from their
    side, the dice or the cube decision, the cube, the score, and for a checker play the
    legal plays the board lets them make."""
    position = Position.from_id(item.position_id)
    info = _info(item)
    mine = position.swap() if item.kind in TAKE_KINDS else position
    seat = 1 - info.player_on_roll if item.kind in TAKE_KINDS else info.player_on_roll
    data: dict[str, Any] = {
        "id": item.pk,
        "kind": item.kind,
        "question": ("checker" if item.kind == "move"
                     else "take" if item.kind in TAKE_KINDS else "double"),
        "board": board_dict(mine),
        "dice": list(info.dice) if item.kind == "move" else None,
        "cube": {"value": info.cube_value,
                 "owner": None if info.cube_owner is None else
                 ("you" if info.cube_owner == seat else "opponent")},
        "score": [info.score[seat], info.score[1 - seat]],
        "match_length": info.match_length,
        "crawford": info.crawford,
        "box": item.box,
        "due_at": item.due_at.isoformat(),
        "match": item.match_id,
        "game": item.game,
        "position_id": item.position_id,
        "match_id": item.gnubg_match_id,
        "legal_plays": None,
    }
    if item.kind == "move":
        data["legal_plays"] = [
            {"notation": play.notation(),
             "moves": [[m.source, m.destination, m.hit] for m in play.moves],
             "position_id": play.position.to_id()}
            for play in legal_plays(position, *info.dice)]
    return data


def _info(item: DrillItem) -> MatchInfo:
    return decode_match_id(item.gnubg_match_id)


def _graded(item: DrillItem, answer: Any) -> tuple[float, str]:
    """(equity the answer loses, gnubg's best answer). Raises ``invalid_play`` or
    ``invalid_option`` for an answer that is not one of the item's choices."""
    answers = item.answers
    if item.kind == "move":
        plays = answers["plays"]
        if not isinstance(answer, str):
            raise ServiceError("invalid_play", _("Answer with a play's notation "
                               "(one of legal_plays[].notation)."), field="answer")
        chosen = next((entry for entry in plays if entry["play"] == answer), None)
        if chosen is None:
            raise ServiceError("invalid_play",
                               _("%(answer)r is not a legal play of this roll (one of "
                                 "legal_plays[].notation).") % {"answer": answer}, field="answer")
        return float(chosen["loss"]), str(plays[0]["play"])
    if item.kind in TAKE_KINDS:
        if answer not in ("take", "pass"):
            raise ServiceError("invalid_option", _("Answer take or pass."), field="answer")
        return float(answers[f"{answer}_loss"]), str(answers["response"])
    if answer not in ("double", "no_double"):
        raise ServiceError("invalid_option", _("Answer double or no_double."), field="answer")
    return float(answers[f"{answer}_loss"]), str(answers["best"])


@transaction.atomic(durable=True)
def drill_answer(*, player: Player, item_id: int, answer: Any) -> dict[str, Any]:
    """Grade ``player``'s ``answer`` to their item ``item_id`` and move it on the schedule.

    ``answer`` is a play's notation for a checker play, ``double``/``no_double`` for a
    doubling decision, ``take``/``pass`` for a double on the table. Returns whether it was
    right, the equity it lost, gnubg's best and answers, what was played in the match, and
    the item's new box and due time. Raises ``not_found`` for another player's item,
    ``invalid_play``/``invalid_option`` for an answer that is not a choice (nothing changes).
    """
    item = DrillItem.objects.select_for_update().filter(pk=item_id, player=player).first()
    if item is None:
        raise ServiceError("not_found", _("No such drill item of yours."))
    loss, best = _graded(item, answer)
    right = loss <= RIGHT_WITHIN
    now = timezone.now()
    item.box, item.due_at = schedule(item.box, right, now)
    item.reviews += 1
    item.right += right
    item.save(update_fields=["box", "due_at", "reviews", "right"])
    return {"id": item.pk, "right": right, "loss": loss, "answer": answer, "best": best,
            "played": item.played, "played_loss": item.loss, "mark": item.mark,
            "answers": item.answers, "box": item.box, "due_at": item.due_at.isoformat()}


def practice_json(player: Player) -> dict[str, Any]:
    """The drill's summary and the next item due, without its answer (``GET /api/practice/``
    and the page embed the same); queues the collection of older analyses' items once."""
    drill_collect_once(player)
    item = next_item(player)
    return {**drill_summary(player), "item": item_question(item) if item else None}
