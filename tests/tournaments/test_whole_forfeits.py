"""Whole events with absent and departing players, run through the real services (players
sit at the tables the tournament makes, resign or forfeit through matches.services, the
no-show sweep runs), with who plays whom worked out here from the rules, independently of
the pairing code.

Seeds follow rating: player i has seed i, and in these events the better seed wins unless
a test says otherwise.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from matches import services as match_services
from matches.models import Match, MatchStatus
from tests.tournaments.conftest import open_pairings, play_match
from tournaments import selectors, services, tasks
from tournaments.models import EntryStatus, Pairing, PairingStatus, ResultSource, Tournament

pytestmark = pytest.mark.django_db


def seeds_of(tournament: Tournament) -> dict[int, int]:
    """Entry id → seed, and the reverse."""
    return dict(tournament.entries.values_list("pk", "seed"))


def round_pairs(tournament: Tournament, number: int) -> set[frozenset[int]]:
    """Round ``number``'s matches as sets of two seeds (byes left out)."""
    seed = seeds_of(tournament)
    rows = tournament.pairings.filter(round__number=number).exclude(status=PairingStatus.BYE)
    return {frozenset((seed[r.entry_a_id], seed[r.entry_b_id])) for r in rows
            if r.entry_a_id and r.entry_b_id}


def bye_seeds(tournament: Tournament, number: int) -> set[int]:
    seed = seeds_of(tournament)
    return {seed[r.winner_id] for r in tournament.pairings.filter(
        round__number=number, status=PairingStatus.BYE)}


def play_round_better_seed_wins(tournament: Tournament) -> None:
    for row in open_pairings(tournament):
        worse = max((row.entry_a, row.entry_b), key=lambda e: e.seed)
        play_match(row, worse)


def no_show_sweep(*rows: Pairing) -> None:
    """The no-show limit passes for ``rows`` and the beat sweep runs."""
    Pairing.objects.filter(pk__in=[r.pk for r in rows]).update(
        paired_at=timezone.now() - timedelta(minutes=11))
    assert tasks.forfeit_no_shows() == len(rows)


def test_swiss_with_a_double_no_show_and_a_disqualification_in_round_3(make_tournament,
                                                                        director):
    tournament = make_tournament(8, start=True, format="swiss", format_options={"rounds": 5},
                                 no_show_minutes=10)
    # Round 1: top half against bottom half.
    assert round_pairs(tournament, 1) == {frozenset(p) for p in ((1, 5), (2, 6), (3, 7),
                                                                 (4, 8))}
    seed = seeds_of(tournament)
    by_seeds = {frozenset((seed[r.entry_a_id], seed[r.entry_b_id])): r
                for r in open_pairings(tournament)}
    # Seeds 4 and 8 never come: a double forfeit, both lose, both withdrawn.
    no_show_sweep(by_seeds[frozenset((4, 8))])
    absent = by_seeds[frozenset((4, 8))]
    absent.refresh_from_db()
    assert (absent.status, absent.result_source, absent.winner_id) == (
        PairingStatus.DECIDED, ResultSource.DOUBLE_FORFEIT, None)
    play_round_better_seed_wins(tournament)
    # Round 2 is paired among the six left: 1, 2, 3 have a win; 5, 6, 7 none. The odd group
    # pairs 1 v 2, and 3 floats down to meet 5 (the top of the next group); 6 v 7.
    assert round_pairs(tournament, 2) == {frozenset(p) for p in ((1, 2), (3, 5), (6, 7))}
    assert not bye_seeds(tournament, 2)
    play_round_better_seed_wins(tournament)
    # Round 3: 1 v 3 (two wins each). 2 and 6 (one win) met in round 1, so 2 floats down
    # to 7, and 6 meets 5; none of them a rematch.
    assert round_pairs(tournament, 3) == {frozenset(p) for p in ((1, 3), (2, 7), (5, 6))}
    # Seed 3 is disqualified in the middle of their round-3 match: it is forfeited to 1.
    row = next(r for r in open_pairings(tournament) if 3 in (r.entry_a.seed, r.entry_b.seed))
    for entry in (row.entry_a, row.entry_b):
        match_services.table_sit(table_id=row.table_id, player=entry.player)
    live = Match.objects.get(table_id=row.table_id)
    three = row.entry_a if row.entry_a.seed == 3 else row.entry_b
    services.entry_withdraw(entry_id=three.pk, actor=director, disqualify=True,
                            reason="consulted a bot during the match")
    live.refresh_from_db()
    assert live.status == MatchStatus.FORFEITED
    row.refresh_from_db()
    assert row.loser_id == three.pk and row.result_source == ResultSource.FORFEIT
    play_round_better_seed_wins(tournament)
    # Rounds 4 and 5: only 1, 2, 5, 6, 7 are paired; five players, so one bye a round.
    for number in (4, 5):
        pairs = round_pairs(tournament, number)
        seated = {s for pair in pairs for s in pair} | bye_seeds(tournament, number)
        assert seated == {1, 2, 5, 6, 7}, number
        assert len(bye_seeds(tournament, number)) == 1
        play_round_better_seed_wins(tournament)
    assert len(bye_seeds(tournament, 4) | bye_seeds(tournament, 5)) == 2  # no second bye
    earlier = set().union(*(round_pairs(tournament, n) for n in (1, 2, 3)))
    assert not (round_pairs(tournament, 4) | round_pairs(tournament, 5)) & earlier
    tournament.refresh_from_db()
    assert tournament.finished_at is not None
    # Standings: recomputed here from the decided rows.
    lines = {line["seed"]: line for line in selectors.standings(tournament)}
    wins: dict[int, int] = dict.fromkeys(range(1, 9), 0)
    met: dict[int, list[int]] = {s: [] for s in range(1, 9)}
    for r in tournament.pairings.all():
        if r.status == PairingStatus.BYE:
            wins[seed[r.winner_id]] += 1
        elif r.entry_a_id and r.entry_b_id:
            a, b = seed[r.entry_a_id], seed[r.entry_b_id]
            met[a].append(b)
            met[b].append(a)
            if r.winner_id:
                wins[seed[r.winner_id]] += 1
    for s in range(1, 9):
        assert lines[s]["wins"] == wins[s], s
        # The disqualified player's two wins still count in their opponents' Buchholz.
        assert lines[s]["tiebreaks"]["buchholz"] == sum(wins[o] for o in met[s]), s
    assert (lines[3]["wins"], lines[3]["status"]) == (2, "disqualified")
    assert (lines[4]["wins"], lines[4]["losses"], lines[4]["status"]) == (0, 1, "withdrawn")
    assert lines[1]["rank"] == 1 and tournament.champion.seed == 1


