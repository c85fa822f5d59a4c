"""Publishing an event: standings and results as CSV, every match file in one zip.

Reads only. The CSVs are what a club secretary pastes into a ranking list; the zip is what
a BMAB submission needs: one Jellyfish ``.mat`` per match played online, each with the
``Event``, ``Round`` and ``EventDate`` headers, which GNU Backgammon imports.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Iterable, Sequence
from typing import Any

from matches.models import Match, MatchStatus
from matches.state import full_state
from tavla.engine.matfile import export_mat
from tournaments import selectors
from tournaments.models import Pairing, PairingStatus, Tournament


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # RFC 4180, as spreadsheets expect
    writer.writerow(header)
    for row in rows:
        writer.writerow(["" if value is None else value for value in row])
    return out.getvalue()


def event_name(tournament: Tournament) -> str:
    """The tournament's name, with its event's in front for a division."""
    parent = getattr(tournament, "event", None)
    return f"{parent.name} · {tournament.name}" if parent is not None else tournament.name


def standings_csv(tournament: Tournament) -> str:
    """One line per player, best first: rank, name, seed, wins, losses, byes, the format's
    tiebreaks (named in the header) and the entry's status."""
    lines = selectors.standings(tournament)
    tiebreaks = list(lines[0]["tiebreaks"]) if lines else []
    return csv_text(
        ["rank", "player", "seed", "rating", "wins", "losses", "byes",
         *(f"tiebreak_{name}" for name in tiebreaks), "status"],
        (
            [line["rank"], line["name"], line["seed"], line["rating"], line["wins"],
             line["losses"], line["byes"], *(line["tiebreaks"].get(t) for t in tiebreaks),
             line["status"]]
            for line in lines
        ),
    )


def results_csv(tournament: Tournament) -> str:
    """One line per pairing decided (byes included), in the draw's order."""
    rows = (
        tournament.pairings.filter(status__in=(PairingStatus.DECIDED, PairingStatus.BYE))
        .select_related("round", "entry_a__player", "entry_b__player", "winner__player",
                        "loser__player")
        .order_by("order")
    )
    titles = round_titles(tournament)
    annulled = selectors.annulled_slots(tournament)

    def name(entry: Any) -> str:
        return entry.player.display_name if entry is not None else ""

    def outcome(row: Pairing) -> list[Any]:
        # An annulled game counts for nobody: no winner, as in the standings.
        if row.slot in annulled:
            return ["", "", None, None, "annulled"]
        return [name(row.winner), name(row.loser), row.winner_points, row.loser_points,
                row.result_source]

    return csv_text(
        ["slot", "bracket", "round", "round_name", "match_length", "player_a", "player_b",
         "winner", "loser", "winner_points", "loser_points", "result", "decided_at",
         "match_id"],
        (
            [row.slot, row.round.bracket, row.round.number,
             titles.get((row.round.bracket, row.round.number), ""), row.round.match_length,
             name(row.entry_a), name(row.entry_b), *outcome(row),
             row.decided_at.isoformat() if row.decided_at else "", row.match_id]
            for row in rows
        ),
    )


def round_titles(tournament: Tournament) -> dict[tuple[str, int], str]:
    """``(bracket, number)`` → "Winners' bracket, Quarter-finals", as the page titles them."""
    titles: dict[tuple[str, int], str] = {}
    for section in selectors.bracket(tournament)["brackets"]:
        for round_ in section["rounds"]:
            titles[section["bracket"], round_["number"]] = f"{section['label']}, {round_['label']}"
    return titles


def played_matches(tournament: Tournament) -> list[tuple[Pairing, Match]]:
    """Each pairing's match played online to its end, in the draw's order; a voided match
    (replayed) is left out, and so is a match with no game (a forfeit before the first
    roll: nothing to analyse), and a match whose result was later corrected (its file
    would name the old winner)."""
    pairings = list(
        tournament.pairings.filter(table__isnull=False)
        .select_related("round", "winner").order_by("order")
    )
    matches = (
        Match.objects.filter(table_id__in=[p.table_id for p in pairings],
                             status__gte=MatchStatus.FINISHED)
        .exclude(status=MatchStatus.VOIDED)
        .select_related("player0", "player1", "table")
        .order_by("started_at", "pk")
    )
    by_table: dict[int, list[Match]] = {}
    for match in matches:
        by_table.setdefault(match.table_id, []).append(match)
    played = []
    for pairing in pairings:
        for match in by_table.get(pairing.table_id or 0, []):
            if match.games.exists() and _stands(pairing, match):
                played.append((pairing, match))
    return played


def _stands(pairing: Pairing, match: Match) -> bool:
    """The pairing's published result is this match's: it is decided and its winner is the
    match's winner (a correction that gave it to the other player makes the file stale)."""
    if pairing.status != PairingStatus.DECIDED or pairing.winner is None:
        return False
    return pairing.winner.player_id == match.winner_id


_UNSAFE_FILE = re.compile(r"[^A-Za-z0-9_.-]+")


def _file_part(text: str) -> str:
    return _UNSAFE_FILE.sub("-", text).strip("-")[:40] or "x"


def mat_file(tournament: Tournament, pairing: Pairing, match: Match,
             titles: dict[tuple[str, int], str]) -> tuple[str, str]:
    """``(file name, .mat text)`` of one match of the event."""
    text = export_mat(
        full_state(match),
        (match.player0.display_name, match.player1.display_name),
        event=event_name(tournament),
        round_name=titles.get((pairing.round.bracket, pairing.round.number), pairing.slot),
        date=match.started_at.date() if match.started_at else None,
    )
    name = (f"{pairing.order + 1:03d}-{_file_part(pairing.slot)}-"
            f"{_file_part(match.player0.display_name)}-vs-"
            f"{_file_part(match.player1.display_name)}-{match.pk}.mat")
    return name, text


def mat_archive(tournament: Tournament) -> bytes:
    """A zip of every match file of the event (see :func:`played_matches`)."""
    titles = round_titles(tournament)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for pairing, match in played_matches(tournament):
            name, text = mat_file(tournament, pairing, match, titles)
            archive.writestr(name, text)
    return buffer.getvalue()


def archive_name(tournament: Tournament, suffix: str) -> str:
    return f"{_file_part(event_name(tournament)).lower()}-{tournament.pk}-{suffix}"
