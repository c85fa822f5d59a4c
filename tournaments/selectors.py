"""Reads: a tournament as the formats see it, and as pages, the API and the admin show it.

:func:`format_state` is the one bridge from the database to the pure formats; the services
use it to advance a tournament and the pages use it for standings, so both agree.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from matches.models import Match, MatchStatus, Player
from tournaments import formats
from tournaments.models import (
    Eligibility,
    Entry,
    EntryStatus,
    FormatName,
    Pairing,
    PairingStatus,
    ResultSource,
    Tournament,
    TournamentStatus,
)

BRACKET_ORDER = ("main", "knockout", "third_place", "winners", "losers", "final",
                 "consolation", "last_chance")

# Results that mean the player sat down and played (or the match was judged over the board).
PLAYED_SOURCES = frozenset({ResultSource.MATCH, ResultSource.REPORT, ResultSource.REFEREE,
                            ResultSource.OVERRIDE})


def family(tournament: Tournament) -> list[int]:
    """The tournament and, for an event, its divisions."""
    return [tournament.pk, *tournament.divisions.values_list("pk", flat=True)]


def tournament_group(tournament_id: int) -> str:
    """The channel-layer group of every page showing one tournament."""
    return f"tournament.{tournament_id}"


# -- permissions ---------------------------------------------------------------------------


def can_direct(user: Any, tournament: Tournament) -> bool:
    """The tournament's director, a superuser, or a staff member allowed to change
    tournaments."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    if user.is_superuser or (tournament.director_id is not None
                             and tournament.director_id == user.pk):
        return True
    return bool(user.is_staff and user.has_perm("tournaments.change_tournament"))


REFEREE_PERMISSION = "tournaments.referee_tournament"


def is_referee(user: Any, tournament: Tournament) -> bool:
    """Who may enter and correct results, record double forfeits and reinstate players:
    the tournament's directors, and users with ``tournaments.referee_tournament`` (the
    Referees group has it). Staff status alone grants nothing."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    if can_direct(user, tournament):
        return True
    return bool(user.is_active and user.has_perm(REFEREE_PERMISSION))


# -- the formats' view -----------------------------------------------------------------------


def format_of(tournament: Tournament) -> formats.Format:
    """The tournament's format with its options. Raises :class:`formats.PairingError`."""
    options = tournament.format_options or {}
    if not isinstance(options, dict):
        raise formats.PairingError("Format options must be a JSON object.", code="bad_option")
    return formats.get_format(tournament.format, **options)


def seeded_entry_ids(tournament: Tournament) -> list[int]:
    """The draw, best seed first: every entry that was seeded when the tournament started."""
    return list(
        tournament.entries.filter(seed__isnull=False).order_by("seed")
        .values_list("pk", flat=True)
    )


def to_format_pairing(row: Pairing) -> formats.Pairing:
    return formats.Pairing(
        slot=row.slot,
        round=row.round.number,
        bracket=formats.Bracket(row.round.bracket),
        a=formats.parse_side(row.side_a),
        b=formats.parse_side(row.side_b),
    )


def format_state(tournament: Tournament,
                 rows: list[Pairing] | None = None) -> formats.TournamentState:
    """The tournament as plain values: seeds, stored pairings, results of decided ones."""
    if rows is None:
        rows = list(tournament.pairings.select_related("round").order_by("order"))
    results = [result for row in rows if (result := to_format_result(row)) is not None]
    withdrawn = tournament.entries.exclude(status=EntryStatus.ACTIVE).values_list("pk",
                                                                                  flat=True)
    return formats.TournamentState(
        seeded_entry_ids(tournament), [to_format_pairing(row) for row in rows], results,
        withdrawn=frozenset(withdrawn),
    )


def to_format_result(row: Pairing) -> formats.Result | None:
    """A decided pairing's result as the formats see it (``None``: not decided)."""
    if row.status != PairingStatus.DECIDED:
        return None
    if row.result_source == ResultSource.DOUBLE_FORFEIT:
        if row.entry_a_id is None or row.entry_b_id is None:
            return None
        return formats.Result.double_forfeit(row.slot, row.entry_a_id, row.entry_b_id)
    if row.winner_id is None or row.loser_id is None:
        return None
    return formats.Result(row.slot, row.winner_id, row.loser_id, row.winner_points,
                          row.loser_points,
                          forfeit=row.result_source in (ResultSource.FORFEIT,
                                                        ResultSource.NO_SHOW))


