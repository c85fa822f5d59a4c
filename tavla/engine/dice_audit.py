"""Check a finished match's dice from its published audit, trusting nothing the server computed,
and optionally against the match record (the Jellyfish ``.mat``).

The audit is the JSON that ``GET /api/matches/<id>/dice/`` serves (``docs/dice.md``). Read are
``algorithm``, ``commitment``, ``seed``, ``client_seeds``, ``dice_were_scripted``,
``scripted_rolls``, ``dice_used`` and, for each entry of ``rolls``, ``sequence``, ``kind``,
``game``, ``dice`` and ``scripted``. The server's own ``recomputed``, ``matches`` and
``verified`` are ignored: every fair die is derived again here.

:func:`check_audit` gives one of three verdicts (:class:`Verdict`):

* **verified** — the seed hashes to the commitment, every fair roll recomputes, the seed gave
  no die that is not listed, nothing is marked scripted, and (with a ``.mat``) the record's
  rolls are the audit's, game for game and roll for roll;
* **does not verify** — anything wrong: a roll that does not recompute, a roll marked
  scripted in an audit that declares no scripted dice, rolls missing (``dice_used``) or out
  of order, a wrong commitment, a malformed field, a record whose dice differ;
* **not verifiable** — nothing is wrong, but the audit cannot prove the dice fair: it
  declares scripted dice (rolls that were set, not rolled), or the seed is not revealed yet.

``python -m tavla.engine verify-dice`` prints the findings and exits 0, 1 or 3 (see
:data:`EXIT_CODES`).
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeGuard

from tavla.engine.dice import (
    ALGORITHM,
    LEGACY_ALGORITHM,
    SEED_BYTES,
    ClientSeeds,
    DiceVerificationError,
    client_seed_from_hex,
    recompute_rolls,
)
from tavla.engine.matdice import MatGame, MatRoll, mat_dice

ROLL_KINDS: Final = ("opening_roll", "roll")
#: How far a resynchronisation looks for rolls left out of (or added to) the audit.
_MAX_SHIFT: Final = 8
#: A shift is only diagnosed when at least this many rolls after it fit it (one roll fits a
#: wrong place by chance one time in 36).
_MIN_FIT: Final = 3
#: At most this many roll-by-roll mismatches are printed; the rest are counted.
_MAX_LISTED: Final = 20
_HEX64: Final = re.compile(r"[0-9a-fA-F]{64}")


class Verdict(enum.Enum):
    VERIFIED = "verified"
    DOES_NOT_VERIFY = "does not verify"
    NOT_VERIFIABLE = "not verifiable"


#: The exit status of ``verify-dice`` for each verdict (2 is a wrong command line).
EXIT_CODES: Final = {Verdict.VERIFIED: 0, Verdict.DOES_NOT_VERIFY: 1, Verdict.NOT_VERIFIABLE: 3}


@dataclass(slots=True)
class AuditCheck:
    """What :func:`check_audit` found. ``problems`` are ways the audit (or the record) is
    wrong; ``unverifiable`` are reasons it cannot prove its dice although nothing is wrong."""

    algorithm: str = LEGACY_ALGORITHM
    problems: list[str] = field(default_factory=list)
    unverifiable: list[str] = field(default_factory=list)
    fair_rolls: int = 0
    scripted_rolls: int = 0
    mat_rolls: int | None = None

    @property
    def verdict(self) -> Verdict:
        if self.problems:
            return Verdict.DOES_NOT_VERIFY
        if self.unverifiable:
            return Verdict.NOT_VERIFIABLE
        return Verdict.VERIFIED

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]


@dataclass(frozen=True, slots=True)
class _Entry:
    number: int  # 1-based place in the audit's rolls
    sequence: int | None
    kind: str
    game: int | None
    dice: tuple[int, int] | None
    scripted: bool

    def where(self) -> str:
        parts = [] if self.sequence is None else [f"event {self.sequence}"]
        parts.append(self.kind)
        if self.game is not None:
            parts.append(f"game {self.game}")
        return f"roll {self.number} ({', '.join(parts)})"


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _brief(value: object) -> str:
    """``repr(value)`` (which escapes control characters), cut short: a forged file must not
    flood the report or write to the terminal."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _numbers(numbers: Sequence[int]) -> str:
    """``1-3, 7`` for ``[1, 2, 3, 7]``."""
    runs: list[str] = []
    start = previous = numbers[0]
    for number in [*numbers[1:], None]:
        if number is not None and number == previous + 1:
            previous = number
            continue
        runs.append(str(start) if start == previous else f"{start}-{previous}")
        if number is not None:
            start = previous = number
    return ", ".join(runs)


