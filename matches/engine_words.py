"""The rules engine's refusals in the reader's words.

The engine (:mod:`tavla.engine`) is pure, without Django, so its errors are English sentences
for the log and a referee. A player's refused action reaches a reader as the ``detail`` of
``illegal_action``; :func:`refusal_words` words it anew, with ``gettext``, from what the door
knows: the state the action met and the action. The wording names the same reason the
engine gives for the refusals a player meets in play (a play that is not legal, a double
the cube's rule refuses, an action out of turn); any other is said in general words. The
log (``str(error)``) keeps the engine's own sentence.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tavla.engine.actions import (
    AcceptResign,
    Action,
    Double,
    Drop,
    PlayMove,
    RejectResign,
    Resign,
    Roll,
    Take,
)
from tavla.engine.errors import IllegalPlayError
from tavla.engine.game import Phase
from tavla.engine.match import MatchState

#: How many legal plays a refusal lists (the engine lists as many).
SHOWN_PLAYS = 12


def listed_plays(state: MatchState) -> str:
    """The legal plays of the roll, sorted, as a refusal lists them (the first few)."""
    names = sorted(play.notation() for play in state.legal_plays())
    shown = ", ".join(names[:SHOWN_PLAYS])
    more = len(names) - SHOWN_PLAYS
    if more <= 0:
        return shown
    return ngettext("%(shown)s and %(more)s more", "%(shown)s and %(more)s more", more) % {
        "shown": shown, "more": more}


def _play_words(state: MatchState, action: PlayMove) -> str:
    dice = "-".join(str(die) for die in state.dice or ())
    playable = [play for play in state.legal_plays() if play.notation()]
    text = action.notation.strip()
    if not playable:
        return _("Nothing can be played with %(dice)s: the turn passes.") % {"dice": dice}
    if not text:
        return _("%(dice)s can be played, so the turn cannot pass. Legal plays: %(plays)s.") % {
            "dice": dice, "plays": listed_plays(state)}
    return _("%(play)s is not a legal play with %(dice)s. Legal plays: %(plays)s.") % {
        "play": text, "dice": dice, "plays": listed_plays(state)}


def _double_words(state: MatchState) -> str:
    """The cube's rule (:func:`tavla.engine.cube.double_refusal`), reason by reason."""
    if state.phase is not Phase.TURN_START:
        return _("You may double only at the start of your turn, before rolling.")
    if not state.rules.cube:
        return _("This table plays without the doubling cube.")
    if state.crawford:
        return _("Nobody may double in the Crawford game.")
    if state.cube_value >= state.rules.max_cube:
        return _("The cube is already at its limit of %(limit)s.") % {
            "limit": state.rules.max_cube}
    if state.cube_owner is not None and state.cube_owner != state.player_on_roll:
        return _("The cube is your opponent's: only its owner may redouble.")
    return _("You cannot double now.")


def refusal_words(state: MatchState, action: Action, error: Exception) -> str:
    """Why the engine refused ``action`` at ``state``, in the active language."""
    acting = getattr(action, "player", None)
    if acting is not None and state.player_to_act is not None and acting != state.player_to_act \
            and not isinstance(action, Resign):
        return _("It is not your decision now.")
    if isinstance(action, PlayMove) and isinstance(error, IllegalPlayError) \
            and state.phase is Phase.MOVE:
        return _play_words(state, action)
    if isinstance(action, Double):
        return _double_words(state)
    if isinstance(action, (Take, Drop)):
        return _("There is no double to take or drop now.")
    if isinstance(action, (AcceptResign, RejectResign)):
        return _("There is no resignation to answer now.")
    if isinstance(action, Resign):
        return _("You cannot resign now, or not at this level.")
    if isinstance(action, Roll):
        return _("You can roll only at the start of your turn.")
    if isinstance(action, PlayMove):
        return _("There is no play to make now.")
    return _("This action is not allowed now.")
