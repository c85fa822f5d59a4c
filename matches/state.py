"""The bridge between stored matches and the pure engine.

A match's ``snapshot`` is ``MatchState.to_dict()``; its rules come from the table when the
match starts and are stored in the ``start`` event, so a later change to the table never
changes a match in progress or its replay.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings

from matches.models import Event, LogKind, Match, Table
from matches.rules import FlagPenalty
from tavla.engine.actions import action_from_dict
from tavla.engine.dice import ClientSeeds, FairDice, ScriptedDice
from tavla.engine.game import GameRecord
from tavla.engine.match import MatchState
from tavla.engine.rules import Rules


def rules_for_table(table: Table) -> Rules:
    return Rules(
        match_length=table.match_length,
        cube=table.cube_enabled,
        gammons=table.gammons_enabled,
        crawford=table.crawford,
        flag_loses_match=table.flag_penalty == FlagPenalty.MATCH,
        resignation=str(table.resignation),
    )


def load_state(match: Match) -> MatchState:
    """The state of ``match`` from its snapshot: what play needs, with the current game's
    events only (:meth:`MatchState.compact`); :func:`full_state` has every game's."""
    return MatchState.from_dict(match.snapshot)


def full_state(match: Match) -> MatchState:
    """The state of ``match`` with every game's events (history, ``.mat`` export), one query:
    each finished game's are in its ``Game`` row. A game found in neither the snapshot (as
    before snapshots were compact) nor a row (none should be) is replayed from the log."""
    stored = stored_state(match)
    return replay_events(match.events.order_by("sequence")) if stored is None else stored


def stored_state(match: Match) -> MatchState | None:
    """:func:`full_state` as stored (snapshot and game records, no replay), or ``None`` when
    a finished game's events are in neither."""
    state = load_state(match)
    earlier = state.games[:-1]
    if all(game.events for game in earlier):
        return state
    records = {number: record for number, record in match.games.values_list("number", "record")
               if record is not None}
    games = []
    for game in earlier:
        if not game.events:
            if game.number not in records:
                return None
            game = GameRecord.from_dict(records[game.number])
        games.append(game)
    return state.with_earlier_games(games)


def match_client_seeds(match: Match) -> ClientSeeds | None:
    """The client seeds the fair dice of ``match`` derive from: ``None`` for the
    server-seed-only algorithm of older matches; a seed not (yet) sent counts as empty."""
    if match.dice_algorithm == 0:
        return None
    return (bytes.fromhex(match.client_seed0 or ""), bytes.fromhex(match.client_seed1 or ""))


def open_client_seeds(match: Match, now: datetime, *, bot_seats: Iterable[int] = ()) -> None:
    """Start ``match``'s client-seed window (the match is new, its commitment published):
    ``TAVLA_CLIENT_SEED_SECONDS`` from ``now``; with none, both seeds are recorded empty at
    once. The server's own bots (``bot_seats``) contribute a random seed at once, so a
    bot's opponent never waits for it. The caller saves the match."""
    for seat in bot_seats:
        setattr(match, f"client_seed{seat}", secrets.token_hex(32))
    window = float(getattr(settings, "TAVLA_CLIENT_SEED_SECONDS", 0))
    if window > 0 and (match.client_seed0 is None or match.client_seed1 is None):
        match.client_seeds_due = now + timedelta(seconds=window)
    else:
        match.client_seed0 = match.client_seed0 or ""
        match.client_seed1 = match.client_seed1 or ""
        match.client_seeds_due = None


def awaiting_client_seeds(match: Match) -> bool:
    """True while the first roll waits for the players' client seeds (docs/dice.md)."""
    return match.client_seeds_due is not None


def client_seeds_state(match: Match) -> dict[str, Any]:
    """What a board needs to know about the client seeds: whether they are still taken,
    until when, and who has sent one."""
    return {
        "open": awaiting_client_seeds(match),
        "due": None if match.client_seeds_due is None else match.client_seeds_due.isoformat(),
        "sent": [match.client_seed0 is not None, match.client_seed1 is not None],
    }


class MatchDice:
    """The dice of one match: scripted rolls first (where allowed), else the fair source.

    Writes the fair source's counter (and what was scripted) back onto ``match``; the
    caller saves it in the same transaction as the roll.
    """

    def __init__(self, match: Match) -> None:
        self.match = match
        self.fair = FairDice.from_hex(match.dice_seed, match.dice_counter,
                                      match_client_seeds(match))

    def _scripted(self) -> tuple[int, int] | None:
        if not self.match.scripted_dice or not getattr(settings, "TAVLA_SCRIPTED_DICE", False):
            return None
        roll = ScriptedDice([self.match.scripted_dice[0]]).roll()
        self.match.scripted_dice = self.match.scripted_dice[1:]
        self.match.dice_were_scripted = True
        return roll

    def roll(self) -> tuple[int, int]:
        scripted = self._scripted()
        if scripted is not None:
            return scripted
        roll = self.fair.roll()
        self.match.dice_counter = self.fair.counter
        return roll

    roll_opening = roll


def replay_log(events: Iterable[Event]) -> Iterator[tuple[Event, MatchState, bool]]:
    """The one replay of a match's log: each event with the engine state right after it, and
    whether it applied an engine action (the ``start`` event sets up the rules it stores).

    An accepted takeback (``takeback_accept``, :mod:`matches.services.takeback`) puts the
    state back to what it was after the event it names (``restore_to``): the plays and rolls
    it undid stay in the log, marked ``undone``.

    Raises ``ValueError`` when the log does not begin with its ``start`` event, and the
    engine's errors (``ValueError`` too) when a logged action does not apply.
    """
    state: MatchState | None = None
    # The state after each event of the current game: what a takeback may go back to.
    # States are immutable and share their parts, so keeping them costs little.
    after: dict[int, MatchState] = {}
    for event in events:
        applied = False
        if event.kind == LogKind.TAKEBACK_ACCEPT:
            restore_to = event.payload.get("restore_to")
            if restore_to not in after:
                raise ValueError(f"event {event.sequence} takes back to {restore_to!r}, "
                                 "which is not an earlier event of the same game")
            state = after[restore_to]
            applied = True
        elif event.kind == LogKind.START:
            start = event.payload.get("start_score") or (0, 0)  # a late-arrival penalty
            state = MatchState.new(Rules.from_dict(event.payload["rules"]),
                                   score=(int(start[0]), int(start[1])))
            applied = True
        elif "action" in event.payload:
            if state is None:
                raise ValueError("the log has an action before its start event")
            state = state.apply(action_from_dict(event.payload["action"]))
            applied = True
        if state is None:
            raise ValueError("the log does not begin with a start event")
        if event.kind in (LogKind.NEW_GAME, LogKind.START):
            after.clear()  # a takeback never reaches into an earlier game
        after[event.sequence] = state
        yield event, state, applied


def replay_events(events: Iterable[Event]) -> MatchState:
    """The state the whole log replays to: the last step of :func:`replay_log`."""
    last: MatchState | None = None
    for _event, state, _applied in replay_log(events):
        last = state
    if last is None:
        raise ValueError("the log has no start event")
    return last
