"""Every published file tells the same story — ``results.csv``, ``standings.csv``, the
results page, the placings, the payouts and the ``.mat`` zip — after a withdrawal (an
annulled round-robin game), a disqualification (no rank, place or prize), a correction (the
stale match file dropped) and walkovers (no place for a player who never sat down)."""

from __future__ import annotations

import csv
import io
import random
import re
import zipfile
from decimal import Decimal

import pytest
from django.test import Client

from tests.tournaments.conftest import open_pairings, play_match, play_out
from tournaments import selectors, services
from tournaments.models import EntryStatus, PairingStatus, Tournament, TournamentStatus
from tournaments.treasury import money_summary

pytestmark = pytest.mark.django_db


def published(tournament: Tournament) -> dict[str, object]:
    client = Client()
    base = f"/tournaments/{tournament.pk}"
    results = list(csv.DictReader(io.StringIO(client.get(f"{base}/results.csv")
                                              .content.decode())))
    standings = list(csv.DictReader(io.StringIO(client.get(f"{base}/standings.csv")
                                                .content.decode())))
    archive = zipfile.ZipFile(io.BytesIO(client.get(f"{base}/matches.zip").content))
    page = client.get(f"{base}/results/").content.decode()
    return {"results": results, "standings": standings, "zip": archive, "page": page}


def cross_check(tournament: Tournament) -> dict[str, object]:
    """The checks every event must pass, whatever happened in it."""
    tournament.refresh_from_db()
    files = published(tournament)
    results: list[dict[str, str]] = files["results"]  # type: ignore[assignment]
    standings: list[dict[str, str]] = files["standings"]  # type: ignore[assignment]
    archive: zipfile.ZipFile = files["zip"]  # type: ignore[assignment]
    # Standings count exactly the results that count (the main flight's: side flights
    # have their own placings).
    counted = [r for r in results if r["bracket"] not in ("consolation", "last_chance")]
    # A Swiss counts a bye as a win (docs: "wins (byes included)"); a bracket's bye is none.
    bye_wins = tournament.format in ("swiss", "swiss_cut")
    for line in standings:
        name = line["player"]
        byes = sum(1 for r in counted if r["winner"] == name and r["result"] == "bye")
        wins = sum(1 for r in counted if r["winner"] == name and r["result"] != "bye")
        losses = sum(1 for r in counted if r["loser"] == name)
        if bye_wins:
            wins += byes
            assert int(line["byes"]) == byes, name
        assert (int(line["wins"]), int(line["losses"])) == (wins, losses), name
    # Ranked players first, then the unranked (disqualified, never sat down).
    ranks = [line["rank"] for line in standings]
    ranked = [int(r) for r in ranks if r]
    assert ranks == [str(r) for r in ranked] + [""] * (len(ranks) - len(ranked))
    assert ranked == sorted(ranked) and (not ranked or ranked[0] == 1)
    unranked = {line["player"] for line in standings if not line["rank"]}
    # The placings are the standings' top four places (main flight), nobody unranked.
    places = {(p["place"], p["name"]) for flight in selectors.placings(tournament)
              if flight["flight"] == "main" for p in flight["places"]}
    if tournament.status == TournamentStatus.FINISHED and not tournament.is_elimination:
        assert places == {(int(line["rank"]), line["player"]) for line in standings
                          if line["rank"] and int(line["rank"]) <= 4}
    assert not {name for _place, name in places} & unranked
    # The champion is the first ranked player, on the page too.
    if tournament.champion is not None:
        assert standings[0]["player"] == tournament.champion.player.display_name
        assert standings[0]["rank"] == "1"
        assert tournament.champion.player.display_name in files["page"]  # type: ignore[operator]
    # Nobody unranked is paid; the payouts add up to the pool.
    summary = money_summary(tournament)
    names = {e.pk: e.player.display_name for e in tournament.entries.select_related("player")}
    paid_names = {names[e] for e, amount in summary["payouts"].items() if amount}
    assert not paid_names & unranked
    if summary["finished"] and summary["payouts"]:
        assert sum(summary["main_payouts"].values()) == summary["main_pool"]
    # Every match file is a result that stands, with that result's winner.
    by_match = {r["match_id"]: r for r in results if r["match_id"]}
    for name in archive.namelist():
        match_id = re.search(r"-(\d+)\.mat$", name).group(1)  # type: ignore[union-attr]
        row = by_match[match_id]
        text = archive.read(name).decode()
        assert row["result"] != "annulled" or row["winner"] == ""
        if row["winner"]:
            assert f"{row['player_a']}" in text and f"{row['player_b']}" in text
    return files


