"""Every check of what a client sends, in one place: both doors and the services call it.

The REST API (:mod:`matches.rest.views`), the table socket (:mod:`matches.live.consumers`)
and the services themselves (:func:`matches.services.match_act`,
:func:`matches.services.dice_seeds.match_client_seed`) read a player's action, client seed,
seat and a new table's options through these functions, so the same bad input gets the same code at
every door (``tests/matches/test_two_doors.py`` sends each through both). Each function
takes the decoded JSON value as it came (anything) and returns a clean, typed value, or raises
:class:`~matches.errors.ServiceError` with a code of ``docs/protocol.md`` ("Errors"). Values
are JSON's: a number is never read from a string, a boolean is never a number.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Final

from django.utils.translation import gettext as _

from matches.errors import ServiceError
from matches.models import Player
from matches.rules import RULES, Rule
from tavla.engine.clock import PRESETS, TABLE_PRESETS
from tavla.engine.dice import MAX_CLIENT_SEED_BYTES

PLAYER_ACTIONS: Final = ("roll", "double", "take", "drop", "play", "resign", "accept_resign",
                         "reject_resign")
# What a player may ask at either door: the actions of a game, and ending a money session.
ACTIONS: Final = (*PLAYER_ACTIONS, "end_session")
RESIGN_LEVELS: Final = (1, 2, 3)
SEATS: Final = (0, 1)
MAX_PLAY_LENGTH: Final = 100  # "bar/24* 24/18 18/13 13/7(2)" is 30; nothing legal is longer
MAX_INVITE_LENGTH: Final = 64
MAX_TABLE_NAME: Final = 80
MAX_SECONDS: Final = 86_400.0  # a clock field beyond a day is a typing slip, not a rule
MAX_ID: Final = 2**63 - 1  # ids are 64-bit: a larger number is bad input, not an overflow
_HEX_SEED: Final = re.compile(rf"(?:[0-9a-fA-F]{{2}}){{0,{MAX_CLIENT_SEED_BYTES}}}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def message_object(content: Any) -> dict[str, Any]:
    """A socket message or a REST body: one JSON object. Raises ``bad_request``."""
    if not isinstance(content, dict):
        raise ServiceError("bad_request", _("Send one JSON object."))
    return content


def object_id(value: Any, name: str) -> int:
    """A match's, table's or player's id: a positive JSON integer. Raises ``bad_request``."""
    if not _is_int(value) or not 1 <= value <= MAX_ID:
        raise ServiceError("bad_request",
                           _("%(name)s is an id: a positive whole number.") % {"name": name},
                           field=name)
    return int(value)


# -- actions ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ActionInput:
    """An action as a player asked for it, checked: what :func:`matches.services.match_act`
    (or, for ``end_session``, :func:`matches.services.match_end_session`) takes."""

    action: str
    expected_version: int
    play: str | None = None
    level: int | None = None
    match_id: int | None = None


def action_name(value: Any, allowed: tuple[str, ...] = ACTIONS) -> str:
    """An action's name. Raises ``bad_request`` when missing, ``unknown_action`` otherwise."""
    if value is None:
        raise ServiceError("bad_request", _("action is required: one of %(names)s.")
                           % {"names": ", ".join(allowed)}, field="action")
    if not isinstance(value, str) or value not in allowed:
        raise ServiceError("unknown_action",
                           _("Unknown action %(action)r; expected one of %(names)s.")
                           % {"action": value, "names": ", ".join(allowed)}, field="action")
    return value


def expected_version(value: Any) -> int:
    """The version the action was made against: a JSON integer, 0 or more. Raises
    ``bad_request``."""
    if not _is_int(value) or value < 0:
        raise ServiceError("bad_request", _("expected_version (the state's version, a whole "
                           "number) is required."), field="expected_version")
    return int(value)


def play_notation(action: str, value: Any) -> str | None:
    """The play of ``action=play``: its notation as in ``legal_plays[].notation`` (``''``
    passes), trimmed; ``None`` for any other action. Raises ``invalid_play`` for a play
    without notation, a notation that is not a short string, or a play on another action."""
    if action != "play":
        if value is None or value == "":
            return None
        raise ServiceError("invalid_play", _("Only action=play takes a play."), field="play")
    if not isinstance(value, str) or len(value) > MAX_PLAY_LENGTH:
        raise ServiceError("invalid_play", _("A play needs its notation, such as '24/18 13/10' "
                           "(one of legal_plays[].notation)."), field="play")
    return value.strip()


