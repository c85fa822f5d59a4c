"""The desk's write API: every action over ``POST /api/tournaments/<id>/actions/<name>/``,
who may take it (director, referee, player, anonymous), and bad input refused with nothing
changed."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission, User

from matches.models import Player
from tests.api_clients import desk_action as act
from tests.api_clients import token_client
from tournaments import desk
from tournaments.models import (
    Entry,
    EntryStatus,
    Pairing,
    PairingStatus,
    SidePool,
    Tournament,
    TournamentLog,
    TournamentStatus,
)

pytestmark = pytest.mark.django_db


def snapshot(tournament: Tournament) -> tuple[Any, ...]:
    """Everything an action could change, to check a refusal changed nothing."""
    tournament.refresh_from_db()
    return (
        tournament.status, tournament.current_round,
        sorted(Entry.objects.filter(tournament=tournament).values_list(
            "pk", "status", "paid", "checked_in", "seed")),
        sorted(Pairing.objects.filter(tournament=tournament).values_list(
            "pk", "status", "winner_id", "board_number", "winner_points")),
        sorted(tournament.rounds.values_list("pk", "starts_at")),
        TournamentLog.objects.filter(tournament=tournament).count(),
    )


@pytest.fixture
def player_user(make_player: Any) -> User:
    return make_player("bystander").user


def test_a_director_creates_from_a_template_and_a_player_cannot(director: User,
                                                                 player_user: User) -> None:
    templates = token_client(None).get("/api/tournaments/templates/").json()
    assert {"swiss_5", "swiss_cut_8", "single_elimination", "double_elimination",
            "round_robin", "progressive_consolation"} <= {t["key"] for t in templates}
    response = token_client(director).post("/api/tournaments/from-template/",
                                         {"template": "swiss_5", "name": "Club Swiss",
                                          "rounds": 4, "entry_fee": "10.00"}, format="json")
    assert response.status_code == 201, response.json()
    tournament = Tournament.objects.get(pk=response.json()["id"])
    assert tournament.format == "swiss" and tournament.format_options == {"rounds": 4}
    assert tournament.director == director and tournament.status == TournamentStatus.DRAFT
    assert tournament.log.get().action == "created"
    count = Tournament.objects.count()
    refused = token_client(player_user).post("/api/tournaments/from-template/",
                                           {"template": "swiss_5", "name": "Mine"},
                                           format="json")
    assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
    bad = token_client(director).post("/api/tournaments/from-template/",
                                    {"template": "round_robin", "name": "RR", "rounds": 3},
                                    format="json")
    assert bad.status_code == 400 and bad.json()["error"] == "bad_option"
    cut = token_client(director).post("/api/tournaments/from-template/",
                                    {"template": "swiss_cut_8", "name": "Cut", "rounds": 4},
                                    format="json")
    assert cut.status_code == 201 and cut.json()["format_options"] == {"rounds": 4, "cut": 8}
    count += 1
    unknown = token_client(director).post("/api/tournaments/from-template/",
                                        {"template": "nope", "name": "X"}, format="json")
    assert unknown.status_code == 400
    anonymous = token_client(None).post("/api/tournaments/from-template/",
                                      {"template": "swiss_5", "name": "X"}, format="json")
    assert anonymous.status_code == 401
    assert Tournament.objects.count() == count


def test_a_swiss_runs_over_the_api_alone(director: User, referee: User,
                                         make_player: Any) -> None:
    created = token_client(director).post("/api/tournaments/from-template/", {
        "template": "swiss_5", "name": "API Swiss", "rounds": 3, "over_the_board": True,
        "match_lengths": [1]}, format="json").json()
    tournament = Tournament.objects.get(pk=created["id"])
    SidePool.objects.create(tournament=tournament, name="Jackpot", fee=5)
    assert act(director, tournament, "open_registration").status_code == 200
    players = [make_player(f"p{i}", rating=1800 - i) for i in range(8)]
    for player in players[:7]:
        response = act(director, tournament, "register", player=player.pk)
        assert response.status_code == 200, response.json()
    assert act(director, tournament, "open_check_in").status_code == 200
    for entry in tournament.entries.all():
        assert act(referee, tournament, "check_in", entry=entry.pk).status_code == 200
        assert act(referee, tournament, "set_paid", entry=entry.pk,
                   paid=True).status_code == 200
    first = tournament.entries.order_by("pk").first()
    assert first is not None
    pool = tournament.side_pools.get()
    assert act(referee, tournament, "side_pool", entry=first.pk,
               side_pool=pool.pk).status_code == 200
    assert act(director, tournament, "reseed").status_code == 200
    started = act(director, tournament, "start")
    assert started.status_code == 200 and started.json()["tournament"]["status"] == "running"
    # A late entry joins from the next round.
    late = act(director, tournament, "late_entry", player=players[7].pk)
    assert late.status_code == 200 and late.json()["entry"]["name"] == "p7"
    rows = list(tournament.pairings.filter(status=PairingStatus.PAIRED))
    first_round = rows[0].round
    response = act(director, tournament, "round_start", bracket=first_round.bracket,
                   number=first_round.number, starts_at="2026-12-03T18:30:00Z")
    assert response.status_code == 200
    first_round.refresh_from_db()
    assert first_round.starts_at is not None and first_round.starts_at.hour == 18
    moved = act(referee, tournament, "set_table", pairing=rows[0].pk, board_number=42)
    assert moved.status_code == 200 and moved.json()["pairing"]["board_number"] == 42
    for row in rows:
        assert row.entry_a and row.entry_b
        response = act(referee, tournament, "enter_result", pairing=row.pk,
                       winner=row.entry_a.pk, winner_points=1, loser_points=0,
                       reason="score card signed")
        assert response.status_code == 200, response.json()
    # A correction: the result of the first pairing goes the other way.
    row = rows[0]
    assert row.entry_b
    corrected = act(referee, tournament, "correct_result", pairing=row.pk,
                    winner=row.entry_b.pk, reason="wrong box ticked")
    assert corrected.status_code == 200, corrected.json()
    assert corrected.json()["pairing"]["winner"] == row.entry_b.pk
    # Withdraw, then undo it by reinstating.
    entry = tournament.entries.filter(late=False).order_by("-seed").first()
    assert entry is not None
    assert act(director, tournament, "withdraw", entry=entry.pk,
               reason="went home").status_code == 200
    assert act(referee, tournament, "reinstate", entry=entry.pk,
               reason="came back").status_code == 200
    entry.refresh_from_db()
    assert entry.status == EntryStatus.ACTIVE
    tournament.refresh_from_db()
    if tournament.current_round < 2:
        assert act(director, tournament, "pair_next_round").status_code == 200
    second = list(tournament.pairings.filter(status=PairingStatus.PAIRED))
    assert any(players[7].pk in (r.entry_a.player_id, r.entry_b.player_id)
               for r in second if r.entry_a and r.entry_b)
    assert act(referee, tournament, "double_forfeit", pairing=second[0].pk,
               reason="both absent").status_code == 200
    log = token_client(referee).get(f"/api/tournaments/{tournament.pk}/log/").json()
    actions = [line["action"] for line in log]
    assert "late_entry" in actions and "reinstated" in actions
    assert any(line["reason"] == "wrong box ticked" and line["actor"] == "referee"
               for line in log)


@pytest.fixture
def running(make_tournament: Any) -> Tournament:
    tournament = make_tournament(4, start=True, over_the_board=True)
    SidePool.objects.create(tournament=tournament, name="Side", fee=1)
    return tournament


DIRECTOR_ONLY = {"withdraw", "disqualify", "late_entry", "round_start", "assign_division",
                 "open_registration", "open_check_in", "register", "reseed", "start",
                 "pair_next_round", "swap_players", "repair_round", "undo_round",
                 "set_rating", "set_money", "add_side_pool", "edit_side_pool",
                 "delete_side_pool", "edit_division"}


def inputs(tournament: Tournament, name: str, make_player: Any) -> dict[str, Any]:
    """Valid input for each action on a running 4-player elimination event."""
    entry = tournament.entries.order_by("seed").first()
    row, other = tournament.pairings.filter(status=PairingStatus.PAIRED).order_by("order")[:2]
    assert entry is not None and row.entry_a is not None and other.entry_a is not None
    reason = {"reason": "a reason"}
    return {
        "open_registration": {}, "open_check_in": {}, "reseed": {}, "start": {},
        "pair_next_round": {},
        "register": {"player": make_player().pk},
        "late_entry": {"player": make_player().pk},
        "check_in": {"entry": entry.pk},
        "set_paid": {"entry": entry.pk, "paid": True},
        "side_pool": {"entry": entry.pk, "side_pool": tournament.side_pools.get().pk},
        "assign_division": {"entry": entry.pk, "division": tournament.pk},
        "withdraw": {"entry": entry.pk, **reason},
        "disqualify": {"entry": entry.pk, **reason},
        "reinstate": {"entry": entry.pk, **reason},
        "enter_result": {"pairing": row.pk, "winner": row.entry_a.pk, **reason},
        "correct_result": {"pairing": row.pk, "winner": row.entry_a.pk, **reason},
        "double_forfeit": {"pairing": row.pk, **reason},
        "confirm_report": {"pairing": row.pk},
        "reject_report": {"pairing": row.pk, **reason},
        "set_table": {"pairing": row.pk, "board_number": 9},
        "round_start": {"bracket": row.round.bracket, "number": row.round.number,
                        "starts_at": None},
        "swap_players": {"pairing_a": row.pk, "entry_a": row.entry_a.pk,
                         "pairing_b": other.pk, "entry_b": other.entry_a.pk, **reason},
        "repair_round": reason, "undo_round": reason,
        "set_rating": {"entry": entry.pk, "rating": 1900, **reason},
        "set_money": {"entry_fee": "12.50", **reason},
        "add_side_pool": {"name": "Jackpot", "fee": "5", **reason},
        "edit_side_pool": {"side_pool": tournament.side_pools.get().pk, "fee": "2", **reason},
        "delete_side_pool": {"side_pool": tournament.side_pools.get().pk, **reason},
        "edit_division": {"division": tournament.pk, "name": "Open", **reason},
    }[name]


@pytest.mark.parametrize("name", [a.name for a in desk.ACTIONS])
def test_players_and_anonymous_may_take_no_action_and_referees_only_theirs(
        name: str, running: Tournament, referee: User, player_user: User,
        make_player: Any) -> None:
    data = inputs(running, name, make_player)
    before = snapshot(running)
    anonymous = act(None, running, name, **data)
    assert anonymous.status_code == 401
    player = act(player_user, running, name, **data)
    assert player.status_code == 403 and player.json()["error"] == "forbidden"
    as_referee = act(referee, running, name, **data)
    if name in DIRECTOR_ONLY:
        assert as_referee.status_code == 403 and as_referee.json()["error"] == "forbidden"
    else:
        assert as_referee.status_code != 403, as_referee.json()
    if as_referee.status_code >= 400 or name in DIRECTOR_ONLY:
        assert snapshot(running) == before


def test_the_action_list_is_what_each_role_may_take_now(running: Tournament, director: User,
                                                        referee: User,
                                                        player_user: User) -> None:
    url = f"/api/tournaments/{running.pk}/actions/"
    as_director = {a["name"] for a in token_client(director).get(url).json()}
    as_referee = {a["name"] for a in token_client(referee).get(url).json()}
    assert {"late_entry", "withdraw", "disqualify", "enter_result", "round_start"} <= as_director
    assert "start" not in as_director and "open_registration" not in as_director
    assert as_referee == {"set_paid", "side_pool", "reinstate", "enter_result",
                          "confirm_report", "reject_report", "correct_result",
                          "double_forfeit", "set_table"}
    assert token_client(player_user).get(url).json() == []
    assert token_client(None).get(url).json() == []
    assert token_client(player_user).get(f"/api/tournaments/{running.pk}/log/").status_code == 403
    described = next(a for a in token_client(referee).get(url).json()
                     if a["name"] == "enter_result")
    assert {f["name"]: f["required"] for f in described["fields"]} == {
        "pairing": True, "reason": True, "winner": True, "winner_points": False,
        "loser_points": False}


@pytest.mark.parametrize(("name", "data", "status", "code"), [
    ("enter_result", {"winner": 999999, "reason": "x"}, 400, "bad_result"),
    ("enter_result", {"reason": ""}, 400, None),
    ("enter_result", {"winner_points": 1, "reason": "x"}, 400, "bad_score"),
    ("enter_result", {"pairing": 999999, "reason": "x"}, 404, "not_found"),
    ("enter_result", {"winner_points": 2, "loser_points": 5, "reason": "x"}, 400, "bad_score"),
    ("set_table", {"board_number": 0}, 400, None),
    ("set_table", {"board_number": "seven"}, 400, None),
    ("withdraw", {"entry": 999999, "reason": "x"}, 404, "not_found"),
    ("withdraw", {"reason": ""}, 400, None),
    ("disqualify", {"reason": "   "}, 400, None),
    ("reinstate", {"reason": "still in"}, 409, "not_out"),
    ("late_entry", {"player": 999999}, 404, "not_found"),
    ("round_start", {"bracket": "nowhere", "number": 1, "starts_at": None}, 404, "not_found"),
    ("round_start", {"starts_at": "yesterday"}, 400, None),
    ("start", {}, 409, "bad_status"),
])
def test_bad_input_is_refused_clearly_and_changes_nothing(
        name: str, data: dict[str, Any], status: int, code: str | None, running: Tournament,
        director: User, make_player: Any) -> None:
    body = {**inputs(running, name, make_player), **data}
    before = snapshot(running)
    response = act(director, running, name, **body)
    assert response.status_code == status, response.json()
    if code is not None:
        assert response.json()["error"] == code
    assert response.json()["detail"]
    assert snapshot(running) == before


def test_an_entry_or_pairing_of_another_tournament_is_not_found(make_tournament: Any,
                                                                director: User) -> None:
    one = make_tournament(2, start=True, over_the_board=True)
    other = make_tournament(2, start=True, over_the_board=True, name="Other")
    row = other.pairings.get(status=PairingStatus.PAIRED)
    assert row.entry_a is not None
    before = snapshot(other)
    response = act(director, one, "enter_result", pairing=row.pk, winner=row.entry_a.pk,
                   reason="x")
    assert response.status_code == 404 and response.json()["error"] == "not_found"
    assert act(director, one, "withdraw", entry=row.entry_a.pk,
               reason="x").status_code == 404
    assert snapshot(other) == before


def test_hand_edits_and_a_rating_over_the_api(make_tournament: Any, director: User,
                                              referee: User) -> None:
    tournament = make_tournament(6, start=True, format="swiss", format_options={"rounds": 3},
                                 over_the_board=True)
    first, second = tournament.pairings.filter(status=PairingStatus.PAIRED).order_by(
        "order")[:2]
    assert first.entry_a and first.entry_b and second.entry_a and second.entry_b
    swap = {"pairing_a": first.pk, "entry_a": first.entry_b.pk, "pairing_b": second.pk,
            "entry_b": second.entry_b.pk, "reason": "club rule: no family pairings"}
    before = snapshot(tournament)
    assert act(referee, tournament, "swap_players", **swap).status_code == 403
    assert act(director, tournament, "swap_players",
               **{**swap, "reason": ""}).status_code == 400
    assert snapshot(tournament) == before
    response = act(director, tournament, "swap_players", **swap)
    assert response.status_code == 200, response.json()
    rows = {r.pk: r for r in tournament.pairings.filter(pk__in=[first.pk, second.pk])}
    assert {rows[first.pk].entry_a_id, rows[first.pk].entry_b_id} == {
        first.entry_a.pk, second.entry_b.pk}
    assert act(director, tournament, "repair_round",
               reason="after the swap, by the standings").status_code == 200
    undone = act(director, tournament, "undo_round", reason="paired too early")
    assert undone.status_code == 200, undone.json()
    assert not tournament.pairings.filter(status=PairingStatus.PAIRED).exists()
    assert act(director, tournament, "pair_next_round").status_code == 200
    entry = tournament.entries.order_by("seed").first()
    assert entry is not None
    rated = act(director, tournament, "set_rating", entry=entry.pk, rating=1875.5,
                reason="club list of March")
    assert rated.status_code == 200, rated.json()
    entry.player.refresh_from_db()
    assert entry.player.rating == 1875.5
    bad = act(director, tournament, "set_rating", entry=entry.pk, rating=-3, reason="x")
    assert bad.status_code == 400
    entry.player.refresh_from_db()
    assert entry.player.rating == 1875.5
    actions = [line["action"] for line in
               token_client(director).get(f"/api/tournaments/{tournament.pk}/log/").json()]
    assert {"pairing_swapped", "round_repaired", "round_undone"} <= set(actions)


def test_players_import_export_and_rating_for_club_directors_only(director: User,
                                                                  referee: User,
                                                                  make_player: Any) -> None:
    text = "name,club,rating,experience\nAli Rezaei,Tehran BG,1712.5,340\nBad,,abc,\n"
    before = sorted(Player.objects.values_list("display_name", "rating"))
    assert token_client(None).post("/api/tournaments/players/import/",
                                 {"csv": text}, format="json").status_code == 401
    assert token_client(referee).post("/api/tournaments/players/import/",
                                    {"csv": text}, format="json").status_code == 403
    report = token_client(director).post("/api/tournaments/players/import/",
                                       {"csv": text, "dry_run": False}, format="json").json()
    assert report["applied"] is False and report["counts"]["error"] == 1
    assert [line["line"] for line in report["lines"] if line["status"] == "error"] == [3]
    assert sorted(Player.objects.values_list("display_name", "rating")) == before
    good = "name,club,rating,experience\nAli Rezaei,Tehran BG,1712.5,340\n"
    preview = token_client(director).post("/api/tournaments/players/import/", {"csv": good},
                                        format="json").json()
    assert preview["dry_run"] is True and preview["counts"]["created"] == 1
    assert not Player.objects.filter(display_name="Ali Rezaei").exists()
    done = token_client(director).post("/api/tournaments/players/import/",
                                     {"csv": good, "dry_run": False}, format="json").json()
    assert done["applied"] is True
    ali = Player.objects.get(display_name="Ali Rezaei")
    assert ali.rating == 1712.5
    exported = token_client(director).get("/api/tournaments/players/export/")
    assert exported.status_code == 200 and exported["Content-Type"].startswith("text/csv")
    assert "Ali Rezaei,Tehran BG,1712.50,340" in exported.content.decode()
    assert token_client(referee).get("/api/tournaments/players/export/").status_code == 403
    rated = token_client(director).post("/api/tournaments/players/rating/", {
        "player": ali.pk, "rating": 1800, "reason": "won the club cup"}, format="json")
    assert rated.status_code == 200 and rated.json()["rating"] == 1800
    refused = token_client(referee).post("/api/tournaments/players/rating/", {
        "player": ali.pk, "rating": 1000, "reason": "x"}, format="json")
    assert refused.status_code == 403
    ali.refresh_from_db()
    assert ali.rating == 1800


def test_a_director_creates_an_event_s_divisions_and_its_money_over_the_api(
        director: User, referee: User, make_tournament: Any) -> None:
    boss = token_client(director)

    def create(status: int, **data: Any) -> Any:
        response = boss.post("/api/tournaments/from-template/",
                             {"template": "swiss_5", "name": "D", **data}, format="json")
        assert response.status_code == status, response.json()
        return response.json()

    event = create(201, name="Spring Open")["id"]
    division = create(201, name="Novice", event=event, eligibility="rating", max_rating=1600,
                      division_order=1, entry_fee="5.00", payout_table="70/30",
                      consolation_percent="10")
    made = Tournament.objects.get(pk=division["id"])
    assert (made.event_id, made.eligibility, made.min_rating, made.max_rating) == (
        event, "rating", None, 1600)
    assert (made.payout_table, str(made.consolation_percent)) == ("70/30", "10.00")
    started = make_tournament(4, start=True)
    count = Tournament.objects.count()
    # Refused, nothing created: eligibility without an event, limits out of order, a bad
    # payout table, an event of someone else's, a division of a division, a started event.
    assert create(400, eligibility="rating")["error"] == "bad_request"
    assert create(400, event=event, eligibility="rating", min_rating=1700,
                  max_rating=1600)["error"] == "bad_request"
    assert create(400, event=event, payout_table="30/70")["error"] == "bad_request"
    assert create(400, event=division["id"])["error"] == "bad_request"
    assert create(400, event=999999)["error"] == "bad_request"
    create(400, event=2**40)
    create(400, event=event, eligibility="rating", max_rating="NaN")
    create(400, event=event, eligibility="rating", min_rating=-1)
    create(400, event=event, eligibility="nobody")
    other = User.objects.create_user("other-director", is_staff=True)
    other.user_permissions.add(*Permission.objects.filter(
        codename__in=["add_tournament"]))
    refused = token_client(other).post("/api/tournaments/from-template/", {
        "template": "swiss_5", "name": "Mine", "event": event}, format="json")
    assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
    assert create(409, event=started.pk)["error"] == "bad_status"
    assert Tournament.objects.count() == count
