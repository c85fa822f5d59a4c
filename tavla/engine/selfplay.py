"""Random self-play: whole matches from a seeded RNG, for tests, demos and ``.mat`` samples.

Every choice (dice, doubles, takes, plays, the occasional resignation) comes from one
``random.Random(seed)``, so a seed always gives the same match. The players are not good:
they pick uniformly among the legal plays.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from tavla.engine.actions import (
    Action,
    Double,
    Drop,
    EndSession,
    NewGame,
    OpeningRoll,
    PlayMove,
    Resign,
    Roll,
    Take,
)
from tavla.engine.game import Phase
from tavla.engine.match import MatchState
from tavla.engine.matfile import export_mat
from tavla.engine.rules import Rules


@dataclass(frozen=True, slots=True)
class SelfPlayOptions:
    """How often the random players use the cube and resign.

    ``double`` is the chance of doubling when allowed, ``take`` the chance of taking a
    double, ``resign`` the chance per turn of resigning instead of rolling. A money session
    ends after ``session_games`` games. With ``live_cube_only`` a player never doubles when
    winning the game at the current cube would already win the match: our rules allow that
    double, GNU Backgammon refuses it ("the cube is dead"), so records meant for gnubg
    avoid it.
    """

    double: float = 0.08
    take: float = 0.7
    resign: float = 0.0
    session_games: int = 5
    live_cube_only: bool = False


def cube_is_dead(state: MatchState) -> bool:
    """True when the player on roll would win the match by winning this game at the current
    cube (gnubg then refuses a double; our rules do not)."""
    if state.player_on_roll is None:
        return False
    needed = state.points_needed(state.player_on_roll)
    return needed is not None and state.cube_value >= needed


def choose_action(state: MatchState, rng: random.Random, options: SelfPlayOptions) -> Action:
    """A random legal action for ``state``; the server's dice come from ``rng`` too."""
    phase = state.phase
    if phase is Phase.OPENING_ROLL:
        return OpeningRoll(rng.randint(1, 6), rng.randint(1, 6))
    if phase is Phase.TURN_START:
        assert state.player_on_roll is not None
        if options.resign and rng.random() < options.resign:
            return Resign(state.player_on_roll)
        if state.may_double() and rng.random() < options.double:
            if not (options.live_cube_only and cube_is_dead(state)):
                return Double()
        return Roll(rng.randint(1, 6), rng.randint(1, 6))
    if phase is Phase.CUBE_OFFERED:
        return Take() if rng.random() < options.take else Drop()
    if phase is Phase.MOVE:
        return PlayMove(rng.choice(state.legal_plays()))
    if phase is Phase.GAME_OVER:
        if state.rules.is_money and state.game_number >= options.session_games:
            return EndSession()
        return NewGame()
    raise ValueError("the match is over: there is no action to choose")


def play_match(
    rules: Rules, seed: int, options: SelfPlayOptions | None = None
) -> tuple[MatchState, tuple[Action, ...]]:
    """Play a whole match (or session) at random; returns the final state and every action."""
    options = options or SelfPlayOptions()
    rng = random.Random(seed)
    state = MatchState.new(rules)
    actions: list[Action] = []
    while not state.is_over:
        action = choose_action(state, rng, options)
        state = state.apply(action)
        actions.append(action)
    return state, tuple(actions)


def play_game(state: MatchState, rng: random.Random, options: SelfPlayOptions) -> MatchState:
    """Play from ``state`` until the current game is over (``GAME_OVER`` or ``MATCH_OVER``)."""
    while state.phase.in_game:
        state = state.apply(choose_action(state, rng, options))
    return state


def selfplay_mat(
    length: int,
    seed: int,
    *,
    names: tuple[str, str] = ("Player0", "Player1"),
    options: SelfPlayOptions | None = None,
) -> str:
    """A random ``length``-point match with the cube, as a Jellyfish ``.mat`` text that GNU
    Backgammon imports (so, by default, no doubles of a dead cube)."""
    options = options or SelfPlayOptions(live_cube_only=True)
    state, _ = play_match(Rules(match_length=length), seed, options)
    return export_mat(state, names=names)
