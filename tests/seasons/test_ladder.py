"""A ladder through its services over a simulated month: 20 players challenge at random
within reach; defenders accept, decline or let challenges expire; matches are finished by
the services' own forfeit, or not in time (the sweep forfeits them); idle players drop.

After every step: the stored order equals the replay of the stored history, and each new
event is checked against the rules restated here (not by calling the formats): who may
challenge whom, who wins what, who drops how far and when.

Simulated time: the services take ``now``; the ``match_finished`` receiver reads the clock,
so Django's ``timezone.now`` is the simulated clock for the whole test (every record, the
matches' own included, is stamped with the simulated time).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from matches import services as match_services
from matches.models import MatchStatus, Player
from matches.state import load_state
from seasons import services
from seasons.formats.ladder import replay
from seasons.models import ChallengeStatus, Ladder, LadderChallenge, LadderEvent
from seasons.services import LadderError
from seasons.services.ladder import history_of, order_of

pytestmark = pytest.mark.django_db

REACH, ACCEPT_DAYS, PLAY_DAYS, IDLE_DAYS, DROP = 3, 2, 4, 7, 2


class Clock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    clock = Clock(timezone.now())
    monkeypatch.setattr(timezone, "now", clock)
    yield clock


@pytest.fixture
def ladder() -> Ladder:
    return services.ladder_create(name="Club ladder", reach=REACH, accept_days=ACCEPT_DAYS,
                                  play_days=PLAY_DAYS, inactivity_days=IDLE_DAYS,
                                  drop_places=DROP, match_length=1)


class Model:
    """The ladder as the rules say it should be, kept apart from the services."""

    def __init__(self) -> None:
        self.order: list[int] = []
        self.active: dict[int, datetime] = {}  # joined, last decided, or last drop
        self.seen = 0

    def check_new_events(self, ladder: Ladder, now: datetime) -> list[LadderEvent]:
        events = list(ladder.events.filter(sequence__gt=self.seen).order_by("sequence")
                      .select_related("challenge__match"))
        for event in events:
            assert event.sequence == self.seen + 1
            self.seen = event.sequence
            assert event.at == now
            self.follow(event, ladder, now)
        return events

    def follow(self, event: LadderEvent, ladder: Ladder, now: datetime) -> None:
        order = self.order
        if event.kind == "joined":
            assert event.player_id not in order
            order.append(event.player_id)
            self.active[event.player_id] = now
        elif event.kind == "left":
            order.remove(event.player_id)
            del self.active[event.player_id]
        elif event.kind == "dropped":
            index = order.index(event.player_id)
            assert now - self.active[event.player_id] >= timedelta(days=IDLE_DAYS)
            assert event.places == min(DROP, len(order) - 1 - index) > 0
            order.remove(event.player_id)
            order.insert(index + event.places, event.player_id)
            self.active[event.player_id] = now
        else:
            challenge = event.challenge
            assert challenge is not None
            a, d = challenge.challenger_id, challenge.defender_id
            assert (event.player_id, event.defender_id) == (a, d)
            assert order.index(d) < order.index(a)  # the defender still above
            if challenge.status in (ChallengeStatus.DECLINED, ChallengeStatus.EXPIRED):
                # Refused or not accepted in time: the defender forfeits.
                assert event.forfeit and event.winner_id == a
                if challenge.status == ChallengeStatus.EXPIRED:
                    assert challenge.accept_by <= now
            else:
                assert challenge.status == ChallengeStatus.DECIDED
                match = challenge.match
                assert match is not None and match.is_finished
                assert event.winner_id == match.winner_id
                assert event.forfeit == (match.status == MatchStatus.FORFEITED)
            if event.winner_id == a:
                order.remove(a)
                order.insert(order.index(d), a)
            self.active[a] = self.active[d] = now

    def check(self, ladder: Ladder) -> None:
        assert services.ladder_check(ladder) == []
        assert list(order_of(ladder)) == self.order
        assert list(replay(history_of(ladder))) == self.order


def pending(ladder: Ladder) -> list[LadderChallenge]:
    return list(ladder.challenges.filter(status__in=("open", "accepted"))
                .select_related("match", "challenger", "defender"))


def test_a_month_of_twenty_players_follows_every_rule(
        ladder: Ladder, clock: Clock, make_player: Callable[..., Player]) -> None:
    rng = random.Random(2026)
    players = [make_player(f"rung{i}") for i in range(20)]
    by_id = {p.pk: p for p in players}
    idle = set(rng.sample([p.pk for p in players], 3))  # never challenge, never challenged
    others = [p.pk for p in players if p.pk not in idle]
    silent = set(others[:2])  # never answer a challenge: it expires
    slow = set(others[2:5])  # never finish their matches: the sweep forfeits them
    model = Model()

    def step() -> None:
        model.check_new_events(ladder, clock.now)
        model.check(ladder)

    for player in players:
        services.ladder_join(ladder_id=ladder.pk, player=player, now=clock.now)
        step()
    counts = {"challenges": 0, "refused": 0, "declined": 0, "expired": 0, "late": 0,
              "played": 0, "dropped": 0}
    start = clock.now
    while clock.now < start + timedelta(days=30):
        clock.now += timedelta(hours=6)
        now = clock.now
        busy = {p for c in pending(ladder) for p in (c.challenger_id, c.defender_id)}
        # A few challenges, within reach, among players with none pending.
        for _ in range(3):
            order = model.order
            free = [p for p in order if p not in busy and p not in idle]
            if not free:
                break
            challenger = rng.choice(free)
            place = order.index(challenger)
            targets = [p for p in order[max(0, place - REACH):place]
                       if p not in busy and p not in idle]
            if not targets:
                continue
            defender = rng.choice(targets)
            services.ladder_challenge(ladder_id=ladder.pk, challenger=by_id[challenger],
                                      defender_id=defender, now=now)
            busy.update((challenger, defender))
            counts["challenges"] += 1
            step()
        # Refusals change nothing: each with its code.
        order = model.order
        low = order[-1]
        for challenger, defender, code in (
                (low, order[0], "challenge_out_of_reach"), (order[0], low, "challenge_below"),
                (low, low, "challenge_self")):
            before = (LadderChallenge.objects.count(), LadderEvent.objects.count())
            with pytest.raises(LadderError) as refused:
                services.ladder_challenge(ladder_id=ladder.pk, challenger=by_id[challenger],
                                          defender_id=defender, now=now)
            assert refused.value.code == code
            assert (LadderChallenge.objects.count(), LadderEvent.objects.count()) == before
            counts["refused"] += 1
        for challenge in pending(ladder):
            if challenge.status == ChallengeStatus.OPEN and challenge.accept_by > now:
                roll = rng.random()
                if challenge.defender_id in silent:
                    continue  # left to expire
                if roll < 0.2:
                    services.ladder_decline(challenge_id=challenge.pk,
                                            player=challenge.defender, now=now)
                    counts["declined"] += 1
                else:
                    services.ladder_accept(challenge_id=challenge.pk, player=challenge.defender,
                                           now=now)
                    assert challenge.__class__.objects.get(pk=challenge.pk).match.status == (
                        MatchStatus.PLAYING)
                step()
            elif (challenge.status == ChallengeStatus.ACCEPTED and rng.random() < 0.5
                  and not {challenge.challenger_id, challenge.defender_id} & slow):
                loser = rng.choice((challenge.challenger, challenge.defender))
                match_services.match_forfeit(match_id=challenge.match_id, loser=loser,
                                             reason="ladder test")
                counts["played"] += 1
                step()
        # A player leaves for a while, and comes back at the bottom.
        if clock.now - start == timedelta(days=10):
            leaver = next(p for p in model.order[5:] if p not in busy
                          and not any(p in (c.challenger_id, c.defender_id)
                                      for c in pending(ladder)))
            services.ladder_leave(ladder_id=ladder.pk, player=by_id[leaver], now=now)
            step()
            services.ladder_join(ladder_id=ladder.pk, player=by_id[leaver], now=now)
            step()
        # The sweep: expiries, late matches, drops, each checked against the rules.
        late_due = {c.pk: c for c in pending(ladder)
                    if c.status == ChallengeStatus.ACCEPTED and c.play_by <= now}
        inactive = {p for p in model.order
                    if now - model.active[p] >= timedelta(days=IDLE_DAYS)
                    and not any(p in (c.challenger_id, c.defender_id) for c in pending(ladder))}
        result = services.ladder_sweep(now=now)
        events = model.check_new_events(ladder, now)
        model.check(ladder)
        assert result["late"] == len(late_due)
        for challenge in late_due.values():
            challenge.refresh_from_db()
            challenge.match.refresh_from_db()
            assert challenge.status == ChallengeStatus.DECIDED
            assert challenge.match.status == MatchStatus.FORFEITED
        dropped = {e.player_id for e in events if e.kind == "dropped"}
        assert dropped <= inactive
        # Every inactive player dropped, unless at the bottom (then the period restarts).
        for player in inactive - dropped:
            model.active[player] = now
        assert result["dropped"] == len(dropped)
        counts["expired"] += result["expired"]
        counts["late"] += result["late"]
        counts["dropped"] += result["dropped"]

    # Everything happened, more than once.
    assert all(count >= 2 for count in counts.values()), counts
    assert list(replay(history_of(ladder))) == list(order_of(ladder)) == model.order


def test_answers_and_bad_inputs_change_nothing(
        ladder: Ladder, clock: Clock, make_player: Callable[..., Player]) -> None:
    a, b, c, d = (make_player(name) for name in ("anna", "bora", "cem", "deniz"))
    for player in (a, b, c, d):
        services.ladder_join(ladder_id=ladder.pk, player=player, now=clock.now)
    with pytest.raises(LadderError) as error:
        services.ladder_join(ladder_id=ladder.pk, player=a, now=clock.now)
    assert error.value.code == "already_on_ladder"
    challenge = services.ladder_challenge(ladder_id=ladder.pk, challenger=c, defender_id=b.pk,
                                          now=clock.now)
    snapshot = (order_of(ladder), LadderEvent.objects.count(), LadderChallenge.objects.count())
    for call, code in (
            (lambda: services.ladder_challenge(ladder_id=ladder.pk, challenger=c,
                                               defender_id=a.pk, now=clock.now),
             "challenge_pending"),
            (lambda: services.ladder_challenge(ladder_id=ladder.pk, challenger=b,
                                               defender_id=a.pk, now=clock.now),
             "challenge_pending"),
            (lambda: services.ladder_challenge(ladder_id=ladder.pk, challenger=d,
                                               defender_id=b.pk, now=clock.now),
             "defender_busy"),
            (lambda: services.ladder_challenge(ladder_id=ladder.pk, challenger=d,
                                               defender_id=10**6, now=clock.now),
             "not_on_ladder"),
            (lambda: services.ladder_challenge(ladder_id=ladder.pk, challenger=None,
                                               defender_id=a.pk, now=clock.now),
             "not_authenticated"),
            (lambda: services.ladder_accept(challenge_id=challenge.pk, player=c, now=clock.now),
             "not_defender"),
            (lambda: services.ladder_decline(challenge_id=challenge.pk, player=a,
                                             now=clock.now), "not_defender"),
            (lambda: services.ladder_leave(ladder_id=ladder.pk, player=b, now=clock.now),
             "challenge_pending"),
            (lambda: services.ladder_accept(
                challenge_id=challenge.pk, player=b,
                now=clock.now + timedelta(days=ACCEPT_DAYS)), "challenge_closed"),
            (lambda: services.ladder_accept(challenge_id=10**6, player=b, now=clock.now),
             "not_found"),
            (lambda: services.ladder_create(name="x", reach=0), "invalid_option"),
            (lambda: services.ladder_create(name=" "), "invalid_option"),
            (lambda: services.ladder_create(name="x", colour="red"), "invalid_option"),
    ):
        with pytest.raises(LadderError) as error:
            call()
        assert error.value.code == code
        assert (order_of(ladder), LadderEvent.objects.count(),
                LadderChallenge.objects.count()) == snapshot
    # A defender who wins changes nothing, but the decision is in the history.
    services.ladder_accept(challenge_id=challenge.pk, player=b, now=clock.now)
    challenge.refresh_from_db()
    match_services.match_forfeit(match_id=challenge.match_id, loser=c, reason="test")
    challenge.refresh_from_db()
    assert (challenge.status, challenge.winner_id, challenge.forfeit) == ("decided", b.pk, True)
    assert order_of(ladder) == (a.pk, b.pk, c.pk, d.pk)
    assert [e.kind for e in ladder.events.order_by("sequence")][-1] == "decided"
    # The match not started when its time is up is the defender's forfeit.
    clock.now += timedelta(days=1)
    second = services.ladder_challenge(ladder_id=ladder.pk, challenger=b, defender_id=a.pk,
                                       now=clock.now)
    services.ladder_accept(challenge_id=second.pk, player=a, now=clock.now)
    second.refresh_from_db()
    seat = load_state(second.match).player_to_act
    late_loser = a if seat is None else second.match.players()[seat]
    clock.now += timedelta(days=PLAY_DAYS) - timedelta(seconds=1)
    assert services.ladder_sweep(now=clock.now)["late"] == 0  # not yet
    clock.now += timedelta(seconds=1)
    assert services.ladder_sweep(now=clock.now)["late"] == 1
    second.refresh_from_db()
    second.match.refresh_from_db()
    assert second.match.status == MatchStatus.FORFEITED
    assert second.match.winner_id != late_loser.pk
    assert second.winner_id == second.match.winner_id and second.forfeit
    assert services.ladder_check(ladder) == []
