"""Players and ratings for a club: a director sets a player's club rating (logged in the
player's rating history with who and why), and imports or exports the players list as CSV.

The CSV (UTF-8, a byte-order mark is ignored; comma-separated, quoted as RFC 4180; Persian
and any other names are fine) has a header line naming the four columns, in any order::

    name,club,rating,experience
    Ali Rezaei,Tehran BG,1712.5,340
    مریم احمدی,Shiraz,,0

- ``name`` (required, at most 40 characters): a line updates the one player with exactly
  that display name, or creates a player (and a login-less user) if there is none; two
  players with that name is an error (``ambiguous``);
- ``club`` (up to 60 characters; empty: no club);
- ``rating`` (a number from 0 to 5000; empty: unchanged, 1500 for a new player);
- ``experience`` (a whole number from 0; empty: unchanged, 0 for a new player).

Each line is reported as ``created``, ``updated``, ``ok`` (nothing to change) or ``error``
with its line number (the header is line 1) and a message. An import with any error changes
nothing (fix the file and import again); a dry run never changes anything.
"""

from __future__ import annotations

import csv
import io
import math
import re
import unicodedata
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, Final, Literal

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _

from matches.models import Player, RatingRecord
from tournaments.permissions import can_direct_club
from tournaments.publishing import csv_text as csv_lines
from tournaments.services.common import TournamentError

COLUMNS: Final = ("name", "club", "rating", "experience")
MAX_RATING: Final = 5000
LineStatus = Literal["created", "updated", "ok", "error"]


def require_club_director(actor: Any) -> None:
    if actor is not None and not can_direct_club(actor):
        raise TournamentError("forbidden", _("Only a club director may change players' ratings."))


def _check_rating(rating: Any) -> float:
    if isinstance(rating, bool) or not isinstance(rating, (int, float, Decimal)):
        raise TournamentError("bad_rating",
                              _("A rating is a number, not %(rating)r.") % {"rating": rating})
    value = float(rating)
    if not math.isfinite(value) or not 0 <= value <= MAX_RATING:
        raise TournamentError("bad_rating",
                              _("A rating is from 0 to %(max_rating)s, not %(rating)s.")
                              % {"max_rating": MAX_RATING, "rating": rating})
    return value


@transaction.atomic
def player_set_rating(*, player_id: int, rating: float, actor: Any, reason: str) -> Player:
    """A club director sets ``player``'s rating, with a reason: the change goes to the
    player's rating history (before, after, who, why). Raises :class:`TournamentError`
    ``forbidden``, ``reason_required``, ``not_found`` or ``bad_rating``."""
    require_club_director(actor)
    reason = (reason or "").strip()
    if not reason:
        raise TournamentError("reason_required", _("A rating change needs a written reason."))
    value = _check_rating(rating)
    player = Player.objects.select_for_update().filter(pk=player_id).first()
    if player is None:
        raise TournamentError("not_found",
                              _("There is no player %(player_id)s.") % {"player_id": player_id})
    _set_rating(player, value, actor=actor, reason=reason)
    return player


def _set_rating(player: Player, rating: float, *, actor: Any, reason: str) -> None:
    before = player.rating
    player.rating = rating
    player.save(update_fields=["rating"])
    RatingRecord.objects.create(player=player, match=None, before=before, after=rating,
                                set_by=actor if getattr(actor, "is_authenticated", False)
                                else None, reason=reason)


# -- import and export -----------------------------------------------------------------------


@dataclass(frozen=True)
class ImportLine:
    """One line of an import: its number in the file, what happens to it, and why."""

    line: int
    status: LineStatus
    name: str
    message: str = ""
    player_id: int | None = None


@dataclass
class ImportReport:
    """What an import did (or, in a dry run, would do), line by line."""

    dry_run: bool
    lines: list[ImportLine] = field(default_factory=list)
    applied: bool = False

    @property
    def errors(self) -> list[ImportLine]:
        return [line for line in self.lines if line.status == "error"]

    def count(self, status: LineStatus) -> int:
        return sum(1 for line in self.lines if line.status == status)

    def as_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run, "applied": self.applied,
            "counts": {s: self.count(s) for s in ("created", "updated", "ok", "error")},
            "lines": [{"line": x.line, "status": x.status, "name": x.name,
                       "message": x.message, "player_id": x.player_id} for x in self.lines],
        }


@dataclass(frozen=True)
class _Row:
    line: int
    name: str
    club: str
    rating: float | None
    experience: int | None


def _parse_row(line: int, values: dict[str, str]) -> _Row | ImportLine:
    name = unicodedata.normalize("NFC", " ".join((values.get("name") or "").split()))
    club = " ".join((values.get("club") or "").split())
    if not name:
        return ImportLine(line, "error", name, "The name is missing.")
    if len(name) > 40:
        return ImportLine(line, "error", name, "The name is longer than 40 characters.")
    if len(club) > 60:
        return ImportLine(line, "error", name, "The club is longer than 60 characters.")
    rating: float | None = None
    text = (values.get("rating") or "").strip()
    if text:
        try:
            rating = _check_rating(Decimal(text))
        except (InvalidOperation, TournamentError):
            return ImportLine(line, "error", name,
                              f"The rating {text!r} is not a number from 0 to {MAX_RATING}.")
    experience: int | None = None
    text = (values.get("experience") or "").strip()
    if text:
        if not text.isdecimal():
            return ImportLine(line, "error", name,
                              f"The experience {text!r} is not a whole number from 0.")
        experience = int(text)
    return _Row(line, name, club, rating, experience)


