"""The vocabulary every tournament format shares: entrants, byes, slots, pairings, results.

A format is a pure pairing generator, like Tabbycat's draw generators: it makes no database
query and imports nothing from Django. It is handed plain values (a :class:`TournamentState`)
and returns plain values (:class:`Pairing`, :class:`Standing`). The Django manager in
``tournaments`` maps these to models and back.

Errors come in two kinds:

- :class:`PairingError` (a ``ValueError``): the director or the caller asked for something
  impossible (an unknown option, one entrant, a result for a match that is not being played).
  Its message is meant to be shown; its ``code`` is stable, for translation.
- :class:`InternalPairingError` (a ``RuntimeError``): a bug in a format. Never the director's
  fault; report it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any, ClassVar, Final, TypeAlias

EntrantId: TypeAlias = int
"""An entrant (a tournament entry) as the manager numbers it; formats never look inside."""


def gettext_noop(message: str) -> str:
    """Marks ``message`` as a sentence to translate, and returns it unchanged.

    The pure layers (formats, money, the seasons' formats) may not import Django, so their
    refusals are English. Each is written as a ``%``-template marked by this function, which
    ``makemessages`` extracts (``gettext_noop`` is one of its keywords), with its values
    apart: the door that shows it to a reader translates the template with ``gettext`` in the
    reader's language and fills in the values (:class:`PairingError`'s ``template`` and
    ``params``)."""
    return message


class PairingError(ValueError):
    """A request a format cannot honour, with a message a tournament director can read.

    ``code`` names the kind of mistake (``"unknown_option"``, ``"too_few_entrants"``,
    ``"bad_result"``, ...) so a caller can translate or react without parsing the message.
    ``message`` is a ``%``-template (marked with :func:`gettext_noop`) and ``params`` its
    values: ``str()`` is the English sentence, ``gettext(error.template) % error.params`` the
    reader's.
    """

    def __init__(self, message: str, *, code: str = "invalid", **params: Any) -> None:
        super().__init__(message % params)
        self.code = code
        self.template = message
        self.params = params


class InternalPairingError(RuntimeError):
    """A format broke one of its own invariants: a bug, not something a director did."""


@dataclass(frozen=True, slots=True)
class Bye:
    """The empty side of a pairing. Use the :data:`BYE` constant; every ``Bye()`` is equal."""

    def __repr__(self) -> str:
        return "BYE"


BYE: Final = Bye()


class Outcome(StrEnum):
    """Which player of a slot a :class:`SlotRef` stands for."""

    WINNER = "winner"
    LOSER = "loser"


@dataclass(frozen=True, slots=True)
class SlotRef:
    """The winner (or loser) of slot X: a player an elimination bracket does not know yet."""

    slot: str
    outcome: Outcome

    @classmethod
    def winner_of(cls, slot: str) -> SlotRef:
        return cls(slot, Outcome.WINNER)

    @classmethod
    def loser_of(cls, slot: str) -> SlotRef:
        return cls(slot, Outcome.LOSER)

    def __repr__(self) -> str:
        return f"SlotRef.{self.outcome.value}_of({self.slot!r})"


Side: TypeAlias = EntrantId | Bye | SlotRef
"""One side of a pairing: an entrant, a bye, or a player still to come out of another slot."""


class Bracket(StrEnum):
    """Which part of a tournament a pairing belongs to (a plain string for the database)."""

    MAIN = "main"  # single elimination, Swiss, round robin
    WINNERS = "winners"
    LOSERS = "losers"
    FINAL = "final"  # double elimination's grand final (and its reset)
    CONSOLATION = "consolation"
    THIRD_PLACE = "third_place"  # the semi-final losers' match, single elimination
    LAST_CHANCE = "last_chance"  # progressive consolation's third flight
    KNOCKOUT = "knockout"  # a Swiss's final stage, for the players who made the cut


def is_entrant(side: object) -> bool:
    """True for an entrant id (an ``int`` that is not a ``bool``)."""
    return isinstance(side, int) and not isinstance(side, bool)


def side_notation(side: Side) -> str:
    """``"17"``, ``"bye"``, ``"winner:W1-3"`` or ``"loser:W1-3"``; :func:`parse_side` reads it."""
    if isinstance(side, Bye):
        return "bye"
    if isinstance(side, SlotRef):
        return f"{side.outcome.value}:{side.slot}"
    return str(side)


def parse_side(text: str) -> Side:
    """Parse what :func:`side_notation` wrote. Raises :class:`PairingError` on anything else."""
    if text == "bye":
        return BYE
    outcome, sep, slot = text.partition(":")
    if sep:
        if outcome in (Outcome.WINNER.value, Outcome.LOSER.value) and slot:
            return SlotRef(slot, Outcome(outcome))
    elif text.lstrip("-").isdigit():
        return int(text)
    raise PairingError(gettext_noop("%(text)r is not a pairing side."), code="bad_side", text=text)


@dataclass(frozen=True, slots=True)
class Pairing:
    """One match to play (or a bye) in a tournament.

    ``slot`` is a stable id, unique within the tournament: ``"M2-1"`` (single elimination, round
    2, first match from the top), ``"W1-3"``, ``"L2-1"``, ``"GF"``, ``"GF2"``, ``"C1-2"``
    (consolation), ``"R3-7"`` (Swiss and round robin, round 3, board 7). ``round`` counts within
    the ``bracket``. A pairing with :data:`BYE` on one side needs no match and no :class:`Result`:
    the format scores it itself (see each format for what a bye is worth). A pairing with
    :data:`BYE` on both sides is void: a conditional match the results made unnecessary (double
    elimination's ``GF2`` when the winners' bracket champion wins ``GF``).
    """

    slot: str
    round: int
    bracket: Bracket
    a: Side
    b: Side

    @property
    def is_bye(self) -> bool:
        """Exactly one side is :data:`BYE`: nothing to play."""
        return isinstance(self.a, Bye) != isinstance(self.b, Bye)

    @property
    def is_void(self) -> bool:
        """Both sides are :data:`BYE`: this match will not be played."""
        return isinstance(self.a, Bye) and isinstance(self.b, Bye)

    @property
    def is_playable(self) -> bool:
        """Both players are known entrants: a match can be started."""
        return is_entrant(self.a) and is_entrant(self.b)

    @property
    def is_known(self) -> bool:
        """Neither side waits for another slot's result."""
        return not isinstance(self.a, SlotRef) and not isinstance(self.b, SlotRef)

    @property
    def entrants(self) -> tuple[EntrantId, ...]:
        """The known entrants in this pairing (zero, one or two)."""
        return tuple(side for side in (self.a, self.b) if isinstance(side, int))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; :meth:`from_dict` reverses it."""
        return {
            "slot": self.slot,
            "round": self.round,
            "bracket": self.bracket.value,
            "a": side_notation(self.a),
            "b": side_notation(self.b),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Pairing:
        try:
            return cls(
                slot=str(data["slot"]),
                round=int(data["round"]),
                bracket=Bracket(data["bracket"]),
                a=parse_side(str(data["a"])),
                b=parse_side(str(data["b"])),
            )
        except (KeyError, ValueError) as error:
            if isinstance(error, PairingError):
                raise
            raise PairingError(gettext_noop("Not a stored pairing: %(data)r."), code="bad_pairing",
                               data=data) from error


@dataclass(frozen=True, slots=True)
class Result:
    """The outcome of one played pairing. Points are optional (round robin uses them).

    ``forfeit``: decided without the match being played out (a no-show, a withdrawal).
    ``both_lose``: a double forfeit (both players absent): neither won, both have a loss;
    ``winner`` and ``loser`` then just name the two players. In elimination neither goes
    through, so the next opponent has a bye (see :func:`Result.double_forfeit`).
    """

    slot: str
    winner: EntrantId
    loser: EntrantId
    winner_points: int | None = None
    loser_points: int | None = None
    forfeit: bool = False
    both_lose: bool = False

    @classmethod
    def double_forfeit(cls, slot: str, a: EntrantId, b: EntrantId) -> Result:
        """Both players of ``slot`` lose: nobody played, nobody goes through."""
        return cls(slot, a, b, forfeit=True, both_lose=True)


@dataclass(frozen=True)
class TournamentState:
    """What the manager knows about a tournament, as plain values.

    ``seeds``: the entrants, best seed first (see :func:`tournaments.formats.seed_order`).
    ``pairings``: every pairing the format returned so far, one per slot, the latest version of
    each (the manager updates a slot in place when the format returns it again with players).
    ``results``: one per played slot; byes have none.
    ``withdrawn``: entrants out of the tournament (withdrawn, disqualified, absent without
    notice). Swiss and round robin pair them no more; elimination keeps them in the draw
    (the manager forfeits their matches).
    """

    seeds: Sequence[EntrantId]
    pairings: Sequence[Pairing] = ()
    results: Sequence[Result] = ()
    withdrawn: AbstractSet[EntrantId] = frozenset()

    def __post_init__(self) -> None:
        # Stored as tuples so the state is really immutable whatever the caller passed.
        object.__setattr__(self, "seeds", tuple(self.seeds))
        object.__setattr__(self, "pairings", tuple(self.pairings))
        object.__setattr__(self, "results", tuple(self.results))
        object.__setattr__(self, "withdrawn", frozenset(self.withdrawn))

    def with_result(self, result: Result) -> TournamentState:
        return replace(self, results=(*self.results, result))

    def with_pairings(self, pairings: Iterable[Pairing]) -> TournamentState:
        """Add pairings, replacing any stored pairing with the same slot (as the manager does)."""
        by_slot = {pairing.slot: pairing for pairing in self.pairings}
        for pairing in pairings:
            by_slot[pairing.slot] = pairing
        return replace(self, pairings=tuple(by_slot.values()))


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of a standings table.

    ``rank`` is shared by entrants the format cannot separate (elimination: everybody who went
    out in the same round); Swiss and round robin break every tie, down to the seed.
    ``tiebreaks`` lists the format's tiebreak values in the order they were applied.
    """

    rank: int
    entrant: EntrantId
    seed: int
    wins: int
    losses: int
    byes: int = 0
    tiebreaks: tuple[tuple[str, int], ...] = ()

    def tiebreak(self, name: str) -> int:
        for key, value in self.tiebreaks:
            if key == name:
                return value
        raise KeyError(name)


