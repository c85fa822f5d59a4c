"""One plain Redis client per Redis URL and process, for Tavla's own keys (presence, the
clock sweep's marks, the workers' heartbeats)."""

from __future__ import annotations

import threading

import redis
from django.conf import settings

_clients: dict[str, redis.Redis] = {}
_clients_lock = threading.Lock()


def redis_client() -> redis.Redis:
    """The client (and connection pool) of ``settings.REDIS_URL`` for this process.

    Short timeouts: a caller that must not hang on a dead Redis gets ``redis.RedisError``.
    """
    url = settings.REDIS_URL
    with _clients_lock:
        client = _clients.get(url)
        if client is None:
            client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
            _clients[url] = client
        return client
