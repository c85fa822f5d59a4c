"""Every error the engine raises: a ``ValueError`` subclass with a message a referee can read."""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of every error raised by :mod:`tavla.engine`."""


class InvalidPositionError(EngineError):
    """A position that cannot exist (wrong checker count, both sides on one point, ...)."""


class InvalidPositionIdError(EngineError):
    """A string that is not a valid GNU Backgammon Position ID."""


class InvalidMatchIdError(EngineError):
    """A string that is not a valid GNU Backgammon Match ID."""


class InvalidDiceError(EngineError):
    """Dice outside 1..6, or not a pair."""


class InvalidNotationError(EngineError):
    """Play notation that cannot be parsed (``"24/18 13/10"`` is the expected form)."""


class IllegalPlayError(EngineError):
    """A play that is not among the legal plays for the position and roll."""


class IllegalActionError(EngineError):
    """A game action (roll, double, take, drop, resign, play) not allowed in the current state."""


class InvalidXgidError(EngineError):
    """A string that is not a valid eXtreme Gammon XGID."""
