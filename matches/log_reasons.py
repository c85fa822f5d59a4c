"""The reasons the server itself writes into a match's log, spelled in one place, and their
words in the reader's language.

A forfeit or a void the server decides carries a reason code, sometimes followed by a
director's own words after a colon (``"withdrew: ill"``). The log keeps the code, so the
record reads the same in every language; :func:`reason_text` gives the referee's replay the
reader's words for it. A reason typed by a referee or a director is shown as written.
"""

from __future__ import annotations

from typing import Final

from django.utils.translation import gettext_lazy as _

#: The clock's grace period for a disconnected player ran out (:mod:`matches.services.clocks`).
DISCONNECTED: Final = "disconnected past grace"
#: The player withdrew from, or was disqualified by, the tournament of the match.
WITHDREW: Final = "withdrew"
DISQUALIFIED: Final = "disqualified"
#: The director scored the tournament pairing a double forfeit: the live match is voided.
DOUBLE_FORFEIT: Final = "double forfeit"

WORDS = {
    DISCONNECTED: _("disconnected past the grace period"),
    WITHDREW: _("withdrew from the tournament"),
    DISQUALIFIED: _("disqualified from the tournament"),
    DOUBLE_FORFEIT: _("double forfeit"),
}


def with_detail(code: str, detail: str = "") -> str:
    """The logged reason: ``code``, and after a colon the person's own ``detail`` if any."""
    detail = (detail or "").strip()
    return f"{code}: {detail}" if detail else code


def reason_text(reason: str) -> str:
    """``reason`` as the reader reads it: a server code in the active language (its detail
    kept as written), anything else unchanged."""
    code, _colon, detail = (reason or "").partition(":")
    word = WORDS.get(code.strip())
    if word is None:
        return reason
    detail = detail.strip()
    return f"{word}: {detail}" if detail else str(word)
