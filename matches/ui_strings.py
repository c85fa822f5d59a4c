"""The words the page scripts show, translated on the server (no JavaScript catalogue): each
page carries its dictionary as JSON (``json_script``) and the scripts fill in the
placeholders (``static/board/words.js``). Keep every string a script shows here."""

from __future__ import annotations

from typing import Final

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

# Quick chat phrases by code, in the order the board shows them (matches.chat.phrases sends
# and checks them): each reader sees a phrase in their own language.
QUICK_PHRASES: Final[dict[str, Promise]] = {
    "hello": gettext_lazy("Hello!"),
    "good_luck": gettext_lazy("Good luck!"),
    "have_fun": gettext_lazy("Have fun!"),
    "nice_roll": gettext_lazy("Nice roll!"),
    "well_played": gettext_lazy("Well played!"),
    "thanks": gettext_lazy("Thanks!"),
    "sorry": gettext_lazy("Sorry!"),
    "good_game": gettext_lazy("Good game!"),
    "rematch": gettext_lazy("Rematch?"),
    "bye": gettext_lazy("Bye!"),
}


def phrase_words() -> dict[str, str]:
    """Every quick phrase in the active language, for the board's words (``phrase_<code>``)."""
    return {f"phrase_{code}": str(words) for code, words in QUICK_PHRASES.items()}


def lobby_strings() -> dict[str, str]:
    return {
        "money": _("Money session"),
        "to_points": _("Match to {n}"),
        "cube": _("cube"),
        "no_cube": _("no cube"),
        "gammons_off": _("no gammons"),
        "crawford": _("Crawford"),
        "rated": _("rated"),
        "unrated": _("unrated"),
        "clock": _("{delay} s + {reserve}"),
        # A correspondence table's clock in the lobby's list (docs/correspondence.md).
        "correspondence": _("{days} d per move"),
        "empty_seat": _("free seat"),
        "watch": _("Watch"),
        "sit": _("Sit"),
        "open": _("Waiting for a player"),
        "playing": _("Playing"),
        "no_tables": _("No tables yet: create one."),
        "reserved": _("reserved"),
    }


def review_strings() -> dict[str, str]:
    return {
        "step_of": _("Step {n} of {m}"),
        "start_of_match": _("Start of the match"),
        "new_game": _("Game {n} begins"),
        # the analysis tied to the board (static/review_analysis.js)
        "no_decision_here": _("No analysed decision at this step."),
        "cube_equities": _("Cube equities (the doubler's)"),
        "no_double": _("No double"),
        "double_take": _("Double, take"),
        "double_pass": _("Double, pass"),
        "verdict": _("Right action: {verdict}"),
        "cube_played": _("Chosen: {action}"),
        "resign_equities": _("Resignation (the resigner's equity)"),
        "play_on": _("Playing on"),
        "resigned": _("Resigning"),
        "played": _("Played:"),
        "best_play": _("Best:"),
        "played_best": _("The best play was played."),
        "no_move": _("no move"),
        "equity_lost": _("Equity lost: {loss}"),
        "graph_caption": _("Winning chances of {name} (up) over the match, decision by "
                           "decision; choose a point to see its position."),
        "graph_caption_estimated": _("Winning chances of {name} (up) over the match, "
                                     "estimated from each decision's equity; choose a point "
                                     "to see its position."),
    }


