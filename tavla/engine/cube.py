"""The doubling cube's rule of who may double when. :class:`~tavla.engine.match.MatchState`
asks it before a :class:`~tavla.engine.actions.Double` and to tell the service whether the
player on roll has a cube decision at all."""

from __future__ import annotations

from tavla.engine.game import Phase, Seat
from tavla.engine.rules import Rules


def double_refusal(rules: Rules, *, phase: Phase, crawford: bool, cube_value: int,
                   cube_owner: Seat | None, player_on_roll: Seat | None) -> str | None:
    """Why the player on roll may not double now, or ``None`` when they may."""
    if phase is not Phase.TURN_START:
        return "a player may double only at the start of their turn, before rolling"
    if not rules.cube:
        return "this table plays without the doubling cube"
    if crawford:
        return "nobody may double in the Crawford game"
    if cube_value >= rules.max_cube:
        return f"the cube is already at its limit of {rules.max_cube}"
    if cube_owner is not None and cube_owner != player_on_roll:
        return f"the cube belongs to player {cube_owner}: only its owner may redouble"
    return None
