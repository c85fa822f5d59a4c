"""Correspondence play (docs/correspondence.md) with simulated time: days per move on the live
clock's machinery, the flag by the table's rule, vacations, the "your turn" page and count,
and the turn e-mails (Django's test backend, ``mail.outbox``) with their opt-out.

The mails are sent by the real Celery task, run in this process (``task_always_eager``; the
task module imported so the signature finds it registered), queued by the one door after
commit (``django_capture_on_commit_callbacks``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from django.core import mail, signing
from django.urls import reverse

from matches import services, tasks
from matches.errors import ServiceError
from matches.forms import TableForm
from matches.models import Match, MatchStatus, Player, Table, Vacation
from matches.selectors import your_turn_count
from matches.services import clocks, correspondence, presence, vacation
from matches.state import load_state
from tavla.celery import app
from tavla.engine.clock import Clock
from tests.matches.test_api import assert_error, token_client

pytestmark = pytest.mark.django_db

DAY = 86400.0
# Enough scripted rolls for a few turns: the opening roll (3-1, the first player starts),
# then one roll per turn; every play is the first legal one.
DICE = [[3, 1], [5, 2], [6, 4], [4, 2], [5, 3], [6, 1], [2, 1], [6, 5], [4, 3], [5, 1]]


def at(stamp: float) -> datetime:
    return datetime.fromtimestamp(stamp, tz=UTC)


@pytest.fixture(autouse=True)
def _eager_tasks() -> Iterator[None]:
    """Celery runs a queued task in this process, so its mail lands in ``mail.outbox``."""
    assert tasks.notify_turn.name in app.tasks
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


@pytest.fixture
def players(make_player: Callable[..., Player]) -> tuple[Player, Player]:
    first, second = make_player("anna"), make_player("bora")
    for player in (first, second):
        player.user.email = f"{player.user.username}@example.org"
        player.user.save(update_fields=["email"])
    return first, second


@pytest.fixture
def corr_match(start_match: Callable[..., Match], players: tuple[Player, Player],
               django_capture_on_commit_callbacks: Any) -> Callable[..., Match]:
    def start(**options: Any) -> Match:
        options = {"correspondence_days": 2, "cube_enabled": False, "match_length": 1,
                   "flag_penalty": "match", **options}
        with django_capture_on_commit_callbacks(execute=True):
            return start_match(dice=DICE, players=players, **options)

    return start


def play_first_legal(match: Match, now: float, capture: Any) -> Match:
    """The player to act plays the first legal play at ``now``; the mail runs after commit."""
    match.refresh_from_db()
    state = load_state(match)
    seat = state.player_to_act
    assert seat is not None
    play = state.legal_plays()[0].notation()
    with capture(execute=True):
        services.match_act(match_id=match.pk, player=match.players()[seat], action="play",
                           expected_version=match.version, play=play, now=at(now))
    match.refresh_from_db()
    return match


def turn_start(match: Match) -> float:
    match.refresh_from_db()
    assert match.clock is not None
    started = Clock.from_dict(match.clock).started_at
    assert started is not None
    return started


def mails_to(address: str) -> list[Any]:
    return [message for message in mail.outbox if address in message.to]


# -- the acceptance: a match over several simulated days ------------------------------------


def test_a_correspondence_match_runs_over_days_mails_each_turn_and_flags_by_the_rules(
        corr_match, players, client, django_capture_on_commit_callbacks):
    capture = django_capture_on_commit_callbacks
    anna, bora = players
    match = corr_match()
    t0 = turn_start(match)
    assert match.to_act_id == anna.pk
    # Two days for the turn, no reserve: the live clock's deadline column, in days.
    assert match.deadline == at(t0 + 2 * DAY)
    assert [m.to for m in mail.outbox] == [["anna@example.org"]]
    first = mail.outbox[0]
    table_url = "http://localhost:8000" + reverse("table", args=[match.table_id])
    assert table_url in first.body and "bora" in first.subject
    assert first.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

    # Day 1.5: anna plays; bora's turn (mailed), with two days from now.
    match = play_first_legal(match, t0 + 1.5 * DAY, capture)
    assert match.to_act_id == bora.pk and match.deadline == at(t0 + 3.5 * DAY)
    assert len(mails_to("bora@example.org")) == 1
    # The sweep the day after changes nothing: the deadline is not reached.
    assert clocks.sweep_expired_clocks(now=at(t0 + 3.4 * DAY)).flagged == []

    # bora opts out with the link of the mail (one click: a POST, no form token needed).
    link = re.search(r"https?://\S+/mail/unsubscribe/\S+/", mails_to("bora@example.org")[0].body)
    assert link is not None
    response = client.post(link.group(0).removeprefix("http://localhost:8000"))
    assert response.status_code == 200
    bora.refresh_from_db()
    assert bora.turn_emails is False

    # Day 3: bora plays; anna is mailed again. Day 4.5: anna plays; bora is not mailed.
    match = play_first_legal(match, t0 + 3 * DAY, capture)
    assert len(mails_to("anna@example.org")) == 2
    match = play_first_legal(match, t0 + 4.5 * DAY, capture)
    assert match.to_act_id == bora.pk
    assert len(mails_to("bora@example.org")) == 1  # the opt-out is honoured

    # bora lets the deadline pass: the sweep flags once, and the USBGF rule ends the match.
    deadline = t0 + 6.5 * DAY
    assert match.deadline == at(deadline)
    assert clocks.sweep_expired_clocks(now=at(deadline - 1)).flagged == []
    assert clocks.sweep_expired_clocks(now=at(deadline + 1)).flagged == [match.pk]
    assert clocks.sweep_expired_clocks(now=at(deadline + 2)).flagged == []
    match.refresh_from_db()
    assert match.is_finished and match.winner_id == anna.pk
    assert match.to_act_id is None and your_turn_count(bora.user_id) == 0
    assert len(mail.outbox) == 3  # nothing more after the end


def test_a_flag_costs_the_game_under_that_rule_and_no_grace_forfeit_follows(
        corr_match, players, django_capture_on_commit_callbacks):
    """Correspondence players are away between moves: the grace rule of live tables does not
    forfeit the match after a game lost on time."""
    match = corr_match(flag_penalty="game", match_length=3)
    t0 = turn_start(match)
    assert clocks.sweep_expired_clocks(now=at(t0 + 2 * DAY + 1)).flagged == [match.pk]
    match.refresh_from_db()
    assert match.status == MatchStatus.PLAYING and match.score1 == 1
    later = clocks.sweep_expired_clocks(now=at(t0 + 2 * DAY + 3600))
    assert later.forfeited == []
    match.refresh_from_db()
    assert match.status == MatchStatus.PLAYING


def test_a_turn_mail_goes_once_and_not_after_the_turn_is_over(corr_match, players):
    anna, _bora = players
    match = corr_match()
    assert len(mail.outbox) == 1
    since = match.turn_since.isoformat()
    # The same task again (a retry, a duplicate): no second mail.
    assert not correspondence.send_turn_mail(match_id=match.pk, player_id=anna.pk,
                                             turn_since=since)
    # A task for another turn than the one waiting: nothing.
    assert not correspondence.send_turn_mail(match_id=match.pk, player_id=anna.pk,
                                             turn_since="2000-01-01T00:00:00+00:00")
    assert len(mail.outbox) == 1


def test_a_player_with_the_board_open_is_not_mailed(
        corr_match, players, django_capture_on_commit_callbacks):
    anna, bora = players
    match = corr_match()
    presence.connected(table_id=match.table_id, player_id=bora.pk, channel_name="test.bora")
    match = play_first_legal(match, turn_start(match) + 60, django_capture_on_commit_callbacks)
    assert match.to_act_id == bora.pk
    assert mails_to("bora@example.org") == []
    presence.disconnected(table_id=match.table_id, player_id=bora.pk, channel_name="test.bora")
    match = play_first_legal(match, turn_start(match) + 60, django_capture_on_commit_callbacks)
    match = play_first_legal(match, turn_start(match) + 60, django_capture_on_commit_callbacks)
    assert len(mails_to("bora@example.org")) == 1  # away again: mailed


def test_live_tables_send_no_turn_mail(start_match, players, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        match = start_match(dice=DICE, players=players, clock_preset="normal",
                            cube_enabled=False)
    assert match.to_act_id == players[0].pk
    assert mail.outbox == []


# -- vacations -------------------------------------------------------------------------------


def test_a_vacation_moves_the_deadlines_by_the_time_it_was_used(
        corr_match, players, django_capture_on_commit_callbacks, settings):
    settings.TAVLA_VACATION_DAYS = 14
    anna, bora = players
    match = corr_match()
    t0 = turn_start(match)
    base = t0 + 2 * DAY
    # Day 1: anna leaves for 5 days: her waiting turn runs until then plus its own time.
    vacation.vacation_start(player=anna, days=5, now=at(t0 + DAY))
    match.refresh_from_db()
    assert match.deadline == at(base + 5 * DAY)
    assert clocks.sweep_expired_clocks(now=at(base + 4 * DAY)).flagged == []
    # Day 3 (two days used): she comes back; the three unused days go back.
    vacation.vacation_stop(player=anna, now=at(t0 + 3 * DAY))
    match.refresh_from_db()
    assert match.deadline == at(base + 2 * DAY)
    assert vacation.seconds_left(anna, at(t0 + 3 * DAY)) == pytest.approx(12 * DAY)

    # A turn that begins during a vacation: bora leaves, then anna plays to him.
    vacation.vacation_start(player=bora, days=3, now=at(t0 + 3 * DAY))
    match = play_first_legal(match, t0 + 3.5 * DAY, django_capture_on_commit_callbacks)
    assert match.to_act_id == bora.pk
    # His turn waits until his vacation's end (day 6), then has its two days.
    assert match.deadline == at(t0 + 6 * DAY + 2 * DAY)
    # Back at day 4: his turn counts the half day of vacation it overlapped.
    vacation.vacation_stop(player=bora, now=at(t0 + 4 * DAY))
    match.refresh_from_db()
    assert match.deadline == at(t0 + 3.5 * DAY + 0.5 * DAY + 2 * DAY)


def test_a_vacation_beyond_the_allowance_is_refused_and_changes_nothing(
        corr_match, players, settings):
    settings.TAVLA_VACATION_DAYS = 10
    anna, _bora = players
    match = corr_match()
    t0 = turn_start(match)
    deadline = match.deadline
    with pytest.raises(ServiceError) as error:
        vacation.vacation_start(player=anna, days=11, now=at(t0))
    assert error.value.code == "no_vacation_left" and "10.0 days" in error.value.detail
    for bad in (0, -1, True, "3", 2.5):
        with pytest.raises(ServiceError) as error:
            vacation.vacation_start(player=anna, days=bad, now=at(t0))
        assert error.value.code == "invalid_option"
    with pytest.raises(ServiceError) as error:
        vacation.vacation_stop(player=anna, now=at(t0))
    assert error.value.code == "not_on_vacation"
    assert not Vacation.objects.exists()
    match.refresh_from_db()
    assert match.deadline == deadline

    # Used up: 10 days taken in full leave nothing this year; a second start is refused.
    vacation.vacation_start(player=anna, days=10, now=at(t0))
    with pytest.raises(ServiceError) as error:
        vacation.vacation_start(player=anna, days=1, now=at(t0 + 1))
    assert error.value.code == "on_vacation"
    with pytest.raises(ServiceError) as error:
        vacation.vacation_start(player=anna, now=at(t0 + 11 * DAY))
    if at(t0 + 11 * DAY).year == at(t0).year:
        assert error.value.code == "no_vacation_left"


def test_the_allowance_is_per_calendar_year(players, settings):
    settings.TAVLA_VACATION_DAYS = 14
    anna, _bora = players
    vacation.vacation_start(player=anna, now=datetime(2031, 12, 20, tzinfo=UTC))
    assert vacation.seconds_left(anna, datetime(2031, 12, 31, tzinfo=UTC)) == 0
    assert vacation.seconds_left(anna, datetime(2032, 1, 5, tzinfo=UTC)) == 14 * DAY


def test_the_vacation_page_starts_and_stops_and_refuses_bad_input(client, players):
    anna, _bora = players
    client.force_login(anna.user)
    url = reverse("vacation")
    assert client.get(url).status_code == 200
    response = client.post(url, {"action": "start", "days": "99"})
    assert response.status_code == 400 and not Vacation.objects.exists()
    response = client.post(url, {"action": "start", "days": "abc"})
    assert response.status_code == 400 and not Vacation.objects.exists()
    assert client.post(url, {"action": "start", "days": "3"}).status_code == 302
    assert correspondence.active_vacation(anna.pk, datetime.now(UTC)) is not None
    assert client.post(url, {"action": "stop"}).status_code == 302
    assert correspondence.active_vacation(anna.pk, datetime.now(UTC)) is None
    assert client.post(url, {"action": "turn_emails"}).status_code == 302
    anna.refresh_from_db()
    assert anna.turn_emails is False


# -- bad table options, the form, many tables -------------------------------------------------


@pytest.mark.parametrize("days", [0, 8, -1, True, "3", 2.5])
def test_days_per_move_out_of_range_are_refused(make_player, days):
    with pytest.raises(ServiceError) as error:
        services.table_create(name="t", creator=make_player(), correspondence_days=days)
    assert error.value.code == "invalid_option"
    assert not Table.objects.exists()


def test_the_correspondence_preset_and_the_form():
    fields = services.clock_preset_fields("correspondence")
    assert fields == {"clock_enabled": True, "correspondence_days": 3}
    form = TableForm(data={"name": "t", "match_length": "5", "clock": "correspondence",
                           "correspondence_days": "7", "flag_penalty": "match",
                           "resignation": "single"})
    assert form.is_valid(), form.errors
    assert form.table_options()["correspondence_days"] == 7
    assert form.table_options()["clock_enabled"] is True
    live = TableForm(data={"name": "t", "match_length": "5", "clock": "fast",
                           "correspondence_days": "7", "flag_penalty": "match",
                           "resignation": "single"})
    assert live.is_valid() and live.table_options()["correspondence_days"] is None
    for bad in ("0", "8"):
        form = TableForm(data={"name": "t", "match_length": "5", "clock": "correspondence",
                               "correspondence_days": bad, "flag_penalty": "match",
                               "resignation": "single"})
        assert not form.is_valid() and "correspondence_days" in form.errors


def test_many_correspondence_tables_at_once(make_player, settings):
    """A live table quota does not stop a correspondence player; their own bound does."""
    settings.TAVLA_TABLES_PER_HOUR = 2
    settings.TAVLA_CORRESPONDENCE_TABLES_PER_HOUR = 30
    creator, opponents = make_player(), [make_player() for _ in range(25)]
    for opponent in opponents:
        table = services.table_create(name="c", creator=creator, correspondence_days=3)
        services.table_sit(table_id=table.pk, player=creator)
        services.table_sit(table_id=table.pk, player=opponent)
    assert Match.objects.filter(status=MatchStatus.PLAYING,
                                table__correspondence_days=3).count() == 25
    # The live bound is untouched by them.
    services.table_create(name="live", creator=creator, clock_preset="fast")
    settings.TAVLA_CORRESPONDENCE_TABLES_PER_HOUR = 25
    with pytest.raises(ServiceError) as error:
        services.table_create(name="c", creator=creator, correspondence_days=3)
    assert error.value.code == "too_many_tables"


# -- the "your turn" page and the header's count ---------------------------------------------


def test_the_turn_page_lists_waiting_matches_oldest_deadline_first(
        start_match, make_player, client, django_assert_max_num_queries):
    me = make_player()
    matches = [start_match(dice=DICE, players=(me, make_player()), correspondence_days=days,
                           cube_enabled=False)
               for days in (5, 1, 3)]
    other = start_match(dice=DICE, players=(make_player(), me), correspondence_days=1,
                        cube_enabled=False)  # the opponent is on turn there
    assert other.to_act_id != me.pk
    client.force_login(me.user)
    response = client.get(reverse("your-turn"))
    assert response.status_code == 200
    html = response.content.decode()
    links = re.findall(r'href="/tables/(\d+)/"', html)
    expected = [m.table_id for m in sorted(matches, key=lambda m: m.deadline)]
    assert [int(link) for link in links] == expected
    assert "Your turn (3)" in html
    assert your_turn_count(me.user_id) == 3
    with django_assert_max_num_queries(1):
        assert your_turn_count(me.user_id) == 3


def test_the_header_count_is_for_logged_in_users_only(client, make_player):
    me = make_player()
    assert "Your turn" not in client.get(reverse("lobby")).content.decode()
    client.force_login(me.user)
    assert "Your turn (0)" in client.get(reverse("lobby")).content.decode()


# -- the unsubscribe link ---------------------------------------------------------------------


def test_the_unsubscribe_link_asks_on_get_and_unsubscribes_on_post(client, players):
    anna, bora = players
    url = correspondence.unsubscribe_url(anna).removeprefix("http://localhost:8000")
    response = client.get(url)
    assert response.status_code == 200 and "anna" in response.content.decode()
    anna.refresh_from_db()
    assert anna.turn_emails is True  # a link scanner's GET changes nothing
    assert client.post(url).status_code == 200
    anna.refresh_from_db()
    bora.refresh_from_db()
    assert anna.turn_emails is False and bora.turn_emails is True


def test_a_forged_or_altered_unsubscribe_link_changes_nothing(client, players):
    anna, bora = players
    token = correspondence.unsubscribe_token(anna)
    forged = signing.dumps({"player": bora.pk}, salt="another salt")
    for bad in (token[:-2] + "xx", forged, "nonsense"):
        response = client.post(reverse("turn-mail-unsubscribe", args=[bad]))
        assert response.status_code == 400
    assert set(Player.objects.values_list("turn_emails", flat=True)) == {True}



def test_ending_a_vacation_never_takes_a_turn_below_its_own_days(
        corr_match, players, django_capture_on_commit_callbacks):
    """A turn that did not get the vacation's extension (the start's known race, made here
    by taking the extension back by hand) loses nothing when the vacation ends."""
    anna, _bora = players
    match = corr_match()
    t0 = turn_start(match)
    vacation.vacation_start(player=anna, days=4, now=at(t0 + 60))
    with services.match_change(match.pk, now=at(t0 + 120)) as change:
        change.extend_clock(-4 * DAY)  # as if the start had not seen this turn
    vacation.vacation_stop(player=anna, now=at(t0 + DAY))
    match.refresh_from_db()
    assert match.deadline == at(t0 + 2 * DAY)  # its own two days, not fewer


# -- the REST door ----------------------------------------------------------------------------


def test_the_rest_door_creates_correspondence_tables_and_refuses_bad_days(make_player):
    client = token_client(make_player())
    made = client.post("/api/tables/", {"name": "Post", "clock_preset": "correspondence"},
                       format="json")
    assert made.status_code == 201, made.content
    assert made.json()["correspondence_days"] == 3 and made.json()["clock_enabled"]
    made = client.post("/api/tables/", {"name": "Post", "correspondence_days": 7},
                       format="json")
    assert made.status_code == 201 and made.json()["correspondence_days"] == 7
    count = Table.objects.count()
    for bad in (0, 8, "3", True):
        assert_error(client.post("/api/tables/", {"name": "x", "correspondence_days": bad},
                                 format="json"), 400, "invalid_option")
    assert Table.objects.count() == count
    table = Table.objects.get(pk=made.json()["id"])
    state = client.get(f"/api/tables/{table.pk}/").json()
    assert state["correspondence_days"] == 7


def test_the_lobby_form_creates_a_correspondence_table(client, make_player):
    me = make_player()
    client.force_login(me.user)
    page = client.get(reverse("lobby")).content.decode()
    assert 'value="correspondence"' in page and 'name="correspondence_days"' in page
    response = client.post(reverse("table-new"), {
        "name": "By post", "match_length": "5", "clock": "correspondence",
        "correspondence_days": "4", "flag_penalty": "match", "resignation": "single"})
    assert response.status_code == 302
    table = Table.objects.get(name="By post")
    assert table.correspondence_days == 4 and table.clock_enabled
    control = table.time_control()
    assert control is not None and (control.delay, control.reserve_for(5)) == (4 * DAY, 0)
    response = client.post(reverse("table-new"), {
        "name": "Too slow", "match_length": "5", "clock": "correspondence",
        "correspondence_days": "8", "flag_penalty": "match", "resignation": "single"})
    assert response.status_code == 400 and not Table.objects.filter(name="Too slow").exists()
