"""Reading a match's record: ``.mat`` export, the dice audit and a step-by-step replay.

Shared by the REST API and the referee admin. Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from matches.log_reasons import reason_text
from matches.models import Event, LogKind, Match
from matches.state import awaiting_client_seeds, full_state, match_client_seeds, replay_log
from tavla.engine.dice import (
    ALGORITHM,
    LEGACY_ALGORITHM,
    DiceVerificationError,
    commitment_for,
    recompute_rolls,
)
from tavla.engine.match import MatchState
from tavla.engine.matfile import export_mat

ROLL_ACTIONS = ("opening_roll", "roll")


def mat_export(match: Match) -> str:
    """The match so far as a Jellyfish ``.mat`` text, with the players' display names."""
    return export_mat(
        full_state(match),
        (match.player0.display_name, match.player1.display_name),
        event=match.table.name,
        date=match.started_at.date() if match.started_at else None,
    )


def mat_filename(match: Match) -> str:
    return f"tavla-match-{match.pk}.mat"


def logged_rolls(events: list[Event]) -> list[tuple[int, str, int, tuple[int, int]]]:
    """Every roll in the log, opening rolls (and their ties) included, in the order rolled:
    ``(sequence, kind, game number, dice)``. A roll an accepted takeback undid is left out:
    the dice went back with it and the same roll was made again in its place
    (:mod:`matches.services.takeback`)."""
    undone = {sequence for event in events if event.kind == LogKind.TAKEBACK_ACCEPT
              for sequence in event.payload.get("undone", ())}
    rolls = []
    for event in events:
        action = event.payload.get("action") if isinstance(event.payload, dict) else None
        if action and action.get("type") in ROLL_ACTIONS and event.sequence not in undone:
            dice = action["dice"]
            rolls.append((event.sequence, str(action["type"]), event.game_number,
                          (int(dice[0]), int(dice[1]))))
    return rolls


def dice_audit(match: Match) -> dict[str, Any]:
    """The provably fair dice of ``match``: the algorithm, the commitment, both players' client
    seeds (once the first roll is made), and once the match is over the seed, every roll
    recomputed from them and whether each matches the logged roll. This JSON is what
    ``python -m tavla.engine verify-dice`` checks (``docs/dice.md``).

    Scripted rolls (tests and demonstrations only) come before the fair ones and are marked;
    their presence is reported, never hidden.
    """
    events = list(match.events.order_by("sequence"))
    rolls = logged_rolls(events)
    fair_count = match.dice_counter // 2
    scripted_count = max(0, len(rolls) - fair_count) if match.dice_were_scripted else 0
    entries: list[dict[str, Any]] = [
        {"sequence": sequence, "kind": kind, "game": game, "dice": list(dice),
         "scripted": index < scripted_count, "recomputed": None, "matches": None}
        for index, (sequence, kind, game, dice) in enumerate(rolls)
    ]
    seeds_in = not awaiting_client_seeds(match) and match.dice_algorithm != 0
    audit: dict[str, Any] = {
        "algorithm": ALGORITHM if match.dice_algorithm else LEGACY_ALGORITHM,
        "commitment": match.dice_commitment,
        # Player 0's and player 1's contributions (hex, "" for none), once the dice are fixed.
        "client_seeds": [match.client_seed0, match.client_seed1] if seeds_in else None,
        "seed_revealed": match.seed_revealed,
        "seed": None,
        "commitment_matches": None,
        "dice_were_scripted": match.dice_were_scripted,
        "scripted_rolls": scripted_count,
        # How many fair dice the seed has given: two per fair roll, so a roll left out of
        # the list (at its end too) is found.
        "dice_used": match.dice_counter,
        "rolls": entries,
        "verified": None,
        "detail": "The seed is revealed when the match ends; until then only its SHA-256 "
                  "commitment is public.",
    }
    if not match.seed_revealed:
        return audit
    audit["seed"] = match.dice_seed
    try:
        seed = bytes.fromhex(match.dice_seed)
        recomputed = recompute_rolls(seed, fair_count, client_seeds=match_client_seeds(match))
    except (ValueError, DiceVerificationError):
        audit.update(commitment_matches=False, verified=False,
                     detail="The stored seed is not a valid hex seed.")
        return audit
    audit["commitment_matches"] = commitment_for(seed) == match.dice_commitment.lower()
    fair_entries = entries[scripted_count:]
    for entry, want in zip(fair_entries, recomputed, strict=False):
        entry["recomputed"] = list(want)
        entry["matches"] = tuple(entry["dice"]) == want
    counts_agree = len(fair_entries) == len(recomputed)
    all_match = all(entry["matches"] for entry in fair_entries)
    audit["verified"] = bool(audit["commitment_matches"] and counts_agree and all_match)
    parts = [
        "the seed matches the commitment" if audit["commitment_matches"]
        else "the seed does NOT match the commitment",
        f"{sum(1 for e in fair_entries if e['matches'])} of {len(fair_entries)} fair rolls "
        "recompute to the logged rolls",
    ]
    if not counts_agree:
        parts.append(f"the seed was used for {len(recomputed)} rolls but {len(fair_entries)} "
                     "are logged")
    if scripted_count:
        parts.append(f"the first {scripted_count} rolls were SCRIPTED (tests or a "
                     "demonstration), not rolled")
    audit["detail"] = "; ".join(parts) + "."
    return audit