def test_round_robin_with_a_withdrawal_under_half_and_one_over_half(make_tournament):
    tournament = make_tournament(6, start=True, format="round_robin")
    seed = seeds_of(tournament)
    entry = {s: pk for pk, s in seed.items()}
    # Round 1, then seed 6 withdraws (1 of 5 played: annulled).
    play_round_better_seed_wins(tournament)
    services.player_withdraw(tournament_id=tournament.pk,
                             player=tournament.entries.get(seed=6).player)
    # Rounds 2 and 3, then seed 5 withdraws (3 of 5 played: results stand, the rest forfeit).
    for _ in range(2):
        play_round_better_seed_wins(tournament)
    services.player_withdraw(tournament_id=tournament.pk,
                             player=tournament.entries.get(seed=5).player)
    while open_pairings(tournament):
        play_round_better_seed_wins(tournament)
    tournament.refresh_from_db()
    assert tournament.finished_at is not None
    rows = list(tournament.pairings.all())
    six, five = entry[6], entry[5]
    # Every pair of the four who stayed met exactly once, over the board of a match.
    stayed = [entry[s] for s in (1, 2, 3, 4)]
    for i, a in enumerate(stayed):
        for b in stayed[i + 1:]:
            games = [r for r in rows if {r.entry_a_id, r.entry_b_id} == {a, b}]
            assert len(games) == 1 and games[0].result_source == ResultSource.MATCH
    # Seed 6 played once (round 1 against 1, by the circle schedule); their round-2 game,
    # already paired, was forfeited at the withdrawal; their last three became byes.
    sixes = sorted((r.round.number, r.result_source) for r in rows
                   if six in (r.entry_a_id, r.entry_b_id) and r.status == PairingStatus.DECIDED)
    assert sixes == [(1, ResultSource.MATCH), (2, ResultSource.FORFEIT)]
    byes = {seed[r.winner_id]: r.round.number for r in rows if r.status == PairingStatus.BYE}
    assert byes == {2: 3, 5: 4, 3: 5}  # 6 was to meet 2, 5 and 3 in rounds 3, 4, 5
    # Seed 5 played three games; the rest stand as forfeits to the opponent, unplayed.
    later5 = [r for r in rows if five in (r.entry_a_id, r.entry_b_id) and r.round.number > 3
              and r.status != PairingStatus.BYE]
    assert [r.round.number for r in later5] == [5]  # round 4 was against 6: a bye
    assert all(r.result_source == ResultSource.FORFEIT and r.loser_id == five
               and r.match_id is None for r in later5)
    # Standings: results against 6 are annulled; against 5 they stand.
    lines = {line["seed"]: line for line in selectors.standings(tournament)}
    for s in (1, 2, 3, 4, 5):
        decided = [r for r in rows if entry[s] in (r.entry_a_id, r.entry_b_id)
                   and r.status == PairingStatus.DECIDED
                   and six not in (r.entry_a_id, r.entry_b_id)]
        assert lines[s]["wins"] == sum(1 for r in decided if r.winner_id == entry[s]), s
        assert lines[s]["wins"] + lines[s]["losses"] == len(decided) == 4, s
    assert (lines[6]["wins"], lines[6]["losses"]) == (0, 0)
    assert max(lines.values(), key=lambda line: line["rank"])["seed"] == 6  # listed last
    assert lines[1]["rank"] == 1


def test_single_elimination_double_no_show_gives_the_next_opponent_a_bye(make_tournament):
    tournament = make_tournament(8, start=True, no_show_minutes=10)
    assert round_pairs(tournament, 1) == {frozenset(p) for p in ((1, 8), (4, 5), (2, 7),
                                                                 (3, 6))}
    seed = seeds_of(tournament)
    by_seeds = {frozenset((seed[r.entry_a_id], seed[r.entry_b_id])): r
                for r in open_pairings(tournament)}
    no_show_sweep(by_seeds[frozenset((4, 5))])
    play_round_better_seed_wins(tournament)
    # 1 would have met the winner of 4 v 5: nobody comes, 1 has a bye into the final.
    semi = tournament.pairings.get(slot="M2-1")
    assert semi.status == PairingStatus.BYE and seed[semi.winner_id] == 1
    assert round_pairs(tournament, 2) == {frozenset((2, 3))}
    play_round_better_seed_wins(tournament)
    assert round_pairs(tournament, 3) == {frozenset((1, 2))}
    play_round_better_seed_wins(tournament)
    tournament.refresh_from_db()
    assert tournament.champion.seed == 1
    for s in (4, 5):
        assert tournament.entries.get(seed=s).status == EntryStatus.WITHDRAWN
