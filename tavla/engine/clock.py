"""Match clocks as pure values: a per-move delay plus a reserve for the whole match.

The model of tournament backgammon (USBGF, UK Open, Backgammon Galaxy): time spent within the
delay of a move is free; only the excess is taken from the player's reserve. ``now`` is always
passed in (seconds since the epoch, as floats) so nothing here reads a clock or sleeps.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

SECONDS_PER_DAY: Final = 86400.0


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A table's time control. ``reserve_per_point`` (if set) wins over ``reserve_seconds``."""

    delay: float = 12.0
    reserve_seconds: float = 0.0
    reserve_per_point: float = 120.0
    grace: float = 60.0

    def reserve_for(self, match_length: int | None) -> float:
        """The reserve each player starts a match with (a money session counts as one point)."""
        if self.reserve_per_point:
            return self.reserve_per_point * max(1, match_length or 1)
        return self.reserve_seconds


PRESETS: Final[dict[str, TimeControl | None]] = {
    "none": None,
    "fast": TimeControl(delay=8, reserve_per_point=20),
    "normal": TimeControl(delay=10, reserve_per_point=60),
    "casual": TimeControl(delay=15, reserve_per_point=180),
    "usbgf": TimeControl(delay=12, reserve_per_point=120),
}


# Correspondence play: not a fixed time control but days per decision, a table's rule
# (``correspondence_days``); the preset of that name sets it (matches.services.tables).
CORRESPONDENCE_PRESET: Final = "correspondence"
TABLE_PRESETS: Final = (*PRESETS, CORRESPONDENCE_PRESET)


@dataclass(frozen=True, slots=True)
class Clock:
    """Both reserves and, while a player must act, who and since when."""

    delay: float
    reserves: tuple[float, float]
    running: int | None = None
    started_at: float | None = None

    @classmethod
    def for_match(cls, control: TimeControl, match_length: int | None) -> Clock:
        reserve = control.reserve_for(match_length)
        return cls(delay=control.delay, reserves=(reserve, reserve))

    def start(self, player: int, now: float) -> Clock:
        """Start ``player``'s clock, first charging whoever was running until ``now``."""
        return replace(self.stop(now), running=player, started_at=now)

    def stop(self, now: float) -> Clock:
        """Stop the running clock, charging the time used beyond the delay to its reserve."""
        if self.running is None or self.started_at is None:
            return self
        used = max(0.0, now - self.started_at - self.delay)
        reserves = list(self.reserves)
        reserves[self.running] = max(0.0, reserves[self.running] - used)
        return Clock(self.delay, (reserves[0], reserves[1]))

    def extend(self, seconds: float) -> Clock:
        """The running clock with its turn's deadline moved by ``seconds`` (a correspondence
        player's vacation; negative gives back what was not used). The turn's start moves,
        so the time it charges and its deadline stay one rule."""
        if self.running is None or self.started_at is None:
            return self
        return replace(self, started_at=self.started_at + seconds)

    def deadline(self) -> float | None:
        """The absolute time at which the running player's flag falls (None when stopped)."""
        if self.running is None or self.started_at is None:
            return None
        return self.started_at + self.delay + self.reserves[self.running]

    def remaining(self, player: int, now: float) -> float:
        """Reserve ``player`` would have left if their clock stopped at ``now``."""
        return self.stop(now).reserves[player] if self.running == player else self.reserves[player]

    def is_expired(self, now: float) -> bool:
        deadline = self.deadline()
        return deadline is not None and now >= deadline

    def flag(self, player: int) -> Clock:
        """After a flag the player goes on with the delay only: their reserve is spent."""
        reserves = list(self.reserves)
        reserves[player] = 0.0
        return Clock(self.delay, (reserves[0], reserves[1]))

    def to_dict(self) -> dict[str, object]:
        return {
            "delay": self.delay,
            "reserves": list(self.reserves),
            "running": self.running,
            "started_at": self.started_at,
        }

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Clock:
        reserves = data["reserves"]
        assert isinstance(reserves, list)
        running = data["running"]
        started_at = data["started_at"]
        delay = data["delay"]
        assert isinstance(delay, (int, float))
        return cls(
            delay=float(delay),
            reserves=(float(reserves[0]), float(reserves[1])),
            running=running if isinstance(running, int) else None,
            started_at=float(started_at) if isinstance(started_at, (int, float)) else None,
        )
