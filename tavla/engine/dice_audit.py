"""Check a finished match's dice from its published audit, trusting nothing the server computed.

The audit is the JSON that ``GET /api/matches/<id>/dice/`` serves (``docs/dice.md``). Only
these of its fields are read: ``algorithm``, ``commitment``, ``seed``, ``client_seeds`` and,
for each entry of ``rolls``, ``dice`` and ``scripted``. The server's own ``recomputed``,
``matches`` and ``verified`` are ignored: every fair die is derived again here.

``python -m tavla.engine verify-dice AUDIT.json`` prints each mismatch and exits 1 on any.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from typing import Any

from tavla.engine.dice import (
    ALGORITHM,
    LEGACY_ALGORITHM,
    ClientSeeds,
    DiceVerificationError,
    client_seed_from_hex,
    recompute_rolls,
)


def _client_seeds(audit: Mapping[str, Any], problems: list[str]) -> ClientSeeds | None:
    algorithm = audit.get("algorithm", LEGACY_ALGORITHM)
    if algorithm == LEGACY_ALGORITHM:
        return None
    if algorithm != ALGORITHM:
        problems.append(f"unknown dice algorithm {algorithm!r} (this verifier knows "
                        f"{ALGORITHM} and {LEGACY_ALGORITHM})")
        return None
    seeds = audit.get("client_seeds")
    if not isinstance(seeds, Sequence) or isinstance(seeds, str) or len(seeds) != 2:
        problems.append("client_seeds: expected two hex strings (player 0's, player 1's)")
        return None
    decoded = []
    for seat, text in enumerate(seeds):
        try:
            decoded.append(client_seed_from_hex(text if text is not None else ""))
        except DiceVerificationError as error:
            problems.append(f"client seed of player {seat}: {error}")
            return None
    return decoded[0], decoded[1]


def _dice(entry: Any) -> tuple[int, int] | None:
    dice = entry.get("dice") if isinstance(entry, Mapping) else None
    if (isinstance(dice, Sequence) and len(dice) == 2
            and all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6
                    for d in dice)):
        return dice[0], dice[1]
    return None


def audit_mismatches(audit: Mapping[str, Any]) -> list[str]:
    """Every way ``audit`` fails to prove its dice; an empty list when every fair roll
    recomputes exactly from the revealed seed and both client seeds."""
    problems: list[str] = []
    seed_hex = audit.get("seed")
    commitment = audit.get("commitment")
    if not isinstance(seed_hex, str) or not seed_hex:
        return ["the seed is not revealed yet: a match's dice can be verified once it is over"]
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        return ["the seed is not hex"]
    if not isinstance(commitment, str) or not hmac.compare_digest(
            hashlib.sha256(seed).hexdigest(), commitment.lower()):
        problems.append("the seed does not hash to the commitment: sha256(seed) = "
                        f"{hashlib.sha256(seed).hexdigest()}, commitment = {commitment}")
    client_seeds = _client_seeds(audit, problems)
    if problems and client_seeds is None and audit.get("algorithm") not in (
            None, LEGACY_ALGORITHM):
        return problems
    rolls = audit.get("rolls")
    if not isinstance(rolls, Sequence) or isinstance(rolls, str):
        return [*problems, "rolls: expected a list"]
    fair = [(index, entry) for index, entry in enumerate(rolls)
            if not (isinstance(entry, Mapping) and entry.get("scripted") is True)]
    expected = recompute_rolls(seed, len(fair), client_seeds=client_seeds)
    for (index, entry), want in zip(fair, expected, strict=True):
        got = _dice(entry)
        where = f"roll {index + 1}"
        if isinstance(entry, Mapping) and "sequence" in entry:
            where += f" (event {entry['sequence']}, {entry.get('kind', 'roll')})"
        if got is None:
            shown = entry.get("dice") if isinstance(entry, Mapping) else entry
            problems.append(f"{where}: {shown!r} is not two dice 1..6")
        elif got != want:
            problems.append(f"{where}: logged {got[0]}-{got[1]}, the seeds give "
                            f"{want[0]}-{want[1]}")
    return problems
