"""Ending a match: the one place every end goes through (score, ratings, the table freed)."""

from __future__ import annotations

import logging
from datetime import datetime

from matches.models import (
    Event,
    LogKind,
    Match,
    MatchStatus,
    Player,
    RatingRecord,
    Table,
)
from matches.players.ratings import fibs_rating_change
from matches.services import broadcast
from matches.services.log import _event
from tavla.engine.clock import Clock
from tavla.engine.game import EndReason
from tavla.engine.match import MatchState

logger = logging.getLogger(__name__)

# -- ending a match: the one place every end goes through ------------------------------------


def _finish_match(match: Match, state: MatchState, events: list[Event], now: datetime, *,
                  voided: bool = False) -> None:
    """Score and close a match whose engine state is over. Caller holds the lock and saves.

    Sets status and winner, reveals the dice seed, updates ratings and frees the table; the
    caller tells listeners (tournaments) through :data:`matches.signals.match_finished` once
    the match is saved. A ``voided`` match ends here too, mid-game: no winner, no rating
    change, its clock stopped.
    """
    reason = state.end_reason
    if voided:
        match.status = MatchStatus.VOIDED
        if match.clock is not None:
            match.clock = Clock.from_dict(match.clock).stop(now.timestamp()).to_dict()
    elif reason is EndReason.FORFEIT:
        match.status = MatchStatus.FORFEITED
    elif reason is EndReason.ADJUDICATION:
        match.status = MatchStatus.ADJUDICATED
    else:
        match.status = MatchStatus.FINISHED
    if state.winner is not None and not voided:
        match.winner = match.player0 if state.winner == 0 else match.player1
    match.finished_at = now
    match.seed_revealed = True
    match.deadline = None
    events.append(_event(match, LogKind.MATCH_END, {
        "winner": None if voided else state.winner, "score": list(state.score),
        "reason": "void" if voided else None if reason is None else reason.value,
    }, state.game_number))
    match.rated = rated_match(match.table, has_bot=match.has_bot,
                              match_length=state.rules.match_length)
    if match.rated and match.winner is not None and state.rules.match_length:
        _update_ratings(match, state.rules.match_length)
    _free_table(match)
    broadcast.broadcast_on_commit(broadcast.LOBBY_GROUP, {"type": "lobby.changed"})
    # One line per ended match (the log's match_id names it: tavla.logs).
    logger.info("match ended: %s, score %s", MatchStatus(match.status).name.lower(),
                "-".join(map(str, state.score)))


def rated_match(table: Table, *, has_bot: bool, match_length: int | None) -> bool:
    """Whether a match of ``match_length`` points at ``table`` counts for ratings: a rated
    table, a match (not a money session), and a bot's match only where its table says so
    (``Table.bots_rated``)."""
    return bool(table.is_rated and (not has_bot or table.bots_rated) and match_length)


def _free_table(match: Match) -> None:
    """Free both seats of the match's table (in the database and in the loaded table, which
    the broadcast state shows)."""
    Table.objects.filter(pk=match.table_id).update(seat0=None, seat1=None)
    match.table.seat0 = match.table.seat1 = None


def _update_ratings(match: Match, length: int) -> None:
    """Rate a finished match (FIBS formula). Locks both players' rows, in id order so two
    matches finishing at once cannot deadlock; one insert of both records."""
    assert match.winner_id is not None
    locked = {p.pk: p for p in Player.objects.select_for_update().filter(
        pk__in=(match.player0_id, match.player1_id)).order_by("pk")}
    winner = locked[match.winner_id]
    loser = locked[match.player1_id if match.winner_id == match.player0_id else match.player0_id]
    change = fibs_rating_change(
        winner_rating=winner.rating, loser_rating=loser.rating,
        winner_experience=winner.experience, loser_experience=loser.experience,
        match_length=length,
    )
    records = []
    for player, delta in ((winner, change.winner_delta), (loser, change.loser_delta)):
        records.append(RatingRecord(player=player, match=match, before=player.rating,
                                    after=player.rating + delta))
        player.rating += delta
        player.experience += length
        player.save(update_fields=["rating", "experience"])
        shown = match.player0 if player.pk == match.player0_id else match.player1
        shown.rating, shown.experience = player.rating, player.experience
    RatingRecord.objects.bulk_create(records)
