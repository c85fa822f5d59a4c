"""JSON text on the action path, through orjson: an action's stored state and its push are
encoded, and the state decoded, on every action, and the standard library's ``json`` was a
tenth of a web process's CPU under load (``benchmarks/live_load.py``, py-spy). orjson gives
the same values back (compact text, UTF-8 rather than ``\\u`` escapes); what it refuses
(integers beyond 64 bits, JSON's non-standard ``NaN``) goes through ``json`` as before."""

from __future__ import annotations

import json
from typing import Any

import orjson


def dumps(value: Any) -> str:
    """``json.dumps(value)``, faster."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(value)


def loads(text: str | bytes) -> Any:
    """``json.loads(text)``, faster."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)
