"""The live-play pages: lobby, creating a table, the board page, sign-up, player pages."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.test import Client

from matches.models import Match, Player, Table
from tests.matches.conftest import act

pytestmark = pytest.mark.django_db


def logged_in(player: Player) -> Client:
    client = Client()
    client.force_login(player.user)
    return client


def embedded(html: str, element_id: str) -> object:
    start = html.index(f'id="{element_id}"')
    start = html.index(">", start) + 1
    return json.loads(html[start:html.index("</script>", start)])


def test_the_lobby_lists_tables_and_offers_a_form_to_members(
        make_player: Callable[..., Player], client: Client) -> None:
    from matches import services

    alice = make_player("alice")
    table = services.table_create(name="Evening", match_length=5)
    services.table_sit(table_id=table.pk, player=alice)
    anonymous = client.get("/lobby/").content.decode()
    rows = embedded(anonymous, "lobby-data")
    assert isinstance(rows, list) and rows[0]["name"] == "Evening"
    assert rows[0]["seats"][0]["name"] == "alice" and rows[0]["seats"][1] is None
    assert 'action="/tables/new/"' not in anonymous
    assert 'action="/tables/new/"' in logged_in(alice).get("/lobby/").content.decode()


def test_creating_a_table_seats_its_creator_with_the_chosen_rules(
        make_player: Callable[..., Player]) -> None:
    alice = make_player("alice")
    response = logged_in(alice).post("/tables/new/", {
        "name": "Quick one", "match_length": "7", "cube_enabled": "on", "crawford": "on",
        "is_rated": "on", "clock": "fast", "flag_penalty": "game", "is_public": "on",
    })
    table = Table.objects.get(name="Quick one")
    assert response.status_code == 302 and response["Location"] == f"/tables/{table.pk}/"
    assert table.seat0 == alice and table.match_length == 7 and not table.gammons_enabled
    assert table.clock_enabled and table.clock_delay == 8 and table.clock_reserve_per_point == 20


def test_a_money_session_is_never_rated_and_a_bad_form_is_shown_again(
        make_player: Callable[..., Player]) -> None:
    client = logged_in(make_player("alice"))
    client.post("/tables/new/", {"name": "Money", "match_length": "", "is_rated": "on",
                                 "clock": "none", "flag_penalty": "game"})
    money = Table.objects.get(name="Money")
    assert money.match_length is None and not money.is_rated
    bad = client.post("/tables/new/", {"name": "", "match_length": "500", "clock": "none",
                                       "flag_penalty": "game"})
    assert bad.status_code == 400 and Table.objects.count() == 1


def test_the_board_page_carries_the_viewers_state(start_match: Callable[..., Match],
                                                   client: Client) -> None:
    match = start_match(dice=[[3, 1]])
    page = logged_in(match.player0).get(f"/tables/{match.table_id}/").content.decode()
    state = embedded(page, "initial-state")
    assert isinstance(state, dict)
    assert state["your_seat"] == 0 and state["legal_plays"] and state["version"] == match.version
    strings = embedded(page, "board-strings")
    assert isinstance(strings, dict) and strings["pips"] == "pips"
    watched = embedded(client.get(f"/tables/{match.table_id}/").content.decode(), "initial-state")
    assert isinstance(watched, dict) and watched["legal_plays"] is None
    assert client.get("/tables/999999/").status_code == 404


def test_the_board_speaks_persian_with_the_players_terms(start_match: Callable[..., Match],
                                                          client: Client) -> None:
    match = start_match(dice=[[3, 1]])
    response = client.get(f"/tables/{match.table_id}/", HTTP_ACCEPT_LANGUAGE="fa")
    html = response.content.decode()
    assert 'lang="fa"' in html and 'dir="rtl"' in html
    strings = embedded(html, "board-strings")
    assert isinstance(strings, dict)
    assert (strings["gammon"], strings["backgammon"], strings["cube"], strings["pips"],
            strings["bar"]) == ("مارس", "مارس ترکی", "کیوب", "پیپ", "بار")


def test_sitting_and_standing_through_the_page(make_player: Callable[..., Player]) -> None:
    from matches import services

    alice, bob = make_player("alice"), make_player("bob")
    table = services.table_create(name="T", match_length=3)
    assert logged_in(alice).post(f"/tables/{table.pk}/sit/").status_code == 302
    assert logged_in(alice).post(f"/tables/{table.pk}/stand/")["Location"] == "/lobby/"
    logged_in(alice).post(f"/tables/{table.pk}/sit/", {"seat": "1"})
    logged_in(bob).post(f"/tables/{table.pk}/sit/")
    table.refresh_from_db()
    assert (table.seat0, table.seat1) == (bob, alice)
    assert Match.objects.filter(table=table).count() == 1
    # A match in progress: standing up is refused with a message, nothing changes.
    response = logged_in(alice).post(f"/tables/{table.pk}/stand/", follow=True)
    assert "resign it first" in response.content.decode()


def test_sign_up_logs_the_new_member_in(client: Client) -> None:
    assert client.get("/accounts/signup/").status_code == 200
    response = client.post("/accounts/signup/", {
        "username": "newbie", "password1": "a-long-Passw0rd!", "password2": "a-long-Passw0rd!",
    })
    assert response.status_code == 302 and response["Location"] == "/lobby/"
    user = User.objects.get(username="newbie")
    assert Player.objects.filter(user=user).exists()
    assert "newbie" in client.get("/lobby/").content.decode()


@pytest.mark.parametrize("name", ["gnubg-expert", "GNUBG-beginner-2", "gnubg-anything"])
def test_nobody_signs_up_under_a_bots_name(client: Client, name: str) -> None:
    response = client.post("/accounts/signup/", {
        "username": name, "password1": "a-long-Passw0rd!", "password2": "a-long-Passw0rd!",
    })
    assert response.status_code == 200 and "kept for the club" in response.content.decode()
    assert not User.objects.filter(username=name).exists()


def test_the_player_page_shows_rating_and_recent_matches(start_match: Callable[..., Match],
                                                         client: Client) -> None:
    match = start_match(dice=[[3, 1]], match_length=1, is_rated=True)
    act(match, 0, "resign")
    winner = Player.objects.get(pk=match.player1_id)
    html = client.get(f"/players/{winner.pk}/").content.decode()
    # Whole-number ratings, a change to one decimal (issue 24: two decimals were noise).
    assert '<dd class="rating">1510</dd>' in html and match.player0.display_name in html
    assert "<td>+10.0</td>" in html
    me = logged_in(winner).get("/players/me/")
    assert me["Location"] == f"/players/{winner.pk}/"


def test_the_login_page_links_to_sign_up(client: Client) -> None:
    html = client.get("/accounts/login/").content.decode()
    assert 'href="/accounts/signup/"' in html and 'name="username"' in html


def test_a_boards_state_is_read_in_one_query(start_match: Callable[..., Match],
                                              django_assert_num_queries: Callable[..., object]
                                              ) -> None:
    from matches.selectors import table_state

    match = start_match(dice=[[3, 1]])
    viewer = Player.objects.get(pk=match.player0_id)
    with django_assert_num_queries(1):  # type: ignore[operator]
        state = table_state(match.table_id, viewer)
    assert state["legal_plays"] and state["table"]["seats"][0]["id"] == viewer.pk


def test_a_finished_match_opens_on_the_review_page_step_by_step(
        start_match: Callable[..., Match], make_player: Callable[..., Player],
        client: Client) -> None:
    match = start_match(dice=[[3, 1], [6, 4]], match_length=1)
    assert client.get(f"/matches/{match.pk}/")["Location"] == f"/tables/{match.table_id}/"
    match = act(match, 0, "play", "8/5 6/5")
    match = act(match, 1, "roll")
    match = act(match, 1, "resign")
    page = client.get(f"/matches/{match.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    review = embedded(html, "review-data")
    assert isinstance(review, dict)
    frames = review["frames"]
    # start, opening roll, the play, bob's roll, the resignation: one frame per change
    assert [f["phase"] for f in frames][:4] == ["opening_roll", "move", "turn_start", "move"]
    assert frames[1]["dice"] == [3, 1] and frames[3]["dice"] == [6, 4]
    assert frames[2]["board"]["points"][4] == 2  # seat 0's 5 point after 8/5 6/5
    assert frames[-1]["score"] == [1, 0] and review["winner"] == 0
    events = review["games"][0]["events"]
    assert events[frames[2]["at"][1]] == {"type": "play", "player": 0, "dice": [3, 1],
                                          "play": "8/5 6/5"}
    assert events[frames[3]["at"][1]] == {"type": "roll", "player": 1, "dice": [6, 4]}
    assert f"/api/matches/{match.pk}/mat/" in html and f"/api/matches/{match.pk}/dice/" in html
    strings = embedded(html, "board-strings")
    assert isinstance(strings, dict) and "step_of" in strings and "ev_play" in strings
    # the players' pages link there
    profile = client.get(f"/players/{match.player0_id}/").content.decode()
    assert f'href="/matches/{match.pk}/"' in profile
    assert client.get("/matches/999999/").status_code == 404


def test_a_private_tables_match_is_reviewed_only_by_its_players(
        start_match: Callable[..., Match], make_player: Callable[..., Player],
        client: Client) -> None:
    match = start_match(dice=[[3, 1]], match_length=1, is_public=False)
    match = act(match, 0, "resign")
    assert client.get(f"/matches/{match.pk}/").status_code == 404
    assert logged_in(make_player("eve")).get(f"/matches/{match.pk}/").status_code == 404
    assert logged_in(match.player1).get(f"/matches/{match.pk}/").status_code == 200
