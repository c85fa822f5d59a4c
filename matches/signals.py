"""Signals other apps listen to (tournaments advance their brackets on ``match_finished``).

Sent inside the transaction that finished the match, so a receiver's writes commit or roll
back with it.
"""

from django.dispatch import Signal

# Sent with ``match`` (a finished :class:`matches.models.Match`).
match_finished = Signal()