# -- who is placed and paid ----------------------------------------------------------------


def never_sat_down(tournament: Tournament) -> frozenset[int]:
    """Entries of the draw who never played a match: every result of theirs is a bye, a
    forfeit decided without a match (a walkover), a no-show or a double forfeit. While the
    event runs, only those who are out count (the others may still sit down)."""
    seeded = set(seeded_entry_ids(tournament))
    played: set[int] = set()
    # A match at the pairing's table means both sat down, even if it ended by a forfeit.
    for a, b in tournament.pairings.filter(
            Q(result_source__in=PLAYED_SOURCES) | Q(match__isnull=False),
            status=PairingStatus.DECIDED).values_list("entry_a_id", "entry_b_id"):
        played.update((a, b))
    never = seeded - played
    if tournament.status != TournamentStatus.FINISHED:
        never &= set(tournament.entries.exclude(status=EntryStatus.ACTIVE)
                     .values_list("pk", flat=True))
    return frozenset(never)


def unplaced_entries(tournament: Tournament) -> frozenset[int]:
    """Entries that get no rank, no place and no money: a disqualified player when the
    tournament forfeits their prize (the default), and a player who never sat down. The
    places and money below them move up."""
    unplaced = set(never_sat_down(tournament))
    if tournament.forfeit_prize_on_disqualification:
        unplaced.update(tournament.entries.filter(status=EntryStatus.DISQUALIFIED)
                        .values_list("pk", flat=True))
    return frozenset(unplaced)


def placed_champion(tournament: Tournament, fmt: formats.Format,
                    state: formats.TournamentState) -> int | None:
    """The champion to publish: the format's, unless they get no place (disqualified,
    never sat down); then the main flight's 1st place once the others move up (None if
    that place is shared)."""
    champion = fmt.champion(state)
    unplaced = unplaced_entries(tournament)
    if champion is None or champion not in unplaced:
        return champion
    first = [p.entrant for p in fmt.placings(state, unplaced)
             if p.flight is formats.Bracket.MAIN and p.place == 1]
    return first[0] if len(first) == 1 else None


def annulled_slots(tournament: Tournament) -> frozenset[str]:
    """Decided pairings whose result does not count (a round robin's annulled games):
    published as annulled, not as wins."""
    if not tournament.has_started or not seeded_entry_ids(tournament):
        return frozenset()
    return format_of(tournament).annulled_results(format_state(tournament))


# -- lists -----------------------------------------------------------------------------------


def visible_tournaments(user: Any = None) -> QuerySet[Tournament]:
    """Tournaments past the draft stage; staff see drafts too."""
    queryset = Tournament.objects.select_related("champion__player", "director", "event")
    if user is not None and getattr(user, "is_staff", False):
        return queryset
    return queryset.exclude(status=TournamentStatus.DRAFT)


def entries_of(tournament: Tournament) -> QuerySet[Entry]:
    return tournament.entries.select_related("player").order_by("seed", "registered_at", "pk")


def entry_of(tournament: Tournament, player: Player | None) -> Entry | None:
    if player is None:
        return None
    return tournament.entries.filter(player=player).first()


def entry_dict(entry: Entry) -> dict[str, Any]:
    return {
        "id": entry.pk,
        "player_id": entry.player_id,
        "name": entry.player.display_name,
        "rating": round(entry.player.rating, 2),
        "seed": entry.seed,
        "status": EntryStatus(entry.status).name.lower(),
        "checked_in": entry.checked_in,
    }


def open_pairings_of(tournament: Tournament, player: Player) -> QuerySet[Pairing]:
    """The player's pairings that are paired but not decided (their table, a report due)."""
    return tournament.pairings.filter(
        Q(entry_a__player=player) | Q(entry_b__player=player), status=PairingStatus.PAIRED
    ).select_related("entry_a__player", "entry_b__player", "round", "table", "reported_winner")


# -- standings and the bracket ----------------------------------------------------------------


