"""Message size by game number: the state a board is sent in game 1 and in game 9.

Plays a long money session (cube on, a seeded random player who sometimes doubles) through
the real services on a throwaway SQLite database, and after every action measures the JSON
of the state the acting player's opponent is sent (``matches.selectors.match_state``). It
prints the median and the maximum bytes per game, next to what the same state would weigh if
it still carried every earlier game's moves (as before protocol 1), and the size of the full
``history``.

Run: .venv/bin/python benchmarks/state_size.py [--games 9] [--seed 1]

A state's size depends on how far its own game has gone (it carries that game's events), so
games are compared at equal positions too: over their first 40 states. Measured (1 Dec 2026,
random players, fair dice, so the figures move from run to run):

    game 1: median 5,789 bytes, max 10,192 (first 40 states: 2,753 / 4,198)
    game 9: median 3,965 bytes, max  5,277 (first 40 states: 3,965 / 5,277)
    first 40 states, game 9 / game 1: median x1.44, max x1.26 (eight summaries, ~150 bytes
    each); with every game's moves, as before protocol 1: median x27, max x18
    (game 9 then weighed 74,761 bytes median, 76,073 max)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
# A state's size depends on how far its game has gone (the current game's events): games
# are compared at equal positions too, over their first EARLY states.
EARLY = 40


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="tavla-state-size-")
    os.environ.update(DATABASE_URL=f"sqlite:///{workdir}/db.sqlite3", DEBUG="1",
                      DJANGO_SETTINGS_MODULE="tavla.settings")
    sys.path.insert(0, str(BASE_DIR))
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.core.management import call_command

    # No channel layer is needed: nobody listens, the states are measured where they are built.
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    call_command("migrate", verbosity=0)
    from matches import selectors, services
    from matches.models import Match
    from matches.state import full_state, load_state

    players = [services.player_for_user(User.objects.create_user(f"size-{i}"))
               for i in range(2)]
    table = services.table_create(name="size", match_length=None, is_rated=False)
    for player in players:
        services.table_sit(table_id=table.pk, player=player)
    match = Match.objects.get(table=table)
    rng = random.Random(args.seed)
    from matches.services.dice_seeds import match_client_seed

    for player in players:  # the first roll waits for both players' seeds (docs/dice.md)
        match_client_seed(match_id=match.pk, player=player, seed=rng.randbytes(32).hex())
    sizes: dict[int, list[tuple[int, int, int]]] = {}
    while True:
        match = Match.objects.select_related("player0", "player1", "table").get(pk=match.pk)
        engine = load_state(match)
        if engine.game_number > args.games:
            break
        seat = engine.player_to_act
        assert seat is not None
        phase = engine.phase.value
        if phase == "turn_start":
            action = "double" if engine.may_double() and rng.random() < 0.05 else "roll"
        elif phase == "cube_offered":
            action = "take" if rng.random() < 0.7 else "drop"
        else:
            action = "play"
        play = rng.choice(engine.legal_plays()).notation() if action == "play" else None
        result = services.match_act(match_id=match.pk, player=players[seat], action=action,
                                    expected_version=match.version, play=play)
        watched = selectors.match_state(result.match, None)  # a spectator's: no legal plays
        acting = selectors.match_state(result.match, players[1 - seat])
        # The engine state keeps only the current game's events (the earlier games' are in
        # their Game rows): what the state weighed before protocol 1 needs them all.
        everything = dict(watched, games=[g.to_dict() for g in full_state(result.match).games])
        if watched["game_number"] <= args.games:
            sizes.setdefault(watched["game_number"], []).append(
                (len(json.dumps(watched)), len(json.dumps(everything)),
                 len(json.dumps(acting))))
    match.refresh_from_db()
    history = len(json.dumps(selectors.match_history(match)))
    print(f"a money session of {args.games} games, {sum(map(len, sizes.values()))} states:")
    for game in sorted(sizes):
        now, before, acting_sizes = ([row[i] for row in sizes[game]] for i in range(3))
        early = now[:EARLY]
        print(f"game {game:2}: median {statistics.median(now):6,.0f} bytes, max {max(now):6,}"
              f" (first {EARLY} states: {statistics.median(early):5,.0f} / {max(early):5,}); "
              f"with every game's moves {statistics.median(before):6,.0f} / {max(before):6,};"
              f" the player to act's {statistics.median(acting_sizes):6,.0f} / "
              f"{max(acting_sizes):6,}")
    print(f"the history of the session: {history:,} bytes")
    last = max(sizes)
    for name, index in (("now", 0), ("with every game's moves", 1)):
        for label, pick in (("median", statistics.median), ("max", max)):
            first = pick([row[index] for row in sizes[1][:EARLY]])
            later = pick([row[index] for row in sizes[last][:EARLY]])
            print(f"{name}: {label} of the first {EARLY} states, game {last} / game 1 = "
                  f"x{later / first:.2f}")

if __name__ == "__main__":
    main()
