"""Dice: where rolls come from. The state machine never rolls; a service asks a dice source.

Three sources share one protocol, :class:`DiceSource`:

* :class:`SecureDice` draws from :mod:`secrets` (the operating system's CSPRNG).
* :class:`FairDice` is provably fair, by the algorithm ``tavla-dice-1`` that
  ``docs/dice.md`` specifies byte for byte. Before the first roll the match publishes
  ``commitment = sha256(seed).hexdigest()``; then each player contributes a client seed
  (0 to 64 bytes, empty when they send none). Die number ``k`` (counting from 0) is the
  first byte below 252 of ``HMAC-SHA256(seed, message(k))``, taken modulo 6, plus 1, where
  ``message(k) = b"tavla-dice-1" || len(c0) || c0 || len(c1) || c1 || k`` (lengths one byte,
  ``k`` 8 bytes big-endian). Rejecting bytes 252..255 keeps the six faces exactly equally
  likely; the server, who chose the seed before seeing the client seeds, cannot choose the
  dice, and neither player can without the seed. When the match ends the seed is revealed
  and anyone can recompute every die with :func:`recompute_dice` and check the record with
  :func:`verify`. The source is resumable: persist ``seed_hex``, the client seeds and
  ``counter`` and build ``FairDice.from_hex(seed_hex, counter, client_seeds)`` later.
  Without client seeds (``client_seeds=None``) the message is ``k`` alone: the algorithm
  ``tavla-dice-0`` of matches played before client seeds existed.
* :class:`ScriptedDice` plays back a fixed list of rolls, for tests.

A *roll* is two dice for the player on turn; an *opening roll* is one die per player,
returned as ``(die of player 0, die of player 1)``. Both consume two dice from a source.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable, Sequence
from typing import Final, Protocol, runtime_checkable

from tavla.engine.errors import EngineError

Dice = tuple[int, int]

SEED_BYTES: Final = 32
_REJECT_FROM: Final = 252  # 252 = 6 * 42: bytes 252..255 would favour faces 1..4

ALGORITHM: Final = "tavla-dice-1"
LEGACY_ALGORITHM: Final = "tavla-dice-0"
_DOMAIN: Final = b"tavla-dice-1"
MAX_CLIENT_SEED_BYTES: Final = 64

ClientSeeds = tuple[bytes, bytes]
"""Player 0's and player 1's client seed, in that order (either may be empty)."""


class DiceExhaustedError(EngineError):
    """A :class:`ScriptedDice` was asked for more rolls than it was given."""


class DiceVerificationError(EngineError):
    """A seed that does not match its commitment, or a malformed seed."""


@runtime_checkable
class DiceSource(Protocol):
    """Anything that rolls dice for a match."""

    def roll(self) -> Dice:
        """Two dice for the player on turn, each 1..6."""
        ...

    def roll_opening(self) -> Dice:
        """One die per player for the opening roll: ``(player 0's die, player 1's die)``."""
        ...


class SecureDice:
    """Dice from the operating system's cryptographically secure generator."""

    def roll(self) -> Dice:
        return secrets.randbelow(6) + 1, secrets.randbelow(6) + 1

    def roll_opening(self) -> Dice:
        return self.roll()

    def __repr__(self) -> str:
        return "SecureDice()"


def commitment_for(seed: bytes) -> str:
    """The public commitment to ``seed``: its SHA-256 as 64 lowercase hex digits."""
    return hashlib.sha256(seed).hexdigest()


def client_seed_from_hex(text: str) -> bytes:
    """A client seed from its hex form: 0 to 128 hex digits (0 to 64 bytes).

    Raises :class:`DiceVerificationError` for anything else.
    """
    if not isinstance(text, str) or len(text) > 2 * MAX_CLIENT_SEED_BYTES:
        raise DiceVerificationError(
            f"a client seed is 0 to {2 * MAX_CLIENT_SEED_BYTES} hex digits")
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise DiceVerificationError(
            "a client seed is written in hex digits (0-9, a-f), two per byte") from None


def die_message(index: int, client_seeds: ClientSeeds | None = None) -> bytes:
    """The HMAC message of die ``index``: ``b"tavla-dice-1"``, each client seed after its
    length in one byte, then ``index`` as 8 big-endian bytes (``index`` alone without client
    seeds: ``tavla-dice-0``)."""
    if index < 0:
        raise ValueError(f"a die index is 0 or more, not {index}")
    counter = index.to_bytes(8, "big")
    if client_seeds is None:
        return counter
    first, second = client_seeds
    for seed in client_seeds:
        if len(seed) > MAX_CLIENT_SEED_BYTES:
            raise DiceVerificationError(f"a client seed is at most {MAX_CLIENT_SEED_BYTES} bytes")
    return _DOMAIN + bytes([len(first)]) + first + bytes([len(second)]) + second + counter


def fair_die(seed: bytes, index: int, client_seeds: ClientSeeds | None = None) -> int:
    """Die number ``index`` (0-based) derived from ``seed`` and the client seeds; always 1..6,
    each face equally likely.

    The first byte of ``HMAC-SHA256(seed, die_message(index, client_seeds))`` that is below 252
    gives ``byte % 6 + 1``. In the (probability 2**-192) case that all 32 bytes are rejected,
    the digest is fed back as the next message until a byte is accepted.
    """
    message = die_message(index, client_seeds)
    while True:
        digest = hmac.new(seed, message, hashlib.sha256).digest()
        for byte in digest:
            if byte < _REJECT_FROM:
                return byte % 6 + 1
        message = digest


