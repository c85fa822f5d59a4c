"""The event's log as the desk shows it: action codes and the services' own reasons in the
reader's language.

The API gives the log as stored (codes and English reasons); the desk page translates. A
reason typed by a director or referee, and their words inside a service's reason, are shown
as written.
"""

from __future__ import annotations

import re

from django.db.models import QuerySet
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from matches import log_reasons
from tournaments.models import Tournament, TournamentLog
from tournaments.selectors import family

# What the log's action codes mean, as the desk shows them (the API gives the codes).
LOG_LABELS: dict[str, str | Promise] = {
    "created": _("created"), "registration_opened": _("registration opened"),
    "check_in_opened": _("check-in opened"), "registered": _("registered"),
    "checked_in": _("checked in"), "reseeded": _("seeds drawn again"), "started": _("started"),
    "paired": _("paired"), "pair_next_round": _("next round paired"),
    "late_entry": _("late entry"), "withdrawn": _("withdrawn"),
    "disqualified": _("disqualified"), "reinstated": _("reinstated"), "result": _("result"),
    "result_cleared": _("result cleared"), "reported": _("result reported"),
    "report_rejected": _("report rejected"), "reopened": _("pairing re-opened"),
    "repaired": _("paired again"), "board_set": _("table number set"),
    "round_start_set": _("round start time set"), "paid": _("marked paid"),
    "unpaid": _("marked not paid"), "side_pool_entered": _("entered a side pool"),
    "side_pool_left": _("left a side pool"), "division_assigned": _("assigned to a division"),
    "division_not_started": _("division not started"), "finished": _("finished"),
    "pairing_swapped": _("players swapped"), "round_repaired": _("round paired again"),
    "round_undone": _("round taken back"), "money_set": _("money settings changed"),
    "side_pool_created": _("side pool added"), "side_pool_changed": _("side pool changed"),
    "side_pool_deleted": _("side pool deleted"), "division_changed": _("division changed"),
}

# The reasons the services write into the log themselves (tournaments/services), in English
# as written there; each is also its message id. A ``%(name)s`` stands for a value the
# service put in, matched as :data:`_VALUE_PATTERNS` says (anything, if not listed).
# Tried in this order, so a longer phrase comes before a shorter one it starts with.
LOG_REASONS: tuple[str, ...] = (
    gettext_noop("both players are out of the tournament: both lose"),
    gettext_noop("decided again after a correction"),
    gettext_noop("did not check in"),
    gettext_noop("fewer than two players"),
    gettext_noop("not assigned to a division"),
    gettext_noop("players imported from CSV"),
    gettext_noop("report confirmed"),
    gettext_noop("waiting for the director to assign a division"),
    gettext_noop("withdrawn by the director"),
    gettext_noop("absent from %(slot)s without notice"),
    gettext_noop("match %(match)s voided: %(reason)s"),
    gettext_noop("match %(match)s: %(reason)s"),
    gettext_noop("match %(match)s"),
    gettext_noop("the result of %(slot)s was corrected: %(reason)s"),
    gettext_noop("%(player)s is out of the tournament"),
)

#: What a value of each name looks like: a slot (``R1-2``) and a match number have no
#: spaces; a reason or a player's name may.
_VALUE_PATTERNS = {"slot": r"\S+", "match": r"\d+"}
_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _pattern(phrase: str) -> re.Pattern[str]:
    """The regular expression matching ``phrase`` with any value in each placeholder."""
    parts = _PLACEHOLDER.split(phrase)  # text, name, text, name, ..., text
    return re.compile("".join(
        re.escape(part) if i % 2 == 0
        else f"(?P<{part}>{_VALUE_PATTERNS.get(part, '.+')})"
        for i, part in enumerate(parts)))


_REASON_PATTERNS = tuple((_pattern(phrase), phrase) for phrase in LOG_REASONS)


def reason_phrase(reason: str) -> tuple[str, dict[str, str]] | None:
    """The phrase of :data:`LOG_REASONS` that ``reason`` was written from, and its values;
    None for a reason a person typed."""
    for pattern, phrase in _REASON_PATTERNS:
        found = pattern.fullmatch(reason)
        if found:
            return phrase, found.groupdict()
    return None


def log_reason(reason: str) -> str:
    """A log line's reason in the reader's language (:data:`LOG_REASONS`); a match's own
    reason inside it through :func:`matches.log_reasons.reason_text`."""
    found = reason_phrase(reason)
    if found is None:
        return log_reasons.reason_text(reason)
    phrase, values = found
    if "reason" in values:
        values["reason"] = log_reasons.reason_text(values["reason"])
    return gettext(phrase) % values if values else gettext(phrase)


def log_of(tournament: Tournament, limit: int = 500) -> QuerySet[TournamentLog]:
    """The tournament's log and its divisions', newest first."""
    return (TournamentLog.objects.filter(tournament_id__in=family(tournament))
            .select_related("actor").order_by("-created_at", "-pk")[:limit])
