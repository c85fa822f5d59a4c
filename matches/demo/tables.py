"""The match-play part of the demo club (``manage.py seed_demo``), and a random player.

:func:`seed_match_demo` adds tables with different rules and one finished match between two
demo players, played through :mod:`matches.services` exactly as a client would play it, so a
referee can replay and verify it in the admin. Running it again changes nothing.

:func:`random_action` and :func:`play_out` are the random player the demo (and the tests)
use: it picks uniformly among the legal plays, doubles now and then and takes most doubles.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Final

from django.contrib.auth import get_user_model

from matches import services
from matches.models import Match, MatchStatus, Table
from matches.services import dice_seeds
from matches.state import awaiting_client_seeds, load_state
from tavla.engine.clock import PRESETS
from tavla.engine.game import Phase
from tavla.engine.match import MatchState

Report = Callable[[str], None]


def random_action(state: MatchState, rng: random.Random, *, double: float = 0.08,
                  take: float = 0.7, resign: float = 0.0) -> tuple[str, str | None]:
    """A random legal ``(action, play)`` for the player to act in ``state``, in the words of
    :func:`matches.services.match_act`. Raises ``ValueError`` when nobody is to act."""
    if state.player_to_act is None:
        raise ValueError(f"nobody is to act in phase {state.phase.value}")
    if state.phase is Phase.TURN_START:
        if resign and rng.random() < resign:
            return "resign", None
        if state.may_double() and rng.random() < double:
            return "double", None
        return "roll", None
    if state.phase is Phase.CUBE_OFFERED:
        return ("take" if rng.random() < take else "drop"), None
    if state.phase is Phase.MOVE:
        return "play", rng.choice(state.legal_plays()).notation()
    raise ValueError(f"no player action in phase {state.phase.value}")


def play_out(match: Match, rng: random.Random, *, max_actions: int = 20_000,
             session_games: int = 3, **chances: float) -> Match:
    """Play ``match`` to its end through the services with random legal actions.

    A money session is ended (by player 0) once ``session_games`` games are finished.
    Returns the refreshed match.
    """
    for _ in range(max_actions):
        match.refresh_from_db()
        if match.is_finished:
            return match
        if awaiting_client_seeds(match):
            # Both players contribute to the dice before the first roll, as boards do.
            for index, player in enumerate(match.players()):
                if getattr(match, f"client_seed{index}") is None:
                    dice_seeds.match_client_seed(match_id=match.pk, player=player,
                                                 seed=rng.randbytes(32).hex())
            continue
        state = load_state(match)
        finished_games = sum(1 for game in state.games if game.result is not None)
        if state.rules.is_money and finished_games >= session_games:
            services.match_end_session(match_id=match.pk, player=match.player0)
            continue
        seat = state.player_to_act
        assert seat is not None, f"nobody to act in {state.phase.value}"
        action, play = random_action(state, rng, **chances)
        services.match_act(match_id=match.pk, player=match.players()[seat], action=action,
                           play=play, expected_version=match.version)
    raise RuntimeError(f"match {match.pk} did not end within {max_actions} actions")


# -- the demo club ---------------------------------------------------------------------------

FAST: Final = PRESETS["fast"]
assert FAST is not None

# (name, table options): one table for each kind of rule a club sets.
DEMO_TABLES: Final[list[tuple[str, dict[str, Any]]]] = [
    ("Five points, Crawford", {"match_length": 5, "crawford": True}),
    ("One-pointer", {"match_length": 1}),
    ("No cube, three points", {"match_length": 3, "cube_enabled": False}),
    ("Singles only (gammons off)", {"match_length": 3, "gammons_enabled": False}),
    ("Money session", {"match_length": None, "is_rated": False}),
    ("Blitz: fast clock, three points", {
        "match_length": 3, "clock_enabled": True, "clock_delay": FAST.delay,
        "clock_reserve_seconds": FAST.reserve_seconds,
        "clock_reserve_per_point": FAST.reserve_per_point, "grace_seconds": FAST.grace,
    }),
    ("Private practice", {"match_length": 3, "is_public": False, "is_rated": False}),
]
# A private table belongs to somebody: its creator sees the invitation link on the board.
PRIVATE_TABLE_OWNER: Final = "alice"
FINISHED_TABLE: Final = "Demo final (finished, replay it in the admin)"
FINISHED_PLAYERS: Final = ("alice", "bob")
FINISHED_SEED: Final = 2024


def seed_tables(report: Report) -> None:
    for name, options in DEMO_TABLES:
        if not Table.objects.filter(name=name).exists():
            creator = None
            if not options.get("is_public", True):
                owner = get_user_model().objects.filter(username=PRIVATE_TABLE_OWNER).first()
                creator = services.player_for_user(owner) if owner else None
            services.table_create(name=name, creator=creator, **options)
            report(f"created table {name!r}")


def seed_finished_match(report: Report) -> None:
    """Alice and Bob play a rated three-point match to the end (random legal plays)."""
    if Match.objects.filter(table__name=FINISHED_TABLE,
                            status__gte=MatchStatus.FINISHED).exists():
        return
    users = get_user_model().objects
    try:
        first, second = (services.player_for_user(users.get(username=name))
                         for name in FINISHED_PLAYERS)
    except get_user_model().DoesNotExist:
        report("demo players missing: no finished match seeded")
        return
    table = (Table.objects.filter(name=FINISHED_TABLE).first()
             or services.table_create(name=FINISHED_TABLE, match_length=3))
    for player in (first, second):
        table.refresh_from_db()
        if player.pk not in (table.seat0_id, table.seat1_id):
            services.table_sit(table_id=table.pk, player=player)
    match = services.current_match(table)
    if match is None:
        report(f"table {FINISHED_TABLE!r} has no match to play")
        return
    match = play_out(match, random.Random(FINISHED_SEED))
    report(f"played match #{match.pk}: {match.player0} {match.score0} – "
           f"{match.score1} {match.player1}")


def seed_match_demo(report: Report) -> None:
    """Tables with different rules and one finished match; safe to run again."""
    seed_tables(report)
    seed_finished_match(report)