def _client_seeds(audit: Mapping[str, Any], check: AuditCheck) -> ClientSeeds | None:
    if check.algorithm == LEGACY_ALGORITHM:
        return None
    seeds = audit.get("client_seeds")
    if not isinstance(seeds, Sequence) or isinstance(seeds, str) or len(seeds) != 2:
        check.problems.append("client_seeds: expected two hex strings (player 0's, player 1's)")
        return None
    decoded = []
    for seat, text in enumerate(seeds):
        try:
            decoded.append(client_seed_from_hex(text))
        except DiceVerificationError as error:
            check.problems.append(f"client seed of player {seat}: {error}")
            return None
    return decoded[0], decoded[1]


def _seed(audit: Mapping[str, Any], check: AuditCheck, commitment: str | None) -> bytes | None:
    """The revealed server seed once it matches its commitment (and ``commitment``, the one
    the caller saw at the start, when given); ``None`` with the reason recorded otherwise."""
    published = audit.get("commitment")
    if not isinstance(published, str) or _HEX64.fullmatch(published) is None:
        check.problems.append("commitment: expected SHA-256 as 64 hex digits")
        return None
    if commitment is not None and not hmac.compare_digest(published.lower(), commitment.lower()):
        check.problems.append(f"the audit's commitment {published} is not the one given "
                              f"({commitment}): this is not the seed the match committed to")
    seed_hex = audit.get("seed")
    if seed_hex is None:
        check.unverifiable.append("the seed is not revealed yet: a match's dice can be "
                                  "verified once it is over")
        return None
    try:
        if not isinstance(seed_hex, str):
            raise ValueError
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        check.problems.append("the seed is not hex")
        return None
    if len(seed) != SEED_BYTES:
        check.problems.append(f"the seed is {len(seed)} bytes; a server seed is {SEED_BYTES}")
        return None
    actual = hashlib.sha256(seed).hexdigest()
    if not hmac.compare_digest(actual, published.lower()):
        check.problems.append("the seed does not hash to the commitment: sha256(seed) = "
                              f"{actual}, commitment = {published}")
        return None
    return seed


def _entries(rolls: Sequence[Any], check: AuditCheck) -> list[_Entry]:
    """The audit's roll entries, each field checked; a malformed one is a problem."""
    entries: list[_Entry] = []
    with_game = sum(1 for entry in rolls if isinstance(entry, Mapping) and "game" in entry)
    if with_game not in (0, len(rolls)):
        check.problems.append("rolls: some entries say their game and some do not")
    last_sequence: int | None = None
    for number, entry in enumerate(rolls, start=1):
        if not isinstance(entry, Mapping):
            check.problems.append(f"roll {number}: expected an object, not {_brief(entry)}")
            continue
        sequence, kind, game = entry.get("sequence"), entry.get("kind"), entry.get("game")
        raw_dice, scripted = entry.get("dice"), entry.get("scripted")
        bad = []
        if not _is_int(sequence) or sequence < 0:
            bad.append(f"sequence {_brief(sequence)} is not an event number")
            sequence = None
        elif last_sequence is not None and sequence <= last_sequence:
            bad.append(f"event {sequence} comes after event {last_sequence}: the rolls are "
                       "listed in the order of the log, each from its own event")
        if kind not in ROLL_KINDS:
            bad.append(f"kind {_brief(kind)} is neither opening_roll nor roll")
            kind = "roll"
        if "game" in entry and (not _is_int(game) or game < 1):
            bad.append(f"game {_brief(game)} is not a game number")
            game = None
        dice: tuple[int, int] | None = None
        if (isinstance(raw_dice, Sequence) and not isinstance(raw_dice, str)
                and len(raw_dice) == 2
                and all(_is_int(d) and 1 <= d <= 6 for d in raw_dice)):
            dice = (raw_dice[0], raw_dice[1])
        else:
            bad.append(f"{_brief(raw_dice)} is not two dice 1..6")
        if not isinstance(scripted, bool):
            bad.append(f"scripted is {_brief(scripted)}, not true or false")
        check.problems.extend(f"roll {number}: {text}" for text in bad)
        if sequence is not None:
            last_sequence = sequence
        entries.append(_Entry(number, sequence, str(kind), game if _is_int(game) else None,
                              dice, scripted is True))
    return entries