def resign_level(action: str, value: Any) -> int | None:
    """A resignation's level (1 single game, 2 gammon, 3 backgammon); ``None`` when not given.
    Raises ``invalid_level`` for another value, or a level on another action."""
    if value is None:
        return None
    if action != "resign" or not _is_int(value) or value not in RESIGN_LEVELS:
        raise ServiceError("invalid_level", _("A resignation level is 1 (single game), 2 "
                           "(gammon) or 3 (backgammon), and only a resignation has one."),
                           field="level")
    return int(value)


def action_arguments(action: Any, play: Any, level: Any) -> tuple[str, str | None, int | None]:
    """The checked ``(action, play, level)`` of a game action (not ``end_session``), as
    :func:`matches.services.match_act` takes them. Raises as :func:`action_name`,
    :func:`play_notation` and :func:`resign_level`."""
    name = action_name(action, PLAYER_ACTIONS)
    return name, play_notation(name, play), resign_level(name, level)


def action_input(data: Any, *, with_match_id: bool = False) -> ActionInput:
    """A REST action body or a socket ``action`` message, checked in one order (shape,
    action, expected_version, play, level, match_id) so both doors refuse the same mistake
    with the same code. ``with_match_id``: the message may name its match (the socket;
    REST names it in the URL)."""
    data = message_object(data)
    name = action_name(data.get("action"))
    version = expected_version(data.get("expected_version"))
    play = play_notation(name, data.get("play"))
    level = resign_level(name, data.get("level"))
    match_id = None
    if with_match_id and data.get("match_id") is not None:
        match_id = object_id(data["match_id"], "match_id")
    return ActionInput(name, version, play, level, match_id)


# -- client seeds, seats ---------------------------------------------------------------------


def client_seed(value: Any) -> str:
    """A client seed: 0 to 64 bytes written in hex, two digits a byte, nothing else (no
    spaces, no number). Returns it in lower case, as the dice audit records it. Raises
    ``invalid_seed``."""
    if not isinstance(value, str) or not _HEX_SEED.fullmatch(value):
        raise ServiceError("invalid_seed",
                           _("A client seed is 0 to %(bytes)s bytes in hex: a string of an even "
                             "number of the digits 0-9 and a-f, at most %(digits)s.")
                           % {"bytes": MAX_CLIENT_SEED_BYTES, "digits": 2 * MAX_CLIENT_SEED_BYTES},
                           field="seed")
    return value.lower()


def seat(value: Any) -> int | None:
    """A seat: 0, 1, or ``None`` (absent: the first free seat). Raises ``invalid_seat``."""
    if value is None:
        return None
    if not _is_int(value) or value not in SEATS:
        raise ServiceError("invalid_seat", _("A table has seats 0 and 1 (or send none for the "
                           "first free seat)."), field="seat")
    return int(value)