def standings(tournament: Tournament) -> list[dict[str, Any]]:
    """One line per entrant, best first, with the format's tiebreaks. Before the draw: the
    entries in registration order, unranked."""
    entries = {entry.pk: entry for entry in entries_of(tournament)}
    if not tournament.has_started or not seeded_entry_ids(tournament):
        return [
            {**entry_dict(entry), "rank": None, "wins": 0, "losses": 0, "byes": 0,
             "tiebreaks": {}}
            for entry in entries.values() if entry.is_active
        ]
    fmt = format_of(tournament)
    lines = fmt.standings(format_state(tournament))
    unplaced = unplaced_entries(tournament)
    ranked = {line.entrant: line.rank for line in formats.rerank(lines, unplaced)}
    # Players with no place (disqualified, never sat down) are listed last, unranked.
    lines = [line for line in lines if line.entrant in ranked] + [
        line for line in lines if line.entrant not in ranked]
    return [
        {
            **entry_dict(entries[line.entrant]),
            "rank": ranked.get(line.entrant),
            "wins": line.wins,
            "losses": line.losses,
            "byes": line.byes,
            "tiebreaks": dict(line.tiebreaks),
        }
        for line in lines
    ]


def _side_label(notation: str) -> str:
    side = formats.parse_side(notation)
    if isinstance(side, formats.SlotRef):
        if side.outcome is formats.Outcome.WINNER:
            return _("Winner of %(slot)s") % {"slot": side.slot}
        return _("Loser of %(slot)s") % {"slot": side.slot}
    if isinstance(side, formats.Bye):
        return _("Bye")
    return "?"


def _round_label(bracket: str, number: int, total: int) -> str:
    if bracket == "final":
        return _("Grand final") if number == 1 else _("Grand final (reset)")
    if bracket == "third_place":
        return _("Third-place match")
    if bracket in ("main", "knockout", "winners", "consolation", "last_chance") and total > 1:
        from_end = total - number
        names = {0: _("Final"), 1: _("Semi-finals"), 2: _("Quarter-finals")}
        if from_end in names:
            return str(names[from_end])
    return _("Round %(number)s") % {"number": number}


BRACKET_LABELS = {
    "knockout": gettext_lazy("Knockout"),
    "winners": gettext_lazy("Winners' bracket"),
    "losers": gettext_lazy("Losers' bracket"),
    "final": gettext_lazy("Grand final"),
    "consolation": gettext_lazy("Consolation bracket"),
    "third_place": gettext_lazy("Third place"),
    "last_chance": gettext_lazy("Last chance"),
}

FLIGHT_LABELS = {
    "main": gettext_lazy("Main"),
    "consolation": gettext_lazy("Consolation"),
    "last_chance": gettext_lazy("Last chance"),
}


def _bracket_label(bracket: str, tournament: Tournament) -> str:
    if bracket == "main":
        return _("Bracket") if tournament.is_elimination else _("Rounds")
    return str(BRACKET_LABELS.get(bracket, bracket))


def pairing_dict(row: Pairing, live_match: dict[int, int] | None = None, *,
                 annulled: bool = False) -> dict[str, Any]:
    """A pairing as pages and the API show it; ``live_match`` maps table ids to the match
    being played there; ``annulled``: its result does not count (shown as such, with no
    winner)."""
    live_match = live_match or {}
    match_id = live_match.get(row.table_id) if row.table_id else None
    # Who has sat down at the pairing's table (the bracket marks them before the match).
    table = row.table if row.table_id and row.status == PairingStatus.PAIRED else None
    seated = {table.seat0_id, table.seat1_id} - {None} if table is not None else set()
    if match_id is None:
        match_id = row.match_id

    def side(entry: Entry | None, notation: str) -> dict[str, Any]:
        if entry is None:
            return {"entry": None, "name": _side_label(notation), "seed": None,
                    "winner": False, "points": None, "player_id": None}
        won = row.winner_id == entry.pk and row.status == PairingStatus.DECIDED and not annulled
        lost = row.loser_id == entry.pk and not annulled
        return {
            "entry": entry.pk,
            "player_id": entry.player_id,
            "name": entry.player.display_name,
            "seed": entry.seed,
            "winner": won,
            "points": row.winner_points if won else (row.loser_points if lost else None),
            "status": EntryStatus(entry.status).name.lower(),
            "seated": entry.player_id in seated,
        }

    live = row.table_id is not None and row.table_id in live_match
    return {
        "id": row.pk,
        "slot": row.slot,
        "bracket": row.round.bracket,
        "round": row.round.number,
        "match_length": row.round.match_length,
        "status": PairingStatus(row.status).name.lower(),
        "a": side(row.entry_a, row.side_a),
        "b": side(row.entry_b, row.side_b),
        "winner": None if annulled else row.winner_id,
        "result_source": "annulled" if annulled else (row.result_source or None),
        "result_label": _("Annulled") if annulled else (
            str(ResultSource(row.result_source).label) if row.result_source else None),
        "annulled": annulled,
        "table_id": row.table_id,
        "board_number": row.board_number,
        "starts_at": row.round.starts_at.isoformat() if row.round.starts_at else None,
        "match_id": match_id,
        "live": live,
        "watch_url": f"/tables/{row.table_id}/" if row.table_id else None,
        "reported": row.has_report,
    }