def _with_games(entries: list[_Entry]) -> list[_Entry]:
    """``entries`` with their game numbers, counted from the opening rolls when the audit does
    not give them (a game without any roll then cannot be told)."""
    if not entries or any(entry.game is not None for entry in entries):
        return entries
    numbered: list[_Entry] = []
    game = 0
    previous: _Entry | None = None
    for entry in entries:
        tie = previous is not None and previous.kind == "opening_roll" and _is_tie(previous)
        if entry.kind == "opening_roll" and not tie:
            game += 1
        numbered.append(_Entry(entry.number, entry.sequence, entry.kind, max(game, 1),
                               entry.dice, entry.scripted))
        previous = entry
    return numbered


def _is_tie(entry: _Entry) -> bool:
    return entry.dice is not None and entry.dice[0] == entry.dice[1]


def _check_order(entries: list[_Entry], check: AuditCheck) -> None:
    """Each game starts with its opening roll, a tied opening roll is always rolled again,
    and games only go forward."""
    previous: _Entry | None = None
    for entry in entries:
        if previous is None:
            if entry.kind != "opening_roll":
                check.problems.append(f"{entry.where()}: a game starts with its opening roll")
            previous = entry
            continue
        game, before = entry.game or 0, previous.game or 0
        after_tie = previous.kind == "opening_roll" and _is_tie(previous)
        if game < before:
            check.problems.append(f"{entry.where()}: comes after a roll of game {before}")
        elif game > before:
            if after_tie:
                check.problems.append(f"{previous.where()}: a tied opening roll ends its "
                                      "game, but a tie is always rolled again")
            if entry.kind != "opening_roll":
                check.problems.append(f"{entry.where()}: a game starts with its opening roll")
        elif after_tie and entry.kind != "opening_roll":
            check.problems.append(f"{entry.where()}: follows a tied opening roll, which is "
                                  "always rolled again")
        elif not after_tie and entry.kind == "opening_roll":
            check.problems.append(f"{entry.where()}: a second opening roll in a game whose "
                                  "opening roll was not a tie")
        previous = entry
    if previous is not None and previous.kind == "opening_roll" and _is_tie(previous):
        check.problems.append(f"{previous.where()}: the last roll is a tied opening roll, "
                              "which is always rolled again: rolls are missing after it")


def _check_scripted(audit: Mapping[str, Any], entries: list[_Entry], check: AuditCheck) -> None:
    declared = audit.get("dice_were_scripted")
    count = audit.get("scripted_rolls")
    marked = [entry.number for entry in entries if entry.scripted]
    check.scripted_rolls = len(marked)
    if not isinstance(declared, bool):
        check.problems.append("dice_were_scripted: expected true or false")
        return
    if not _is_int(count) or count < 0:
        check.problems.append("scripted_rolls: expected the number of scripted rolls")
        return
    if not declared:
        if marked:
            check.problems.append(
                f"roll{'s' if len(marked) > 1 else ''} {_numbers(marked)} "
                f"({len(marked)} in all) {'are' if len(marked) > 1 else 'is'} marked scripted, "
                "but the audit says no dice were scripted (dice_were_scripted: false): a roll "
                "marked scripted is not checked, so it proves nothing")
        if count:
            check.problems.append(f"scripted_rolls is {count}, but the audit says no dice "
                                  "were scripted")
        return
    if len(marked) != count:
        check.problems.append(f"scripted_rolls says {count}, but {len(marked)} rolls are "
                              "marked scripted")
    late = [entry.number for index, entry in enumerate(entries)
            if entry.scripted and index >= len(marked)]
    if late:
        check.problems.append(f"roll{'s' if len(late) > 1 else ''} {_numbers(late)} "
                              "marked scripted after fair rolls: scripted dice only ever come "
                              "before the first fair roll")
    check.unverifiable.append(
        f"the audit declares scripted dice ({len(marked)} roll(s) set by a test or a "
        "demonstration, not rolled): this match's dice cannot be proved fair")