def test_a_round_robin_with_a_withdrawal_a_correction_and_a_disqualification(
        make_tournament, director):
    tournament = make_tournament(6, start=True, format="round_robin",
                                 entry_fee=Decimal("10"), payout_table="50/30/20")
    entries = {e.seed: e for e in tournament.entries.select_related("player")}
    for entry in entries.values():
        services.entry_set_paid(entry_id=entry.pk, paid=True, actor=director)
    for row in open_pairings(tournament):  # round 1: the better seed wins
        play_match(row, max(row.entries(), key=lambda e: e.seed or 0))
    leaver = entries[6]
    services.entry_withdraw(entry_id=leaver.pk, actor=director, reason="went home")
    for row in open_pairings(tournament):  # round 2
        play_match(row, max(row.entries(), key=lambda e: e.seed or 0))
    # A round-1 result was the other way round: corrected after round 2 was played.
    wrong = tournament.pairings.select_related("match").get(
        slot="R1-2", status=PairingStatus.DECIDED)
    stale_match = wrong.match_id
    assert stale_match is not None and wrong.loser_id is not None
    services.pairing_override(pairing_id=wrong.pk, actor=director,
                              winner_entry_id=wrong.loser_id, reason="score sheet")
    for row in open_pairings(tournament):  # round 3
        play_match(row, max(row.entries(), key=lambda e: e.seed or 0))
    cheat = entries[1]
    services.entry_withdraw(entry_id=cheat.pk, actor=director, reason="cheating",
                            disqualify=True)
    play_out(tournament)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    files = cross_check(tournament)
    results: list[dict[str, str]] = files["results"]  # type: ignore[assignment]
    standings: list[dict[str, str]] = files["standings"]  # type: ignore[assignment]
    # The leaver's game (and the forfeits at their withdrawal) are annulled, not wins.
    leaver_name = leaver.player.display_name
    theirs = [r for r in results if leaver_name in (r["player_a"], r["player_b"])]
    assert theirs and all(r["result"] in ("annulled", "bye") for r in theirs)
    assert not any(r["result"] == "forfeit" and leaver_name == r["loser"] for r in results)
    assert "Annulled" in files["page"]  # type: ignore[operator]
    # The disqualified player, who won every game played, is not ranked, placed or paid.
    line = next(x for x in standings if x["player"] == cheat.player.display_name)
    assert line["rank"] == "" and line["status"] == "disqualified"
    assert tournament.champion_id != cheat.pk
    summary = money_summary(tournament)
    assert cheat.pk not in summary["payouts"]
    assert sum(summary["payouts"].values()) == summary["pool"] == Decimal("60.00")
    # The corrected match's file, naming the old winner, is not published.
    archive: zipfile.ZipFile = files["zip"]  # type: ignore[assignment]
    assert not any(name.endswith(f"-{stale_match}.mat") for name in archive.namelist())
    assert archive.namelist()


def test_an_elimination_walkover_gives_no_place_to_who_never_sat_down(make_tournament,
                                                                       director):
    tournament = make_tournament(8, start=True, entry_fee=Decimal("10"),
                                 payout_table="40/25/15/10/5/5")
    entries = {e.seed: e for e in tournament.entries.select_related("player")}
    for entry in entries.values():
        services.entry_set_paid(entry_id=entry.pk, paid=True, actor=director)
    absent = entries[8]  # seed 1's first opponent: seed 1 goes through by walkover
    services.entry_withdraw(entry_id=absent.pk, actor=director, reason="did not come")
    # The second semi-finalist is disqualified before the final.
    for row in open_pairings(tournament):
        play_match(row, max(row.entries(), key=lambda e: e.seed or 0))
    for row in open_pairings(tournament):
        play_match(row, max(row.entries(), key=lambda e: e.seed or 0))
    finalists = open_pairings(tournament)[0]
    loser_to_be = max(finalists.entries(), key=lambda e: e.seed or 0)
    services.entry_withdraw(entry_id=loser_to_be.pk, actor=director, reason="abuse",
                            disqualify=True)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    files = cross_check(tournament)
    standings: list[dict[str, str]] = files["standings"]  # type: ignore[assignment]
    rank = {x["player"]: x["rank"] for x in standings}
    assert rank[absent.player.display_name] == ""  # lost by walkover, never sat down
    assert rank[loser_to_be.player.display_name] == ""  # disqualified: forfeits 2nd
    # The two semi-final losers move up to share 2nd; three first-round losers who played
    # share 4th (the walkover's loser is not among them).
    ranks = sorted(int(r) for r in rank.values() if r)
    assert ranks == [1, 2, 2, 4, 4, 4]
    main = {(flight["flight"], p["place"]) for flight in selectors.placings(tournament)
            for p in flight["places"]}
    assert ("main", 2) in main
    summary = money_summary(tournament)
    co_second = [e.pk for e in tournament.entries.all()
                 if rank[e.player.display_name] == "2"]
    amounts = {summary["payouts"][e] for e in co_second}
    assert len(amounts) == 1  # paid the same, to the cent
    assert sum(summary["payouts"].values()) == summary["pool"] == Decimal("80.00")


