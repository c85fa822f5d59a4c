"""Ladder rules: challenges, the winner taking the place, drops, and the history replayed."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from seasons.formats.ladder import (
    Decided,
    Dropped,
    Event,
    Joined,
    LadderError,
    Left,
    apply,
    challenge_refusal,
    place_of,
    replay,
)

ORDER = ("a", "b", "c", "d", "e")


def test_a_winning_challenger_takes_the_place_and_those_between_move_down() -> None:
    assert apply(ORDER, Decided("e", "b", winner="e")) == ("a", "e", "b", "c", "d")


def test_a_winning_defender_changes_nothing() -> None:
    assert apply(ORDER, Decided("e", "b", winner="b")) == ORDER
    assert apply(ORDER, Decided("e", "b", winner="b", forfeit=True)) == ORDER


def test_challenges_reach_only_so_many_places_up() -> None:
    assert challenge_refusal(ORDER, "e", "c", reach=2) is None
    assert challenge_refusal(ORDER, "e", "b", reach=2).code == "challenge_out_of_reach"
    assert challenge_refusal(ORDER, "b", "e", reach=2).code == "challenge_below"
    assert challenge_refusal(ORDER, "b", "b", reach=2).code == "challenge_self"
    assert challenge_refusal(ORDER, "z", "b", reach=2).code == "not_on_ladder"


def test_an_inactive_player_drops_but_not_below_the_bottom() -> None:
    assert apply(ORDER, Dropped("b", 2)) == ("a", "c", "d", "b", "e")
    assert apply(ORDER, Dropped("d", 5)) == ("a", "b", "c", "e", "d")


@pytest.mark.parametrize(("event", "code"), [
    (Joined("a"), "already_on_ladder"),
    (Left("z"), "not_on_ladder"),
    (Decided("b", "e", winner="b"), "challenge_below"),
    (Decided("e", "b", winner="a"), "winner_not_a_player"),
    (Dropped("a", -1), "bad_drop"),
])
def test_bad_changes_are_refused_and_the_order_kept(event: Event, code: str) -> None:
    with pytest.raises(LadderError) as refused:
        apply(ORDER, event)
    assert refused.value.code == code


@st.composite
def histories(draw: st.DrawFn) -> list[Event]:
    """A valid history: joins, leaves, challenges within reach, drops."""
    order: tuple[int, ...] = ()
    events: list[Event] = []
    next_player = 0
    for _ in range(draw(st.integers(0, 60))):
        kind = draw(st.sampled_from(("join", "leave", "challenge", "drop")))
        event: Event
        if kind == "join" or len(order) < 2:
            event, next_player = Joined(next_player), next_player + 1
        elif kind == "leave":
            event = Left(draw(st.sampled_from(order)))
        elif kind == "challenge":
            challenger = draw(st.integers(1, len(order) - 1))
            defender = draw(st.integers(max(0, challenger - 3), challenger - 1))
            a, b = order[challenger], order[defender]
            event = Decided(a, b, winner=draw(st.sampled_from((a, b))))
        else:
            event = Dropped(draw(st.sampled_from(order)), draw(st.integers(0, 4)))
        order = apply(order, event)
        events.append(event)
    return events


@given(histories())
def test_the_history_replays_to_the_order_and_every_change_follows_the_rules(
        events: list[Event]) -> None:
    order: tuple[object, ...] = ()
    for event in events:
        before = order
        order = apply(order, event)
        if isinstance(event, Decided):
            if event.winner == event.challenger:
                assert place_of(order, event.challenger) == place_of(before, event.defender)
                assert place_of(order, event.defender) == place_of(before, event.defender) + 1
            else:
                assert order == before
        elif isinstance(event, Dropped):
            assert place_of(order, event.player) == min(
                place_of(before, event.player) + event.places, len(order))
        if not isinstance(event, Joined | Left):
            assert sorted(order) == sorted(before)  # type: ignore[type-var]
    assert replay(events) == order
    joined = {e.player for e in events if isinstance(e, Joined)}
    left = {e.player for e in events if isinstance(e, Left)}
    assert set(order) == joined - left