def _resync(fair: list[_Entry], expected: Sequence[tuple[int, int]], at: int) -> str | None:
    """Why the fair rolls from ``at`` on fit the seeds' rolls shifted, if they do: rolls left
    out of the audit or added to it just before ``fair[at]``."""
    rest = fair[at:]
    if len(rest) < _MIN_FIT:
        return None
    for shift in range(1, _MAX_SHIFT + 1):
        ahead = expected[at + shift:at + shift + len(rest)]
        if len(ahead) == len(rest) and all(e.dice == want for e, want in zip(rest, ahead,
                                                                                strict=True)):
            return (f"{shift} roll(s) missing before {rest[0].where()}: it and every roll "
                    f"after it are the seeds' rolls {shift} place(s) later")
        if len(rest) - shift >= _MIN_FIT:
            behind = rest[shift:]
            if all(e.dice == want for e, want in zip(behind, expected[at:], strict=False)):
                added = ", ".join(e.where() for e in rest[:shift])
                return f"{shift} roll(s) added that the seeds never gave: {added}"
    return None


def _check_fair_rolls(audit: Mapping[str, Any], seed: bytes, client_seeds: ClientSeeds | None,
                      entries: list[_Entry], check: AuditCheck) -> None:
    fair = [entry for entry in entries if not entry.scripted]
    check.fair_rolls = len(fair)
    expected = recompute_rolls(seed, len(fair) + _MAX_SHIFT, client_seeds=client_seeds)
    listed: list[str] = []
    for index, (entry, want) in enumerate(zip(fair, expected, strict=False)):
        if entry.dice is None or entry.dice == want:
            continue
        shifted = _resync(fair, expected, index)
        if shifted is not None:
            check.problems.append(shifted)
            break
        listed.append(f"{entry.where()}: logged {entry.dice[0]}-{entry.dice[1]}, the seeds "
                      f"give {want[0]}-{want[1]}")
    check.problems.extend(listed[:_MAX_LISTED])
    if len(listed) > _MAX_LISTED:
        check.problems.append(f"... and {len(listed) - _MAX_LISTED} more rolls that do not "
                              "recompute")
    used = audit.get("dice_used")
    if not _is_int(used) or used < 0:
        check.problems.append("dice_used: the audit does not say how many dice the seed gave, "
                              "so rolls missing at its end could not be found")
    elif used != 2 * len(fair):
        rolls = used / 2
        shown = int(rolls) if rolls == int(rolls) else rolls
        if used > 2 * len(fair):
            check.problems.append(
                f"the seed gave {used} dice ({shown} rolls) but the audit lists "
                f"{len(fair)} fair rolls: {shown - len(fair)} roll(s) are missing")
        else:
            check.problems.append(
                f"the audit lists {len(fair)} fair rolls but the seed gave only {used} dice "
                f"({shown} rolls)")


def _game_rolls(entries: list[_Entry]) -> dict[int, list[_Entry]]:
    """Per game, the rolls a ``.mat`` shows: all but the tied opening rolls."""
    games: dict[int, list[_Entry]] = {}
    for entry in entries:
        if entry.game is None or entry.dice is None:
            continue
        if entry.kind == "opening_roll" and _is_tie(entry):
            continue
        games.setdefault(entry.game, []).append(entry)
    return games


def _shown(dice: tuple[int, int]) -> str:
    return f"{max(dice)}{min(dice)}"


