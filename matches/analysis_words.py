"""The words of an analysis, in the reader's language.

A stored analysis keeps gnubg's English keys (``"blunder"``, ``"World class"``,
``"Go to Las Vegas"``, ``"no double"``): they are data, compared and counted by code and the
API. Everything a page shows goes through :func:`analysis_word`, which maps each key to a
translated word of ours; ``tests/test_translations.py`` enumerates what
:mod:`tavla.analysis.analyse` can produce and fails if a word is missing here or untranslated.
"""

from __future__ import annotations

from typing import Final

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

#: Each English key the analysis stores -> the word a page shows.
ANALYSIS_WORDS: Final[dict[str, Promise]] = {
    # marks of a decision (tavla.analysis.analyse.mark)
    "doubtful": pgettext_lazy("analysis mark", "doubtful"),
    "error": pgettext_lazy("analysis mark", "error"),
    "blunder": pgettext_lazy("analysis mark", "blunder"),
    # the luck of one roll (luck_mark)
    "very lucky": _("very lucky"),
    "lucky": _("lucky"),
    "unlucky": _("unlucky"),
    "very unlucky": _("very unlucky"),
    # gnubg's words for a player's error rate (RATINGS, error_rating)
    "Supernatural": pgettext_lazy("gnubg rating", "Supernatural"),
    "World class": pgettext_lazy("gnubg rating", "World class"),
    "Expert": pgettext_lazy("gnubg rating", "Expert"),
    "Advanced": pgettext_lazy("gnubg rating", "Advanced"),
    "Intermediate": pgettext_lazy("gnubg rating", "Intermediate"),
    "Casual player": pgettext_lazy("gnubg rating", "Casual player"),
    "Beginner": pgettext_lazy("gnubg rating", "Beginner"),
    "Awful!": pgettext_lazy("gnubg rating", "Awful!"),
    # gnubg's words for a player's luck per roll (LUCK_RATINGS, luck_rating)
    "Go to bed": pgettext_lazy("gnubg luck", "Go to bed"),
    "Better luck next time": pgettext_lazy("gnubg luck", "Better luck next time"),
    "None": pgettext_lazy("gnubg luck", "None"),
    "Good dice, man!": pgettext_lazy("gnubg luck", "Good dice, man!"),
    "Go to Las Vegas": pgettext_lazy("gnubg luck", "Go to Las Vegas"),
    # a summary without decisions or rolls
    "N/A": pgettext_lazy("analysis", "N/A"),
    # cube actions, as stored in a cube decision's chosen and best
    "double": pgettext_lazy("cube action", "double"),
    "no double": pgettext_lazy("cube action", "no double"),
    "take": pgettext_lazy("cube action", "take"),
    "drop": pgettext_lazy("cube action", "pass"),
    "pass": pgettext_lazy("cube action", "pass"),
    "too good": pgettext_lazy("cube action", "too good"),
    "redouble": pgettext_lazy("cube action", "redouble"),
    "no redouble": pgettext_lazy("cube action", "no redouble"),
    # a resignation's offer and answer (tavla.analysis.resign), as stored in chosen and best
    "resign single": pgettext_lazy("resignation", "resign a single game"),
    "resign gammon": pgettext_lazy("resignation", "resign a gammon"),
    "resign backgammon": pgettext_lazy("resignation", "resign a backgammon"),
    "play on": pgettext_lazy("resignation", "play on"),
    "accept": pgettext_lazy("resignation", "accept"),
    "reject": pgettext_lazy("resignation", "refuse"),
    # the verdict on a cube decision (matches.analysis_review.cube_verdict)
    "no_double_take": _("No double, take"),
    "double_take": _("Double, take"),
    "double_pass": _("Double, pass"),
    "too_good_pass": _("Too good to double, pass"),
}

#: The signs a move list shows after a marked decision, as in chess: ?! doubtful, ? error,
#: ?? blunder.
#: (Keyword form: a literal ``{"error": …}`` reads as an error code to the protocol check.)
MARK_SIGNS: Final[dict[str, str]] = dict(doubtful="?!", error="?", blunder="??")


def analysis_word(key: str) -> str:
    """The reader's word for an analysis key; the key itself (e.g. a play's notation, or a
    word of a newer analysis not yet listed) when there is none."""
    word = ANALYSIS_WORDS.get(key)
    return key if word is None else str(word)
