"""Players and tables: sitting down, standing up, invitations, and starting the match
when both seats are taken."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Final

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from matches import access, selectors, validation
from matches.errors import ServiceError
from matches.models import (
    Match,
    MatchStatus,
    Player,
    Table,
)
from matches.rules import rule_names
from matches.services import broadcast
from matches.services.change import match_create
from matches.services.finish import rated_match
from matches.services.late_penalty import late_start_score
from matches.services.log import _require_player
from matches.state import (
    open_client_seeds,
    rules_for_table,
)
from tavla.engine.clock import CORRESPONDENCE_PRESET, PRESETS, TABLE_PRESETS, Clock
from tavla.engine.dice import FairDice
from tavla.engine.match import MatchState

# -- players and tables --------------------------------------------------------------------


# The keyword arguments of table_create: every option of matches.rules.
TABLE_RULE_FIELDS: Final = rule_names()


# The correspondence preset: days per decision instead of seconds (its days may be given).
CORRESPONDENCE_DEFAULT_DAYS: Final = 3


def clock_preset_fields(preset: str) -> dict[str, Any]:
    """The table fields of a clock preset (``tavla.engine.clock.PRESETS``: fast, normal,
    casual, usbgf, none; or ``correspondence``: 3 days per decision unless
    ``correspondence_days`` is given too). Raises :class:`ServiceError` ``invalid_option`` for
    another name."""
    if preset == CORRESPONDENCE_PRESET:
        return {"clock_enabled": True, "correspondence_days": CORRESPONDENCE_DEFAULT_DAYS}
    if preset not in PRESETS:
        names = ", ".join(TABLE_PRESETS)
        raise ServiceError("invalid_option",
                           _("Unknown clock preset %(preset)r; one of %(names)s.")
                           % {"preset": preset, "names": names})
    control = PRESETS[preset]
    if control is None:
        return {"clock_enabled": False}
    return {"clock_enabled": True, "clock_delay": control.delay,
            "clock_reserve_seconds": control.reserve_seconds,
            "clock_reserve_per_point": control.reserve_per_point,
            "grace_seconds": control.grace, "correspondence_days": None}


def check_table_quota(creator: Player, *, correspondence: bool = False) -> None:
    """Refuse a new table to an account that created ``TAVLA_TABLES_PER_HOUR`` tables in the
    last hour (``too_many_tables``; 0: no bound). Tables where it played a bot are not counted
    (the bots have their own bound), nor are bots themselves. Correspondence tables are
    counted apart, against ``TAVLA_CORRESPONDENCE_TABLES_PER_HOUR``."""
    limit = int(getattr(settings, "TAVLA_TABLES_PER_HOUR", 20))
    if correspondence:
        # Correspondence players start many matches at once (a dozen on a Sunday): their
        # own bound, counted apart from the live tables'.
        limit = int(getattr(settings, "TAVLA_CORRESPONDENCE_TABLES_PER_HOUR", 60))
    if not limit or creator.is_bot:
        return
    recent = (Table.objects.filter(created_by=creator,
                                   correspondence_days__isnull=not correspondence,
                                   created_at__gte=timezone.now() - timedelta(hours=1))
              .exclude(matches__player1__is_bot=True).exclude(matches__player0__is_bot=True)
              .distinct().count())
    if recent >= limit:
        raise ServiceError("too_many_tables",
                           ngettext("You created %(recent)s table in the last hour, the most "
                                    "allowed: play at it, or wait a while.",
                                    "You created %(recent)s tables in the last hour, the most "
                                    "allowed: play at one of them, or wait a while.", recent)
                           % {"recent": recent})


def table_create(*, name: str, creator: Player | None = None, clock_preset: str | None = None,
                 reserve_for: Player | None = None, **rules: Any) -> Table:
    """Create a table with the given rules (any of ``TABLE_RULE_FIELDS``).

    ``clock_preset`` (a name in ``PRESETS``) fills the clock fields; a clock field given
    explicitly as well wins over the preset's value. ``reserve_for`` keeps the two seats for
    the creator and that player. A private table gets an invitation token (``matches.access``).
    """
    unknown = set(rules) - set(TABLE_RULE_FIELDS)
    if unknown:
        names = ", ".join(sorted(unknown))
        raise ServiceError("invalid_option",
                           _("Unknown table options: %(names)s.") % {"names": names})
    if clock_preset is not None:
        rules = {**clock_preset_fields(clock_preset), **rules}
    name = (name or "").strip()
    if not name:
        raise ServiceError("invalid_option", _("A table needs a name."))
    length = rules.get("match_length")
    if length is not None and not (isinstance(length, int) and 1 <= length <= 99):
        raise ServiceError("invalid_option", _("A match is played to 1 to 99 points."))
    days = rules.get("correspondence_days")
    if days is not None:
        if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= 7:
            raise ServiceError("invalid_option",
                               _("A correspondence clock gives 1 to 7 days per move."))
        rules["clock_enabled"] = True  # the days are the clock's
    with transaction.atomic():
        if creator is not None:
            # The creator's row locked first: two creations of one account at the same moment
            # are counted one after the other, never both against the same count.
            Player.objects.select_for_update().filter(pk=creator.pk).first()
            check_table_quota(creator,
                              correspondence=rules.get("correspondence_days") is not None)
        return _table_saved(name, creator, reserve_for, rules)


def _table_saved(name: str, creator: Player | None, reserve_for: Player | None,
                 rules: dict[str, Any]) -> Table:
    table = Table(name=name[:80], created_by=creator, **rules)
    if reserve_for is not None:
        if creator is None or reserve_for.pk == creator.pk:
            raise ServiceError("invalid_option",
                               _("A seat can be reserved only for another player than its "
                                 "creator."))
        table.reserved0, table.reserved1 = creator, reserve_for
    if not table.is_public:
        table.invite_token = access.new_invite_token()
    table.full_clean()
    table.save()
    broadcast.broadcast_on_commit(broadcast.LOBBY_GROUP, {"type": "lobby.changed"})
    return table


def table_for_two(*, first: Player, second: Player, clock_preset: str,
                  **rules: Any) -> Table:
    """A public table reserved for ``first`` and ``second``, both seated, its match started:
    what a paired seek or an accepted challenge opens (:mod:`matches.services.seeks`,
    :mod:`matches.services.challenges`). Not counted in ``TAVLA_TABLES_PER_HOUR``: seeks and
    challenges have their own bounds. Runs inside the caller's transaction."""
    if first.pk == second.pk:
        raise ServiceError("invalid_option", _("A match needs two different players."))
    rules = {**clock_preset_fields(clock_preset), "is_public": True, **rules}
    table = _table_saved(f"{first.display_name} – {second.display_name}", first, second, rules)
    now = timezone.now()
    table.seat0, table.seat1 = first, second
    table.seat0_since = table.seat1_since = now
    table.save(update_fields=["seat0", "seat1", "seat0_since", "seat1_since"])
    match_start(table=table)
    return table