def _compare_game(number: int, audit: list[_Entry], record: list[MatRoll],
                  check: AuditCheck) -> None:
    if audit and record and audit[0].kind == "opening_roll" and audit[0].dice is not None:
        die0, die1 = audit[0].dice
        mover = 0 if die0 > die1 else 1
        if record[0].player != mover:
            check.problems.append(
                f"game {number}: the audit's opening roll {die0}-{die1} ({audit[0].where()}) "
                f"gives player {mover} the first move; the .mat shows player "
                f"{record[0].player} moving first (line {record[0].line})")
    pairs = [tuple(sorted(entry.dice or (0, 0))) for entry in audit]
    shown = [tuple(sorted(roll.dice)) for roll in record]
    if pairs == shown:
        return
    if len(pairs) == len(shown):
        for entry, roll in zip(audit, record, strict=True):
            if tuple(sorted(entry.dice or (0, 0))) != tuple(sorted(roll.dice)):
                assert entry.dice is not None
                check.problems.append(
                    f"game {number}: {entry.where()} is {entry.dice[0]}-{entry.dice[1]} in "
                    f"the audit but {_shown(roll.dice)} in the .mat (line {roll.line})")
        return
    first = next((i for i, (a, b) in enumerate(zip(pairs, shown, strict=False)) if a != b),
                 min(len(pairs), len(shown)))
    counts = f"game {number} has {len(pairs)} rolls in the audit and {len(shown)} in the .mat"
    if len(pairs) > len(shown):
        entry = audit[first]
        assert entry.dice is not None
        where = f"{entry.where()}, {entry.dice[0]}-{entry.dice[1]}, is not in the .mat"
        if first < len(record):
            where += f" (its place there, line {record[first].line}, shows " \
                     f"{_shown(record[first].dice)})"
    else:
        roll = record[first]
        where = f"the .mat's roll {_shown(roll.dice)} on line {roll.line} is not in the audit"
    check.problems.append(f"{counts}: {where}")


def _check_mat(entries: list[_Entry], mat_text: str, check: AuditCheck) -> None:
    try:
        record = mat_dice(mat_text)
    except ValueError as error:
        check.problems.append(f"the .mat cannot be read: {error}")
        return
    check.mat_rolls = sum(len(game.rolls) for game in record)
    by_number: dict[int, MatGame] = {}
    for index, game in enumerate(record, start=1):
        if game.number != index:
            check.problems.append(f"the .mat's Game {game.number} (line {game.line}) is its "
                                  f"game {index}: games are numbered from 1 without a gap")
        by_number.setdefault(game.number, game)
    audit_games = _game_rolls(entries)
    for number in sorted(set(audit_games) | set(by_number)):
        rolls = audit_games.get(number, [])
        shown = by_number.get(number)
        if shown is None:
            check.problems.append(f"game {number} has {len(rolls)} roll(s) in the audit "
                                  f"(from {rolls[0].where()}) and is not in the .mat")
            continue
        _compare_game(number, rolls, shown.rolls, check)


def check_audit(audit: Any, *, mat_text: str | None = None,
                commitment: str | None = None) -> AuditCheck:
    """Check the dice audit ``audit`` (the parsed JSON); with ``mat_text`` also that the
    ``.mat`` record shows the audit's rolls, game for game and roll for roll; with
    ``commitment`` also that the audit commits to that (the one published at the start).

    Never raises on a malformed audit or record: every fault is one of the problems.
    """
    check = AuditCheck()
    if not isinstance(audit, Mapping):
        check.problems.append("expected the dice audit, a JSON object")
        return check
    algorithm = audit.get("algorithm")
    if algorithm not in (ALGORITHM, LEGACY_ALGORITHM):
        check.problems.append(f"unknown dice algorithm {_brief(algorithm)} (this verifier knows "
                              f"{ALGORITHM} and {LEGACY_ALGORITHM})")
        return check
    check.algorithm = str(algorithm)
    seed = _seed(audit, check, commitment)
    client_seeds = _client_seeds(audit, check)
    rolls = audit.get("rolls")
    if not isinstance(rolls, Sequence) or isinstance(rolls, str):
        check.problems.append("rolls: expected a list")
        return check
    entries = _with_games(_entries(rolls, check))
    _check_order(entries, check)
    _check_scripted(audit, entries, check)
    if seed is not None and (client_seeds is not None or check.algorithm == LEGACY_ALGORITHM):
        _check_fair_rolls(audit, seed, client_seeds, entries, check)
    if mat_text is not None:
        _check_mat(entries, mat_text, check)
    return check


def audit_mismatches(audit: Mapping[str, Any]) -> list[str]:
    """Every way ``audit`` fails to prove its dice (what is wrong, then what keeps it from
    proving them); an empty list only when :func:`check_audit` verifies it."""
    check = check_audit(audit)
    return [*check.problems, *check.unverifiable]