@dataclass(frozen=True, slots=True)
class Placing:
    """A final place in one flight of a tournament: ``place`` 1 to 4 of ``flight``.

    A flight is the main event (:attr:`Bracket.MAIN`, for double elimination its winners',
    losers' and final brackets together), the consolation or the last chance. Places are
    shared where the format cannot separate players (both semi-final losers are 3rd when no
    third-place match is played).
    """

    flight: Bracket
    place: int
    entrant: EntrantId


_REQUIRED: Final = object()


@dataclass(frozen=True, slots=True)
class Option:
    """An option a format accepts: its type (``bool`` or ``int``), default and lower bound."""

    kind: type[bool] | type[int]
    help: str
    default: object = _REQUIRED
    minimum: int | None = None

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED


class Format(ABC):
    """A tournament format: a pure pairing generator. Subclasses set the class attributes.

    Constructed with the director's options, validated at once (:class:`PairingError` for an
    unknown, missing or ill-typed option). Every method taking a state checks its results and
    raises :class:`PairingError` for one that does not fit (unknown slot, a bye, a match whose
    players are not both known yet, a winner or loser who is not in the pairing, two results for
    one slot).

    How a manager drives any format::

        fmt = get_format("swiss", rounds=5)
        store(fmt.start(seeds))                 # create a row per pairing
        ...each time a result is recorded (and once after start)...
        for pairing in fmt.next_pairings(state):
            upsert_by_slot(pairing)             # new slot, or players now known
            if pairing.is_playable: start_match_once(pairing)
        if fmt.is_finished(state): close(fmt.standings(state), fmt.champion(state))
    """

    name: ClassVar[str]
    label: ClassVar[str]
    requires_prev_results: ClassVar[bool]
    """True if a round can only be paired once the previous round's results are in (Swiss).
    False if every pairing is fixed at the start, players arriving through slot references."""
    option_specs: ClassVar[Mapping[str, Option]] = MappingProxyType({})

    options: Mapping[str, object]

    def __init__(self, **options: object) -> None:
        self.options = MappingProxyType(self._validate_options(options))

    @classmethod
    def _validate_options(cls, options: Mapping[str, object]) -> dict[str, object]:
        unknown = sorted(set(options) - set(cls.option_specs))
        if unknown:
            allowed = ", ".join(sorted(cls.option_specs)) or "none"
            raise PairingError(
                gettext_noop("Unknown option %(names)s for %(label)s (allowed: %(allowed)s)."),
                code="unknown_option",
            names=', '.join(unknown), label=cls.label, allowed=allowed)
        clean: dict[str, object] = {}
        for key, spec in cls.option_specs.items():
            if key not in options:
                if spec.required:
                    raise PairingError(
                        gettext_noop("%(label)s needs the option %(key)s "
                                     "(%(help)s)."), code="missing_option"
                    , label=cls.label, key=key, help=spec.help)
                clean[key] = spec.default
                continue
            value = options[key]
            # bool is an int in Python; an option that counts must not accept True.
            right_type = isinstance(value, bool) if spec.kind is bool else is_entrant(value)
            if not right_type:
                raise PairingError(
                    gettext_noop("Option %(key)s of %(label)s must be %(name__)s, not %(value)r."),
                    code="bad_option",
                key=key, label=cls.label, name__=spec.kind.__name__, value=value)
            if spec.minimum is not None and isinstance(value, int) and value < spec.minimum:
                raise PairingError(
                    gettext_noop("Option %(key)s of %(label)s must be at least %(minimum)s, not "
                                 "%(value)s."),
                    code="bad_option",
                key=key, label=cls.label, minimum=spec.minimum, value=value)
            clean[key] = value
        return clean

    def __repr__(self) -> str:
        args = ", ".join(f"{key}={value!r}" for key, value in self.options.items())
        return f"get_format({self.name!r}{', ' if args else ''}{args})"

    @abstractmethod
    def start(self, seeds: Sequence[EntrantId]) -> list[Pairing]:
        """The pairings known before any result: the whole bracket with :class:`SlotRef` sides
        (elimination), every round (round robin) or round 1 (Swiss).

        Raises :class:`PairingError` for fewer than two entrants or a repeated entrant.
        """

    @abstractmethod
    def next_pairings(self, state: TournamentState) -> list[Pairing]:
        """The pairings the manager must act on now, each with both sides known.

        That is every playable pairing still without a result (returned again on every call
        until its result is recorded: the call is idempotent), and every pairing that is new or
        whose players became known since ``state.pairings`` was stored (a new Swiss round,
        with its bye). The manager upserts them by slot and starts a match for each playable
        one that has none. Empty when nothing can be played now.
        """

    @abstractmethod
    def resolved_pairings(self, state: TournamentState) -> list[Pairing]:
        """Every pairing so far with as many sides filled in as the results allow: the bracket
        (or round list) to show."""

    @abstractmethod
    def standings(self, state: TournamentState) -> list[Standing]:
        """Every entrant, best first, with the format's tiebreaks."""

    @abstractmethod
    def champion(self, state: TournamentState) -> EntrantId | None:
        """The winner once the tournament is finished, else ``None``."""

    def is_finished(self, state: TournamentState) -> bool:
        """True once every pairing that will ever be played has its result."""
        return self.champion(state) is not None

    def placings(
        self, state: TournamentState, unplaced: AbstractSet[EntrantId] = frozenset()
    ) -> list[Placing]:
        """Places 1 to 4 of each flight whose places are settled, best first.

        By default the main flight only, once the tournament is finished: the standings'
        ranks 1 to 4 (Swiss and round robin break every tie, so these are four players).
        Elimination formats settle each flight on its own (see there).

        ``unplaced``: entrants who get no place (a disqualified player who forfeits their
        prize, a player who never sat down): the places below move up (:func:`rerank`).
        """
        if not self.is_finished(state):
            return []
        return [
            Placing(Bracket.MAIN, line.rank, line.entrant)
            for line in rerank(self.standings(state), unplaced)
            if line.rank <= 4
        ]

    def annulled_results(self, state: TournamentState) -> frozenset[str]:
        """The slots whose recorded result does not count (none, but in a round robin: the
        games of a player who left before playing half of them). Published results show
        them as annulled, not as wins."""
        return frozenset()

    def check_result(self, state: TournamentState, result: Result) -> None:
        """Raise :class:`PairingError` unless ``result`` can be recorded now: its slot is being
        played (both players known, not a bye, no result yet) and it names those two players."""
        self.resolved_pairings(state.with_result(result))