def invite(value: Any) -> str | None:
    """A private table's invitation token, or ``None``. Raises ``bad_request``."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > MAX_INVITE_LENGTH:
        raise ServiceError("bad_request", _("invite is the invitation token of the table's link."),
                           field="invite")
    return value


@dataclass(frozen=True)
class SitInput:
    seat: int | None
    invite: str | None


def sit_input(data: Any) -> SitInput:
    """A REST sit body or a socket ``sit`` message: an optional ``seat`` and ``invite``."""
    data = message_object(data)
    return SitInput(seat(data.get("seat")), invite(data.get("invite")))


# -- a new table's options -------------------------------------------------------------------


@dataclass(frozen=True)
class TableOptions:
    """A new table's name and options, checked: what :func:`matches.services.table_create`
    takes."""

    name: str
    clock_preset: str | None = None
    reserve_for: Player | None = None
    rules: dict[str, Any] = field(default_factory=dict)


def _rule_value(rule: Rule, value: Any) -> Any:
    """``value`` for ``rule``, or ``invalid_option``."""
    if rule.kind == "flag":
        if isinstance(value, bool):
            return value
        raise ServiceError("invalid_option",
                           _("%(name)s is true or false.") % {"name": rule.name}, field=rule.name)
    if rule.kind == "seconds":
        if (isinstance(value, (int, float)) and not isinstance(value, bool)
                and math.isfinite(value) and 0 <= value <= MAX_SECONDS):
            return float(value)
        raise ServiceError("invalid_option",
                           _("%(name)s is a number of seconds from 0 to %(max_seconds).0f.")
                           % {"name": rule.name, "max_seconds": MAX_SECONDS},
                           field=rule.name)
    if rule.kind == "points":
        if value is None:
            return None
        low = rule.min_value if rule.min_value is not None else 1
        high = rule.max_value if rule.max_value is not None else MAX_ID
        if _is_int(value) and low <= value <= high:
            return int(value)
        raise ServiceError("invalid_option",
                           _("%(name)s is a whole number from %(low)s to %(high)s, or null.")
                           % {"name": rule.name, "low": low, "high": high},
                           field=rule.name)
    assert rule.choices is not None, f"{rule.name}: a choice needs its choices"
    if isinstance(value, str) and value in rule.choices.values:
        return value
    raise ServiceError("invalid_option",
                       _("%(name)s is one of: %(names)s.")
                       % {"name": rule.name, "names": ", ".join(rule.choices.values)},
                       field=rule.name)


def table_options(data: Any, *, creator: Player | None = None) -> TableOptions:
    """A new table's ``name`` (1 to 80 characters), an optional ``clock_preset`` (a name of
    ``tavla.engine.clock.PRESETS``), an optional ``reserve_for`` (another player's id) and any
    option of :data:`matches.rules.RULES`. Raises ``bad_request`` for a body that is not an
    object, ``invalid_option`` for anything else wrong: an unknown key, a value of the wrong
    type or out of range, an unknown preset, a reservation for nobody or for the creator."""
    data = message_object(data)
    rules = {rule.name: rule for rule in RULES}
    unknown = sorted(set(data) - {"name", "clock_preset", "reserve_for", *rules})
    if unknown:
        raise ServiceError("invalid_option", _("Unknown table options: %(names)s.")
                           % {"names": ", ".join(str(key) for key in unknown)},
                           field=str(unknown[0]))
    name = data.get("name")
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > MAX_TABLE_NAME:
        raise ServiceError("invalid_option",
                           _("A table needs a name of 1 to %(max_table_name)s characters.")
                           % {"max_table_name": MAX_TABLE_NAME},
                           field="name")
    preset = data.get("clock_preset")
    if preset is not None and (not isinstance(preset, str) or preset not in TABLE_PRESETS):
        raise ServiceError("invalid_option",
                           _("clock_preset is one of: %(names)s.")
                           % {"names": ', '.join(TABLE_PRESETS)},
                           field="clock_preset")
    reserved = None
    if data.get("reserve_for") is not None:
        value = data["reserve_for"]
        reserved = (Player.objects.filter(pk=value).first()
                    if _is_int(value) and 1 <= value <= MAX_ID else None)
        if reserved is None:
            raise ServiceError("invalid_option", _("reserve_for is the id of another player."),
                               field="reserve_for")
        if creator is None or reserved.pk == creator.pk:
            raise ServiceError("invalid_option",
                               _("A seat can be reserved only for another player than its "
                                 "creator."),
                               field="reserve_for")
    return TableOptions(name.strip(), preset, reserved,
                        rule_values({key: data[key] for key in data if key in rules}))


def rule_values(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` (table options by name, as :func:`matches.services.table_create` takes
    them) checked and cleaned. Raises ``invalid_option`` for an unknown name or a bad value."""
    rules = {rule.name: rule for rule in RULES}
    unknown = sorted(set(values) - set(rules))
    if unknown:
        raise ServiceError("invalid_option", _("Unknown table options: %(names)s.")
                           % {"names": ", ".join(unknown)}, field=unknown[0])
    return {key: _rule_value(rules[key], value) for key, value in values.items()}


# -- finding a game: the terms of a seek or a challenge -------------------------------------

MAX_SEEK_LENGTH: Final = 25  # the longest match a seek or a challenge asks for
TERMS: Final = ("match_length", "clock_preset", "rated")


@dataclass(frozen=True)
class GameTermsInput:
    match_length: int
    clock_preset: str
    rated: bool


def game_terms(data: dict[str, Any], *, extra: tuple[str, ...] = ()) -> GameTermsInput:
    """A seek's or a challenge's terms: ``match_length`` (1 to 25 points, default 5),
    ``clock_preset`` (a name of ``tavla.engine.clock.PRESETS``, default ``none``) and
    ``rated`` (a boolean, default false). ``extra`` names the other keys the caller reads.
    Raises ``invalid_option`` naming the field."""
    unknown = sorted(set(data) - {*TERMS, *extra})
    if unknown:
        raise ServiceError("invalid_option", _("Unknown options: %(names)s.")
                           % {"names": ", ".join(str(key) for key in unknown)},
                           field=str(unknown[0]))
    length = data.get("match_length", 5)
    if not _is_int(length) or not 1 <= length <= MAX_SEEK_LENGTH:
        raise ServiceError("invalid_option",
                           _("match_length is a whole number of points from 1 to "
                             "%(max_seek_length)s.")
                           % {"max_seek_length": MAX_SEEK_LENGTH}, field="match_length")
    preset = data.get("clock_preset", "none")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ServiceError("invalid_option",
                           _("clock_preset is one of: %(names)s.")
                           % {"names": ', '.join(PRESETS)}, field="clock_preset")
    rated = data.get("rated", False)
    if not isinstance(rated, bool):
        raise ServiceError("invalid_option", _("rated is true or false."), field="rated")
    return GameTermsInput(length, preset, rated)