def live_matches(tournament: Tournament) -> dict[int, int]:
    """Table id → id of the match in progress there, for this tournament's tables."""
    return dict(
        Match.objects.filter(
            table__tournament_pairing__tournament=tournament, status=MatchStatus.PLAYING
        ).values_list("table_id", "pk")
    )


def pairing_rows(tournament: Tournament) -> list[Pairing]:
    return list(
        tournament.pairings.select_related(
            "round", "entry_a__player", "entry_b__player", "table"
        ).order_by("order")
    )


def bracket(tournament: Tournament) -> dict[str, Any]:
    """Every pairing, grouped by bracket and round, JSON-ready (the page draws it)."""
    live = live_matches(tournament)
    annulled = annulled_slots(tournament)
    rounds: dict[str, dict[int, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for row in pairing_rows(tournament):
        rounds[row.round.bracket][row.round.number].append(
            pairing_dict(row, live, annulled=row.slot in annulled))
    brackets = []
    for name in sorted(rounds, key=lambda b: BRACKET_ORDER.index(b)
                       if b in BRACKET_ORDER else len(BRACKET_ORDER)):
        by_number = rounds[name]
        total = max(by_number)
        brackets.append({
            "bracket": name,
            "label": _bracket_label(name, tournament),
            "rounds": [
                {
                    "number": number,
                    "label": _round_label(name, number, total)
                    if tournament.is_elimination or name != "main"
                    else _("Round %(number)s") % {"number": number},
                    "match_length": pairings[0]["match_length"],
                    "starts_at": pairings[0]["starts_at"],
                    "pairings": pairings,
                }
                for number, pairings in sorted(by_number.items())
            ],
        })
    champion = tournament.champion
    return {
        "tournament": tournament.pk,
        "format": tournament.format,
        "status": TournamentStatus(tournament.status).name.lower(),
        "champion": entry_dict(champion) if champion is not None else None,
        "brackets": brackets,
    }


def placings(tournament: Tournament) -> list[dict[str, Any]]:
    """Places 1 to 4 of each flight (main, consolation, last chance) whose matches are all
    decided, as the format settles them: ``[{"flight", "label", "places": [{"place",
    **entry}]}]``. Empty before the draw."""
    if not tournament.has_started or not seeded_entry_ids(tournament):
        return []  # not started, or an event whose divisions hold the draws
    lines = format_of(tournament).placings(format_state(tournament),
                                           unplaced_entries(tournament))
    entries = {e.pk: e for e in entries_of(tournament).filter(pk__in=[p.entrant for p in lines])}
    flights: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        flights.setdefault(line.flight.value, []).append(
            {"place": line.place, **entry_dict(entries[line.entrant])})
    return [
        {"flight": flight, "label": str(FLIGHT_LABELS.get(flight, flight)), "places": places}
        for flight, places in flights.items()
    ]


def tournament_dict(tournament: Tournament) -> dict[str, Any]:
    return {
        "id": tournament.pk,
        "name": tournament.name,
        "description": tournament.description,
        "format": tournament.format,
        "format_options": tournament.format_options,
        "seeding": tournament.seeding,
        "rng_seed": tournament.rng_seed if tournament.has_started else None,
        "status": TournamentStatus(tournament.status).name.lower(),
        "match_lengths": tournament.match_lengths,
        "over_the_board": tournament.over_the_board,
        "no_show_minutes": tournament.no_show_minutes,
        "late_penalty": ({"points": tournament.late_penalty_points,
                          "per_minutes": tournament.late_penalty_minutes}
                         if tournament.late_penalty_points else None),
        # An event counts its divisions' players too.
        "entries": Entry.objects.filter(Q(tournament=tournament) | Q(tournament__event=tournament),
                                        status=EntryStatus.ACTIVE).count(),
        "max_entries": tournament.max_entries,
        "champion": entry_dict(tournament.champion) if tournament.champion else None,
        "started_at": tournament.started_at.isoformat() if tournament.started_at else None,
        "finished_at": tournament.finished_at.isoformat() if tournament.finished_at else None,
        "url": reverse("tournaments:detail", args=[tournament.pk]),
        "event": tournament.event_id,
        "division": division_dict(tournament) if tournament.event_id else None,
        "divisions": [division_dict(d) for d in
                      tournament.divisions.order_by("division_order", "pk")],
    }


def eligibility_text(division: Tournament) -> str:
    """Who may play in a division, in words: "rating 1500 to under 1700", "anyone"..."""
    def span(low: float | None, high: float | None, unit: str) -> str:
        if low is not None and high is not None:
            return _("%(unit)s %(low)s to under %(high)s") % {"unit": unit, "low": f"{low:g}",
                                                               "high": f"{high:g}"}
        if low is not None:
            return _("%(unit)s %(low)s or more") % {"unit": unit, "low": f"{low:g}"}
        if high is not None:
            return _("%(unit)s under %(high)s") % {"unit": unit, "high": f"{high:g}"}
        return _("anyone")

    if division.eligibility == Eligibility.RATING:
        return span(division.min_rating, division.max_rating, _("rating"))
    if division.eligibility == Eligibility.EXPERIENCE:
        return span(division.min_experience, division.max_experience, _("experience"))
    if division.eligibility == Eligibility.ASSIGNED:
        return _("players the director assigns")
    return _("anyone")


def division_dict(division: Tournament) -> dict[str, Any]:
    """A division as the event page and the API show it: who may play, its format (the key
    and its name in the reader's language), players, status, champion and links."""
    champion = division.champion
    if division.has_started:  # the draw's players, whoever has left since
        players = division.entries.filter(seed__isnull=False).count()
    else:
        players = division.entries.filter(status=EntryStatus.ACTIVE).count()
    return {
        "id": division.pk,
        "name": division.name,
        "order": division.division_order,
        "eligibility": division.eligibility,
        "eligibility_text": eligibility_text(division),
        "min_rating": division.min_rating,
        "max_rating": division.max_rating,
        "min_experience": division.min_experience,
        "max_experience": division.max_experience,
        "format": division.format,
        "format_label": str(FormatName(division.format).label)
        if division.format in FormatName.values else division.format,
        "status": TournamentStatus(division.status).name.lower(),
        "status_label": str(TournamentStatus(division.status).label),
        "entries": division.entries.filter(status=EntryStatus.ACTIVE).count(),
        "players": players,
        "champion": entry_dict(champion) if champion is not None else None,
        "url": reverse("tournaments:detail", args=[division.pk]),
        "standings_url": reverse("tournaments:results", args=[division.pk]) + "#standings",
    }


def division_of_player(event: Tournament, player: Player | None) -> Tournament | None:
    """The division of ``event`` the player is in (None: in none, or waiting to be assigned)."""
    if player is None:
        return None
    entry = (Entry.objects.filter(tournament__event=event, player=player)
             .exclude(status=EntryStatus.WITHDRAWN).select_related("tournament").first())
    return entry.tournament if entry is not None else None


def refuse_rematch(sender: Any, table: Any, **kwargs: Any) -> str | None:
    """``rematch_requested`` receiver: a pairing's table is for that one match."""
    if Pairing.objects.filter(table_id=table.pk).exists():
        # In the reader's language: the rematch service refuses with it as the detail.
        return _("A tournament match has no rematch: the tournament pairs the next round.")
    return None
