"""Issue 27's acceptance event and its checks by hand, shared by the run over the write API
(``test_desk_api_acceptance``) and the run on the desk pages in a browser
(``tests/e2e/test_desk_event_browser``).

The event: 32 players imported from CSV into two rating divisions (16 below 1800, 16 from
1800), each a Swiss of four rounds with a cut to a top-8 knockout whose quarter-final losers
play a consolation (``swiss_cut_8_consolation``), 3-point matches played over the board, a
10.00 entry fee, 40/30/20/10 payouts and a 10 % consolation share paid 50/30/20. At the
board the higher rated player always wins.

The checks work everything out again from the stored results alone, without the formats'
code: each Swiss round's pairings (the rules of docs/tournaments.md: score groups top down,
top half against bottom half in seed order, floaters down, no rematch while one can be
avoided, the bye to the lowest-ranked player with the fewest byes), the Swiss standings and
their tiebreaks, the cut and the knockout, the consolation (its pairings and places), the
final standings and places (a disqualified player forfeits them), and the payouts of the
main flight, the consolation flight and the side pools by the money rules; then every
published file is checked against the others
(:func:`tests.tournaments.test_published_files_agree.cross_check`) and against these.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal
from fractions import Fraction
from typing import Any

from tests.tournaments.test_published_files_agree import cross_check
from tournaments.models import EntryStatus, PairingStatus, Tournament
from tournaments.selectors import placings as placings_of
from tournaments.treasury import money_summary

FEE = Decimal("10.00")
LENGTH = 3
ROUNDS = 4
CUT = 8
PAYOUT_TABLE = "40/30/20/10"
CONSOLATION_PERCENT = Decimal("10")
CONSOLATION_TABLE = "50/30/20"
CENT = Decimal("0.01")


def name(i: int) -> str:
    return f"Player {i:02d}"


def rating(i: int) -> float:
    # 0-15 below 1800 (Intermediate), 16-31 from 1800 (Open).
    return 1490.0 + 20 * i


def number_of(player_name: str) -> int:
    return int(player_name.split()[-1])


def players_csv() -> str:
    lines = ["name,club,rating,experience"] + [
        f"{name(i)},Tehran BG,{rating(i)},{10 * i}" for i in range(32)]
    return "\n".join(lines) + "\n"


# -- the event as stored -----------------------------------------------------------------


@dataclass
class Game:
    slot: str
    bracket: str
    round: int
    a: int
    b: int | None  # None: a bye
    winner: int | None
    both_lose: bool = False


@dataclass
class Stored:
    """A division's entries and its pairings, read from the database."""

    seeds: list[int]  # entry ids, seed 1 first
    names: dict[int, str]
    status: dict[int, str]
    paid: set[int]
    games: list[Game] = field(default_factory=list)

    def swiss_round(self, number: int) -> list[Game]:
        return [g for g in self.games if g.bracket == "main" and g.round == number]

    def knockout_round(self, number: int, bracket: str = "knockout") -> list[Game]:
        return sorted((g for g in self.games if g.bracket == bracket and g.round == number),
                      key=lambda g: int(g.slot.rpartition("-")[2]))


def stored(tournament: Tournament) -> Stored:
    entries = list(tournament.entries.select_related("player").order_by("seed"))
    event = Stored(seeds=[e.pk for e in entries if e.seed],
                   names={e.pk: e.player.display_name for e in entries},
                   status={e.pk: EntryStatus(e.status).name.lower() for e in entries},
                   paid={e.pk for e in entries if e.paid})
    for row in tournament.pairings.select_related("round").order_by("round__number", "order"):
        if row.entry_a_id is None:
            continue
        decided = row.status in (PairingStatus.DECIDED, PairingStatus.BYE)
        event.games.append(Game(
            slot=row.slot, bracket=row.round.bracket, round=row.round.number,
            a=row.entry_a_id, b=row.entry_b_id,
            winner=(row.winner_id or (row.entry_a_id if row.entry_b_id is None else None))
            if decided else None,
            both_lose=decided and row.winner_id is None and row.entry_b_id is not None))
    return event


