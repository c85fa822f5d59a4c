"""The state pushed once per change: what the services broadcast, what it costs, how big it is.

Whole matches are played through :mod:`matches.services` with fair dice and a seeded random
player, and every action is checked: its queries, the public state it broadcasts (equal to a
fresh read of the table), and a state that does not grow with the game number.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches import selectors, services
from matches.errors import ServiceError
from matches.models import Match, Player
from matches.state import load_state, replay_events

pytestmark = pytest.mark.django_db

# Transaction control is not a query of the action: SQLite logs BEGIN, and a test's own
# transaction turns the service's into a savepoint. Nor is PostgreSQL's PREPARE of the
# action's statements (matches.services.statements): once per database session.
_CONTROL = re.compile(r"^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE SAVEPOINT|PREPARE)\b", re.I)


def data_queries(context: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in context.captured_queries if not _CONTROL.match(q["sql"])]


def next_move(match: Match, rng: random.Random) -> tuple[Player, str, str | None] | None:
    """The acting player's action as a random (never doubling) player picks it."""
    state = load_state(match)
    seat = state.player_to_act
    if seat is None or state.is_over:
        return None
    player = match.player0 if seat == 0 else match.player1
    phase = state.phase.value
    if phase == "turn_start":
        return player, "roll", None
    if phase == "cube_offered":
        return player, "take", None
    return player, "play", rng.choice(state.legal_plays()).notation()


def play_out(match: Match, seed: int = 7, limit: int = 5000) -> Iterator[tuple[Match, Any]]:
    """Play ``match`` to its end; yield (match, the action's result) after each action."""
    rng = random.Random(seed)
    for _ in range(limit):
        match = Match.objects.select_related("player0", "player1").get(pk=match.pk)
        move = next_move(match, rng)
        if move is None:
            return
        player, action, play = move
        result = services.match_act(match_id=match.pk, player=player, action=action,
                                    expected_version=match.version, play=play)
        yield match, result
    raise AssertionError("the match did not end")


def test_every_action_costs_at_most_five_queries(start_match: Callable[..., Match]) -> None:
    match = start_match(match_length=3)
    rng = random.Random(3)
    costs: list[tuple[str, int]] = []
    while True:
        match = Match.objects.select_related("player0", "player1").get(pk=match.pk)
        move = next_move(match, rng)
        if move is None:
            break
        player, action, play = move
        with CaptureQueriesContext(connection) as context:
            result = services.match_act(match_id=match.pk, player=player, action=action,
                                        expected_version=match.version, play=play)
        costs.append((action, len(data_queries(context))))
        last, final_queries = result, data_queries(context)
    assert last.state.is_over and len(costs) > 20
    *playing, (_, final) = costs
    # The locked read, one insert of the events, the match's update (on PostgreSQL these two
    # are one statement); a game's end adds its Game row.
    assert max(cost for _, cost in playing) <= 5, costs
    usual = 2 if connection.vendor == "postgresql" else 3
    assert usual in {cost for _, cost in playing} <= {usual, usual + 1}
    # The match's end also rates it (both players locked, both records inserted, two
    # updates), frees the table, asks for its analysis (matches.gnubg.analysis: a read and an
    # insert) and tells whoever may own the match: a tournament, an arena, a ladder (a read
    # each).
    assert final <= 14, "\n".join(final_queries)


def test_events_are_numbered_without_a_gap_from_the_matchs_counter(
        start_match: Callable[..., Match]) -> None:
    match = start_match(match_length=3)
    for _ in play_out(match):
        pass
    match.refresh_from_db()
    sequences = list(match.events.order_by("sequence").values_list("sequence", flat=True))
    assert sequences == list(range(len(sequences))) and match.next_sequence == len(sequences)
    assert services.match_verify(match_id=match.pk).ok


def test_the_broadcast_state_is_a_fresh_read_of_the_table(
        start_match: Callable[..., Match],
        django_capture_on_commit_callbacks: Callable[..., Any]) -> None:
    """What every board gets pushed equals what connect or sync read from the database
    (the clock's reserves aside: they are computed at the moment of each)."""
    match = start_match(match_length=1)
    checked = 0
    rng = random.Random(11)
    while True:
        match = Match.objects.select_related("player0", "player1").get(pk=match.pk)
        move = next_move(match, rng)
        if move is None:
            break
        player, action, play = move
        result = services.match_act(match_id=match.pk, player=player, action=action,
                                    expected_version=match.version, play=play)
        pushed = selectors.live_update(result.match, result.state)
        read, plays = selectors.table_public_state(match.table_id)
        assert pushed["type"] == "match.state"
        assert json.loads(pushed["state_json"]) == json.loads(json.dumps(read))
        assert (None if pushed["plays_json"] is None else json.loads(pushed["plays_json"])) \
            == plays
        # Each board's message from the push is the one a fresh read gives that viewer.
        for viewer in (match.player0_id, match.player1_id, None, -1):
            text = json.loads(selectors.viewer_text(pushed, viewer))
            fresh = json.loads(json.dumps(selectors.for_viewer(read, viewer, plays)))
            assert abs(text.pop("server_time") - fresh.pop("server_time")) < 5
            assert list(text) == list(fresh) and text == fresh
            assert (text["legal_plays"] is not None) == (
                text["your_seat"] is not None and text["your_seat"] == read["player_to_act"]
                and read["dice"] is not None)
        checked += 1
    assert checked > 10