def rerank(lines: Sequence[Standing], unplaced: AbstractSet[EntrantId]) -> list[Standing]:
    """``lines`` without the ``unplaced`` entrants, ranked again: each keeps its order and
    ties, and its rank is one more than the number of kept lines ranked strictly better
    (so a place left by an unplaced player passes down).

    >>> lines = [Standing(1, 7, 1, 3, 0), Standing(2, 8, 2, 2, 1), Standing(3, 9, 3, 1, 2),
    ...          Standing(3, 5, 4, 1, 2)]
    >>> [(line.rank, line.entrant) for line in rerank(lines, {8})]
    [(1, 7), (2, 9), (2, 5)]
    """
    kept = [line for line in lines if line.entrant not in unplaced]
    return [replace(line, rank=1 + sum(1 for other in kept if other.rank < line.rank))
            for line in kept]


def check_seeds(seeds: Sequence[EntrantId]) -> tuple[EntrantId, ...]:
    """The seeds as a tuple; :class:`PairingError` unless two or more distinct entrant ids."""
    entrants = tuple(seeds)
    if any(not is_entrant(entrant) for entrant in entrants):
        raise PairingError(gettext_noop("Entrants must be integer ids."), code="bad_entrant")
    if len(entrants) < 2:
        raise PairingError(
            gettext_noop("A tournament needs at least two entrants, not %(count)s."),
            code="too_few_entrants",
        count=len(entrants))
    if len(set(entrants)) != len(entrants):
        repeated = sorted({e for e in entrants if entrants.count(e) > 1})
        raise PairingError(
            gettext_noop("Entrant %(names)s is listed twice."), code="duplicate_entrant"
        , names=', '.join(map(str, repeated)))
    return entrants


