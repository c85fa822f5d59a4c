"""Resignation rules: what a :class:`~tavla.engine.actions.Resign` offers, and what accepting
or refusing an offer records. ``Rules.resignation == "offer"``: a player offers to lose a
single game, a gammon or a backgammon, and the opponent accepts or refuses (FIBS, gnubg, WBF);
on a ``"single"`` table a resignation ends the game at once, a single game times the cube.
:class:`~tavla.engine.match.MatchState` applies what these return."""

from __future__ import annotations

from tavla.engine.errors import IllegalActionError
from tavla.engine.game import EndReason, EventKind, GameEvent, GameResult, Seat, other
from tavla.engine.rules import LEVEL_KINDS, ResignOffer, Rules


def offer_for(rules: Rules, *, loser: Seat, level: int | None, in_game: bool,
              phase: str) -> ResignOffer | None:
    """The offer ``loser``'s resignation at ``level`` makes, or ``None`` on a ``"single"``
    table (the game ends at once). ``phase`` describes the phase for a refusal. Raises
    :class:`IllegalActionError` for a level the table does not allow."""
    if level is not None and (isinstance(level, bool) or level not in LEVEL_KINDS):
        raise IllegalActionError(f"a resignation level is 1, 2 or 3, not {level!r}")
    if rules.resignation == "single":
        if level not in (None, 1):
            raise IllegalActionError(
                "this table resigns a single game times the cube: no gammon or "
                "backgammon resignation"
            )
        return None
    if not in_game:
        raise IllegalActionError(f"player {loser} cannot resign now: {phase}")
    level = level or 1
    if level > 1 and not rules.gammons:
        raise IllegalActionError(
            "this table plays without gammons: a resignation is a single game"
        )
    return ResignOffer(loser, level)


def offered(offer: ResignOffer) -> GameEvent:
    return GameEvent(EventKind.RESIGN_OFFER, player=offer.player, value=offer.level)


def accepted(offer: ResignOffer, cube_value: int) -> tuple[GameResult, GameEvent]:
    """The game's result and event when the opponent accepts: ``level`` times the cube."""
    result = GameResult(
        winner=other(offer.player),
        points=offer.level * cube_value,
        kind=offer.kind,
        reason=EndReason.RESIGN,
        cube_value=cube_value,
    )
    return result, GameEvent(EventKind.RESIGN, player=offer.player, value=offer.level)


def refused(offer: ResignOffer) -> GameEvent:
    """The event when the opponent refuses: play goes on as before the offer."""
    return GameEvent(EventKind.RESIGN_REJECT, player=other(offer.player), value=offer.level)
