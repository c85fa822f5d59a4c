"""Bots in arenas and on ladders, through the services and the pages (no worker here: the
bots' play is tests/seasons/test_bots_worker.py's).

- A director adds gnubg bots of a strength; anyone else, a bad strength or count, an arena
  that is over: refused, nothing changed. Bots never pause.
- A bot-vs-bot arena match is a table with a bot whose first turn is queued when it starts.
- A ladder bot accepts every challenge at once; in the sweep every free bot, top first,
  challenges the highest free player within its reach.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.utils import timezone

from matches.gnubg.bots import bot_player
from matches.models import Player
from seasons import services
from seasons.models import ArenaEntry, ArenaGame, ChallengeStatus, LadderChallenge, LadderEntry
from seasons.services import ArenaError, LadderError
from seasons.services.ladder import order_of

pytestmark = pytest.mark.django_db


def client_of(player: Player) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


@pytest.fixture
def director(make_player: Callable[..., Player]) -> Player:
    player = make_player()
    player.user.user_permissions.add(Permission.objects.get(codename="add_arena"),
                                     Permission.objects.get(codename="add_ladder"))
    return Player.objects.get(pk=player.pk)  # permissions are cached per user object


def test_numbered_bots_are_distinct_players_of_one_strength() -> None:
    first, second = bot_player("beginner"), bot_player("beginner", 2)
    assert first != second and first == bot_player("beginner", 1)
    assert (second.is_bot, second.bot_strength) == (True, "beginner")
    assert second.display_name == "GNU Backgammon (Beginner) 2"
    assert second.user.username == "gnubg-beginner-2" and not second.user.has_usable_password()
    with pytest.raises(ValueError):
        bot_player("beginner", 0)


def test_a_director_adds_bots_to_an_arena_and_bad_requests_change_nothing(
        director: Player, make_player: Callable[..., Player]) -> None:
    now = timezone.now()
    arena = services.arena_create(name="Later", starts_at=now + timedelta(hours=1),
                                  ends_at=now + timedelta(hours=2))
    stranger = make_player()
    refusals: list[tuple[dict[str, Any], str]] = [
        ({"strength": "beginner", "count": 2, "actor": stranger}, "not_allowed"),
        ({"strength": "beginner", "count": 2, "actor": None}, "not_allowed"),
        ({"strength": "godlike", "count": 2, "actor": director}, "invalid_option"),
        ({"strength": "beginner", "count": 0, "actor": director}, "invalid_option"),
        ({"strength": "beginner", "count": 21, "actor": director}, "invalid_option"),
        ({"strength": "beginner", "count": True, "actor": director}, "invalid_option"),
    ]
    for kwargs, code in refusals:
        with pytest.raises(ArenaError) as refused:
            services.arena_add_bots(arena_id=arena.pk, **kwargs)
        assert refused.value.code == code
    assert not arena.entries.exists()
    added = services.arena_add_bots(arena_id=arena.pk, strength="beginner", count=2,
                                    actor=director)
    more = services.arena_add_bots(arena_id=arena.pk, strength="beginner", count=2,
                                   actor=director)
    names = [e.player.display_name for e in added + more]
    assert names == ["GNU Backgammon (Beginner)", "GNU Backgammon (Beginner) 2",
                     "GNU Backgammon (Beginner) 3", "GNU Backgammon (Beginner) 4"]
    assert arena.entries.count() == 4 and all(e.player.is_bot for e in arena.entries.all())
    # The arena's creator directs it without the permission.
    own = services.arena_create(name="Mine", starts_at=now, ends_at=now + timedelta(hours=1),
                                creator=stranger)
    with pytest.raises(ArenaError) as over:
        services.arena_add_bots(arena_id=own.pk, strength="expert", count=1, actor=stranger,
                                now=now + timedelta(hours=1))
    assert over.value.code == "arena_over" and not own.entries.exists()
    with pytest.raises(ArenaError) as pause:
        services.arena_pause(arena_id=arena.pk, player=added[0].player, paused=True)
    assert pause.value.code == "bot_never_pauses"
    assert not ArenaEntry.objects.get(pk=added[0].pk).paused


def test_two_bots_paired_in_an_arena_get_their_first_turn_queued(
        director: Player, django_capture_on_commit_callbacks: Any) -> None:
    now = timezone.now()
    arena = services.arena_create(name="Bots", starts_at=now - timedelta(seconds=1),
                                  ends_at=now + timedelta(hours=1), match_length=1)
    with django_capture_on_commit_callbacks(execute=False) as after_add:
        services.arena_add_bots(arena_id=arena.pk, strength="intermediate", count=2,
                                actor=director)
    assert not ArenaGame.objects.exists()  # pairing waits for the commit
    pairing = [cb for cb in after_add if "_pair_on_commit" in cb.__qualname__]
    assert len(pairing) == 1
    with django_capture_on_commit_callbacks(execute=False) as after_pairing:
        pairing[0]()
    game = ArenaGame.objects.get()
    assert game.match.has_bot and {game.player_a.is_bot, game.player_b.is_bot} == {True}
    queued = [cb for cb in after_pairing if "schedule_bot_turn" in cb.__qualname__]
    assert len(queued) == 1  # the bot worker is told to play the first turn


def test_a_director_adds_bots_to_a_ladder_and_a_bot_accepts_at_once(
        director: Player, make_player: Callable[..., Player]) -> None:
    ladder = services.ladder_create(name="Club", reach=2, match_length=1, creator=director)
    person = make_player()
    with pytest.raises(LadderError) as refused:
        services.ladder_add_bots(ladder_id=ladder.pk, strength="beginner", count=1,
                                 actor=person)
    assert refused.value.code == "not_allowed"
    with pytest.raises(LadderError) as bad:
        services.ladder_add_bots(ladder_id=ladder.pk, strength="nope", count=1,
                                 actor=director)
    assert bad.value.code == "invalid_option" and not ladder.entries.exists()
    bots = [e.player for e in services.ladder_add_bots(
        ladder_id=ladder.pk, strength="beginner", count=2, actor=director)]
    services.ladder_join(ladder_id=ladder.pk, player=person)
    assert order_of(ladder) == (bots[0].pk, bots[1].pk, person.pk)
    assert services.ladder_check(ladder) == []
    challenge = services.ladder_challenge(ladder_id=ladder.pk, challenger=person,
                                          defender_id=bots[0].pk)
    assert challenge.status == ChallengeStatus.ACCEPTED and challenge.match is not None
    assert challenge.match.has_bot and challenge.play_by is not None
    assert {challenge.match.player0_id, challenge.match.player1_id} == {person.pk, bots[0].pk}


def test_free_bots_challenge_the_highest_free_player_in_reach_top_first(
        director: Player, make_player: Callable[..., Player]) -> None:
    now = timezone.now()
    ladder = services.ladder_create(name="Club", reach=2, accept_days=2, match_length=1)
    top, idle = make_player(), make_player()
    services.ladder_join(ladder_id=ladder.pk, player=top, now=now)
    services.ladder_join(ladder_id=ladder.pk, player=idle, now=now)
    bots = [e.player for e in services.ladder_add_bots(
        ladder_id=ladder.pk, strength="beginner", count=4, actor=director, now=now)]
    # Order: top, idle, bot1, bot2, bot3, bot4 (places 1-6); reach 2.
    result = services.ladder_sweep(now=now + timedelta(minutes=1))
    made = {(c.challenger_id, c.defender_id): c for c in LadderChallenge.objects.all()}
    # bot1 (3rd) takes top (1st); bot2 (4th): idle (2nd); bot3 (5th): 3rd and 4th are busy,
    # nobody; bot4 (6th): bot3 (5th), a bot: accepted at once.
    assert set(made) == {(bots[0].pk, top.pk), (bots[1].pk, idle.pk), (bots[3].pk, bots[2].pk)}
    assert result["bot_challenges"] == 3
    assert made[(bots[0].pk, top.pk)].status == ChallengeStatus.OPEN
    assert made[(bots[3].pk, bots[2].pk)].status == ChallengeStatus.ACCEPTED
    # The people do not answer: after the days to accept the bots win by forfeit.
    later = now + timedelta(days=2, minutes=1)
    assert services.ladder_sweep(now=later)["expired"] == 2
    assert order_of(ladder)[:4] == (bots[0].pk, top.pk, bots[1].pk, idle.pk)
    assert services.ladder_check(ladder) == []
    # Nobody free has anyone free in reach above: bot1 is on top, bot2's and the people's
    # turns are their own; bot3 and bot4 still play. No new challenge of a busy bot.
    assert not LadderChallenge.objects.filter(
        challenger=bots[0], created_at=later).exists()
    assert all(LadderEntry.objects.filter(ladder=ladder, player=b).exists() for b in bots)


def test_the_pages_offer_the_bots_form_to_the_director_only(
        director: Player, make_player: Callable[..., Player]) -> None:
    now = timezone.now()
    arena = services.arena_create(name="Later", starts_at=now + timedelta(hours=1),
                                  ends_at=now + timedelta(hours=2))
    ladder = services.ladder_create(name="Club")
    stranger = client_of(make_player())
    assert 'id="add-bots"' not in stranger.get(f"/arenas/{arena.pk}/").content.decode()
    assert 'id="add-bots"' not in stranger.get(f"/ladders/{ladder.pk}/").content.decode()
    refused = stranger.post(f"/arenas/{arena.pk}/bots/", {"strength": "expert", "count": 3},
                            follow=True)
    assert "director" in refused.content.decode() and not arena.entries.exists()
    client = client_of(director)
    assert 'id="add-bots"' in client.get(f"/arenas/{arena.pk}/").content.decode()
    assert 'id="add-bots"' in client.get(f"/ladders/{ladder.pk}/").content.decode()
    bad = client.post(f"/arenas/{arena.pk}/bots/", {"strength": "expert", "count": 99},
                      follow=True)
    assert "less than or equal to 20" in bad.content.decode() and not arena.entries.exists()
    done = client.post(f"/arenas/{arena.pk}/bots/", {"strength": "expert", "count": 3},
                       follow=True)
    assert "3 bots joined the arena" in done.content.decode()
    assert arena.entries.filter(player__is_bot=True).count() == 3
    client.post(f"/ladders/{ladder.pk}/bots/", {"strength": "advanced", "count": 2})
    assert [p.bot_strength for p in Player.objects.filter(
        ladder_entries__ladder=ladder).order_by("ladder_entries__place")] == ["advanced"] * 2


def test_a_person_who_challenges_a_bot_is_taken_to_the_table(
        director: Player, make_player: Callable[..., Player]) -> None:
    ladder = services.ladder_create(name="Club", reach=2, match_length=1)
    bot = services.ladder_add_bots(ladder_id=ladder.pk, strength="expert", count=1,
                                   actor=director)[0].player
    person = make_player()
    services.ladder_join(ladder_id=ladder.pk, player=person)
    answer = client_of(person).post(f"/ladders/{ladder.pk}/challenge/", {"defender": bot.pk})
    challenge = LadderChallenge.objects.get()
    assert challenge.status == ChallengeStatus.ACCEPTED and challenge.match is not None
    assert answer.url == f"/tables/{challenge.match.table_id}/"
