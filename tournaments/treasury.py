"""The treasurer's view of an event: what was paid, the prize pools and who gets what.

Reads only (the paid marks are set by :func:`tournaments.services.entry_set_paid`); the sums
are :mod:`tournaments.money`'s, with its rounding rule. Payouts follow the main flight's
final standings (:func:`tournaments.selectors.standings`) once the tournament is finished;
before that the page shows what each place would get.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from tournaments import money, selectors
from tournaments.models import Entry, SidePool, Tournament, TournamentStatus
from tournaments.publishing import csv_text


def payout_table_of(text: str) -> tuple[Decimal, ...]:
    """The stored payout table; an empty one pays everything to the winner."""
    return money.parse_payout_table(text.strip() or "100")


def _place_amounts(pool: Decimal, table: Sequence[Decimal]) -> list[dict[str, Any]]:
    """What each paid place gets if every place is reached by one player."""
    shares = money.payouts(pool, table, [(place, place) for place in range(1, len(table) + 1)])
    return [{"place": place, "percent": table[place - 1], "amount": shares[place]}
            for place in range(1, len(table) + 1)]


def _reranked(lines: list[dict[str, Any]], members: set[int]) -> list[tuple[int, int]]:
    """The standings of ``members`` only, ranks renumbered among them (ties kept)."""
    kept = [line for line in lines if line["id"] in members and line["rank"] is not None]
    return [(1 + sum(1 for other in kept if other["rank"] < line["rank"]), line["id"])
            for line in kept]


def _flight_places(tournament: Tournament) -> dict[str, list[tuple[int, int]]]:
    """``(place, entry id)`` of each side flight (consolation, last chance) whose places
    are settled, best first, as :func:`tournaments.selectors.placings` publishes them."""
    return {flight["flight"]: [(place["place"], place["id"]) for place in flight["places"]]
            for flight in selectors.placings(tournament) if flight["flight"] != "main"}


def _reranked_places(places: list[tuple[int, int]],
                     members: set[int]) -> list[tuple[int, int]]:
    """A flight's places among ``members`` only (ties kept, places renumbered)."""
    kept = [(place, entry) for place, entry in places if entry in members]
    return [(1 + sum(1 for other, _e in kept if other < place), entry) for place, entry in kept]


def money_summary(tournament: Tournament) -> dict[str, Any]:
    """The pool, the places it pays, the side pools and, once finished, each entry's payout
    (``{"payouts": {entry id: amount}}`` summed over the flights and side pools).

    The main flight is paid by the final standings; the consolation and last chance flights
    (when the director gives them a share) by their own places. A flight with a share but
    nobody placed in it (not played) leaves its share to the main flight. Unranked players
    (a disqualified player who forfeits the prize, a player who never sat down) are paid
    nothing: their place and money pass down."""
    entries = list(tournament.entries.select_related("player"))
    paid = [entry for entry in entries if entry.paid]
    paid_ids = {e.pk for e in paid}
    table = payout_table_of(tournament.payout_table)
    pool = money.prize_pool(fee=tournament.entry_fee, entries=len(paid),
                            return_percent=tournament.return_percent)
    finished = tournament.status == TournamentStatus.FINISHED
    lines = selectors.standings(tournament) if finished else []
    flight_shares = {"consolation": tournament.consolation_percent,
                     "last_chance": tournament.last_chance_percent}
    tables = {"consolation": payout_table_of(tournament.consolation_payout_table),
              "last_chance": payout_table_of(tournament.last_chance_payout_table)}
    places = _flight_places(tournament) if finished else {}
    if finished:  # a flight nobody was placed in gives its share back to the main flight
        flight_shares = {name: share for name, share in flight_shares.items()
                         if _reranked_places(places.get(name, []), paid_ids)}
    parts = money.split_pool(pool, {name: share for name, share in flight_shares.items()
                                    if share})
    payouts: dict[int, Decimal] = {}
    main = money.payouts(parts["main"], table, _reranked(lines, paid_ids)) if finished else {}
    for entry_id, amount in main.items():
        payouts[entry_id] = payouts.get(entry_id, Decimal(0)) + amount
    flights: list[dict[str, Any]] = []
    for name, part in parts.items():
        if name == "main":
            continue
        flight_pay = (money.payouts(part, tables[name],
                                    _reranked_places(places.get(name, []), paid_ids))
                      if finished else {})
        for entry_id, amount in flight_pay.items():
            payouts[entry_id] = payouts.get(entry_id, Decimal(0)) + amount
        flights.append({"flight": name, "label": str(selectors.FLIGHT_LABELS[name]),
                        "percent": flight_shares[name], "total": part,
                        "places": _place_amounts(part, tables[name]), "payouts": flight_pay})
    side_pools: list[dict[str, Any]] = []
    collected = tournament.entry_fee * len(paid)
    for side in tournament.side_pools.prefetch_related("entries"):
        members = {entry.pk for entry in side.entries.all()}
        side_table = payout_table_of(side.payout_table)
        side_pool = money.prize_pool(fee=side.fee, entries=len(members),
                                     return_percent=side.return_percent)
        shares = money.payouts(side_pool, side_table, _reranked(lines, members)) if finished \
            else {}
        for entry_id, amount in shares.items():
            payouts[entry_id] = payouts.get(entry_id, Decimal(0)) + amount
        collected += side.fee * len(members)
        side_pools.append({
            "pool": side, "members": len(members), "total": side_pool,
            "places": _place_amounts(side_pool, side_table), "payouts": shares,
        })
    return {
        "currency": tournament.currency,
        "fee": tournament.entry_fee,
        "entries": len(entries),
        "paid": len(paid),
        "unpaid": [entry for entry in entries if not entry.paid and entry.is_active],
        "collected": collected,
        "return_percent": tournament.return_percent,
        "pool": pool,
        "main_pool": parts["main"],
        "places": _place_amounts(parts["main"], table),
        "flights": flights,
        "main_payouts": main,
        "side_pools": side_pools,
        "payouts": payouts,
        "finished": finished,
    }


