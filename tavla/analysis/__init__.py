"""Match analysis on GNU Backgammon's neural nets (the PyPI ``gnubg`` package).

No Django here: :mod:`tavla.analysis.matread` turns a Jellyfish ``.mat`` into plain values,
:mod:`tavla.analysis.analyse` evaluates every decision (``analyse_record``,
``analyse_mat``), :mod:`tavla.analysis.bots` chooses a bot's actions and
:mod:`tavla.analysis.adjudication` gives a referee the match-winning chances. Only
:mod:`tavla.analysis.evaluator` imports gnubg, and a web process refuses to load it
(:mod:`tavla.analysis.gnubg_guard`): importing this package itself loads no gnubg, so the
site can read ``.mat`` files and name the bots' strengths (:mod:`tavla.analysis.levels`)
anywhere. ``python -m tavla.analysis FILE.mat`` is the command line.
"""

from tavla.analysis.matread import MatFileError, MatRecord, read_mat

__all__ = ["MatFileError", "MatRecord", "read_mat"]