def _read(csv_text_in: str, report: ImportReport) -> list[_Row]:
    if not isinstance(csv_text_in, str):
        raise TournamentError("bad_request", _("The players list must be text (UTF-8)."))
    reader = csv.reader(io.StringIO(csv_text_in.removeprefix("\ufeff"), newline=""))
    try:
        header = [h.strip().lower() for h in next(reader)]
    except StopIteration:
        raise TournamentError("bad_csv", _("The file is empty: it needs the header line "
                              "name,club,rating,experience.")) from None
    except csv.Error as error:
        raise TournamentError("bad_csv",
                              _("Line 1 is not CSV: %(error)s.") % {"error": error}) from None
    missing = [c for c in COLUMNS if c not in header]
    unknown = [h for h in header if h not in COLUMNS]
    if missing or unknown or len(set(header)) != len(header):
        raise TournamentError(
            "bad_csv", _("Line 1 must name the columns name, club, rating and experience (each "
                         "once; found: %(value)s).") % {"value": ", ".join(header) or _("nothing")})
    rows: list[_Row] = []
    seen: dict[str, int] = {}
    try:
        for values in reader:
            line = reader.line_num
            if not any(v.strip() for v in values):
                continue
            if len(values) != len(header):
                report.lines.append(ImportLine(
                    line, "error", values[0] if values else "",
                    f"{len(values)} values where the header names {len(header)}."))
                continue
            parsed = _parse_row(line, dict(zip(header, values, strict=True)))
            if isinstance(parsed, ImportLine):
                report.lines.append(parsed)
                continue
            key = parsed.name.casefold()
            if key in seen:
                report.lines.append(ImportLine(line, "error", parsed.name,
                                               f"The same name as line {seen[key]}."))
                continue
            seen[key] = line
            rows.append(parsed)
    except csv.Error as error:
        raise TournamentError("bad_csv",
                              _("Line %(line_num)s is not CSV: %(error)s.")
                              % {"line_num": reader.line_num, "error": error}) \
            from None
    return rows


_USERNAME_UNSAFE = re.compile(r"[^\w.@+-]+")


def _new_username(name: str) -> str:
    User = get_user_model()
    base = _USERNAME_UNSAFE.sub("_", name).strip("_")[:140] or "player"
    candidate, number = base, 1
    while User.objects.filter(username=candidate).exists():
        number += 1
        candidate = f"{base}_{number}"
    return candidate


def _apply(row: _Row, actor: Any, *, write: bool) -> ImportLine:
    players = list(Player.objects.select_for_update().filter(display_name=row.name)[:2])
    if len(players) > 1:
        return ImportLine(row.line, "error", row.name,
                          "Several players have this name: set their ratings one by one.")
    if not players:
        player_id = None
        if write:
            user = get_user_model().objects.create_user(username=_new_username(row.name))
            user.set_unusable_password()
            user.save(update_fields=["password"])
            player = Player.objects.create(
                user=user, display_name=row.name, club=row.club,
                rating=row.rating if row.rating is not None else 1500.0,
                experience=row.experience or 0)
            player_id = player.pk
        return ImportLine(row.line, "created", row.name, "", player_id)
    player = players[0]
    changes: list[str] = []
    if player.club != row.club:
        changes.append("club")
    if row.rating is not None and round(player.rating, 2) != round(row.rating, 2):
        changes.append("rating")
    if row.experience is not None and player.experience != row.experience:
        changes.append("experience")
    if not changes:
        return ImportLine(row.line, "ok", row.name, "", player.pk)
    if write:
        player.club = row.club
        if row.experience is not None:
            player.experience = row.experience
        player.save(update_fields=["club", "experience"])
        if "rating" in changes and row.rating is not None:
            _set_rating(player, row.rating, actor=actor, reason="players imported from CSV")
    return ImportLine(row.line, "updated", row.name, "changed: " + ", ".join(changes),
                      player.pk)


def players_import(*, csv_text: str, actor: Any, dry_run: bool) -> ImportReport:
    """Import players from CSV (the module says the format): a report line per data line.
    With ``dry_run``, or if any line is bad, nothing changes (``report.applied`` is False).
    Raises :class:`TournamentError` ``forbidden``, or ``bad_csv`` for a file that cannot be
    read at all (no or wrong header)."""
    require_club_director(actor)
    report = ImportReport(dry_run=dry_run)
    rows = _read(csv_text, report)
    with transaction.atomic():
        results = [_apply(row, actor, write=False) for row in rows]
        report.lines += results
        report.lines.sort(key=lambda x: x.line)
        if dry_run or report.errors:
            return report
        report.lines = [line for line in report.lines if line.status == "error"]
        report.lines += [_apply(row, actor, write=True) for row in rows]
        report.lines.sort(key=lambda x: x.line)
        report.applied = True
    return report


def players_export(*, actor: Any = None) -> str:
    """Every player (bots aside) as the import's CSV, by name: importing it back changes
    nothing."""
    require_club_director(actor)
    players = Player.objects.filter(is_bot=False).order_by("display_name", "pk")
    return csv_lines(list(COLUMNS), ([p.display_name, p.club, f"{p.rating:.2f}", p.experience]
                                    for p in players))