def current_match(table: Table) -> Match | None:
    """The match being played at ``table``, if any."""
    return table.matches.filter(status=MatchStatus.PLAYING).order_by("-pk").first()


@transaction.atomic
def table_sit(*, table_id: int, player: Player | None, seat: int | None = None,
              invite: str | None = None) -> Table:
    """Sit ``player`` at the table (the first free seat, or ``seat``); when both seats are
    taken the match starts at once. A private table needs ``invite`` unless the player is
    its creator or a seat is reserved for them. ``None`` (anonymous) is refused:
    ``not_authenticated``."""
    player = _require_player(player, _("Log in to take a seat."))
    seat = validation.seat(seat)
    table = Table.objects.select_for_update().get(pk=table_id)
    if player.pk in (table.seat0_id, table.seat1_id):
        raise ServiceError("already_seated", _("You already sit at this table."))
    access.check_may_sit(table, player, invite)
    reserved = {table.reserved0_id, table.reserved1_id} - {None}
    if reserved and player.pk not in reserved:
        raise ServiceError("seat_reserved",
                           _("The seats at this table are reserved for other players."))
    free = [index for index, taken in enumerate((table.seat0_id, table.seat1_id)) if not taken]
    if seat is not None:
        if seat not in free:
            raise ServiceError("seat_taken", _("That seat is taken."))
        free = [seat]
    if not free:
        raise ServiceError("table_full", _("Both seats at this table are taken."))
    setattr(table, f"seat{free[0]}", player)
    setattr(table, f"seat{free[0]}_since", timezone.now())
    table.save(update_fields=[f"seat{free[0]}", f"seat{free[0]}_since"])
    if table.seat0_id and table.seat1_id and current_match(table) is None:
        match_start(table=table)  # its first state reaches every board of the table
    else:
        _broadcast_table_state(table.pk)
    broadcast.broadcast_on_commit(broadcast.LOBBY_GROUP, {"type": "lobby.changed"})
    return table


