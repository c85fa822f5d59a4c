"""The open sockets' places in the shared counts (``matches.live.shared_limits``), renewed.

Each admitted socket holds a lease that ends three presence heartbeats after it was last
renewed. One task per event loop renews every lease of the process in one Redis round trip
each heartbeat (as the boards' presence is renewed, ``matches.services.presence``); when the
process dies the renewals stop and the leases end on their own.
"""

from __future__ import annotations

from matches.live import shared_limits
from tavla import metrics
from tavla.heartbeats import Heartbeats


def lease_heartbeats() -> Heartbeats:
    """The running loop's leases, renewed together (:mod:`tavla.heartbeats`)."""
    return Heartbeats.of_running_loop("socket-leases", shared_limits.renew, _count_error)


def _count_error() -> None:
    metrics.record_error("limits")
