"""A player's match history: every filter, paging, the page and the API, bad input,
who sees which matches, and a query count that does not grow with the page."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection, reset_queries
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from matches import services
from matches.forms import MatchHistoryForm
from matches.models import Match, MatchStatus, Player
from matches.players.history import (
    HistoryFilters,
    Outcome,
    PageOutOfRange,
    filtered_history,
    history_page,
)
from tests.matches.conftest import act

pytestmark = pytest.mark.django_db


def finish(match: Match, loser_seat: int) -> Match:
    """The player in ``loser_seat`` resigns every game until the match is over."""
    for _ in range(20):
        match = act(match, loser_seat, "resign")
        if match.status != MatchStatus.PLAYING:
            return match
    raise AssertionError("the match did not end")


@pytest.fixture
def club(start_match: Callable[..., Match], make_player: Callable[..., Player]
         ) -> dict[str, Any]:
    """``me`` against two opponents: matches won and lost, rated and not, 1 and 3 points,
    one money session still going, one voided, one at a private table."""
    me, rival, other = make_player("me"), make_player("rival"), make_player("other")
    made: dict[str, Any] = {"me": me, "rival": rival, "other": other}
    made["won_rated_1"] = finish(start_match(match_length=1, players=(me, rival)), 1)
    made["lost_rated_3"] = finish(start_match(match_length=3, players=(rival, me)), 1)
    made["won_unrated_3"] = finish(start_match(match_length=3, is_rated=False,
                                               players=(other, me)), 0)
    made["playing_money"] = start_match(match_length=None, is_rated=False, players=(me, other))
    voided = start_match(match_length=1, players=(me, other))
    made["voided"] = services.match_void(match_id=voided.pk, referee=None, reason="test")
    made["private"] = finish(start_match(match_length=1, is_public=False,
                                         players=(me, rival)), 0)
    return made


def ids(queryset: Any) -> set[int]:
    return {match.pk for match in queryset}


def test_the_copied_length_and_rated_flag_follow_the_match_not_the_table(
        club: dict[str, Any]) -> None:
    assert (club["won_rated_1"].match_length, club["won_rated_1"].rated) == (1, True)
    assert (club["won_unrated_3"].match_length, club["won_unrated_3"].rated) == (3, False)
    assert (club["playing_money"].match_length, club["playing_money"].rated) == (None, False)


def test_each_filter(club: dict[str, Any]) -> None:
    me = club["me"]

    def keep(**filters: Any) -> set[int]:
        return ids(filtered_history(me, me, HistoryFilters(**filters)))

    everything = {club[key].pk for key in ("won_rated_1", "lost_rated_3", "won_unrated_3",
                                           "playing_money", "voided", "private")}
    assert keep() == everything
    assert keep(opponent=club["rival"]) == {club["won_rated_1"].pk, club["lost_rated_3"].pk,
                                            club["private"].pk}
    assert keep(result=Outcome.WON) == {club["won_rated_1"].pk, club["won_unrated_3"].pk}
    assert keep(result=Outcome.LOST) == {club["lost_rated_3"].pk, club["private"].pk}
    assert keep(result=Outcome.PLAYING) == {club["playing_money"].pk}
    assert keep(result=Outcome.NONE) == {club["voided"].pk}
    assert keep(length=3) == {club["lost_rated_3"].pk, club["won_unrated_3"].pk}
    assert keep(money=True) == {club["playing_money"].pk}
    assert keep(rated=True) == {club["won_rated_1"].pk, club["lost_rated_3"].pk,
                                club["voided"].pk, club["private"].pk}
    assert keep(rated=False) == {club["won_unrated_3"].pk, club["playing_money"].pk}
    today = timezone.localdate()
    assert keep(since=today, until=today) == everything
    assert keep(since=today + timedelta(days=1)) == set()
    assert keep(until=today - timedelta(days=1)) == set()
    assert keep(since=date.min, until=date.max) == everything  # no overflow at the ends
    # Filters combine.
    assert keep(opponent=club["rival"], result=Outcome.WON, rated=True) == {
        club["won_rated_1"].pk}


def test_dates_are_whole_days(club: dict[str, Any]) -> None:
    me = club["me"]
    old = club["won_rated_1"]
    Match.objects.filter(pk=old.pk).update(started_at=timezone.now() - timedelta(days=10))
    day = timezone.localdate() - timedelta(days=10)
    kept = ids(filtered_history(me, me, HistoryFilters(since=day, until=day)))
    assert kept == {old.pk}


def test_pages_are_newest_first_and_complete(start_match: Callable[..., Match],
                                             make_player: Callable[..., Player]) -> None:
    me, rival = make_player("me"), make_player("rival")
    matches = [finish(start_match(match_length=1, players=(me, rival)), 1) for _ in range(7)]
    # Two matches started at the same instant are still ordered (by id).
    Match.objects.filter(pk__in=[m.pk for m in matches[:2]]).update(
        started_at=matches[0].started_at)
    seen = []
    for number in (1, 2, 3):
        page = history_page(me, None, HistoryFilters(), number=number, size=3)
        assert (page.count, page.pages) == (7, 3)
        seen += [row.match.pk for row in page.rows]
    assert seen == sorted((m.pk for m in matches), key=lambda pk: (
        Match.objects.get(pk=pk).started_at, pk), reverse=True)
    assert len(set(seen)) == 7
    with pytest.raises(PageOutOfRange):
        history_page(me, None, HistoryFilters(), number=4, size=3)
    empty = history_page(rival, None, HistoryFilters(result=Outcome.WON), number=1)
    assert (empty.count, empty.rows) == (0, [])


def test_a_row_tells_the_match_from_the_players_side(club: dict[str, Any]) -> None:
    me = club["me"]
    rows = {row.match.pk: row for row in history_page(me, me, HistoryFilters()).rows}
    lost = rows[club["lost_rated_3"].pk]  # me was the second player and lost 0-3
    assert (lost.opponent, lost.score, lost.outcome) == (club["rival"], (0, 3), Outcome.LOST)
    assert lost.rating_change is not None and lost.rating_change < 0
    won = rows[club["won_rated_1"].pk]
    assert (won.score, won.outcome) == ((1, 0), Outcome.WON) and won.rating_change > 0
    assert rows[club["won_unrated_3"].pk].rating_change is None
    assert rows[club["playing_money"].pk].outcome is Outcome.PLAYING
    assert rows[club["voided"].pk].outcome is Outcome.NONE
    assert won.tournament_id is None


def test_private_matches_show_only_to_their_players(club: dict[str, Any],
                                                    make_player: Callable[..., Player]) -> None:
    me, rival, stranger = club["me"], club["rival"], make_player("stranger")
    private = club["private"].pk
    assert private in ids(filtered_history(me, me, HistoryFilters()))
    assert private in ids(filtered_history(me, rival, HistoryFilters()))  # rival played it
    assert private not in ids(filtered_history(me, stranger, HistoryFilters()))
    assert private not in ids(filtered_history(me, None, HistoryFilters()))
    # Not even in the count: the stranger's total is one less.
    assert (history_page(me, stranger, HistoryFilters()).count
            == history_page(me, me, HistoryFilters()).count - 1)

    client = Client()
    page = client.get(f"/players/{me.pk}/matches/")
    assert f'data-match="{private}"' not in page.content.decode()
    assert "5 matches" in page.content.decode()
    api = client.get(f"/api/players/{me.pk}/matches/").json()
    assert private not in [row["id"] for row in api["results"]] and api["count"] == 5
    client.force_login(User.objects.get(username="rival"))
    assert f'data-match="{private}"' in client.get(f"/players/{me.pk}/matches/").content.decode()


def test_the_form_parses_and_refuses(club: dict[str, Any]) -> None:
    good = MatchHistoryForm({"opponent": "RIVAL", "result": "won", "length": "money",
                             "rated": "false", "since": "2026-01-01", "until": "2026-12-31",
                             "page": "2", "page_size": "5"})
    assert good.is_valid(), good.errors
    filters = good.filters()
    assert filters.opponent == club["rival"] and filters.money and filters.length is None
    assert (filters.result, filters.rated) == (Outcome.WON, False)
    assert (good.page_number(), good.rows_per_page()) == (2, 5)
    empty = MatchHistoryForm({})
    assert empty.is_valid() and empty.filters() == HistoryFilters()

    for bad, field in ((("opponent", "nobody-here"), "opponent"),
                       (("result", "draw"), "result"),
                       (("length", "0"), "length"), (("length", "100"), "length"),
                       (("length", "٣"), "length"), (("length", "3.5"), "length"),
                       (("rated", "maybe"), "rated"),
                       (("since", "2026-13-01"), "since"), (("until", "yesterday"), "until"),
                       (("page", "0"), "page"), (("page", "x"), "page"),
                       (("page", "9" * 5000), "page"),
                       (("page_size", "101"), "page_size")):
        form = MatchHistoryForm(dict([bad]))
        assert not form.is_valid() and field in form.errors, bad
    reversed_dates = MatchHistoryForm({"since": "2026-05-02", "until": "2026-05-01"})
    assert not reversed_dates.is_valid() and "until" in reversed_dates.errors


def test_the_api(club: dict[str, Any], client: Client) -> None:
    me = club["me"]
    client.force_login(User.objects.get(username="me"))
    body = client.get(f"/api/players/{me.pk}/matches/", {"page_size": 2}).json()
    assert (body["count"], body["pages"], body["page"], body["page_size"]) == (6, 3, 1, 2)
    assert body["previous"] is None and "page=2" in body["next"]
    assert "page_size=2" in body["next"]
    second = client.get(body["next"]).json()
    assert second["page"] == 2 and second["previous"] is not None
    rows = client.get(f"/api/players/{me.pk}/matches/",
                      {"opponent": "rival", "result": "lost", "length": "3"}).json()["results"]
    assert [row["id"] for row in rows] == [club["lost_rated_3"].pk]
    row = rows[0]
    assert row["opponent"]["id"] == club["rival"].pk and row["score"] == [0, 3]
    assert (row["result"], row["match_length"], row["rated"]) == ("lost", 3, True)
    assert row["review_url"] == f"/matches/{row['id']}/"
    assert row["mat_url"] == f"/api/matches/{row['id']}/mat/"
    assert row["tournament"] is None and row["rating_change"] < 0
    # The links work: the review page and the .mat file.
    assert client.get(row["review_url"]).status_code == 200
    mat = client.get(row["mat_url"])
    assert mat.status_code == 200 and b"Game 1" in mat.content
    playing = client.get(f"/api/players/{me.pk}/matches/", {"result": "playing"}).json()
    assert playing["results"][0]["mat_url"] is None
    assert playing["results"][0]["match_length"] is None


@pytest.mark.parametrize(("query", "field"), [
    ({"opponent": "nobody-here"}, "opponent"), ({"result": "draw"}, "result"),
    ({"length": "abc"}, "length"), ({"rated": "yes please"}, "rated"),
    ({"since": "2026-02-30"}, "since"), ({"since": "2026-05-02", "until": "2026-05-01"}, "until"),
    ({"page": "-1"}, "page"), ({"page": "99"}, "page"), ({"page_size": "0"}, "page_size"),
])
def test_bad_filters_are_a_clear_400(club: dict[str, Any], client: Client,
                                     query: dict[str, str], field: str) -> None:
    me = club["me"]
    api = client.get(f"/api/players/{me.pk}/matches/", query)
    assert api.status_code == 400
    body = api.json()
    assert body["error"] == "bad_request" and field in body["fields"] and body["detail"]
    page = client.get(f"/players/{me.pk}/matches/", query)
    assert page.status_code == 400
    assert 'class="errorlist' in page.content.decode() or 'class="error"' in page.content.decode()


def test_no_such_player_is_a_404(db: None, client: Client) -> None:
    assert client.get("/api/players/999999/matches/").status_code == 404
    assert client.get("/players/999999/matches/").status_code == 404


def test_the_page_shows_links_and_filters(club: dict[str, Any], client: Client) -> None:
    me = club["me"]
    html = client.get(f"/players/{me.pk}/matches/", {"result": "won"}).content.decode()
    won = club["won_rated_1"].pk
    assert f'href="/matches/{won}/"' in html and f'href="/api/matches/{won}/mat/"' in html
    assert "2 matches" in html and 'value="won" selected' in html
    profile = client.get(f"/players/{me.pk}/").content.decode()
    assert f'href="/players/{me.pk}/matches/"' in profile


def test_pages_link_to_each_other_keeping_the_filters(start_match: Callable[..., Match],
                                                      make_player: Callable[..., Player],
                                                      client: Client) -> None:
    me, rival = make_player("me"), make_player("rival")
    for _ in range(3):
        finish(start_match(match_length=1, players=(me, rival)), 1)
    html = client.get(f"/players/{me.pk}/matches/",
                      {"result": "won", "page_size": 2}).content.decode()
    assert "Page 1 of 2" in html
    assert "?result=won&amp;page_size=2&amp;page=2" in html


def test_a_tournament_match_names_its_tournament(make_player: Callable[..., Player]) -> None:
    from tests.tournaments.conftest import open_pairings, play_match
    from tournaments import services as tournament_services
    from tournaments.models import Tournament

    director = User.objects.create_user(username="director", is_staff=True, is_superuser=True)
    tournament = Tournament.objects.create(director=director, name="Spring cup",
                                           match_lengths=[1], is_rated=False)
    tournament_services.tournament_open_registration(tournament_id=tournament.pk,
                                                     actor=director)
    players = [make_player() for _ in range(2)]
    for player in players:
        tournament_services.entry_register(tournament_id=tournament.pk, player=player)
    tournament_services.tournament_start(tournament_id=tournament.pk, actor=director)
    pairing = open_pairings(tournament)[0]
    assert pairing.entry_b is not None
    match = play_match(pairing, pairing.entry_b)
    row = history_page(players[0], None, HistoryFilters()).rows[0]
    assert row.match.pk == match.pk
    assert (row.tournament_id, row.tournament_name) == (tournament.pk, "Spring cup")


def test_queries_per_page_do_not_grow_with_its_size(start_match: Callable[..., Match],
                                                    make_player: Callable[..., Player],
                                                    client: Client) -> None:
    me = make_player("me")
    rivals = [make_player() for _ in range(3)]
    for number in range(12):
        finish(start_match(match_length=1, players=(me, rivals[number % 3])), number % 2)
    client.force_login(User.objects.get(username="me"))
    counts = {}
    for size in (2, 12):
        for url in (f"/players/{me.pk}/matches/", f"/api/players/{me.pk}/matches/"):
            # A request resets the connection's query log: start from an empty one, or the
            # capture (which slices the log from its length before) would see nothing.
            reset_queries()
            with CaptureQueriesContext(connection) as queries:
                response = client.get(url, {"page_size": size})
            assert response.status_code == 200
            # count, rows (the header's "your turn" count, on pages, aside)
            assert sum("matches_match" in query["sql"] and "\"to_act_id\" =" not in query["sql"]
                       for query in queries) == 2
            counts[url, size] = len(queries)
    for url in (f"/players/{me.pk}/matches/", f"/api/players/{me.pk}/matches/"):
        assert counts[url, 2] == counts[url, 12], counts
        assert 3 <= counts[url, 2] <= 8, counts  # session, user, player(s), history
    # And the selector itself: count, rows, rating changes.
    with CaptureQueriesContext(connection) as queries:
        history_page(me, me, HistoryFilters(), size=12)
    assert len(queries) == 3


def test_the_migration_copies_length_and_rated_from_earlier_matches(
        club: dict[str, Any]) -> None:
    from importlib import import_module

    from django.apps import apps

    migration = import_module("matches.migrations.0019_match_history")
    expected = {match.pk: (match.match_length, match.rated) for match in Match.objects.all()}
    assert (1, True) in expected.values() and (None, False) in expected.values()
    Match.objects.update(match_length=None, rated=False)  # as before the migration
    migration.copy_length_and_rated(apps, None)
    assert {match.pk: (match.match_length, match.rated)
            for match in Match.objects.all()} == expected