def board_strings() -> dict[str, str]:
    return {
        # players' terms (the Persian ones, as players say them, are in locale/fa)
        "pips": _("pips"),
        "bar": _("bar"),
        "cube": _("cube"),
        "single": _("single game"),
        "gammon": _("gammon"),
        "backgammon": _("backgammon"),
        # panels and controls
        "roll": _("Roll"),
        "double": _("Double"),
        "take": _("Take"),
        "drop": _("Drop"),
        "resign": _("Resign"),
        "confirm": _("Confirm move"),
        "undo": _("Undo"),
        "flip": _("Flip board"),
        "fullscreen": _("Full screen"),
        "fullscreen_leave": _("Leave full screen"),
        "sit": _("Sit here"),
        "seats": _("Seats"),
        "next_match": _("Seats for the next match"),
        "stand": _("Stand up"),
        "login_to_play": _("Log in to play"),
        "empty_seat": _("Free seat"),
        "waiting_player": _("Waiting for an opponent…"),
        # A correspondence clock: days, then hours and minutes left (docs/correspondence.md).
        "days_left": _("{days} d {time}"),
        "resign_question": _("Resign this game? {name} wins {points}."),
        "resign_offer_question": _("Offer to resign this game? If {name} accepts, they win "
                                   "the level you choose times the cube ({points} a single "
                                   "game)."),
        "resign_offer_you": _("{name} offers to resign {level}: you win {points} if you "
                              "accept."),
        "resign_offer_wait": _("Waiting for {name} to accept or refuse your resignation of "
                               "{level}."),
        "level_single": _("a single game"),
        "level_gammon": _("a gammon"),
        "level_backgammon": _("a backgammon"),
        "cancel": _("Cancel"),
        "yes_resign": _("Yes, resign"),
        "close": _("Close"),
        "lobby": _("Back to the lobby"),
        "your_turn_roll": _("Your turn: double or roll."),
        "your_turn_move": _("Your turn: move {dice}."),
        "your_turn_move_done": _("Confirm your move, or undo."),
        "cube_offered_you": _("{name} doubles to {value}: take or drop?"),
        "cube_offered_wait": _("Waiting for {name} to take or drop…"),
        "waiting_for": _("Waiting for {name}…"),
        "spectating": _("You are watching."),
        "match_to": _("Match to {n} points"),
        "match_to_one": _("Match to 1 point"),
        "money": _("Money session"),
        "crawford_game": _("Crawford game: no doubling"),
        "game_n": _("Game {n}"),
        "score": _("Score"),
        "moves": _("Moves"),
        "connecting": _("Connecting…"),
        "live": _("Live"),
        "reconnecting": _("Reconnecting in {s} s…"),
        "closed": _("This board is closed."),
        "not_connected": _("Not connected: wait for the connection, or reconnect now."),
        "title_your_turn": _("(Your turn)"),
        "notify_turn_title": _("Your turn"),
        "review": _("Review the match"),
        "end_session_question": _("End the money session? A game in progress is resigned "
                                  "(single × cube to your opponent)."),
        "rematch": _("Rematch"),
        "rematch_accept": _("Accept the rematch"),
        "rematch_asked": _("Rematch asked: waiting for {name}…"),
        "rematch_offered": _("{name} wants a rematch."),
        "rematch_withdraw": _("Withdraw"),
        "rematch_decline": _("No, thanks"),
        "gammons_off": _("no gammons"),
        "no_cube": _("no cube"),
        # the board for screen readers and keyboard players
        "light": _("light"),
        "dark": _("dark"),
        "off": _("borne off"),
        "point_label": _("Point {n}"),
        "empty": _("empty"),
        "picked_up": _("picked up"),
        "can_move": _("can move"),
        "can_go_here": _("can go here"),
        "describe_pips": _("Pips: {a} {pa}, {b} {pb}."),
        "describe_dice": _("{name} rolled {dice}."),
        "describe_last": _("Last play: {name} {play}."),
        # the move list
        "ev_opening": _("Opening roll: {p0} {d0}, {p1} {d1}"),
        "ev_play": _("{name} {dice}: {play}"),
        "ev_roll": _("{name} rolls {dice}"),
        "ev_pass": _("{name} {dice}: cannot move"),
        "ev_double": _("{name} doubles to {value}"),
        "ev_take": _("{name} takes"),
        "ev_drop": _("{name} drops"),
        "ev_resign": _("{name} resigns"),
        "ev_resign_offer": _("{name} offers to resign: {value} × cube"),
        "ev_resign_reject": _("{name} refuses the resignation"),
        "ev_timeout": _("{name}'s flag falls"),
        "ev_forfeit": _("{name} forfeits"),
        "ev_adjudicate": _("A referee decides for {name}"),
        # end panels
        "game_over": _("Game {n} is over"),
        "wins_points": _("{name} wins {points}"),
        "points_1": _("1 point"),
        "points_n": _("{n} points"),
        "how_bear_off": _("{kind} × cube {cube}"),
        "how_drop": _("the double was dropped"),
        "how_resign": _("resignation × cube {cube}"),
        "how_timeout": _("time ran out × cube {cube}"),
        "how_forfeit": _("forfeit"),
        "how_adjudication": _("referee's decision"),
        "match_over": _("The match is over"),
        "match_won": _("{name} wins the match {score}"),
        "session_over": _("The session is over: {score}"),
        "voided": _("This match was voided by a referee."),
        "play_again": _("Play again"),
        "pip_title": _("Pip count"),
        "clock_delay": _("delay"),
        # takeback in casual play (static/table/takeback.js)
        "takeback": _("Take back my move"),
        "takeback_asked": _("Takeback asked: waiting for {name}…"),
        "takeback_offered": _("{name} asks to take back their last move."),
        "takeback_accept": _("Accept"),
        "takeback_decline": _("Decline"),
        "takeback_withdraw": _("Withdraw"),
        "ev_takeback": _("{name} took back a move"),
        # preferences (static/table/preferences.js)
        "preferences": _("Play settings"),
        "pref_auto_roll": _("Roll for me when a double cannot help me"),
        "pref_never_double": _("Never double in this match (always roll for me)"),
        # quick chat phrases (static/chat.js)
        "quick_phrases": _("Quick phrases"),
    } | phrase_words()