@dataclass(frozen=True)
class ReplayStep:
    """One event of the log and the engine state right after it."""

    event: Event
    state: MatchState
    changed: bool  # the event applied an engine action (the board or the game moved on)
    description: str


#: The log's words for how a game or match ended and what a win was worth (the engine's
#: values), in the reader's language.
_REASONS = {
    "bear_off": gettext_lazy("bear-off"), "drop": gettext_lazy("cube passed"),
    "resign": gettext_lazy("resignation"), "timeout": gettext_lazy("time"),
    "forfeit": gettext_lazy("forfeit"), "adjudication": gettext_lazy("referee's decision"),
    "score": gettext_lazy("score"), "session_ended": gettext_lazy("session ended"),
}
_WIN_KINDS = {"single": gettext_lazy("single game"), "gammon": gettext_lazy("gammon"),
              "backgammon": gettext_lazy("backgammon")}
#: The engine's phases, for the replay's facts.
PHASES = {
    "opening_roll": gettext_lazy("opening roll"), "turn_start": gettext_lazy("to roll or double"),
    "cube_offered": gettext_lazy("cube offered"), "move": gettext_lazy("to move"),
    "game_over": gettext_lazy("game over"), "match_over": gettext_lazy("match over"),
}


def _word(words: dict[str, Any], key: Any) -> str:
    return str(words.get(key, key))


