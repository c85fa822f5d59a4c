"""Issue 27's acceptance over the write API alone: a 32-player event in two rating divisions
imported from CSV, each a Swiss with a cut to a top-8 knockout whose quarter-final losers
play a consolation flight, played over the board, with entry fees, consolation payouts, a
side pool, a late entry, a withdrawal, a disqualification, a hand swap and a correction
after the next round was paired — run by a director and a referee with nothing but HTTP
calls to the documented API, from creation to payouts; then every published file is checked
against the others and the payouts of both flights and the side pool (read back with
``GET money/``) against the money rules worked out here by hand.

The pairings, standings, cut, consolation, places and payouts are worked out again by hand
in :mod:`tests.tournaments.event_checks`, which the browser run of the same event shares.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User

from matches.models import Player
from tests.api_clients import token_client
from tests.tournaments.event_checks import (
    CONSOLATION_TABLE,
    FEE,
    LENGTH,
    check_division,
    name,
    players_csv,
)
from tournaments.models import Tournament, TournamentLog

pytestmark = pytest.mark.django_db

SIDE_FEE = Decimal("5.00")


class Desk:
    """One user's HTTP calls to the tournament API."""

    def __init__(self, user: User) -> None:
        self.client = token_client(user)

    def get(self, path: str) -> Any:
        response = self.client.get(f"/api/tournaments/{path}")
        assert response.status_code == 200, (path, response.content[:300])
        return response.json()

    def post(self, path: str, data: dict[str, Any], status: int = 200) -> Any:
        response = self.client.post(f"/api/tournaments/{path}", data, format="json")
        assert response.status_code == status, (path, data, response.json())
        return response.json()

    def act(self, tournament: int, name: str, /, status: int = 200, **data: Any) -> Any:
        return self.post(f"{tournament}/actions/{name}/", data, status)

    def pairings(self, tournament: int) -> list[dict[str, Any]]:
        bracket = self.get(f"{tournament}/bracket/")
        return [p for b in bracket["brackets"] for r in b["rounds"] for p in r["pairings"]]

    def entries(self, tournament: int) -> dict[str, dict[str, Any]]:
        return {e["name"]: e for e in self.get(f"{tournament}/entries/")}


def better(pairing: dict[str, Any]) -> int:
    """The result played out at the board: the higher rated player wins."""
    a, b = pairing["a"], pairing["b"]
    ratings = {int(n["name"].split()[-1]): n["entry"] for n in (a, b)}
    return int(ratings[max(ratings)])


def open_pairings(desk: Desk, tournament: int) -> list[dict[str, Any]]:
    return [p for p in desk.pairings(tournament)
            if p["status"] == "paired" and p["a"]["entry"] and p["b"]["entry"]]


def enter_round(referee: Desk, tournament: int) -> list[dict[str, Any]]:
    """The referee enters every open pairing's over-the-board result."""
    rows = open_pairings(referee, tournament)
    for row in rows:
        referee.act(tournament, "enter_result", pairing=row["id"], winner=better(row),
                    winner_points=LENGTH, loser_points=1, reason="score sheet signed")
    return rows


