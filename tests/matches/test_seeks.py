"""Finding a game through the services: seeks pair on equal terms exactly once (also when
posted at the same moment), challenges are answered once, bad input is a clear error that
changes nothing, and follows and the online list say who plays where."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from functools import partial
from typing import Any

import pytest
from django.db.models import Q
from django.utils import timezone

from matches.errors import ServiceError
from matches.models import (
    Challenge,
    ChallengeStatus,
    ChatBlock,
    Follow,
    Match,
    MatchStatus,
    Player,
    Seek,
    SeekStatus,
    Table,
)
from matches.services import online
from matches.services.challenges import (
    challenge_accept,
    challenge_cancel,
    challenge_decline,
    challenge_send,
    challenges_expire,
    challenges_of,
)
from matches.services.follows import follow, followed_tables, online_players, unfollow
from matches.services.seeks import open_seeks, seek_cancel, seek_post, seeks_expire, seeks_withdraw
from matches.validation import GameTermsInput, game_terms
from tests.at_once import at_once, race

pytestmark = pytest.mark.django_db

FIVE = GameTermsInput(5, "normal", True)


def refused(code: str, call: Callable[[], Any]) -> ServiceError:
    with pytest.raises(ServiceError) as error:
        call()
    assert error.value.code == code, error.value
    return error.value


def counts() -> tuple[int, int, int, int]:
    return (Seek.objects.count(), Challenge.objects.count(), Table.objects.count(),
            Follow.objects.count())


# -- seeks -----------------------------------------------------------------------------------


def test_seeks_of_equal_terms_pair_into_a_started_match(
        make_player: Callable[..., Player]) -> None:
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    first = seek_post(player=alice, terms=FIVE)
    assert first.status == SeekStatus.OPEN and first.table_id is None
    # Other terms do not pair: another length, clock or rating.
    for terms in (GameTermsInput(3, "normal", True), GameTermsInput(5, "none", True),
                  GameTermsInput(5, "normal", False)):
        assert seek_post(player=carol, terms=terms).status == SeekStatus.OPEN
    second = seek_post(player=bob, terms=FIVE)
    assert second.status == SeekStatus.PAIRED
    first.refresh_from_db()
    assert first.status == SeekStatus.PAIRED and first.table_id == second.table_id
    table = Table.objects.get(pk=second.table_id)
    assert (table.seat0_id, table.seat1_id) == (alice.pk, bob.pk)
    assert (table.match_length, table.is_rated, table.clock_enabled) == (5, True, True)
    assert table.clock_delay == 10 and table.is_public
    match = Match.objects.get(table=table)
    assert match.status == MatchStatus.PLAYING
    assert {s.player_id for s in open_seeks()} == {carol.pk}


def test_a_paired_player_s_other_seeks_are_withdrawn(make_player: Callable[..., Player]) -> None:
    alice, bob = make_player(), make_player()
    other = seek_post(player=alice, terms=GameTermsInput(1, "none", False))
    seek_post(player=alice, terms=FIVE)
    seek_post(player=bob, terms=FIVE)
    other.refresh_from_db()
    assert other.status == SeekStatus.CANCELLED
    assert open_seeks() == []


def test_one_s_own_seek_never_pairs_and_a_duplicate_is_refused(
        make_player: Callable[..., Player]) -> None:
    alice = make_player()
    seek_post(player=alice, terms=FIVE)
    before = counts()
    refused("seek_exists", lambda: seek_post(player=alice, terms=FIVE))
    assert counts() == before


def test_seeks_are_bounded_per_player(make_player: Callable[..., Player],
                                      settings: Any) -> None:
    settings.TAVLA_OPEN_SEEKS = 2
    alice = make_player()
    seek_post(player=alice, terms=GameTermsInput(1, "none", False))
    seek_post(player=alice, terms=GameTermsInput(3, "none", False))
    before = counts()
    error = refused("too_many_seeks",
                    lambda: seek_post(player=alice, terms=GameTermsInput(5, "none", False)))
    assert "2 open seeks" in error.detail
    assert counts() == before
    settings.TAVLA_OPEN_SEEKS, settings.TAVLA_SEEKS_PER_HOUR = 10, 2
    error = refused("too_many_seeks",
                    lambda: seek_post(player=alice, terms=GameTermsInput(7, "none", False)))
    assert "in the last hour" in error.detail
    assert counts() == before


def test_a_seek_expires_withdraws_and_is_cancelled(make_player: Callable[..., Player]) -> None:
    alice, bob = make_player(), make_player()
    old = seek_post(player=alice, terms=FIVE)
    Seek.objects.filter(pk=old.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert open_seeks() == []
    assert seek_post(player=bob, terms=FIVE).status == SeekStatus.OPEN  # no pairing with it
    refused("seek_closed", lambda: seek_cancel(seek_id=old.pk, player=alice))
    assert seeks_expire() == 1
    assert Seek.objects.get(pk=old.pk).status == SeekStatus.EXPIRED
    mine = seek_post(player=alice, terms=GameTermsInput(1, "none", False))
    refused("not_found", lambda: seek_cancel(seek_id=mine.pk, player=bob))  # not bob's
    assert seek_cancel(seek_id=mine.pk, player=alice).status == SeekStatus.CANCELLED
    refused("seek_closed", lambda: seek_cancel(seek_id=mine.pk, player=alice))
    assert seeks_withdraw(bob.pk) == 1
    assert open_seeks() == []


def test_blocked_players_are_never_paired(make_player: Callable[..., Player]) -> None:
    alice, bob = make_player(), make_player()
    ChatBlock.objects.create(blocker=bob, blocked=alice)
    seek_post(player=alice, terms=FIVE)
    assert seek_post(player=bob, terms=FIVE).status == SeekStatus.OPEN


def test_anonymous_and_bots_do_not_seek(make_player: Callable[..., Player]) -> None:
    bot = make_player()
    Player.objects.filter(pk=bot.pk).update(is_bot=True)
    bot.refresh_from_db()
    refused("not_authenticated", lambda: seek_post(player=None, terms=FIVE))
    refused("forbidden", lambda: seek_post(player=bot, terms=FIVE))
    assert counts() == (0, 0, 0, 0)


@pytest.mark.parametrize("data, field", [
    ({"match_length": 0}, "match_length"), ({"match_length": 26}, "match_length"),
    ({"match_length": "5"}, "match_length"), ({"match_length": True}, "match_length"),
    ({"clock_preset": "blitz"}, "clock_preset"), ({"rated": 1}, "rated"),
    ({"colour": "red"}, "colour"),
])
def test_bad_terms_name_their_field(data: dict[str, Any], field: str) -> None:
    error = refused("invalid_option", lambda: game_terms(data))
    assert error.field == field


def test_terms_have_defaults() -> None:
    assert game_terms({}) == GameTermsInput(5, "none", False)


@pytest.mark.django_db(transaction=True)
def test_two_matching_seeks_at_the_same_moment_pair_exactly_once(
        make_player: Callable[..., Player]) -> None:
    """Real threads, their own connections: the pool row (PostgreSQL) or SQLite's one
    writer serialises the posts, so the second sees the first."""
    alice, bob = make_player(), make_player()
    results = race(lambda: seek_post(player=alice, terms=FIVE),
                   lambda: seek_post(player=bob, terms=FIVE))
    assert all(isinstance(r, Seek) for r in results), results
    assert sorted(r.status for r in results) == ["open", "paired"]
    assert Table.objects.count() == 1 and Match.objects.count() == 1
    assert Seek.objects.filter(status=SeekStatus.PAIRED).count() == 2


@pytest.mark.django_db(transaction=True)
def test_many_seekers_at_once_pair_two_by_two(make_player: Callable[..., Player]) -> None:
    players = [make_player() for _ in range(6)]
    queue = list(players)
    results = at_once(lambda: seek_post(player=queue.pop(), terms=FIVE), 6)
    assert all(isinstance(r, Seek) for r in results), results
    assert Match.objects.count() == 3
    seated = [pk for t in Table.objects.all() for pk in (t.seat0_id, t.seat1_id)]
    assert sorted(seated) == sorted(p.pk for p in players)  # each once


@pytest.mark.django_db(transaction=True)
def test_a_player_seeking_on_two_terms_is_paired_once_when_both_are_taken_at_once(
        make_player: Callable[..., Player]) -> None:
    """Quinn seeks on two terms; Pat and Rae take one each at the same moment. The pairing
    that loses the race (on PostgreSQL possibly as a deadlock's victim, run again) finds
    Quinn's other seek withdrawn: Quinn plays one match, and the loser's seek waits."""
    other_terms = GameTermsInput(3, "none", False)
    for _round in range(4):
        Seek.objects.filter(status=SeekStatus.OPEN).delete()  # the last round's loser's seek
        quinn, pat, rae = make_player(), make_player(), make_player()
        seek_post(player=quinn, terms=FIVE)
        seek_post(player=quinn, terms=other_terms)
        results = race(partial(seek_post, player=pat, terms=FIVE),
                       partial(seek_post, player=rae, terms=other_terms))
        assert all(isinstance(r, Seek) for r in results), results
        assert sorted(r.status for r in results) == ["open", "paired"]
        assert Table.objects.filter(Q(seat0=quinn) | Q(seat1=quinn)).count() == 1


# -- challenges ------------------------------------------------------------------------------


def test_a_challenge_accepted_opens_the_table(make_player: Callable[..., Player]) -> None:
    alice, bob = make_player("alice"), make_player("bob")
    seek_post(player=bob, terms=GameTermsInput(1, "none", False))
    challenge = challenge_send(challenger=alice, challenged=bob,
                               terms=GameTermsInput(3, "fast", False))
    assert challenges_of(bob)["incoming"][0]["id"] == challenge.pk
    assert challenges_of(alice)["outgoing"][0]["challenged"]["name"] == "bob"
    refused("forbidden", lambda: challenge_accept(challenge_id=challenge.pk, player=alice))
    accepted = challenge_accept(challenge_id=challenge.pk, player=bob)
    assert accepted.status == ChallengeStatus.ACCEPTED
    table = Table.objects.get(pk=accepted.table_id)
    assert (table.seat0_id, table.seat1_id, table.match_length) == (alice.pk, bob.pk, 3)
    assert Match.objects.get(table=table).status == MatchStatus.PLAYING
    assert open_seeks() == []  # bob plays now
    refused("challenge_closed", lambda: challenge_accept(challenge_id=challenge.pk, player=bob))
    assert Table.objects.count() == 1


def test_decline_cancel_and_expiry(make_player: Callable[..., Player]) -> None:
    alice, bob, carol = make_player(), make_player(), make_player()
    first = challenge_send(challenger=alice, challenged=bob, terms=FIVE)
    refused("not_found", lambda: challenge_decline(challenge_id=first.pk, player=carol))
    refused("forbidden", lambda: challenge_decline(challenge_id=first.pk, player=alice))
    assert challenge_decline(challenge_id=first.pk, player=bob).status == "declined"
    second = challenge_send(challenger=alice, challenged=bob, terms=FIVE)
    refused("forbidden", lambda: challenge_cancel(challenge_id=second.pk, player=bob))
    assert challenge_cancel(challenge_id=second.pk, player=alice).status == "cancelled"
    third = challenge_send(challenger=alice, challenged=bob, terms=FIVE)
    Challenge.objects.filter(pk=third.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert challenges_of(bob)["incoming"] == []
    refused("challenge_closed", lambda: challenge_accept(challenge_id=third.pk, player=bob))
    assert challenges_expire() == 1
    assert Table.objects.count() == 0


def test_bad_challenges_change_nothing(make_player: Callable[..., Player],
                                       settings: Any) -> None:
    alice, bob, carol, bot = (make_player() for _ in range(4))
    Player.objects.filter(pk=bot.pk).update(is_bot=True)
    bot.refresh_from_db()
    ChatBlock.objects.create(blocker=carol, blocked=alice)
    challenge_send(challenger=alice, challenged=bob, terms=FIVE)
    before = counts()
    refused("invalid_option", lambda: challenge_send(challenger=alice, challenged=alice,
                                                     terms=FIVE))
    refused("invalid_option", lambda: challenge_send(challenger=alice, challenged=bot,
                                                     terms=FIVE))
    refused("forbidden", lambda: challenge_send(challenger=alice, challenged=carol, terms=FIVE))
    refused("challenge_exists", lambda: challenge_send(challenger=alice, challenged=bob,
                                                       terms=GameTermsInput(1, "none", False)))
    refused("not_authenticated", lambda: challenge_send(challenger=None, challenged=bob,
                                                        terms=FIVE))
    settings.TAVLA_CHALLENGES_PER_HOUR = 1
    challenge_send(challenger=bob, challenged=alice, terms=FIVE)
    refused("too_many_challenges", lambda: challenge_send(challenger=bob, challenged=carol,
                                                          terms=FIVE))
    assert counts()[1] == before[1] + 1  # bob's first went out; the second was refused
    assert counts()[2] == before[2]


@pytest.mark.django_db(transaction=True)
def test_an_accept_and_a_cancel_at_once_one_wins(make_player: Callable[..., Player]) -> None:
    alice, bob = make_player(), make_player()
    challenge = challenge_send(challenger=alice, challenged=bob, terms=FIVE)
    results = race(lambda: challenge_accept(challenge_id=challenge.pk, player=bob),
                   lambda: challenge_cancel(challenge_id=challenge.pk, player=alice),
                   lambda: challenge_accept(challenge_id=challenge.pk, player=bob))
    won = [r for r in results if isinstance(r, Challenge)]
    lost = [r for r in results if isinstance(r, ServiceError)]
    assert len(won) == 1 and len(lost) == 2, results
    assert {e.code for e in lost} == {"challenge_closed"}
    final = Challenge.objects.get(pk=challenge.pk)
    assert Table.objects.count() == (1 if final.status == "accepted" else 0)


# -- follows and who is online -----------------------------------------------------------


def test_follow_unfollow_and_followed_tables(make_player: Callable[..., Player]) -> None:
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    assert follow(player=alice, followed=bob) is True
    assert follow(player=alice, followed=bob) is False  # once is enough
    refused("invalid_option", lambda: follow(player=alice, followed=alice))
    refused("not_authenticated", lambda: follow(player=None, followed=bob))
    assert followed_tables(alice) == [{"player": {"id": bob.pk, "name": "bob", "rating": 1500},
                                       "online": False, "table": None}]
    seek_post(player=bob, terms=FIVE)
    table_id = seek_post(player=carol, terms=FIVE).table_id
    (row,) = followed_tables(alice)
    assert row["table"]["id"] == table_id and row["table"]["playing"] is True
    assert row["table"]["url"] == f"/tables/{table_id}/"
    unfollow(player=alice, followed=bob)
    refused("not_found", lambda: unfollow(player=alice, followed=bob))
    assert followed_tables(alice) == []


def test_the_online_list_follows_the_sockets(make_player: Callable[..., Player]) -> None:
    alice, bob = make_player("alice"), make_player("bob")
    online.refresh_all([(alice.pk, "one"), (alice.pk, "two"), (bob.pk, "three")])
    try:
        follow(player=alice, followed=bob)
        names = {row["name"]: row for row in online_players(alice)}
        assert set(names) == {"alice", "bob"}
        assert names["bob"]["followed"] and names["alice"]["me"]
        assert online.went_offline(alice.pk, "one") is False  # another page still open
        assert online.went_offline(alice.pk, "two") is True
        assert [row["name"] for row in online_players(None)] == ["bob"]
        # A socket whose process died drops out when its time is up.
        assert online.online_ids(now=10**12) == []
    finally:
        online.went_offline(bob.pk, "three")


def test_the_beat_task_records_expired_seeks_and_challenges(
        make_player: Callable[..., Player]) -> None:
    from matches.tasks import expire_seeks

    alice, bob = make_player(), make_player()
    seek = seek_post(player=alice, terms=FIVE)
    challenge = challenge_send(challenger=alice, challenged=bob, terms=FIVE)
    assert expire_seeks() == {"seeks": 0, "challenges": 0}
    past = timezone.now() - timedelta(seconds=1)
    Seek.objects.filter(pk=seek.pk).update(expires_at=past)
    Challenge.objects.filter(pk=challenge.pk).update(expires_at=past)
    assert expire_seeks() == {"seeks": 1, "challenges": 1}
    assert Challenge.objects.get(pk=challenge.pk).status == ChallengeStatus.EXPIRED
