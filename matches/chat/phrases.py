"""Quick chat phrases: a fixed set a player sends by its code, so that each reader sees it in
their own language (``docs/protocol.md``, "Table chat"). The server stores the code and the
English words (for the admin and for clients that do not know the code); the browser board
shows each reader the words of their page's language (:func:`phrase_words`)."""

from __future__ import annotations

from typing import Any, Final

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import override

from matches.errors import ServiceError

# The codes in the order the board shows them.
PHRASES: Final[dict[str, Promise]] = {
    "hello": _("Hello!"),
    "good_luck": _("Good luck!"),
    "have_fun": _("Have fun!"),
    "nice_roll": _("Nice roll!"),
    "well_played": _("Well played!"),
    "thanks": _("Thanks!"),
    "sorry": _("Sorry!"),
    "good_game": _("Good game!"),
    "rematch": _("Rematch?"),
    "bye": _("Bye!"),
}


def phrase_code(value: Any) -> str:
    """``value`` as a phrase code; raises ``bad_request`` for anything else."""
    if not isinstance(value, str) or value not in PHRASES:
        raise ServiceError("bad_request", "phrase is one of: " + ", ".join(PHRASES) + ".")
    return value


def english(code: str) -> str:
    """The phrase's words as stored with the message: English, whatever the sender's
    language, so that the stored text does not depend on who sent it."""
    with override("en"):
        return str(PHRASES[code])


def phrase_words() -> dict[str, str]:
    """Every phrase in the active language, for the board's words (``phrase_<code>``)."""
    return {f"phrase_{code}": str(words) for code, words in PHRASES.items()}
