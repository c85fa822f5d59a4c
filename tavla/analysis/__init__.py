"""Match analysis on GNU Backgammon's neural nets (the PyPI ``gnubg`` package).

No Django here: ``read_mat`` turns a Jellyfish ``.mat`` into plain values, ``analyse_record``
evaluates every decision, :mod:`tavla.analysis.bots` chooses a bot's actions. Only
:mod:`tavla.analysis.evaluator` imports gnubg. ``python -m tavla.analysis FILE.mat`` is the
command line.
"""

from tavla.analysis.analyse import (
    Decision,
    MatchAnalysis,
    PlayerSummary,
    analyse_mat,
    analyse_record,
)
from tavla.analysis.matread import MatFileError, MatRecord, read_mat

__all__ = [
    "Decision",
    "MatFileError",
    "MatRecord",
    "MatchAnalysis",
    "PlayerSummary",
    "analyse_mat",
    "analyse_record",
    "read_mat",
]
