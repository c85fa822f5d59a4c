"""Money through the real services: fees marked paid at the desk, the pool, a side pool,
payouts by final place that add up to the pools, the treasurer's CSV for staff only."""

from __future__ import annotations

import csv
import io
import random
from decimal import Decimal

import pytest
from django.test import Client

from tests.tournaments.conftest import play_out
from tournaments import services
from tournaments.models import SidePool
from tournaments.treasury import money_summary

pytestmark = pytest.mark.django_db


def test_a_whole_event_pays_out_its_pools_by_final_place(make_tournament, make_player):
    tournament = make_tournament(
        8, format="single_elimination", format_options={"third_place": True},
        entry_fee=Decimal("20"), return_percent=Decimal("80"), payout_table="40/30/20/10")
    entries = list(tournament.entries.select_related("player").order_by("pk"))
    desk = tournament.director
    for entry in entries[1:]:
        services.entry_set_paid(entry_id=entry.pk, paid=True, actor=desk)
    unpaid = entries[0]
    jackpot = SidePool.objects.create(tournament=tournament, name="Jackpot", fee=Decimal("5"),
                                      payout_table="100")
    for entry in entries[:4]:
        services.side_pool_enter(side_pool_id=jackpot.pk, entry_id=entry.pk, actor=desk)
    stranger = make_player("stranger")
    with pytest.raises(services.TournamentError) as error:
        services.entry_set_paid(entry_id=unpaid.pk, paid=True, actor=stranger.user)
    assert error.value.code == "forbidden"

    before = money_summary(tournament)
    assert before["pool"] == Decimal("112.00")  # 20 × 7 paid × 80 %
    assert [p["amount"] for p in before["places"]] == [Decimal(x) for x in
                                                       ("44.80", "33.60", "22.40", "11.20")]
    assert before["payouts"] == {}  # nothing is paid out before the end

    services.tournament_start(tournament_id=tournament.pk, actor=desk)
    play_out(tournament, random.Random(11))
    tournament.refresh_from_db()
    summary = money_summary(tournament)
    # Final places from the results themselves.
    rows = {row.slot: row for row in tournament.pairings.all()}
    first, second = rows["M3-1"].winner_id, rows["M3-1"].loser_id
    third, fourth = rows["3P"].winner_id, rows["3P"].loser_id
    paid_order = [e for e in (first, second, third, fourth, None) if e != unpaid.pk]
    main = summary["main_payouts"]
    assert sum(main.values()) == summary["pool"] == Decimal("112.00")
    assert unpaid.pk not in main
    if unpaid.pk not in (first, second, third, fourth):
        assert main == {first: Decimal("44.80"), second: Decimal("33.60"),
                        third: Decimal("22.40"), fourth: Decimal("11.20")}
    else:  # the unpaid player's place passes to the next paid player
        assert main[paid_order[0]] == Decimal("44.80")
    (side,) = summary["side_pools"]
    assert side["total"] == Decimal("20.00") and sum(side["payouts"].values()) == side["total"]
    side_winner = next(iter(side["payouts"]))
    assert side_winner in {e.pk for e in entries[:4]}

    staff = Client()
    staff.force_login(desk)
    response = staff.get(f"/tournaments/{tournament.pk}/treasurer.csv")
    assert response.status_code == 200
    lines = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(lines) == 8
    assert sum(Decimal(line["payout"]) for line in lines) == Decimal("132.00")
    by_name = {line["player"]: line for line in lines}
    assert by_name[unpaid.player.display_name]["paid"] == "no"
    assert by_name[entries[1].player.display_name]["owed"] == "25.00"  # fee + jackpot
    assert "Money (staff only)" in staff.get(f"/tournaments/{tournament.pk}/").content.decode()

    player = Client()
    player.force_login(entries[1].player.user)
    assert player.get(f"/tournaments/{tournament.pk}/treasurer.csv").status_code == 403
    assert "Money (staff only)" not in player.get(
        f"/tournaments/{tournament.pk}/").content.decode()
