"""How hard gnubg thinks, as plain values: an evaluation :class:`Level` and the bots' named
strengths. No gnubg here, so a web process can offer the strengths and create bot players
without loading the evaluator (see :mod:`tavla.analysis.gnubg_guard`).

The strengths are GNU Backgammon 1.07's own predefined levels (``aecSettings`` in gnubg's
``eval.c``), with the same names and the same evaluation: the weaker ones are 0-ply with
noise added by gnubg's evaluator to every neural-net output, and that noise is
*deterministic* (gnubg hashes the board: the same position always gets the same noise, so
a weak level repeats its mistakes as gnubg's does); "expert" is 0-ply without noise and
"world class" 2-ply with pruning. The noise is the only random element of a bot's choice
(:mod:`tavla.analysis.bots`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Level:
    """How deep gnubg looks: ``plies`` 0-2 (pruned nets above 0, as gnubg's levels), and the
    standard deviation of the noise gnubg adds to each output of its evaluations (a weaker
    player; 0 for analysis)."""

    plies: int = 0
    noise: float = 0.0


@dataclass(frozen=True, slots=True)
class Strength:
    """A named level: ``label`` is gnubg 1.07's name, ``gnubg_noise`` the noise gnubg 1.07
    gives it, ``level`` what the bot evaluates with (see :data:`STRENGTHS`)."""

    key: str
    label: str
    level: Level
    gnubg_noise: float = 0.0


#: gnubg 1.07's levels, weakest first (its "supremo" and above are deeper than a live
#: table can wait for). The keys stored on bot players stay valid: "beginner",
#: "intermediate", "advanced" and "world_class" mean what they always meant.
#:
#: The noise is calibrated, not copied: gnubg 1.07 adds its noise (standard deviation
#: ``gnubg_noise``) to each of the five outputs of the net, while the gnubg package Tavla
#: evaluates with (a 1.08 development build) adds it mostly to the winning chance and far
#: less to the gammon chances, so at the same figure its players err less, above all with
#: the cube (gnubg 1.07's beginner PR 27.0, the package's at 0.060 22.6). Each level's
#: figure is the one whose PR, judged by gnubg 1.07, is gnubg 1.07's own level's
#: (``benchmarks/bot_levels.py`` measures it; docs/analysis.md, "Bots", has the table).
#: Calibrated with the package's own nets; measured again with gnubg 1.07's (the default,
#: :mod:`tavla.analysis.nets`), every level is still within 15 % of gnubg's.
STRENGTHS: Final = {
    strength.key: strength
    for strength in (
        Strength("beginner", "Beginner", Level(0, 0.071), 0.060),
        Strength("casual_player", "Casual player", Level(0, 0.059), 0.050),
        Strength("intermediate", "Intermediate", Level(0, 0.042), 0.040),
        Strength("advanced", "Advanced", Level(0, 0.0172), 0.015),
        Strength("expert", "Expert", Level(0, 0.0)),
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
