"""The bridge between stored matches and the pure engine.

A match's ``snapshot`` is ``MatchState.to_dict()``; its rules come from the table when the
match starts and are stored in the ``start`` event, so a later change to the table never
changes a match in progress or its replay.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from matches.models import Event, LogKind, Match, Table
from matches.rules import FlagPenalty
from tavla.engine.dice import FairDice, ScriptedDice
from tavla.engine.match import MatchState, Rules


def rules_for_table(table: Table) -> Rules:
    return Rules(
        match_length=table.match_length,
        cube=table.cube_enabled,
        gammons=table.gammons_enabled,
        crawford=table.crawford,
        flag_loses_match=table.flag_penalty == FlagPenalty.MATCH,
    )


def load_state(match: Match) -> MatchState:
    return MatchState.from_dict(match.snapshot)


class MatchDice:
    """The dice of one match: scripted rolls first (where allowed), else the fair source.

    Writes the fair source's counter (and what was scripted) back onto ``match``; the
    caller saves it in the same transaction as the roll.
    """

    def __init__(self, match: Match) -> None:
        self.match = match
        self.fair = FairDice.from_hex(match.dice_seed, match.dice_counter)

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


def replay_events(events: list[Event]) -> MatchState:
    """Rebuild a match's engine state from its log: the rules of the ``start`` event, then
    every logged engine action in order."""
    rules: Rules | None = None
    actions: list[dict[str, Any]] = []
    for event in events:
        if event.kind == LogKind.START:
            rules = Rules.from_dict(event.payload["rules"])
        elif "action" in event.payload:
            actions.append(event.payload["action"])
    if rules is None:
        raise ValueError("the log has no start event")
    return MatchState.replay(rules, actions)