def test_earlier_games_are_summaries_and_the_history_has_every_event(
        start_match: Callable[..., Match]) -> None:
    # A point a game (no cube, no gammons): the match lasts at least three games whatever
    # the dice, which are random here.
    match = start_match(match_length=3, cube_enabled=False, gammons_enabled=False)
    seen_games = 0
    for _, result in play_out(match):
        state = selectors.public_state(result.match, result.state)
        *earlier, current = state["games"]
        assert all("events" not in game for game in earlier)
        assert "events" in current and current["number"] == state["games"][-1]["number"]
        seen_games = max(seen_games, len(state["games"]))
    assert seen_games >= 2
    match.refresh_from_db()
    history = selectors.match_history(match)
    # The history is what the log replays to, though the snapshot keeps only the last
    # game's events (the others are in the Game rows).
    engine = replay_events(match.events.order_by("sequence"))
    assert history["type"] == "history" and history["version"] == match.version
    assert history["games"] == [game.to_dict() for game in engine.games]
    assert all(game["events"] for game in history["games"])
    *earlier, last = load_state(match).games
    assert earlier and not any(game.events for game in earlier) and last.events


def test_the_state_does_not_grow_with_the_game_number(
        start_match: Callable[..., Match]) -> None:
    """Apart from the current game's own events, game 9's states weigh what game 1's did,
    plus a small summary per earlier game; the moves of earlier games are not carried.

    Games 2 to 8 are resigned after a few turns (a summary's size does not depend on the
    game's length), which keeps the test quick. ``benchmarks/state_size.py`` plays every game
    out and reports the sizes."""
    match = start_match(match_length=None, cube_enabled=False)  # a money session: many games
    rng = random.Random(5)
    rest: dict[int, list[int]] = {}  # game -> sizes of the state without its current events
    summaries: list[int] = []
    while True:
        match = Match.objects.select_related("player0", "player1").get(pk=match.pk)
        engine = load_state(match)
        if engine.game_number > 9:
            break
        move = next_move(match, rng)
        assert move is not None
        player, action, play = move
        if 1 < engine.game_number < 9 and len(engine.current_game.events) > 6:
            action, play = "resign", None
        result = services.match_act(match_id=match.pk, player=player, action=action,
                                    expected_version=match.version, play=play)
        state = selectors.match_state(result.match, None)  # a spectator's: no legal plays
        events = len(json.dumps(state["games"][-1]["events"]))
        rest.setdefault(state["game_number"], []).append(len(json.dumps(state)) - events)
        if state["game_number"] == 9:
            summaries = [len(json.dumps(game)) for game in state["games"][:-1]]
    assert len(rest[1]) > 10 and len(rest[9]) > 10
    assert len(summaries) == 8 and max(summaries) < 200, summaries
    assert max(rest[9]) <= max(rest[1]) + sum(summaries) + 100, (max(rest[1]), max(rest[9]))


def test_the_services_refuse_an_anonymous_actor(start_match: Callable[..., Match]) -> None:
    match = start_match()
    for call in (
        lambda: services.match_act(match_id=match.pk, player=None, action="roll",
                                   expected_version=match.version),
        lambda: services.table_sit(table_id=match.table_id, player=None),
        lambda: services.table_stand(table_id=match.table_id, player=None),
        lambda: services.match_end_session(match_id=match.pk, player=None),
    ):
        with pytest.raises(ServiceError) as refused:
            call()
        assert refused.value.code == "not_authenticated"
    assert Match.objects.get(pk=match.pk).version == match.version


def test_an_action_names_a_match_of_its_own_table(start_match: Callable[..., Match]) -> None:
    match = start_match()
    other = start_match()
    with pytest.raises(ServiceError) as refused:
        services.match_act(match_id=match.pk, table_id=other.table_id, player=match.player0,
                           action="resign", expected_version=match.version)
    assert refused.value.code == "no_match"
    assert Match.objects.get(pk=match.pk).version == match.version


def test_a_state_says_its_protocol_and_the_winner_as_seat_and_player(
        start_match: Callable[..., Match]) -> None:
    match = start_match(match_length=1)
    result = services.match_act(match_id=match.pk, player=match.player1, action="resign",
                                expected_version=match.version)
    state = selectors.match_state(result.match, match.player1)
    assert state["protocol"] == selectors.PROTOCOL_VERSION == 1
    assert state["winner"] == 0 and state["winner_player_id"] == match.player0_id
    assert state["your_seat"] == 1 and state["viewer_id"] == match.player1_id
    assert state["table"]["seats"] == [None, None] and state["status"] == "finished"