def test_without_prize_forfeiture_a_disqualified_player_keeps_their_place(make_tournament,
                                                                          director):
    tournament = make_tournament(4, start=True, format="swiss",
                                 format_options={"rounds": 2},
                                 forfeit_prize_on_disqualification=False)
    for row in open_pairings(tournament):
        play_match(row, max(row.entries(), key=lambda e: e.seed or 0))
    leader = tournament.entries.get(seed=1)
    services.entry_withdraw(entry_id=leader.pk, actor=director, reason="x", disqualify=True)
    play_out(tournament)
    files = cross_check(tournament)
    standings: list[dict[str, str]] = files["standings"]  # type: ignore[assignment]
    assert all(line["rank"] for line in standings)


def test_consolation_and_last_chance_flights_are_paid_their_share(make_tournament,
                                                                  director):
    tournament = make_tournament(
        16, format="progressive_consolation", format_options={"last_chance_rounds": 1},
        entry_fee=Decimal("10"), payout_table="70/30", consolation_percent=Decimal("20"),
        consolation_payout_table="70/30", last_chance_percent=Decimal("10"),
        last_chance_payout_table="100")
    for entry in tournament.entries.all():
        services.entry_set_paid(entry_id=entry.pk, paid=True, actor=director)
    services.tournament_start(tournament_id=tournament.pk, actor=director)
    play_out(tournament, random.Random(4), upsets=True)
    tournament.refresh_from_db()
    cross_check(tournament)
    summary = money_summary(tournament)
    flights = {f["flight"]: f for f in summary["flights"]}
    assert summary["pool"] == Decimal("160.00")
    assert flights["consolation"]["total"] == Decimal("32.00")
    assert flights["last_chance"]["total"] == Decimal("16.00")
    assert summary["main_pool"] == Decimal("112.00")
    placings = {f["flight"]: {p["place"]: p["id"] for p in f["places"]}
                for f in selectors.placings(tournament)}
    assert flights["consolation"]["payouts"][placings["consolation"][1]] == Decimal("22.40")
    assert flights["consolation"]["payouts"][placings["consolation"][2]] == Decimal("9.60")
    assert flights["last_chance"]["payouts"] == {placings["last_chance"][1]: Decimal("16.00")}
    assert sum(summary["payouts"].values()) == Decimal("160.00")


def test_a_swiss_cut_event_runs_to_a_knockout_champion(make_tournament):
    tournament = make_tournament(8, start=True, format="swiss_cut",
                                 format_options={"rounds": 2, "cut": 4},
                                 match_lengths=[1, 1, 3, 5])
    play_out(tournament)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    rounds = {(r.bracket, r.number): r.match_length for r in tournament.rounds.all()}
    assert rounds[("knockout", 1)] == 3 and rounds[("knockout", 2)] == 5
    final = tournament.pairings.get(slot="K2-1")
    assert tournament.champion_id == final.winner_id
    files = cross_check(tournament)
    results: list[dict[str, str]] = files["results"]  # type: ignore[assignment]
    names = {r["slot"]: r["round_name"] for r in results}
    assert names["K2-1"] == "Knockout, Final" and names["K1-1"] == "Knockout, Semi-finals"
    assert names["R1-1"] == "Rounds, Round 1"
    standings: list[dict[str, str]] = files["standings"]  # type: ignore[assignment]
    assert [int(x["rank"]) for x in standings][:2] == [1, 2]
    assert EntryStatus.ACTIVE  # every player stayed in
