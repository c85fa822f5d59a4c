"""The one error type of a refused request, and the one table of its codes.

Services, consumers and both APIs (matches, tournaments, analysis) share them: the socket sends
a :class:`ServiceError`'s code as ``error``, REST answers it with the code's status in
:data:`ERROR_STATUS`. Every code is documented, with that status, in ``docs/protocol.md``
("Errors") or, for tournaments, ``docs/tournaments.md`` ("Error codes");
``tests/matches/test_protocol_doc.py`` finds every code the server can send and checks both.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Final


class ServiceError(Exception):
    """A refused request; nothing was changed.

    ``code`` is stable for programs (the socket sends it as ``error``, the REST API answers
    it with :func:`http_status`); ``detail`` is for people. Services raise it when a rule
    refuses a request; :mod:`matches.validation` raises it for input no service could take,
    naming the bad ``field`` (REST adds ``"fields": {field: [detail]}``).
    """

    def __init__(self, code: str, detail: str, *, field: str | None = None) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.field = field


_BAD = HTTPStatus.BAD_REQUEST
_CONFLICT = HTTPStatus.CONFLICT

# Every code the server sends, with the HTTP status REST answers it with. The live protocol's
# codes come first (docs/protocol.md), then the tournaments' own (docs/tournaments.md).
ERROR_STATUS: Final[dict[str, int]] = {
    # -- the live protocol: both doors --
    "bad_request": _BAD,
    "invalid_version": _BAD,
    "unknown_type": _BAD,
    "unknown_action": _BAD,
    "invalid_play": _BAD,
    "invalid_level": _BAD,
    "invalid_seat": _BAD,
    "invalid_option": _BAD,
    "invalid_scope": _BAD,
    "reason_required": _BAD,
    "message_too_long": _BAD,
    "invalid_seed": _BAD,
    "invalid_position": _BAD,
    "not_authenticated": HTTPStatus.UNAUTHORIZED,
    "authentication_failed": HTTPStatus.UNAUTHORIZED,
    "forbidden": HTTPStatus.FORBIDDEN,
    "not_a_player": HTTPStatus.FORBIDDEN,
    "not_your_turn": HTTPStatus.FORBIDDEN,
    "seat_reserved": HTTPStatus.FORBIDDEN,
    "live_position": HTTPStatus.FORBIDDEN,
    "hints_not_allowed": HTTPStatus.FORBIDDEN,
    "not_found": HTTPStatus.NOT_FOUND,
    "method_not_allowed": HTTPStatus.METHOD_NOT_ALLOWED,
    "not_acceptable": HTTPStatus.NOT_ACCEPTABLE,
    "seed_already_sent": _CONFLICT,
    "seeds_closed": _CONFLICT,
    "stale_version": _CONFLICT,
    "illegal_action": _CONFLICT,
    "match_over": _CONFLICT,
    "flag_fell": _CONFLICT,
    "match_busy": _CONFLICT,
    "no_match": _CONFLICT,
    "already_seated": _CONFLICT,
    "seat_taken": _CONFLICT,
    "table_full": _CONFLICT,
    "not_seated": _CONFLICT,
    "match_in_progress": _CONFLICT,
    "table_not_full": _CONFLICT,
    "match_live": _CONFLICT,
    "rematch_unavailable": _CONFLICT,
    "takeback_rated": _CONFLICT,
    "takeback_tournament": _CONFLICT,
    "takeback_bot": _CONFLICT,
    "takeback_unavailable": _CONFLICT,
    "takeback_pending": _CONFLICT,
    "no_takeback": _CONFLICT,
    "no_decision": _CONFLICT,
    "too_many_bot_matches": _CONFLICT,
    "seek_exists": _CONFLICT,
    "seek_closed": _CONFLICT,
    "challenge_exists": _CONFLICT,
    "challenge_closed": _CONFLICT,
    "too_many_follows": _CONFLICT,
    "on_vacation": _CONFLICT,
    "not_on_vacation": _CONFLICT,
    "no_vacation_left": _CONFLICT,
    "bad_token": _BAD,
    "too_large": HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
    "unsupported_media_type": HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
    "rate_limited": HTTPStatus.TOO_MANY_REQUESTS,
    "too_many_sockets": HTTPStatus.TOO_MANY_REQUESTS,
    "too_many_tables": HTTPStatus.TOO_MANY_REQUESTS,
    "too_many_seeks": HTTPStatus.TOO_MANY_REQUESTS,
    "too_many_challenges": HTTPStatus.TOO_MANY_REQUESTS,
    "locked_out": HTTPStatus.TOO_MANY_REQUESTS,
    "too_many_analyses": HTTPStatus.TOO_MANY_REQUESTS,
    # -- tournaments: a request the director, a player or a format refuses --
    "bad_result": _BAD,
    "bad_score": _BAD,
    "bad_board_number": _BAD,
    "bad_entrant": _BAD,
    "bad_manual_order": _BAD,
    "bad_match_lengths": _BAD,
    "bad_option": _BAD,
    "bad_pairing": _BAD,
    "bad_side": _BAD,
    "bad_csv": _BAD,
    "bad_rating": _BAD,
    "not_in_pairing": _BAD,
    "not_same_round": _BAD,
    "duplicate_entrant": _BAD,
    "missing_manual_order": _BAD,
    "missing_option": _BAD,
    "missing_ratings": _BAD,
    "missing_rng_seed": _BAD,
    "unknown_format": _BAD,
    "unknown_option": _BAD,
    "unknown_seed_method": _BAD,
    "unknown_slot": _BAD,
    "not_the_winner": HTTPStatus.FORBIDDEN,
    "own_report": HTTPStatus.FORBIDDEN,
    "not_eligible": HTTPStatus.FORBIDDEN,
    "disqualified": HTTPStatus.FORBIDDEN,
    "already_registered": _CONFLICT,
    "already_started": _CONFLICT,
    "bad_status": _CONFLICT,
    "board_taken": _CONFLICT,
    "bye_result": _CONFLICT,
    "check_in_closed": _CONFLICT,
    "depends": _CONFLICT,
    "duplicate_result": _CONFLICT,
    "finished": _CONFLICT,
    "fixed_draw": _CONFLICT,
    "late_entry_not_allowed": _CONFLICT,
    "no_report": _CONFLICT,
    "not_active": _CONFLICT,
    "not_open": _CONFLICT,
    "not_out": _CONFLICT,
    "not_playable": _CONFLICT,
    "not_registered": _CONFLICT,
    "not_running": _CONFLICT,
    "played_online": _CONFLICT,
    "pool_not_empty": _CONFLICT,
    "registration_closed": _CONFLICT,
    "round_not_complete": _CONFLICT,
    "round_started": _CONFLICT,
    "slot_not_played": _CONFLICT,
    "slot_not_ready": _CONFLICT,
    "too_few_entrants": _CONFLICT,
    "too_late": _CONFLICT,
    "tournament_full": _CONFLICT,
}


def http_status(code: str) -> int:
    """The HTTP status REST answers ``code`` with.

    Raises ``KeyError`` for a code missing from :data:`ERROR_STATUS`: a code without a status
    is a bug (the protocol test finds every code the server raises), never a quiet 400 or 409.
    """
    return ERROR_STATUS[code]