@transaction.atomic
def table_new_invite(*, table_id: int, player: Player) -> Table:
    """A new invitation token for a private table (the old link stops working); creator only."""
    table = Table.objects.select_for_update().get(pk=table_id)
    if table.created_by_id != player.pk:
        raise ServiceError("forbidden", _("Only the table's creator can renew its invitation."))
    if table.is_public:
        raise ServiceError("invalid_option", _("A public table needs no invitation."))
    table.invite_token = access.new_invite_token()
    table.save(update_fields=["invite_token"])
    return table


@transaction.atomic
def table_stand(*, table_id: int, player: Player | None) -> Table:
    """Leave a seat; refused while a match is being played there (resign instead)."""
    player = _require_player(player, _("Log in first."))
    table = Table.objects.select_for_update().get(pk=table_id)
    if player.pk not in (table.seat0_id, table.seat1_id):
        raise ServiceError("not_seated", _("You do not sit at this table."))
    if current_match(table) is not None:
        raise ServiceError("match_in_progress", _("A match is in progress: resign it first."))
    field = "seat0" if table.seat0_id == player.pk else "seat1"
    setattr(table, field, None)
    table.save(update_fields=[field])
    broadcast.broadcast_on_commit(broadcast.LOBBY_GROUP, {"type": "lobby.changed"})
    _broadcast_table_state(table.pk)
    return table



def _broadcast_table_state(table_id: int) -> None:
    """After commit, push the table's state (its seats changed) to every board of it: read
    once here, not once per board."""

    def send() -> None:
        public, plays = selectors.table_public_state(table_id)
        broadcast.broadcast_now(broadcast.states_group(table_id),
                                selectors.pushed_state("table.state", public, plays))

    transaction.on_commit(send, robust=True)


# -- starting a match ----------------------------------------------------------------------


def match_start(*, table: Table, scripted_dice: list[list[int]] | None = None) -> Match:
    """Start a match between the two seated players. Caller holds the table row lock.

    The dice commitment is published now. The first opening roll waits for both players'
    client seeds (:mod:`matches.services.dice_seeds`) for up to ``TAVLA_CLIENT_SEED_SECONDS``; with
    no wait configured both seeds are recorded empty and it is made at once.
    """
    if not (table.seat0_id and table.seat1_id):
        raise ServiceError("table_not_full", _("A match needs two seated players."))
    rules = rules_for_table(table)
    dice = FairDice.new()
    start_score, late = late_start_score(table, rules.match_length)
    state = MatchState.new(rules, score=start_score)
    bots = set(Player.objects.filter(pk__in=(table.seat0_id, table.seat1_id), is_bot=True)
               .values_list("pk", flat=True))
    now = timezone.now()
    control = table.time_control()

    def before_start(match: Match) -> None:
        open_client_seeds(match, now, bot_seats=[seat for seat, pk in
                                                 enumerate((table.seat0_id, table.seat1_id))
                                                 if pk in bots])
        if control is not None:
            match.clock = Clock.for_match(control, table.match_length).to_dict()

    start: dict[str, Any] = {"rules": rules.to_dict(), "commitment": dice.commitment}
    if late is not None:  # the starting score a late-arrival penalty gave, and why
        start.update(start_score=list(start_score), late_penalty=late)
    match = match_create(
        create={
            "table": table, "player0": table.seat0, "player1": table.seat1,
            "dice_commitment": dice.commitment, "dice_seed": dice.seed_hex,
            "scripted_dice": list(table.scripted_dice if scripted_dice is None
                                  else scripted_dice),
            "has_bot": bool(bots),
            "match_length": rules.match_length,
            # What matches.services.finish decides again at the end, from the same rules.
            "rated": rated_match(table, has_bot=bool(bots), match_length=rules.match_length),
        },
        state=state, start=start, now=now, before_start=before_start)
    return match