def test_a_32_player_divided_swiss_cut_event_runs_over_the_api_alone(
        director: User, referee: User, make_player: Any) -> None:
    boss, ref = Desk(director), Desk(referee)
    bystander = Desk(make_player("bystander").user)

    # -- Creation: the event and its two rating divisions, money included. ------------------
    template = {"template": "swiss_cut_8_consolation", "rounds": 4, "over_the_board": True,
                "match_lengths": [LENGTH]}
    event = boss.post("from-template/", {**template, "name": "Club Open"}, 201)["id"]
    money = {"entry_fee": str(FEE), "payout_table": "40/30/20/10",
             "consolation_percent": "10"}
    top = boss.post("from-template/", {**template, **money, "name": "Open", "event": event,
                                       "eligibility": "rating", "min_rating": 1800,
                                       "division_order": 1}, 201)["id"]
    low = boss.post("from-template/", {**template, **money, "name": "Intermediate",
                                       "event": event, "eligibility": "rating",
                                       "max_rating": 1800, "division_order": 2}, 201)["id"]
    assert [d["name"] for d in boss.get(f"{event}/")["divisions"]] == ["Open", "Intermediate"]
    assert boss.get(f"{top}/")["format_options"] == {"rounds": 4, "cut": 8,
                                                     "consolation_rounds": 1}
    # The rest of the set-up: the consolation's table, the currency and a side pool in the
    # Open division; a division's limits, edited (a typo in the Intermediate's first).
    for division in (top, low):
        ref.act(division, "set_money", 403, consolation_payout_table=CONSOLATION_TABLE)
        boss.act(division, "set_money", 400, consolation_payout_table="20/80")
        boss.act(division, "set_money", consolation_payout_table=CONSOLATION_TABLE,
                 currency="GBP", reason="the club's rates")
    jackpot = boss.act(top, "add_side_pool", name="Jackpot", fee=str(SIDE_FEE))["side_pool"]
    boss.act(event, "edit_division", division=low, max_rating=1700)
    boss.act(event, "edit_division", 400, division=low, min_rating=1900)
    boss.act(event, "edit_division", division=low, max_rating=1800,
             reason="the limit was mistyped")
    divisions = {d["name"]: d for d in boss.get(f"{event}/")["divisions"]}
    assert divisions["Intermediate"]["max_rating"] == 1800
    assert divisions["Open"]["min_rating"] == 1800
    # Only the event's director adds divisions to it, and a referee creates nothing.
    ref.post("from-template/", {**template, "name": "X"}, 403)
    ref.post("from-template/", {**template, "name": "X", "event": event}, 403)
    boss.post("from-template/", {**template, "name": "X", "eligibility": "rating"}, 400)
    boss.post("from-template/", {**template, "name": "X", "event": event,
                                 "payout_table": "30/70"}, 400)
    assert Tournament.objects.count() == 3

    # -- Players and ratings from CSV: a dry run, then for real. ------------------------------
    csv_text = players_csv()
    ref.post("players/import/", {"csv": csv_text, "dry_run": False}, 403)
    before = Player.objects.count()
    dry = boss.post("players/import/", {"csv": csv_text})
    assert dry["dry_run"] and not dry["applied"] and dry["counts"]["created"] == 32
    assert Player.objects.count() == before
    bad = boss.post("players/import/", {"csv": csv_text + "Broken,x,high,1\n",
                                        "dry_run": False})
    assert not bad["applied"] and bad["counts"]["error"] == 1
    assert Player.objects.count() == before
    done = boss.post("players/import/", {"csv": csv_text, "dry_run": False})
    assert done["applied"] and done["counts"]["created"] == 32
    ids = {line["name"]: line["player_id"] for line in done["lines"]}
    again = boss.post("players/import/", {"csv": boss.client.get(
        "/api/tournaments/players/export/").content.decode()})
    assert again["counts"]["error"] == 0 and again["counts"]["created"] == 0

    # -- Registration by the director, check-in and fees by the referee. ---------------------
    boss.act(event, "open_registration")
    for i in range(1, 32):  # Player 00 comes late.
        boss.act(event, "register", player=ids[name(i)])
    boss.act(event, "open_check_in")
    for division in (top, low):
        for entry in boss.entries(division).values():
            ref.act(division, "check_in", entry=entry["id"])
            ref.act(division, "set_paid", entry=entry["id"], paid=True)
    in_jackpot = [name(i) for i in (20, 23, 26, 29, 31)]
    for player in in_jackpot:
        ref.act(top, "side_pool", entry=boss.entries(top)[player]["id"],
                side_pool=jackpot["id"])
    assert set(boss.entries(top)) == {name(i) for i in range(16, 32)}
    assert set(boss.entries(low)) == {name(i) for i in range(1, 16)}
    # A referee may not start the event, nor a bystander do anything.
    ref.act(event, "start", 403)
    bystander.act(event, "start", 403)
    assert bystander.get(f"{event}/actions/") == []
    boss.act(event, "start")
    assert {boss.get(f"{d}/")["status"] for d in (top, low)} == {"running"}

    # -- Intermediate: a late entry, a hand swap, a correction after the next round. ---------
    late = boss.act(low, "late_entry", player=ids[name(0)])["entry"]
    ref.act(low, "set_paid", entry=late["id"], paid=True)
    first = open_pairings(boss, low)
    one, two = first[0], first[1]
    swap = {"pairing_a": one["id"], "entry_a": one["a"]["entry"], "pairing_b": two["id"],
            "entry_b": two["a"]["entry"], "reason": "keep club mates apart"}
    ref.act(low, "swap_players", 403, **swap)
    boss.act(low, "swap_players", **swap)
    swapped = {p["id"]: p for p in boss.pairings(low)}
    assert swapped[one["id"]]["a"]["entry"] == two["a"]["entry"]
    assert swapped[two["id"]]["a"]["entry"] == one["a"]["entry"]
    round_one = enter_round(ref, low)
    # The next round is paired at once (automatic pairing) ...
    assert {p["round"] for p in open_pairings(boss, low)} == {2}
    wrong = round_one[0]
    loser = ({wrong["a"]["entry"], wrong["b"]["entry"]} - {better(wrong)}).pop()
    # ... and a result of the round before is corrected, then the round paired again.
    ref.act(low, "correct_result", pairing=wrong["id"], winner=loser,
            reason="the score sheet was misread")
    ref.act(low, "repair_round", 403, reason="after the correction")
    boss.act(low, "repair_round", reason="after the correction")
    corrected = {p["id"]: p for p in boss.pairings(low)}[wrong["id"]]
    assert corrected["winner"] == loser and corrected["result_source"]

    # -- Open: a withdrawal and a disqualification. ------------------------------------------
    enter_round(ref, top)
    entries = boss.entries(top)
    ref.act(top, "withdraw", 403, entry=entries[name(16)]["id"], reason="went home")
    boss.act(top, "withdraw", entry=entries[name(16)]["id"], reason="went home")
    enter_round(ref, top)
    ref.act(top, "disqualify", 403, entry=entries[name(31)]["id"], reason="conduct")
    boss.act(top, "disqualify", entry=entries[name(31)]["id"], reason="misconduct")
    # The referee's actions now are the referee's rights: none of the director's.
    offered = {a["name"] for a in ref.get(f"{top}/actions/")}
    assert offered and offered <= {"check_in", "set_paid", "side_pool", "reinstate",
                                   "enter_result", "confirm_report", "reject_report",
                                   "correct_result", "double_forfeit", "set_table"}
    # A referee reinstates a withdrawn player, but a disqualified one is the director's.
    ref.act(top, "reinstate", 403, entry=entries[name(31)]["id"], reason="apologised")

    # -- Both divisions play out: four Swiss rounds, then the top-8 knockout. ----------------
    for division in (top, low):
        swiss: list[dict[str, Any]] = []
        for _ in range(20):
            knockout = [p for p in boss.pairings(division) if p["bracket"] == "knockout"]
            if knockout and not swiss:
                # Just drawn: the knockout's players (none has got further) in Swiss order,
                # then the rest in Swiss order.
                assert not any(p["winner"] for p in knockout)
                swiss = boss.get(f"{division}/standings/")
            if boss.get(f"{division}/")["status"] == "finished" or not enter_round(ref,
                                                                                    division):
                break
        # The cut, recomputed: the top 8 of the final Swiss standings still in the event,
        # 1st v 8th, 2nd v 7th, ... (the disqualified and the withdrawn do not make it).
        active = [line for line in swiss if line["status"] == "active"]
        cut = [line["id"] for line in active[:8]]
        wins = [line["wins"] for line in active]
        assert wins[:8] == sorted(wins[:8], reverse=True) and min(wins[:8]) >= max(wins[8:])
        drawn = {frozenset((p["a"]["entry"], p["b"]["entry"])) for p in boss.pairings(division)
                 if p["bracket"] == "knockout" and p["round"] == 1}
        assert drawn == {frozenset((cut[i], cut[7 - i])) for i in range(4)}
        assert boss.get(f"{division}/")["status"] == "finished", division
        knockout = [p for p in boss.pairings(division) if p["bracket"] == "knockout"]
        assert len(knockout) == 7
        # The consolation, recomputed: the quarter-finals' losers, K1-1's v K1-2's and
        # K1-3's v K1-4's, then a final.
        by_slot = {p["slot"]: p for p in boss.pairings(division)}
        lost = {slot: ({p["a"]["entry"], p["b"]["entry"]} - {p["winner"]}).pop()
                for slot, p in by_slot.items() if p["winner"]}
        consolation = {p["slot"]: p for p in by_slot.values() if p["bracket"] == "consolation"}
        assert sorted(consolation) == ["C1-1", "C1-2", "C2-1"]
        for slot, (left, right) in (("C1-1", ("K1-1", "K1-2")), ("C1-2", ("K1-3", "K1-4"))):
            assert {consolation[slot]["a"]["entry"], consolation[slot]["b"]["entry"]} == {
                lost[left], lost[right]}
        assert {consolation["C2-1"]["a"]["entry"], consolation["C2-1"]["b"]["entry"]} == {
            consolation["C1-1"]["winner"], consolation["C1-2"]["winner"]}
    assert boss.get(f"{event}/")["status"] == "finished"

    # -- Everything published agrees, and the pairings, standings, places and payouts are
    # the rules' by hand.
    top_entries = boss.entries(top)
    hand = {
        top: check_division(Tournament.objects.get(pk=top), out={
            top_entries[name(16)]["id"]: 3, top_entries[name(31)]["id"]: 4}),
        low: check_division(Tournament.objects.get(pk=low), late={late["id"]: 2},
                            swaps={1: (one["a"]["entry"], two["a"]["entry"])}),
    }
    for division in (top, low):
        standings: list[dict[str, str]] = hand[division]["files"]["standings"]
        ranked = [(int(s["rank"]), s["player"]) for s in standings if s["rank"]]
        # The knockout's final decides 1st and 2nd; its semi-finals' losers share 3rd.
        assert [r for r, _ in ranked[:4]] == [1, 2, 3, 3]
        placings = boss.get(f"{division}/placings/")
        main = next(f for f in placings if f["flight"] == "main")
        assert {(p["place"], p["name"]) for p in main["places"]} == set(ranked[:4])
        consolation_places = next(f for f in placings if f["flight"] == "consolation")
        c_final = next(p for p in boss.pairings(division) if p["slot"] == "C2-1")
        c_semis = [p for p in boss.pairings(division) if p["slot"] in ("C1-1", "C1-2")]
        c_lost = [({p["a"]["entry"], p["b"]["entry"]} - {p["winner"]}).pop() for p in c_semis]
        assert {(p["place"], p["id"]) for p in consolation_places["places"]} == {
            (1, c_final["winner"]),
            (2, ({c_final["a"]["entry"], c_final["b"]["entry"]} - {c_final["winner"]}).pop()),
            (3, c_lost[0]), (3, c_lost[1])}
        # The money, read back over the API and worked out by hand: 16 paid entries of 10.00
        # make a pool of 160.00; the consolation's 10 % (16.00) pays 50/30/20 by its places
        # (its two co-3rds share 20 %: 1.60 each), the main flight the other 144.00 by
        # 40/30/20/10 (the co-3rds 15 % each: 21.60).
        money = boss.get(f"{division}/money/")
        pool = FEE * 16
        consolation_pool = pool * Decimal("0.10")
        main_pool = pool - consolation_pool
        assert money["finished"] and money["settings"]["currency"] == "GBP"
        assert Decimal(money["pool"]) == pool and Decimal(money["main_pool"]) == main_pool
        (flight,) = money["flights"]
        assert flight["flight"] == "consolation" and Decimal(flight["total"]) == Decimal(16)
        ids = {e["name"]: e["id"] for e in boss.get(f"{division}/entries/")}
        names = {v: k for k, v in ids.items()}
        expected = {
            ranked[0][1]: main_pool * Decimal("0.40"), ranked[1][1]: main_pool * Decimal("0.30"),
            ranked[2][1]: main_pool * Decimal("0.15"), ranked[3][1]: main_pool * Decimal("0.15"),
        }
        consolation_paid = {
            names[c_final["winner"]]: consolation_pool * Decimal("0.50"),
            names[({c_final["a"]["entry"], c_final["b"]["entry"]} - {c_final["winner"]}).pop()]:
                consolation_pool * Decimal("0.30"),
            names[c_lost[0]]: consolation_pool * Decimal("0.10"),
            names[c_lost[1]]: consolation_pool * Decimal("0.10"),
        }
        assert {p["name"]: Decimal(p["amount"]) for p in flight["payouts"]} == consolation_paid
        assert {p["name"]: Decimal(p["amount"]) for p in money["main_payouts"]} == expected
        assert not set(expected) & set(consolation_paid)  # nobody plays both flights
        expected.update(consolation_paid)
        side = Decimal(0)
        side_paid: dict[str, dict[str, Decimal]] = {}
        if division == top:
            # The jackpot: 5 × 5.00 (its members paid it), all to its best-ranked member by
            # the main standings; the disqualified member (Player 31) forfeits it.
            rank_of = {player: rank for rank, player in ranked}
            members = [p for p in in_jackpot if p in rank_of]
            best = min(members, key=lambda p: rank_of[p])
            assert [p for p in members if rank_of[p] == rank_of[best]] == [best]
            side = SIDE_FEE * len(in_jackpot)
            (pool_line,) = money["side_pools"]
            assert Decimal(pool_line["total"]) == side
            assert {p["name"]: Decimal(p["amount"]) for p in pool_line["payouts"]} == {
                best: side}
            expected[best] = expected.get(best, Decimal(0)) + side
            side_paid = {"Jackpot": {best: side}}
        paid = {p["name"]: Decimal(p["amount"]) for p in money["payouts"]}
        assert paid == expected
        assert sum(paid.values()) == pool + side
        # The API's money is the one worked out by hand from the stored results alone.
        checked = hand[division]
        assert paid == checked["payouts"]
        assert consolation_paid == checked["consolation_payouts"]
        assert {p["name"]: p["place"] for p in consolation_places["places"]} == checked[
            "consolation"]
        assert checked["side_payouts"] == side_paid
    out = {s["player"]: s for s in hand[top]["files"]["standings"]}
    assert out[name(31)]["rank"] == ""  # disqualified: no place, no money
    assert name(31) not in {p["a"]["name"] for p in boss.pairings(top)
                            if p["bracket"] == "knockout"} | {
        p["b"]["name"] for p in boss.pairings(top) if p["bracket"] == "knockout"}
    # The log tells who did what and why, the referee's entries too.
    log = ref.get(f"{low}/log/")
    assert any(e["action"] == "pairing_swapped" and e["actor"] == "director" for e in log)
    assert any(e["reason"] == "the score sheet was misread" and e["actor"] == "referee"
               for e in log)
    assert TournamentLog.objects.filter(tournament_id=top, action="disqualified").exists()
