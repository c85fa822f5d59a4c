"""A practice event with bots: a bot's entry takes its reserved seat when its pairing is
made, the bots play through the services, and the bracket advances on their result."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from matches.gnubg.bots import bot_player
from matches.gnubg.evaluation import bot_act
from matches.models import Match, MatchStatus
from tests.tournaments.conftest import open_pairings
from tournaments.models import PairingStatus, Tournament


@pytest.mark.django_db
def test_bots_fill_a_bracket_and_play_their_pairing(
    make_tournament: Callable[..., Tournament],
) -> None:
    bots = [bot_player("beginner"), bot_player("advanced")]
    tournament = make_tournament(bots, start=True)
    (pairing,) = open_pairings(tournament)
    assert pairing.table is not None
    pairing.table.refresh_from_db()
    assert {pairing.table.seat0_id, pairing.table.seat1_id} == {b.pk for b in bots}
    match = Match.objects.get(table=pairing.table)
    assert match.has_bot
    for _ in range(2000):
        match.refresh_from_db()
        if match.is_finished:
            break
        assert bot_act(match_id=match.pk, version=match.version)
    assert match.status == MatchStatus.FINISHED
    pairing.refresh_from_db()
    assert pairing.status == PairingStatus.DECIDED
    assert pairing.winner_id is not None


@pytest.mark.django_db
def test_make_bots_creates_one_bot_player_per_strength() -> None:
    from io import StringIO

    from django.core.management import call_command

    from matches.models import Player

    out = StringIO()
    call_command("make_bots", stdout=out)
    call_command("make_bots", stdout=StringIO())  # twice: nothing more
    bots = Player.objects.filter(is_bot=True)
    assert sorted(bots.values_list("bot_strength", flat=True)) == sorted(
        ["beginner", "casual_player", "intermediate", "advanced", "expert", "world_class"])
    assert all(not bot.user.has_usable_password() for bot in bots)
    assert "GNU Backgammon (World class)" in out.getvalue()
