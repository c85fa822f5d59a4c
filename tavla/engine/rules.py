"""What a table plays (:class:`Rules`) and a pending resignation offer (:class:`ResignOffer`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from tavla.engine.errors import EngineError
from tavla.engine.game import JSON, Seat, WinKind

MAX_CUBE: Final = 64
RESIGNATION_STYLES: Final = ("single", "offer")
LEVEL_KINDS: Final = {1: WinKind.SINGLE, 2: WinKind.GAMMON, 3: WinKind.BACKGAMMON}


@dataclass(frozen=True, slots=True)
class ResignOffer:
    """A pending resignation: ``player`` offers to lose ``level`` (1..3) times the cube."""

    player: Seat
    level: int

    @property
    def kind(self) -> WinKind:
        return LEVEL_KINDS[self.level]

    def to_dict(self) -> JSON:
        return {"player": self.player, "level": self.level}


@dataclass(frozen=True, slots=True)
class Rules:
    """What a table plays. ``match_length`` ``None`` is a money session.

    * ``cube`` -- the doubling cube is used.
    * ``gammons`` -- gammons and backgammons count (off: every win is 1 times the cube).
    * ``crawford`` -- the Crawford rule (matches only; ignored in a money session).
    * ``max_cube`` -- no double beyond this value (a power of two, at most 64).
    * ``flag_loses_match`` -- a timeout loses the match (USBGF) instead of the game.
    * ``resignation`` -- ``"single"``: a resignation ends the game at once, a single game
      times the cube; ``"offer"``: a player offers to resign a single game, a gammon or a
      backgammon, and the opponent accepts or refuses (FIBS, gnubg, WBF).
    """

    match_length: int | None = None
    cube: bool = True
    gammons: bool = True
    crawford: bool = True
    max_cube: int = MAX_CUBE
    flag_loses_match: bool = False
    resignation: str = "single"

    def __post_init__(self) -> None:
        length = self.match_length
        if length is not None and (
            isinstance(length, bool) or not isinstance(length, int) or not 1 <= length <= 0x7FFF
        ):
            raise EngineError(f"a match length is a whole number of points, not {length!r}")
        cap = self.max_cube
        if isinstance(cap, bool) or not isinstance(cap, int) or not 2 <= cap <= MAX_CUBE:
            raise EngineError(f"the cube limit is a power of two from 2 to 64, not {cap!r}")
        if cap & (cap - 1):
            raise EngineError(f"the cube limit is a power of two from 2 to 64, not {cap!r}")
        if self.resignation not in RESIGNATION_STYLES:
            raise EngineError(
                f"resignation is 'single' or 'offer', not {self.resignation!r}"
            )

    @property
    def is_money(self) -> bool:
        return self.match_length is None

    def to_dict(self) -> JSON:
        return {
            "match_length": self.match_length,
            "cube": self.cube,
            "gammons": self.gammons,
            "crawford": self.crawford,
            "max_cube": self.max_cube,
            "flag_loses_match": self.flag_loses_match,
            "resignation": self.resignation,
        }

    @classmethod
    def from_dict(cls, data: JSON) -> Rules:
        length = data.get("match_length")
        return cls(
            match_length=None if length is None else int(length),
            cube=bool(data.get("cube", True)),
            gammons=bool(data.get("gammons", True)),
            crawford=bool(data.get("crawford", True)),
            max_cube=int(data.get("max_cube", MAX_CUBE)),
            flag_loses_match=bool(data.get("flag_loses_match", False)),
            resignation=str(data.get("resignation", "single")),
        )
