"""An event's set-up from the desk and the write API, never the admin: money settings, side
pools (settings and membership), a division's limits, and ``GET money/``. Each change is the
director's, logged with who and why; bad input is a clear error and changes nothing; a
referee is offered none of it and refused it."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.api_clients import desk_action as act
from tests.api_clients import token_client
from tournaments import desk, permissions, services
from tournaments.models import (
    Eligibility,
    EntryStatus,
    SidePool,
    Tournament,
    TournamentLog,
    TournamentStatus,
)
from tournaments.services import TournamentError
from tournaments.treasury import money_summary

pytestmark = pytest.mark.django_db

MONEY = ("entry_fee", "currency", "return_percent", "payout_table", "consolation_percent",
         "consolation_payout_table", "last_chance_percent", "last_chance_payout_table",
         "forfeit_prize_on_disqualification")


def money_of(tournament: Tournament) -> tuple[Any, ...]:
    tournament.refresh_from_db()
    return tuple(getattr(tournament, name) for name in MONEY)


def pools_of(tournament: Tournament) -> list[tuple[Any, ...]]:
    return sorted(SidePool.objects.filter(tournament=tournament).values_list(
        "pk", "name", "fee", "return_percent", "payout_table"))


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


# -- money settings ----------------------------------------------------------------------------


def test_the_director_sets_the_money_over_the_api_and_the_log_says_who_and_why(
        make_tournament: Any, director: User) -> None:
    tournament = make_tournament(4)
    response = act(director, tournament, "set_money", entry_fee="12.50", currency="GBP",
                   return_percent="90", payout_table="60/40", consolation_percent="10",
                   consolation_payout_table="100", last_chance_percent="5",
                   forfeit_prize_on_disqualification=False, reason="club rates")
    assert response.status_code == 200, response.json()
    assert money_of(tournament) == (Decimal("12.50"), "GBP", Decimal("90"), "60/40",
                                    Decimal("10"), "100", Decimal("5"), "100", False)
    line = TournamentLog.objects.get(tournament=tournament, action="money_set")
    assert line.actor == director and line.reason == "club rates"
    assert line.data["changes"]["entry_fee"] == ["0.00", "12.50"]
    assert line.data["changes"]["currency"] == ["EUR", "GBP"]
    # Fields left out (or null) stay as they are; nothing to change logs nothing.
    assert act(director, tournament, "set_money", entry_fee=None,
               payout_table="50/50").status_code == 200
    assert money_of(tournament)[:4] == (Decimal("12.50"), "GBP", Decimal("90"), "50/50")
    act(director, tournament, "set_money", payout_table="50/50")
    assert TournamentLog.objects.filter(tournament=tournament, action="money_set").count() == 2


@pytest.mark.parametrize(("data", "status", "code", "field"), [
    ({"payout_table": "30/70"}, 400, "bad_request", "payout_table"),
    ({"consolation_payout_table": "fifty"}, 400, "bad_request", "consolation_payout_table"),
    ({"return_percent": "101"}, 400, None, "return_percent"),
    ({"entry_fee": "-1"}, 400, None, "entry_fee"),
    ({"entry_fee": "1.234"}, 400, None, "entry_fee"),
    ({"consolation_percent": "60", "last_chance_percent": "50"}, 400, "bad_request",
     "consolation_percent"),
    ({"currency": "E U R"}, 400, "bad_request", "currency"),
    ({"currency": "TOOLONGCUR"}, 400, None, "currency"),
])
def test_bad_money_is_refused_with_its_field_and_changes_nothing(
        make_tournament: Any, director: User, data: dict[str, Any], status: int,
        code: str | None, field: str) -> None:
    tournament = make_tournament(2)
    before = money_of(tournament)
    logged = TournamentLog.objects.filter(tournament=tournament).count()
    response = act(director, tournament, "set_money", **{"entry_fee": "5", **data})
    assert response.status_code == status, response.json()
    body = response.json()
    if code is not None:
        assert body["error"] == code and field in body.get("fields", {field: 1})
    else:
        assert field in str(body)
    assert money_of(tournament) == before
    assert TournamentLog.objects.filter(tournament=tournament).count() == logged


def test_once_started_a_money_change_needs_a_reason(make_tournament: Any,
                                                    director: User) -> None:
    tournament = make_tournament(4, start=True)
    before = money_of(tournament)
    response = act(director, tournament, "set_money", entry_fee="20")
    assert response.status_code == 400 and response.json()["error"] == "reason_required"
    assert money_of(tournament) == before
    assert act(director, tournament, "set_money", entry_fee="20",
               reason="fee was misprinted").status_code == 200
    assert money_of(tournament)[0] == Decimal("20")


def test_a_referee_is_neither_offered_nor_allowed_the_set_up(
        make_tournament: Any, referee: User, director: User) -> None:
    tournament = make_tournament(4)
    side = SidePool.objects.create(tournament=tournament, name="Jackpot", fee=5)
    before, pools = money_of(tournament), pools_of(tournament)
    for action, data in (("set_money", {"entry_fee": "9"}),
                         ("add_side_pool", {"name": "X", "fee": "1"}),
                         ("edit_side_pool", {"side_pool": side.pk, "fee": "1"}),
                         ("delete_side_pool", {"side_pool": side.pk})):
        response = act(referee, tournament, action, **data)
        assert response.status_code == 403 and response.json()["error"] == "forbidden"
        with pytest.raises(TournamentError) as error:
            if action == "set_money":
                services.tournament_set_money(tournament_id=tournament.pk, actor=referee,
                                              entry_fee=Decimal(9))
            else:
                services.side_pool_delete(side_pool_id=side.pk, actor=referee)
        assert error.value.code == "forbidden"
    assert money_of(tournament) == before and pools_of(tournament) == pools
    offered = {a["name"] for a in token_client(referee).get(
        f"/api/tournaments/{tournament.pk}/actions/").json()}
    assert not offered & {"set_money", "add_side_pool", "edit_side_pool",
                          "delete_side_pool", "edit_division"}
    assert "side_pool" in offered  # membership is the referee's
    offered = {a["name"] for a in token_client(director).get(
        f"/api/tournaments/{tournament.pk}/actions/").json()}
    assert {"set_money", "add_side_pool", "edit_side_pool", "delete_side_pool"} <= offered
    page = logged_in(referee).get(f"/tournaments/{tournament.pk}/desk/").content.decode()
    for refused in ("set_money", "add_side_pool", "edit_side_pool", "delete_side_pool"):
        assert f'data-action="{refused}"' not in page


# -- side pools --------------------------------------------------------------------------------


def test_side_pools_are_added_filled_paid_changed_and_deleted_without_the_admin(
        make_tournament: Any, director: User, referee: User) -> None:
    tournament = make_tournament(4, entry_fee=Decimal(10))
    created = act(director, tournament, "add_side_pool", name="Jackpot", fee="5",
                  payout_table="70/30", reason="")
    assert created.status_code == 200, created.json()
    side = created.json()["side_pool"]
    assert side["name"] == "Jackpot" and side["fee"] == "5.00" and side["entries"] == []
    entries = list(tournament.entries.order_by("seed", "pk"))
    for entry in entries[:3]:  # the referee takes the money and puts them in
        assert act(referee, tournament, "side_pool", entry=entry.pk,
                   side_pool=side["id"]).status_code == 200
        assert act(referee, tournament, "set_paid", entry=entry.pk).status_code == 200
    changed = act(director, tournament, "edit_side_pool", side_pool=side["id"],
                  return_percent="90", reason="the club keeps 10 %")
    assert changed.status_code == 200, changed.json()
    assert changed.json()["side_pool"]["entries"] == sorted(e.pk for e in entries[:3])
    summary = money_summary(tournament)
    (pool,) = summary["side_pools"]
    assert pool["members"] == 3 and pool["total"] == Decimal("13.50")  # 5 × 3 × 90 %
    # A pool with players in it is not deleted; emptied, it is.
    refused = act(director, tournament, "delete_side_pool", side_pool=side["id"])
    assert refused.status_code == 409 and refused.json()["error"] == "pool_not_empty"
    assert SidePool.objects.filter(pk=side["id"]).exists()
    for entry in entries[:3]:
        act(referee, tournament, "side_pool", entry=entry.pk, side_pool=side["id"],
            member=False)
    assert act(director, tournament, "delete_side_pool", side_pool=side["id"],
               reason="nobody wanted it").status_code == 200
    assert not SidePool.objects.filter(pk=side["id"]).exists()
    log = [(line.action, line.actor) for line in TournamentLog.objects.filter(
        tournament=tournament).order_by("pk")]
    for action in ("side_pool_created", "side_pool_changed", "side_pool_deleted"):
        assert (action, director) in log
    assert ("side_pool_entered", referee) in log


@pytest.mark.parametrize(("action", "data", "status", "code"), [
    ("add_side_pool", {"name": "", "fee": "5"}, 400, None),
    ("add_side_pool", {"name": "J", "fee": "-5"}, 400, None),
    ("add_side_pool", {"name": "J", "fee": "5", "payout_table": "10/90"}, 400, "bad_request"),
    ("add_side_pool", {"name": "J", "fee": "5", "return_percent": "120"}, 400, None),
    ("edit_side_pool", {"side_pool": 999999, "fee": "1"}, 404, "not_found"),
    ("edit_side_pool", {"fee": "1"}, 400, None),
    ("edit_side_pool", {"payout_table": "0/100"}, 400, "bad_request"),
    ("delete_side_pool", {"side_pool": 999999}, 404, "not_found"),
])
def test_bad_side_pool_input_is_refused_and_changes_nothing(
        make_tournament: Any, director: User, action: str, data: dict[str, Any],
        status: int, code: str | None) -> None:
    tournament = make_tournament(2)
    side = SidePool.objects.create(tournament=tournament, name="Jackpot", fee=5)
    if action == "edit_side_pool" and "side_pool" not in data and "fee" not in data:
        data = {"side_pool": side.pk, **data}
    before = pools_of(tournament)
    response = act(director, tournament, action, **data)
    assert response.status_code == status, response.json()
    if code:
        assert response.json()["error"] == code
    assert pools_of(tournament) == before


def test_a_side_pool_of_another_tournament_is_not_found(make_tournament: Any,
                                                        director: User) -> None:
    mine, other = make_tournament(2), make_tournament(2, name="Other")
    side = SidePool.objects.create(tournament=other, name="Theirs", fee=5)
    for action in ("edit_side_pool", "delete_side_pool"):
        response = act(director, mine, action, side_pool=side.pk, fee="1")
        assert response.status_code == 404 and response.json()["error"] == "not_found"
    assert SidePool.objects.get(pk=side.pk).fee == 5


# -- divisions ---------------------------------------------------------------------------------


@pytest.fixture
def divided(director: User) -> tuple[Tournament, Tournament, Tournament]:
    event = services.tournament_create_from_template(template="swiss_5", name="Club Open",
                                                     actor=director)
    top = services.tournament_create_from_template(
        template="swiss_5", name="Open", actor=director, event=event.pk,
        eligibility=Eligibility.RATING, min_rating=1800, division_order=1)
    low = services.tournament_create_from_template(
        template="swiss_5", name="Novice", actor=director, event=event.pk,
        eligibility=Eligibility.EXPERIENCE, max_experience=50, division_order=2)
    return event, top, low


def test_experience_limits_are_set_at_creation_and_a_division_is_edited_over_the_api(
        divided: tuple[Tournament, Tournament, Tournament], director: User,
        make_player: Any) -> None:
    event, top, low = divided
    assert (low.eligibility, low.min_experience, low.max_experience) == ("experience",
                                                                         None, 50)
    response = act(director, event, "edit_division", division=top.pk, min_rating=1900,
                   name="Championship", reason="a stronger field")
    assert response.status_code == 200, response.json()
    division = response.json()["division"]
    assert division["name"] == "Championship" and division["min_rating"] == 1900
    top.refresh_from_db()
    assert (top.name, top.min_rating, top.max_rating) == ("Championship", 1900, None)
    line = TournamentLog.objects.get(tournament=event, action="division_changed")
    assert line.actor == director and line.reason == "a stronger field"
    assert line.data["changes"]["min_rating"] == ["1800.0", "1900.0"]
    # A limit set to null is cleared; one left out stays.
    act(director, event, "edit_division", division=low.pk, max_experience=None,
        min_experience=10)
    low.refresh_from_db()
    assert (low.min_experience, low.max_experience) == (10, None)
    # Registration follows the new limits.
    services.tournament_open_registration(tournament_id=event.pk, actor=director)
    entry = services.entry_register(tournament_id=event.pk,
                                    player=make_player(rating=1850, experience=20))
    assert entry.tournament_id == low.pk  # under 1900 now: not the Championship's


@pytest.mark.parametrize(("data", "status", "code"), [
    ({"min_rating": 2000, "max_rating": 1000}, 400, "bad_request"),
    ({"max_rating": 1700}, 400, "bad_request"),  # below the division's minimum of 1800
    ({"min_experience": 50, "max_experience": 50}, 400, "bad_request"),
    ({"eligibility": "wealth"}, 400, None),
    ({"min_rating": -1}, 400, None),
    ({"name": ""}, 400, None),
    ({"division_order": 5000}, 400, None),
    ({"division": 999999}, 404, "not_found"),
])
def test_bad_division_input_is_refused_and_changes_nothing(
        divided: tuple[Tournament, Tournament, Tournament], director: User,
        data: dict[str, Any], status: int, code: str | None) -> None:
    event, top, _low = divided
    fields = ("name", "division_order", "eligibility", "min_rating", "max_rating",
              "min_experience", "max_experience")
    before = Tournament.objects.filter(pk=top.pk).values_list(*fields).get()
    response = act(director, event, "edit_division", **{"division": top.pk, **data})
    assert response.status_code == status, response.json()
    if code:
        assert response.json()["error"] == code
    assert Tournament.objects.filter(pk=top.pk).values_list(*fields).get() == before
    assert not TournamentLog.objects.filter(action="division_changed").exists()


def test_a_division_of_another_event_or_a_started_one_is_refused(
        divided: tuple[Tournament, Tournament, Tournament], director: User,
        referee: User, make_player: Any) -> None:
    event, top, low = divided
    other = services.tournament_create_from_template(template="swiss_5", name="Other",
                                                     actor=director)
    response = act(director, other, "edit_division", division=top.pk, name="Stolen")
    assert response.status_code == 404 and response.json()["error"] == "not_found"
    response = act(referee, event, "edit_division", division=top.pk, name="Mine")
    assert response.status_code == 403 and response.json()["error"] == "forbidden"
    services.tournament_open_registration(tournament_id=event.pk, actor=director)
    for rating in (1900, 1950, 1000, 1010):
        services.entry_register(tournament_id=event.pk,
                                player=make_player(rating=rating, experience=0))
    services.tournament_start(tournament_id=event.pk, actor=director)
    event.refresh_from_db()
    assert event.status == TournamentStatus.RUNNING
    offered = {a["name"] for a in token_client(director).get(
        f"/api/tournaments/{event.pk}/actions/").json()}
    assert "edit_division" not in offered
    with pytest.raises(TournamentError) as error:
        services.division_update(division_id=top.pk, actor=director, name="Late")
    assert error.value.code == "already_started"
    top.refresh_from_db()
    assert top.name == "Open"


def test_an_event_with_divisions_keeps_no_money_of_its_own(
        divided: tuple[Tournament, Tournament, Tournament], director: User) -> None:
    event, top, _low = divided
    offered = {a["name"] for a in token_client(director).get(
        f"/api/tournaments/{event.pk}/actions/").json()}
    assert "edit_division" in offered
    assert not offered & {"set_money", "add_side_pool"}
    described = {a["name"]: {f["name"]: f for f in a["fields"]} for a in token_client(director).get(
        f"/api/tournaments/{event.pk}/actions/").json()}
    eligibility = described["edit_division"]["eligibility"]
    assert sorted(eligibility["choices"]) == sorted(Eligibility.values)
    assert not described["edit_division"]["min_rating"]["required"]
    money_fields = {f["name"]: f for f in next(a for a in token_client(director).get(
        f"/api/tournaments/{top.pk}/actions/").json() if a["name"] == "set_money")["fields"]}
    assert money_fields["entry_fee"]["type"] == "decimal"
    assert money_fields["forfeit_prize_on_disqualification"]["type"] == "boolean"
    with pytest.raises(TournamentError) as error:
        services.tournament_set_money(tournament_id=event.pk, actor=director,
                                      entry_fee=Decimal(5))
    assert error.value.code == "bad_request"
    assert act(director, top, "set_money", entry_fee="5").status_code == 200


def test_the_allowed_actions_follow_the_rights_table(
        divided: tuple[Tournament, Tournament, Tournament], director: User,
        referee: User) -> None:
    event, top, _low = divided
    for name in ("tournament_set_money", "side_pool_create", "side_pool_update",
                 "side_pool_delete", "division_update"):
        assert permissions.RIGHTS[name] == "director"
        assert not permissions.may(referee, name, top)
        assert permissions.may(director, name, top)
    assert "division_update" in permissions.allowed_actions(director, event)
    assert "division_update" not in permissions.allowed_actions(director, top)
    assert "tournament_set_money" in permissions.allowed_actions(director, top)
    assert "tournament_set_money" not in permissions.allowed_actions(director, event)
    assert {a.name for a in desk.allowed_actions(director, event)} >= {"edit_division"}


# -- the money, read -----------------------------------------------------------------------------


def test_the_money_is_read_over_the_api_by_the_staff_only(
        make_tournament: Any, director: User, referee: User, make_player: Any) -> None:
    tournament = make_tournament(4, start=True, entry_fee=Decimal(10),
                                 payout_table="70/30")
    for entry in tournament.entries.all():
        services.entry_set_paid(entry_id=entry.pk, paid=True, actor=referee)
    url = f"/api/tournaments/{tournament.pk}/money/"
    body = token_client(referee).get(url).json()
    assert body["pool"] == "40.00" and body["paid"] == 4 and not body["finished"]
    assert body["settings"]["payout_table"] == "70/30"
    assert [p["amount"] for p in body["places"]] == ["28.00", "12.00"]
    assert token_client(director).get(url).status_code == 200
    player = token_client(make_player("nosy").user).get(url)
    assert player.status_code == 403 and player.json()["error"] == "forbidden"
    assert token_client(None).get(url).status_code in (401, 403)


# -- the desk's pages --------------------------------------------------------------------------


def test_the_desk_shows_the_money_forms_filled_in_and_saves_them(
        make_tournament: Any, director: User) -> None:
    tournament = make_tournament(4, entry_fee=Decimal("7.50"), payout_table="60/40")
    SidePool.objects.create(tournament=tournament, name="Jackpot", fee=3)
    client = logged_in(director)
    page = client.get(f"/tournaments/{tournament.pk}/desk/").content.decode()
    assert 'id="desk-money"' in page and 'data-action="set_money"' in page
    assert 'name="entry_fee" min="0" step="0.01" inputmode="decimal" value="7.50"' in page
    assert 'name="payout_table" value="60/40"' in page
    assert 'data-action="edit_side_pool"' in page and 'data-action="delete_side_pool"' in page
    form = {name: str(getattr(tournament, name)) for name in MONEY[:-1]}
    form.update({"payout_table": "50/30/20", "forfeit_prize_on_disqualification": "true",
                 "reason": "", "next": "#desk-money"})
    response = client.post(f"/tournaments/{tournament.pk}/desk/set_money/", form)
    assert response.status_code == 302
    assert response["Location"].endswith("#desk-money")
    tournament.refresh_from_db()
    assert tournament.payout_table == "50/30/20" and tournament.entry_fee == Decimal("7.50")
    # A refusal shows the reason and changes nothing.
    form["payout_table"] = "90/20"
    page = client.post(f"/tournaments/{tournament.pk}/desk/set_money/", form, follow=True)
    assert "add up to 110" in page.content.decode()
    tournament.refresh_from_db()
    assert tournament.payout_table == "50/30/20"


def test_a_division_is_created_and_edited_on_the_desk_pages(director: User) -> None:
    client = logged_in(director)
    client.post("/tournaments/desk/create/", {"name": "Club Open", "template": "swiss_5"})
    event = Tournament.objects.get(name="Club Open")
    # Divisions are added on the event's desk only: the create form with the event's id.
    page = client.get(f"/tournaments/{event.pk}/desk/").content.decode()
    assert "desk-add-division" in page
    assert f'<input type="hidden" name="event" value="{event.pk}">' in page
    assert 'name="max_experience"' in page and 'name="match_lengths"' in page
    assert 'name="event"' not in client.get("/tournaments/desk/").content.decode()
    response = client.post("/tournaments/desk/create/", {
        "name": "Novice", "template": "swiss_cut_8_consolation", "event": str(event.pk),
        "eligibility": "experience", "max_experience": "40", "min_rating": "",
        "match_lengths": "3, 5", "payout_table": "70/30", "consolation_percent": "20",
        "division_order": "2", "rounds": "4"})
    assert response.status_code == 302
    novice = Tournament.objects.get(name="Novice")
    assert (novice.event_id, novice.eligibility, novice.max_experience) == (
        event.pk, Eligibility.EXPERIENCE, 40)
    assert novice.match_lengths == [3, 5] and novice.consolation_percent == 20
    assert novice.format_options == {"rounds": 4, "cut": 8, "consolation_rounds": 1}
    desk_page = client.get(f"/tournaments/{event.pk}/desk/").content.decode()
    assert 'data-action="edit_division"' in desk_page
    assert 'name="max_experience" min="0" inputmode="numeric" value="40"' in desk_page
    response = client.post(f"/tournaments/{event.pk}/desk/edit_division/", {
        "division": str(novice.pk), "name": "Novice", "division_order": "2",
        "eligibility": "experience", "min_rating": "", "max_rating": "",
        "min_experience": "", "max_experience": "60", "reason": "more beginners came"})
    assert response.status_code == 302
    novice.refresh_from_db()
    assert novice.max_experience == 60
    bad = client.post("/tournaments/desk/create/", {
        "name": "Bad", "template": "swiss_5", "match_lengths": "3, x"}, follow=True)
    assert "match_lengths" in bad.content.decode()
    assert not Tournament.objects.filter(name="Bad").exists()


def test_a_side_pool_keeps_who_paid_in_after_a_withdrawal(make_tournament: Any,
                                                          director: User) -> None:
    tournament = make_tournament(3)
    side = services.side_pool_create(tournament_id=tournament.pk, name="J", fee=Decimal(2),
                                     actor=director)
    entry = tournament.entries.first()
    assert entry is not None
    services.side_pool_enter(side_pool_id=side.pk, entry_id=entry.pk, actor=director)
    services.entry_withdraw(entry_id=entry.pk, actor=director, reason="ill")
    entry.refresh_from_db()
    assert entry.status == EntryStatus.WITHDRAWN
    # Membership is the treasurer's record of who paid in: it stays.
    assert money_summary(tournament)["side_pools"][0]["members"] == 1
