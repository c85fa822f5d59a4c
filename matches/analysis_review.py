"""gnubg's analysis of a finished match tied to the review's board: for each decision the
frame that shows the position it was taken in (with the dice), the moves of the played and
the best play (for the arrows), its mark and sign, the cube equities and verdict, and a point
of the winning-chances graph.

Reads only: the stored analysis (:class:`matches.models.MatchAnalysis`) and the frames of
:func:`matches.review.review_data`; the engine resolves the notation, gnubg is never called
here (a web request must not evaluate). Old analyses without the newer per-decision fields
(``win_chance``, ``cube_equities``) still show: see :func:`decision_rows`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matches.analysis_words import MARK_SIGNS, analysis_word
from tavla.engine import Position, legal_plays
from tavla.engine.errors import EngineError
from tavla.engine.notation import resolve

#: The game events that are decisions of the ``.mat`` record, in the order the analysis
#: numbers them (``index``): see :mod:`tavla.engine.matfile`.
_ACTIONS = frozenset({"play", "auto_pass", "double", "take", "drop"})
_ROLLS = frozenset({"roll", "opening_roll"})
#: Cube decisions: a double offered or not, and its answer.
CUBE_KINDS = frozenset({"no_double", "double", "take", "drop"})
#: Resignation decisions: the offer, and its answer (tavla.analysis.resign).
RESIGN_KINDS = frozenset({"resign", "accept_resign", "reject_resign"})


def _resignations(events: Sequence[dict[str, Any]]) -> list[tuple[int, int | None]]:
    """Each resignation of a game as (the place of its offer, the place of its answer or
    None), in the order the analysis lists them (:func:`tavla.analysis.resign.from_events`):
    an offer with its acceptance or refusal, or on a table where a resignation ends the game
    at once the resignation alone."""
    out: list[tuple[int, int | None]] = []
    offer: int | None = None
    for place, event in enumerate(events):
        kind = event["type"]
        if kind == "resign_offer":
            offer = place
        elif kind in ("resign", "resign_reject") and offer is not None:
            out.append((offer, place))
            offer = None
        elif kind == "resign":
            out.append((place, None))
    if offer is not None:
        out.append((offer, None))
    return out


def cube_verdict(equities: dict[str, float] | None) -> str:
    """The right cube action from the doubler's equities (no double / double-take /
    double-pass): ``no_double_take``, ``double_take``, ``double_pass`` or ``too_good_pass``
    (keys of :data:`matches.analysis_words.ANALYSIS_WORDS`); ``""`` without equities."""
    if not equities:
        return ""
    no_double = equities["no_double"]
    take, drop = equities["double_take"], equities["double_pass"]
    taker_takes = take <= drop  # the taker chooses what is worse for the doubler
    if min(take, drop) > no_double:
        return "double_take" if taker_takes else "double_pass"
    return "no_double_take" if taker_takes else "too_good_pass"


def _event_index(events: Sequence[dict[str, Any]], action: int) -> int | None:
    """The place in ``events`` of the ``action``-th decision event, or None."""
    seen = -1
    for place, event in enumerate(events):
        if event["type"] in _ACTIONS:
            seen += 1
            if seen == action:
                return place
    return None


def _roll_before(events: Sequence[dict[str, Any]], place: int) -> int | None:
    """The place of the roll that ``events[place]`` (a play) played."""
    for back in range(place - 1, -1, -1):
        if events[back]["type"] in _ROLLS:
            return back
    return None


def _shown_after(decision: dict[str, Any], events: Sequence[dict[str, Any]],
                 place: int) -> int | None:
    """The event after which the board shows the position of ``decision`` (taken at
    ``events[place]``): the roll for a play (the dice on the board), the double for its
    answer, the event before the roll for a cube decision before it."""
    kind = decision["kind"]
    if kind in ("take", "drop", "double"):
        return place - 1
    roll = _roll_before(events, place)
    if roll is None:
        return None
    return roll if kind == "move" else roll - 1


def _frame_of(frames: Sequence[dict[str, Any]], game: int, event: int) -> int | None:
    """The first frame that shows the board after event ``event`` of game ``game`` (as the
    review's own move list finds it), or None."""
    for number, frame in enumerate(frames):
        at = frame["at"]
        if at[0] > game or (at[0] == game and at[1] >= event):
            return number
    return None


def _play_moves(decision: dict[str, Any]) -> tuple[list[list[int]], list[list[int]]]:
    """The moves of the played and of the best play of a checker play, each as
    ``[source, destination]`` in the mover's numbering (25 the bar, 0 off); empty for a pass
    or notation that does not resolve. The legal plays are generated once for both."""
    dice, chosen, best = decision.get("dice"), decision.get("chosen", ""), decision.get("best")
    if not dice or not (chosen or best):
        return [], []
    try:
        position = Position.from_id(decision["position_id"])
        roll = (int(dice[0]), int(dice[1]))
        plays = legal_plays(position, *roll)
    except (EngineError, ValueError):
        return [], []

    def moves(notation: str | None) -> list[list[int]]:
        if not notation:
            return []
        try:
            play = resolve(position, roll, plays, notation)
        except (EngineError, ValueError):
            return []
        return [[move.source, move.destination] for move in play.moves]

    return moves(chosen), moves(best)


def _win_point(decision: dict[str, Any]) -> tuple[float, bool] | None:
    """Seat 0's winning chance before ``decision`` for the graph, and whether it is an
    estimate: gnubg's ``win_chance`` where the analysis has it; for older analyses the
    mover's best equity mapped to 0..1 ((equity + 1) / 2, clipped), which orders positions
    the same way but is not a probability."""
    chance = decision.get("win_chance")
    if isinstance(chance, int | float):
        return float(chance), False
    best = decision.get("best_equity")
    if not isinstance(best, int | float):
        return None
    mover = min(1.0, max(0.0, (float(best) + 1) / 2))
    return (mover if decision["player"] == 0 else 1 - mover), True


def _cube_equities(decision: dict[str, Any]) -> dict[str, float] | None:
    """No double / double-take / double-pass from the doubler's side: the newer
    ``cube_equities`` field, else the older ``cube``; None for a checker play."""
    equities = decision.get("cube_equities") or decision.get("cube")
    if not equities or not all(key in equities
                                for key in ("no_double", "double_take", "double_pass")):
        return None
    return {key: float(equities[key]) for key in ("no_double", "double_take", "double_pass")}


def decision_rows(decisions: Sequence[dict[str, Any]], names: Sequence[str],
                  review: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The rows of the review's analysis table, in match order, each tied to the board.

    Every row keeps the stored decision's fields and adds: ``number`` (its place in this
    list), ``name`` (the player's), ``frame`` (the review frame showing its position, or
    None), ``event`` (``[game index, event index]`` of its move-list entry: the play, the
    cube action, or for a "no double" the roll it came before; None when not found),
    ``played_moves`` / ``best_moves`` (for the arrows), ``sign`` (?!, ?, ??), ``mark_text``,
    ``luck_text``, ``chosen_text`` / ``best_text`` (translated for cube actions and
    resignations), ``resign`` (a resignation's equities, else None),
    ``equities`` and ``verdict`` / ``verdict_text`` for cube decisions, and ``win`` /
    ``win_estimated`` (the graph's point, None when the analysis has nothing to plot).

    An uneventful "no double" (not counted) gets no row. ``review`` None (the log does not
    replay) leaves ``frame`` and ``event`` None.
    """
    games = review["games"] if review else []
    frames = review["frames"] if review else []
    game_of = {game["number"]: index for index, game in enumerate(games)}
    rows: list[dict[str, Any]] = []
    offers_seen: dict[int, int] = {}  # resignation offers met so far, by game
    for decision in decisions:
        kind = decision["kind"]
        if kind == "no_double" and not decision.get("counted"):
            continue
        frame = event = None
        game = game_of.get(decision["game"])
        if game is not None and kind in RESIGN_KINDS:
            # the n-th offer of the game, or its answer: shown on the board with the offer
            if kind == "resign":
                offers_seen[game] = offers_seen.get(game, 0) + 1
            found = _resignations(games[game]["events"])
            number = offers_seen.get(game, 0) - 1
            if 0 <= number < len(found):
                offer, answer = found[number]
                marked = offer if kind == "resign" or answer is None else answer
                event = [game, marked]
                frame = _frame_of(frames, game, offer)
        elif game is not None:
            events = games[game]["events"]
            place = _event_index(events, decision["index"])
            if place is not None:
                # a missed double's mark goes on the roll it came before, not on the play
                roll = _roll_before(events, place) if kind == "no_double" else None
                event = [game, place if roll is None else roll]
                shown = _shown_after(decision, events, place)
                if shown is not None:
                    frame = _frame_of(frames, game, shown)
        cube = kind in CUBE_KINDS
        words = cube or kind in RESIGN_KINDS  # chosen and best are keys, not notation
        equities = _cube_equities(decision) if cube else None
        verdict = cube_verdict(equities)
        win = _win_point(decision)
        chosen, best = decision.get("chosen", ""), decision.get("best", "")
        played_moves, best_moves = ([], []) if words else _play_moves(decision)
        rows.append({
            **decision,
            "number": len(rows),
            "name": names[decision["player"]] if decision["player"] < len(names) else "",
            "frame": frame,
            "event": event,
            "played_moves": played_moves,
            "best_moves": best_moves,
            "sign": MARK_SIGNS.get(decision.get("mark", ""), ""),
            "mark_text": analysis_word(decision["mark"]) if decision.get("mark") else "",
            "luck_text": (analysis_word(decision["luck_mark"])
                          if decision.get("luck_mark") else ""),
            "chosen_text": analysis_word(chosen) if words else chosen,
            "best_text": analysis_word(best) if words else best,
            "equities": equities,
            # a resignation's worth to the resigner (play on / resigned); None otherwise
            # and in analyses made before resignations were judged
            "resign": decision.get("resign"),
            "verdict": verdict,
            "verdict_text": analysis_word(verdict) if verdict else "",
            "win": None if win is None else round(win[0], 4),
            "win_estimated": bool(win and win[1]),
            "loss_milli": round(1000 * decision.get("loss", 0.0)),
            "dice_text": "".join(map(str, decision.get("dice") or [])),
        })
    return rows


def player_rows(players: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each player's summary with its rating and luck words translated."""
    return [{**player, "rating_text": analysis_word(player.get("rating", "")),
             "luck_rating_text": analysis_word(player.get("luck_rating", ""))}
            for player in players]