def index_results(
    results: Iterable[Result], known_slots: Mapping[str, object] | set[str]
) -> dict[str, Result]:
    """Results by slot; :class:`PairingError` for an unknown slot or two results for one."""
    by_slot: dict[str, Result] = {}
    for result in results:
        if result.slot not in known_slots:
            raise PairingError(
                gettext_noop("There is no match %(slot)s in this tournament."), code="unknown_slot"
            , slot=result.slot)
        if result.slot in by_slot:
            raise PairingError(
                gettext_noop("Match %(slot)s already has a result."), code="duplicate_result"
            , slot=result.slot)
        by_slot[result.slot] = result
    return by_slot


def check_result_fits(pairing: Pairing, result: Result) -> None:
    """:class:`PairingError` unless ``result`` names the two players of a playable ``pairing``."""
    if pairing.is_bye:
        raise PairingError(gettext_noop("%(slot)s is a bye: it needs no result."),
                           code="bye_result", slot=pairing.slot)
    if not pairing.is_playable:
        raise PairingError(
            gettext_noop("%(slot)s cannot have a result yet: its players are not both known."),
            code="slot_not_ready",
        slot=pairing.slot)
    if result.winner == result.loser or {result.winner, result.loser} != {pairing.a, pairing.b}:
        raise PairingError(
            gettext_noop("%(winner)s beating %(loser)s is not a result of %(slot)s (%(a)s v "
                         "%(b)s)."),
            code="bad_result",
        winner=result.winner, loser=result.loser, slot=pairing.slot, a=pairing.a, b=pairing.b)