# -- the Swiss by hand ----------------------------------------------------------------------


@dataclass
class Record:
    wins: dict[int, int]
    losses: dict[int, int]
    byes: dict[int, int]
    opponents: dict[int, list[int]]
    beaten: dict[int, list[int]]


def record(seeds: Sequence[int], games: Iterable[Game]) -> Record:
    r = Record({e: 0 for e in seeds}, {e: 0 for e in seeds}, {e: 0 for e in seeds},
               {e: [] for e in seeds}, {e: [] for e in seeds})
    for g in games:
        if g.b is None:
            r.byes[g.a] += 1
            r.wins[g.a] += 1
            continue
        r.opponents[g.a].append(g.b)
        r.opponents[g.b].append(g.a)
        if g.both_lose:
            r.losses[g.a] += 1
            r.losses[g.b] += 1
        elif g.winner is not None:
            loser = g.b if g.winner == g.a else g.a
            r.wins[g.winner] += 1
            r.losses[loser] += 1
            r.beaten[g.winner].append(loser)
    return r


def swiss_order(seeds: Sequence[int], r: Record) -> list[tuple[int, tuple[int, ...]]]:
    """The Swiss standings: (entry, (wins, Buchholz, median Buchholz, Sonneborn-Berger)),
    best first, then by seed."""
    lines = []
    for seed, e in enumerate(seeds, start=1):
        scores = sorted(r.wins[o] for o in r.opponents[e])
        buchholz = sum(scores)
        median = buchholz - (scores[0] + scores[-1] if len(scores) >= 3 else 0)
        sb = sum(r.wins[o] for o in r.beaten[e])
        lines.append(((-r.wins[e], -buchholz, -median, -sb, seed), e,
                      (r.wins[e], buchholz, median, sb)))
    lines.sort()
    return [(e, values) for _key, e, values in lines]


def _perfect(players: list[int], met: Mapping[int, set[int]]) -> list[tuple[int, int]] | None:
    """A pairing of all ``players`` without a rematch, or None (a plain search: the fields
    here are 16 players at most)."""
    if not players:
        return []
    first, rest = players[0], players[1:]
    for partner in rest:
        if partner in met[first]:
            continue
        tail = _perfect([p for p in rest if p != partner], met)
        if tail is not None:
            return [(first, partner), *tail]
    return None


def swiss_round_by_hand(field_: Sequence[int], seeds: Sequence[int], r: Record
                        ) -> tuple[set[frozenset[int]], int | None]:
    """One Swiss round paired by the documented rules: the pairs and the bye."""
    seed_of = {e: i for i, e in enumerate(seeds)}
    ranked = sorted(field_, key=lambda e: (-r.wins[e], seed_of[e]))
    met = {e: set(r.opponents[e]) for e in seeds}
    bye = None
    if len(ranked) % 2:
        fewest = min(r.byes[e] for e in ranked)
        bye = next(e for e in reversed(ranked) if r.byes[e] == fewest
                   and _perfect([p for p in ranked if p != e], met) is not None)
        ranked.remove(bye)
    pairs = _pair_groups(ranked, r.wins, met)
    assert pairs is not None, "these fields always pair without a rematch"
    return {frozenset(p) for p in pairs}, bye