def _describe(event: Event, names: tuple[str, str]) -> str:
    """One log entry in words, in the active language (the referee's replay shows it)."""
    payload = event.payload if isinstance(event.payload, dict) else {}
    action = payload.get("action") or {}
    kind = action.get("type", event.kind)

    def name(seat: Any) -> str:
        return names[seat] if seat in (0, 1) else "?"

    if event.kind == LogKind.START:
        rules = payload.get("rules", {})
        length = rules.get("match_length")
        started = (_("Match started: %(n)s points.") % {"n": length} if length
                   else _("Match started: money session."))
        start_score = payload.get("start_score")
        if start_score:
            started += " " + _("Late-arrival penalty: starts at %(a)s-%(b)s (%(name_a)s-"
                               "%(name_b)s).") % {"a": start_score[0], "b": start_score[1],
                                                  "name_a": names[0], "name_b": names[1]}
        return started
    if kind == "opening_roll":
        dice = action["dice"]
        values = {"a": names[0], "da": dice[0], "b": names[1], "db": dice[1]}
        if dice[0] == dice[1]:
            return _("Opening roll: %(a)s %(da)s, %(b)s %(db)s (tie: rolled again).") % values
        return _("Opening roll: %(a)s %(da)s, %(b)s %(db)s.") % values
    if kind == "roll":
        dice = {"d1": action["dice"][0], "d2": action["dice"][1]}
        if action.get("player") is None:
            return _("The server rolled %(d1)s-%(d2)s.") % dice
        return _("%(name)s rolled %(d1)s-%(d2)s.") % {"name": name(action["player"]), **dice}
    if kind == "play":
        if not action.get("play"):
            return _("Played (no legal play).")
        return _("Played %(play)s.") % {"play": action["play"]}
    if kind == "double":
        return _("Double.")
    if kind == "take":
        return _("Take.")
    if kind == "drop":
        return _("Drop.")
    if kind in ("resign", "timeout", "forfeit"):
        who = name(action.get("player"))
        text = {"resign": _("%(name)s resigned"), "timeout": _("%(name)s lost on time"),
                "forfeit": _("%(name)s forfeited")}[kind] % {"name": who}
        if payload.get("reason"):
            text += f" ({reason_text(str(payload['reason']))})"
        return text + "."
    if kind == "adjudicate":
        points = action.get("points")
        values = {"scope": _("match") if action.get("scope") == "match" else _("game"),
                  "name": name(action.get("winner")), "points": points,
                  "reason": action.get("reason", "")}
        if points:
            return _("Referee awarded the %(scope)s to %(name)s, %(points)s point(s): "
                     "%(reason)s") % values
        return _("Referee awarded the %(scope)s to %(name)s: %(reason)s") % values
    if kind == "new_game":
        return _("New game.")
    if kind == "end_session":
        return _("Session ended.")
    if event.kind == LogKind.GAME_END:
        return _("Game won by %(name)s: %(points)s point(s), %(kind)s (%(reason)s), cube "
                 "%(cube)s.") % {"name": name(payload.get("winner")),
                                 "points": payload.get("points"),
                                 "kind": _word(_WIN_KINDS, payload.get("kind")),
                                 "reason": _word(_REASONS, payload.get("reason")),
                                 "cube": payload.get("cube_value")}
    if event.kind == LogKind.MATCH_END:
        score = payload.get("score") or [0, 0]
        winner = payload.get("winner")
        values = {"a": score[0], "b": score[1], "reason": _word(_REASONS, payload.get("reason")),
                  "name": name(winner)}
        if winner is None:
            return _("Match over, no winner: %(a)s-%(b)s (%(reason)s).") % values
        return _("Match over, won by %(name)s: %(a)s-%(b)s (%(reason)s).") % values
    if event.kind == LogKind.TAKEBACK_REQUEST:
        return _("%(name)s asks to take back their last play.") % {
            "name": name(payload.get("player"))}
    if event.kind == LogKind.TAKEBACK_ACCEPT:
        return _("%(name)s accepts the takeback: back to the position before the play, with "
                 "the same dice.") % {"name": name(payload.get("player"))}
    if event.kind == LogKind.TAKEBACK_DECLINE:
        return _("%(name)s declines the takeback.") % {"name": name(payload.get("player"))}
    if event.kind == LogKind.VOID:
        return _("Voided: %(reason)s") % {"reason": reason_text(str(payload.get("reason", "")))}
    return str(event.get_kind_display())


def replay_steps(match: Match, events: list[Event] | None = None) -> Iterator[ReplayStep]:
    """Replay the log of ``match`` one event at a time through the engine.

    Raises :class:`~tavla.engine.errors.EngineError` (a ``ValueError``) when the log does not
    replay; :func:`matches.services.match_verify` says so without raising.
    """
    if events is None:
        events = list(match.events.order_by("sequence").select_related("actor"))
    names = (match.player0.display_name, match.player1.display_name)
    for event, state, changed in replay_log(events):
        yield ReplayStep(event, state, changed, _describe(event, names))
