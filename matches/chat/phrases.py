"""Quick chat phrases: a fixed set a player sends by its code, so that each reader sees it in
their own language (``docs/protocol.md``, "Table chat"). The server stores the code and the
English words (for the admin and for clients that do not know the code); the browser board
shows each reader the words of their page's language (:func:`matches.ui_strings.phrase_words`).
The phrases themselves are :data:`matches.ui_strings.QUICK_PHRASES`."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import override

from matches.errors import ServiceError
from matches.ui_strings import QUICK_PHRASES


def phrase_code(value: Any) -> str:
    """``value`` as a phrase code; raises ``bad_request`` for anything else."""
    if not isinstance(value, str) or value not in QUICK_PHRASES:
        raise ServiceError("bad_request", _("phrase is one of: %(names)s.")
                           % {"names": ", ".join(QUICK_PHRASES)})
    return value


def english(code: str) -> str:
    """The phrase's words as stored with the message: English, whatever the sender's
    language, so that the stored text does not depend on who sent it."""
    with override("en"):
        return str(QUICK_PHRASES[code])