def _pair_groups(players: list[int], wins: Mapping[int, int], met: Mapping[int, set[int]],
                 group: tuple[list[int], list[int]] | None = None
                 ) -> list[tuple[int, int]] | None:
    """Score group by score group, top down: within a group (its players still unpaired
    when it is reached) the top half against the bottom half in order, then the rest of
    the group, then floating down to the next groups; the first choice that lets the
    whole round pair without a rematch."""
    if not players:
        return []
    p = players[0]
    if group is None or p not in group[0] + group[1]:
        members = [q for q in players if wins[q] == wins[p]]
        group = (members[: len(members) // 2], members[len(members) // 2:])
    top, bottom = group
    if p in top:
        own = [q for q in bottom if q in players] + [
            q for q in top[top.index(p) + 1:] if q in players]
    else:
        own = [q for q in bottom[bottom.index(p) + 1:] if q in players]
    later = [q for q in players if q not in top and q not in bottom]
    for partner in own + later:
        if partner in met[p]:
            continue
        rest = [q for q in players if q not in (p, partner)]
        if _perfect(rest, met) is None:
            continue
        tail = _pair_groups(rest, wins, met, group)
        if tail is not None:
            return [(p, partner), *tail]
    return None


def check_swiss(event: Stored, *, late: Mapping[int, int], out: Mapping[int, int],
                swaps: Mapping[int, tuple[int, int]]) -> list[tuple[int, tuple[int, ...]]]:
    """Every Swiss round as paired by hand from the rounds before it (with their final,
    corrected results), and the Swiss standings at its end.

    ``late``: a late entry's first round; ``out``: the first round a player who left is no
    longer paired in; ``swaps``: a round's two players the director swapped by hand."""
    for number in range(1, ROUNDS + 1):
        before = record(event.seeds, [g for g in event.games
                                      if g.bracket == "main" and g.round < number])
        field_ = [e for e in event.seeds
                  if late.get(e, 1) <= number and out.get(e, ROUNDS + 1) > number]
        pairs, bye = swiss_round_by_hand(field_, event.seeds, before)
        if number in swaps:
            x, y = swaps[number]
            pairs = {frozenset({x if q == y else y if q == x else q for q in pair})
                     for pair in pairs}
        games = event.swiss_round(number)
        assert {frozenset((g.a, g.b)) for g in games if g.b is not None} == pairs, number
        assert [g.a for g in games if g.b is None] == ([bye] if bye else []), number
        assert all(g.winner is not None or g.both_lose for g in games), number
    return swiss_order(event.seeds, record(event.seeds, [g for g in event.games
                                                        if g.bracket == "main"]))


def check_knockout(event: Stored, swiss: Sequence[tuple[int, tuple[int, ...]]]
                   ) -> dict[int, int]:
    """The cut (the top 8 of the Swiss still in the event, seeded 1st v 8th, 4th v 5th,
    2nd v 7th, 3rd v 6th as a bracket of 8 places them) and each later round (the winners
    of two neighbouring matches): the knockout's ranks by hand."""
    cut = [e for e, _values in swiss if event.status[e] == "active"][:CUT]
    first = event.knockout_round(1)
    order = (1, 8, 4, 5, 2, 7, 3, 6)
    assert [frozenset((g.a, g.b)) for g in first] == [
        frozenset((cut[order[i] - 1], cut[order[i + 1] - 1])) for i in range(0, CUT, 2)]
    ranks: dict[int, int] = {}
    games = first
    number = 1
    while True:
        assert all(g.winner in (g.a, g.b) for g in games), number
        losers = [g.a if g.winner == g.b else g.b for g in games]
        assert None not in losers
        ranks.update({loser: len(games) + 1 for loser in losers if loser is not None})
        if len(games) == 1:
            assert games[0].winner is not None
            ranks[games[0].winner] = 1
            break
        winners = [g.winner for g in games]
        number += 1
        games = event.knockout_round(number)
        assert [frozenset((g.a, g.b)) for g in games] == [
            frozenset((winners[i], winners[i + 1])) for i in range(0, len(winners), 2)]
    assert not [g for g in event.games if g.bracket not in ("main", "knockout",
                                                           "consolation")]
    return ranks


def _loser(game: Game) -> int:
    loser = game.a if game.winner == game.b else game.b
    assert game.winner in (game.a, game.b) and loser is not None, game
    return loser


def check_consolation(event: Stored) -> dict[int, int]:
    """A Swiss cut's consolation of one round (``consolation_rounds`` 1, as the event has
    it): the knockout's round-1 losers paired in slot order (the loser of K1-1 against the
    loser of K1-2, K1-3's against K1-4's, ...), then the winners of two neighbouring
    matches, down to a final: the consolation's places by hand (each round's losers share
    the place below the players still in)."""
    entering = [_loser(g) for g in event.knockout_round(1)]
    games = event.knockout_round(1, "consolation")
    assert [frozenset((g.a, g.b)) for g in games] == [
        frozenset(entering[i:i + 2]) for i in range(0, len(entering), 2)]
    places: dict[int, int] = {}
    number = 1
    while True:
        places.update({_loser(g): len(games) + 1 for g in games})
        if len(games) == 1:
            assert games[0].winner is not None
            places[games[0].winner] = 1
            break
        winners = [g.winner for g in games]
        number += 1
        games = event.knockout_round(number, "consolation")
        assert [frozenset((g.a, g.b)) for g in games] == [
            frozenset((winners[i], winners[i + 1])) for i in range(0, len(winners), 2)]
    assert len([g for g in event.games if g.bracket == "consolation"]) == len(entering) - 1
    return places


def reranked(ranks: Mapping[int, int], among: Iterable[int]) -> dict[int, int]:
    """``ranks`` of the entries ``among`` only, renumbered among them (ties kept)."""
    kept = {e: r for e, r in ranks.items() if e in set(among)}
    return {e: 1 + sum(1 for other in kept.values() if other < r) for e, r in kept.items()}


def table_of(text: str) -> tuple[Decimal, ...]:
    return tuple(Decimal(p) for p in (text.strip() or "100").split("/"))


def final_ranks(event: Stored, swiss: Sequence[tuple[int, tuple[int, ...]]],
                knockout: Mapping[int, int]) -> dict[int, int]:
    """The knockout's players by how far they got, then the rest in Swiss order; a
    disqualified player has no rank and the places below move up."""
    ranks = dict(knockout)
    rest = [e for e, _values in swiss if e not in knockout]
    ranks.update({e: len(knockout) + i for i, e in enumerate(rest, start=1)})
    kept = {e: r for e, r in ranks.items() if event.status[e] != "disqualified"}
    return {e: 1 + sum(1 for other in kept.values() if other < r) for e, r in kept.items()}


def payouts_by_hand(pool: Decimal, table: Sequence[Decimal], ranks: Mapping[int, int]
                    ) -> dict[int, Decimal]:
    """The money rules (docs/tournaments.md): a shared place shares the places it covers,
    each share rounded down to the cent, the cents left over handed out best place first,
    one to each player of a place that can give one to all of its players."""
    groups: dict[int, list[int]] = {}
    for e, r in sorted(ranks.items(), key=lambda item: item[1]):
        groups.setdefault(r, []).append(e)
    exact: dict[int, Fraction] = {}
    position = 0
    for _rank, members in sorted(groups.items()):
        covered = table[position:position + len(members)]
        if not covered:
            break
        for e in members:
            exact[e] = Fraction(sum(covered)) / 100 / len(members) * Fraction(pool)
        position += len(members)
    cents = {e: int(amount * 100) for e, amount in exact.items()}
    left = int(pool * 100) - sum(cents.values())
    paid_groups = [[e for e in members if e in exact] for _r, members in sorted(groups.items())]
    while any(0 < len(g) <= left for g in paid_groups):
        for g in paid_groups:
            if 0 < len(g) <= left:
                for e in g:
                    cents[e] += 1
                left -= len(g)
    return {e: (CENT * c).quantize(CENT) for e, c in cents.items()}


def check_division(tournament: Tournament, *, late: Mapping[int, int] | None = None,
                   out: Mapping[int, int] | None = None,
                   swaps: Mapping[int, tuple[int, int]] | None = None) -> dict[str, Any]:
    """The whole division by hand against what is stored and published: returns the
    published files (:func:`cross_check`), the ranks, the consolation's places and the
    payouts by hand (by name: everything, the consolation flight's, each side pool's)."""
    tournament.refresh_from_db()
    event = stored(tournament)
    swiss = check_swiss(event, late=late or {}, out=out or {}, swaps=swaps or {})
    knockout = check_knockout(event, swiss)
    ranks = final_ranks(event, swiss, knockout)
    played_consolation = bool(tournament.format_options.get("consolation_rounds"))
    if played_consolation:
        assert tournament.format_options["consolation_rounds"] == 1
        consolation = check_consolation(event)
    else:
        assert not [g for g in event.games if g.bracket == "consolation"]
        consolation = {}
    # The placings published: places 1 to 4 of the main flight and the consolation's.
    placings = {flight["flight"]: {(p["place"], p["id"]) for p in flight["places"]}
                for flight in placings_of(tournament)}
    assert placings.pop("main") == {(r, e) for e, r in ranks.items() if r <= 4}
    assert placings == ({"consolation": {(r, e) for e, r in consolation.items()}}
                        if consolation else {})
    files = cross_check(tournament)
    # standings.csv, line by line: rank, wins, losses, byes (both stages, the consolation
    # being a flight of its own) and the Swiss tiebreaks.
    totals = record(event.seeds, [g for g in event.games if g.bracket in ("main",
                                                                          "knockout")])
    swiss_values = dict(swiss)
    published = {line["player"]: line for line in files["standings"]}  # type: ignore[attr-defined]
    assert set(published) == {event.names[e] for e in event.seeds}
    for e in event.seeds:
        line = published[event.names[e]]
        assert line["rank"] == (str(ranks[e]) if e in ranks else ""), line
        assert (int(line["wins"]), int(line["losses"]), int(line["byes"])) == (
            totals.wins[e], totals.losses[e], totals.byes[e]), line
        assert (int(line["tiebreak_buchholz"]), int(line["tiebreak_median_buchholz"]),
                int(line["tiebreak_sonneborn_berger"])) == swiss_values[e][1:], line
        assert line["status"] == event.status[e], line
    # The money by hand: the pool of the paid entries; the consolation flight's share of it
    # (rounded down to the cent) when the flight was played, paid by its table from its
    # places among the paid; the main flight the rest, by the final ranks among the paid;
    # each side pool its members' fees, by their final ranks among its members.
    pool = (tournament.entry_fee * len(event.paid) * tournament.return_percent / 100
            ).quantize(CENT, rounding=ROUND_DOWN)
    share = Decimal(0)
    consolation_pay: dict[int, Decimal] = {}
    if played_consolation and tournament.consolation_percent:
        share = (pool * tournament.consolation_percent / 100).quantize(CENT,
                                                                       rounding=ROUND_DOWN)
        consolation_pay = payouts_by_hand(share, table_of(tournament.consolation_payout_table),
                                          reranked(consolation, event.paid))
    main = payouts_by_hand(pool - share, table_of(tournament.payout_table),
                           reranked(ranks, event.paid))
    sides: dict[str, dict[int, Decimal]] = {}
    side_total = Decimal(0)
    for side in tournament.side_pools.prefetch_related("entries"):
        members = {entry.pk for entry in side.entries.all()}
        total = (side.fee * len(members) * side.return_percent / 100).quantize(
            CENT, rounding=ROUND_DOWN)
        side_total += total
        sides[side.name] = payouts_by_hand(total, table_of(side.payout_table),
                                           reranked(ranks, members))
    expected: dict[int, Decimal] = {}
    for part in (main, consolation_pay, *sides.values()):
        for e, amount in part.items():
            expected[e] = expected.get(e, Decimal(0)) + amount
    # ... against the treasurer's summary, which the money pages and files are made from.
    summary = money_summary(tournament)
    assert summary["pool"] == pool and summary["main_pool"] == pool - share
    assert summary["main_payouts"] == main
    flights = [f for f in summary["flights"] if f["payouts"]]
    assert [(f["flight"], f["total"], f["payouts"]) for f in flights] == (
        [("consolation", share, consolation_pay)] if consolation_pay else [])
    assert {s["pool"].name: s["payouts"] for s in summary["side_pools"]} == sides
    assert {e: a for e, a in summary["payouts"].items() if a} == {
        e: a for e, a in expected.items() if a}
    assert sum(expected.values()) == pool + side_total
    by_name = event.names.__getitem__
    return {"files": files, "event": event, "ranks": ranks, "knockout": knockout,
            "consolation": {by_name(e): r for e, r in consolation.items()},
            "payouts": {by_name(e): a for e, a in expected.items() if a},
            "consolation_payouts": {by_name(e): a for e, a in consolation_pay.items() if a},
            "side_payouts": {pool_name: {by_name(e): a for e, a in paid.items() if a}
                             for pool_name, paid in sides.items()}}
