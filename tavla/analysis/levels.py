"""How hard gnubg thinks, as plain values: an evaluation :class:`Level` and the bots' named
strengths. No gnubg here, so a web process can offer the strengths and create bot players
without loading the evaluator (see :mod:`tavla.analysis.gnubg_guard`).

Strengths follow gnubg's own player levels: the weaker ones evaluate at 0-ply with noise
added to every evaluation (gnubg's "beginner" adds 0.060 equity, "intermediate" 0.040,
"advanced" 0.015); "world class" is gnubg's 2-ply without noise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Level:
    """How deep gnubg looks: ``plies`` 0-2 (pruned nets above 0, as gnubg's levels), and the
    noise gnubg adds to its evaluations (a weaker player; 0 for analysis)."""

    plies: int = 0
    noise: float = 0.0


@dataclass(frozen=True, slots=True)
class Strength:
    key: str
    label: str
    level: Level


STRENGTHS: Final = {
    strength.key: strength
    for strength in (
        Strength("beginner", "Beginner", Level(0, 0.060)),
        Strength("intermediate", "Intermediate", Level(0, 0.040)),
        Strength("advanced", "Advanced", Level(0, 0.015)),
        Strength("world_class", "World class", Level(2, 0.0)),
    )
}


def strength(key: str) -> Strength:
    """The strength called ``key``; raises ValueError for an unknown one."""
    try:
        return STRENGTHS[key]
    except KeyError:
        raise ValueError(
            f"unknown bot strength {key!r}; choose one of {', '.join(STRENGTHS)}"
        ) from None