def side_pool_dict(side: SidePool) -> dict[str, Any]:
    """A side pool's settings and members, as the API shows it."""
    return {"id": side.pk, "name": side.name, "fee": str(side.fee),
            "return_percent": str(side.return_percent), "payout_table": side.payout_table,
            "entries": sorted(entry.pk for entry in side.entries.all())}


def money_dict(tournament: Tournament) -> dict[str, Any]:
    """The money settings and :func:`money_summary` for the API (``GET <id>/money/``):
    amounts as strings, payouts by entry id."""
    summary = money_summary(tournament)
    names = dict(tournament.entries.values_list("pk", "player__display_name"))

    def places(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{"place": line["place"], "percent": str(line["percent"]),
                 "amount": str(line["amount"])} for line in lines]

    def paid_out(payouts: dict[int, Decimal]) -> list[dict[str, Any]]:
        return [{"entry": entry_id, "name": names.get(entry_id, ""), "amount": str(amount)}
                for entry_id, amount in sorted(payouts.items(), key=lambda kv: -kv[1])
                if amount]

    return {
        "settings": {
            "entry_fee": str(tournament.entry_fee), "currency": tournament.currency,
            "return_percent": str(tournament.return_percent),
            "payout_table": tournament.payout_table,
            "consolation_percent": str(tournament.consolation_percent),
            "consolation_payout_table": tournament.consolation_payout_table,
            "last_chance_percent": str(tournament.last_chance_percent),
            "last_chance_payout_table": tournament.last_chance_payout_table,
            "forfeit_prize_on_disqualification":
                tournament.forfeit_prize_on_disqualification,
        },
        "entries": summary["entries"], "paid": summary["paid"],
        "unpaid": [entry.pk for entry in summary["unpaid"]],
        "collected": str(summary["collected"]), "pool": str(summary["pool"]),
        "main_pool": str(summary["main_pool"]), "places": places(summary["places"]),
        "flights": [{"flight": f["flight"], "percent": str(f["percent"]),
                     "total": str(f["total"]), "places": places(f["places"]),
                     "payouts": paid_out(f["payouts"])} for f in summary["flights"]],
        "side_pools": [{**side_pool_dict(side["pool"]), "total": str(side["total"]),
                        "places": places(side["places"]), "payouts": paid_out(side["payouts"])}
                       for side in summary["side_pools"]],
        "finished": summary["finished"],
        "main_payouts": paid_out(summary["main_payouts"]),
        "payouts": paid_out(summary["payouts"]),
    }


def treasurer_csv(tournament: Tournament) -> str:
    """One line per entry: paid or not, what they owe (fee and side pools) and, once the
    event is finished, what they are paid."""
    summary = money_summary(tournament)
    side_of: dict[int, list[SidePool]] = {}
    for side in summary["side_pools"]:
        for entry in side["pool"].entries.all():
            side_of.setdefault(entry.pk, []).append(side["pool"])
    rank = {line["id"]: line["rank"] for line in selectors.standings(tournament)}
    entries: list[Entry] = list(
        tournament.entries.select_related("player").order_by("seed", "registered_at", "pk"))
    return csv_text(
        ["player", "status", "checked_in", "paid", "entry_fee", "side_pools", "owed",
         "final_rank", "main_payout", "side_payout", "payout", "currency"],
        (
            [entry.player.display_name, selectors.entry_dict(entry)["status"],
             "yes" if entry.checked_in else "no", "yes" if entry.paid else "no",
             tournament.entry_fee, " / ".join(p.name for p in side_of.get(entry.pk, [])),
             tournament.entry_fee + sum((p.fee for p in side_of.get(entry.pk, [])),
                                        Decimal(0)),
             rank.get(entry.pk) if summary["finished"] else "",
             summary["main_payouts"].get(entry.pk, Decimal("0.00")),
             summary["payouts"].get(entry.pk, Decimal("0.00"))
             - summary["main_payouts"].get(entry.pk, Decimal("0.00")),
             summary["payouts"].get(entry.pk, Decimal("0.00")), tournament.currency]
            for entry in entries
        ),
    )
