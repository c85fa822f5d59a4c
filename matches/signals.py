"""Signals other apps listen to (tournaments advance their brackets on ``match_finished``).

Sent inside the transaction that finished the match, so a receiver's writes commit or roll
back with it.
"""

from django.dispatch import Signal

# Sent with ``match`` and ``state`` (its engine state) after every change of a match is
# written (:mod:`matches.services.change`), inside its transaction. The bots
# (:mod:`matches.gnubg.bots`) queue their turn: the services sit below the bots and do not
# import them, so this is their one way up.
match_changed = Signal()

# Sent with ``match`` (a finished :class:`matches.models.Match`).
match_finished = Signal()

# Sent with ``table`` before a rematch starts there; a receiver returning a reason (text)
# refuses it (tournaments: a pairing's table is for its one match).
rematch_requested = Signal()