def recompute_dice(seed: bytes, count: int, start: int = 0,
                   client_seeds: ClientSeeds | None = None) -> tuple[int, ...]:
    """Dice ``start`` .. ``start + count - 1`` of the sequence fixed by ``seed`` (and the
    client seeds)."""
    return tuple(fair_die(seed, index, client_seeds) for index in range(start, start + count))


def recompute_rolls(seed: bytes, count: int, start: int = 0,
                    client_seeds: ClientSeeds | None = None) -> tuple[Dice, ...]:
    """The first ``count`` rolls (pairs of dice, opening rolls included) starting at die ``start``.

    Every roll of a :class:`FairDice` consumes two dice, so roll ``i`` is dice ``2i`` and
    ``2i + 1``.
    """
    dice = recompute_dice(seed, 2 * count, start, client_seeds)
    return tuple((dice[i], dice[i + 1]) for i in range(0, len(dice), 2))


def verify(seed: bytes, commitment: str, rolls: Sequence[Sequence[int]],
           client_seeds: ClientSeeds | None = None) -> bool:
    """True when ``seed`` matches ``commitment`` and produced exactly ``rolls`` from the start.

    ``rolls`` is the published record, every roll (opening rolls and their ties included) in
    the order the source produced them.
    """
    if not hmac.compare_digest(commitment_for(seed), commitment.lower()):
        return False
    expected = recompute_rolls(seed, len(rolls), client_seeds=client_seeds)
    return all(tuple(actual) == want for actual, want in zip(rolls, expected, strict=True))


class FairDice:
    """Provably fair dice: HMAC-SHA256 of a secret seed, the client seeds and a counter (see
    the module doc). ``counter`` is the number of dice drawn so far; persist it with the
    seed and the client seeds to resume.
    """

    __slots__ = ("_seed", "client_seeds", "counter")

    def __init__(self, seed: bytes, counter: int = 0,
                 client_seeds: ClientSeeds | None = None) -> None:
        if not isinstance(seed, bytes) or len(seed) < 16:
            raise DiceVerificationError("a fair-dice seed is at least 16 bytes")
        if isinstance(counter, bool) or not isinstance(counter, int) or counter < 0:
            raise DiceVerificationError(f"a dice counter is 0 or more, not {counter!r}")
        if client_seeds is not None:
            die_message(0, client_seeds)  # checks their lengths
        self._seed = seed
        self.counter = counter
        self.client_seeds = client_seeds

    @classmethod
    def new(cls) -> FairDice:
        """A fresh source with a random 32-byte seed and counter 0."""
        return cls(secrets.token_bytes(SEED_BYTES))

    @classmethod
    def from_hex(cls, seed_hex: str, counter: int = 0,
                 client_seeds: ClientSeeds | None = None) -> FairDice:
        """Resume from a stored hex seed, counter and client seeds."""
        try:
            seed = bytes.fromhex(seed_hex)
        except ValueError:
            # Never echo the text: it may be the secret itself.
            raise DiceVerificationError("the stored seed is not hex") from None
        return cls(seed, counter, client_seeds)

    @property
    def algorithm(self) -> str:
        return LEGACY_ALGORITHM if self.client_seeds is None else ALGORITHM

    @property
    def seed(self) -> bytes:
        """The secret seed: reveal it only when the match is over."""
        return self._seed

    @property
    def seed_hex(self) -> str:
        return self._seed.hex()

    @property
    def commitment(self) -> str:
        """``sha256(seed).hexdigest()``, published before the first roll."""
        return commitment_for(self._seed)

    def _draw(self) -> int:
        die = fair_die(self._seed, self.counter, self.client_seeds)
        self.counter += 1
        return die

    def roll(self) -> Dice:
        return self._draw(), self._draw()

    def roll_opening(self) -> Dice:
        return self._draw(), self._draw()

    def __repr__(self) -> str:
        # Never print the seed: a repr can end up in a log before the match is over.
        return f"FairDice(commitment={self.commitment!r}, counter={self.counter})"


class ScriptedDice:
    """Plays back the given rolls in order (opening rolls included); for tests and replays.

    Raises :class:`DiceExhaustedError` when asked for more rolls than it holds.
    """

    __slots__ = ("_rolls", "position")

    def __init__(self, rolls: Iterable[Sequence[int]]) -> None:
        checked: list[Dice] = []
        for roll in rolls:
            pair = tuple(roll)
            if len(pair) != 2 or not all(
                isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in pair
            ):
                raise ValueError(f"a scripted roll is two dice 1..6, not {roll!r}")
            checked.append((pair[0], pair[1]))
        self._rolls: tuple[Dice, ...] = tuple(checked)
        self.position = 0

    @property
    def remaining(self) -> int:
        return len(self._rolls) - self.position

    def roll(self) -> Dice:
        if self.position >= len(self._rolls):
            raise DiceExhaustedError(
                f"scripted dice exhausted: all {len(self._rolls)} rolls were used"
            )
        roll = self._rolls[self.position]
        self.position += 1
        return roll

    def roll_opening(self) -> Dice:
        return self.roll()

    def __repr__(self) -> str:
        return f"ScriptedDice({list(self._rolls)!r})"
