"""Players and ratings: a club director sets a rating (logged with who and why), imports
players from CSV with a dry run and an error per bad line, and exports the same CSV."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from matches.models import Player, RatingRecord
from tournaments import services
from tournaments.services import TournamentError

GOOD = (
    "name,club,rating,experience\r\n"
    "Ali Rezaei,Tehran BG,1712.5,340\r\n"
    "مریم احمدی,Shiraz,,0\r\n"
)


def test_a_director_sets_a_rating_with_a_reason_in_the_history(make_player, director):
    player = make_player(rating=1500)
    services.player_set_rating(player_id=player.pk, rating=1650.25, actor=director,
                               reason="club rating list of March")
    player.refresh_from_db()
    assert player.rating == 1650.25
    record = RatingRecord.objects.get(player=player)
    assert (record.before, record.after, record.match_id) == (1500, 1650.25, None)
    assert record.set_by == director and record.reason == "club rating list of March"


@pytest.mark.parametrize(("rating", "reason", "code"), [
    (1600, "", "reason_required"), (-1, "x", "bad_rating"), (float("nan"), "x", "bad_rating"),
    (True, "x", "bad_rating"), ("1600", "x", "bad_rating"), (5001, "x", "bad_rating"),
])
def test_bad_ratings_are_refused_and_change_nothing(make_player, director, rating, reason,
                                                     code):
    player = make_player(rating=1500)
    with pytest.raises(TournamentError) as error:
        services.player_set_rating(player_id=player.pk, rating=rating, actor=director,
                                   reason=reason)
    assert error.value.code == code
    player.refresh_from_db()
    assert player.rating == 1500 and not RatingRecord.objects.exists()


def test_only_a_club_director_changes_ratings_or_imports(make_player, referee):
    player = make_player(rating=1500)
    someone = User.objects.create_user("someone")
    for actor in (referee, someone):
        with pytest.raises(TournamentError) as error:
            services.player_set_rating(player_id=player.pk, rating=1700, actor=actor,
                                       reason="x")
        assert error.value.code == "forbidden"
        with pytest.raises(TournamentError):
            services.players_import(csv_text=GOOD, actor=actor, dry_run=True)
        with pytest.raises(TournamentError):
            services.players_export(actor=actor)
    staff = User.objects.create_user("staff", is_staff=True)
    with pytest.raises(TournamentError):
        services.players_export(actor=staff)  # staff status alone grants nothing


def test_import_creates_and_updates_and_the_dry_run_changes_nothing(make_player, director):
    existing = make_player("ali", rating=1500)
    existing.display_name = "Ali Rezaei"
    existing.save()
    report = services.players_import(csv_text=GOOD, actor=director, dry_run=True)
    assert [(x.line, x.status) for x in report.lines] == [(2, "updated"), (3, "created")]
    assert not report.applied and not Player.objects.filter(display_name="مریم احمدی").exists()
    existing.refresh_from_db()
    assert existing.rating == 1500 and existing.club == ""
    report = services.players_import(csv_text=GOOD, actor=director, dry_run=False)
    assert report.applied and report.count("created") == 1 and report.count("updated") == 1
    existing.refresh_from_db()
    assert (existing.rating, existing.club, existing.experience) == (1712.5, "Tehran BG", 340)
    assert RatingRecord.objects.get(player=existing).set_by == director
    new = Player.objects.get(display_name="مریم احمدی")
    assert (new.club, new.rating, new.experience) == ("Shiraz", 1500, 0)
    assert not new.user.has_usable_password()
    # Importing the same file again: every line is already so.
    again = services.players_import(csv_text=GOOD, actor=director, dry_run=False)
    assert [x.status for x in again.lines] == ["ok", "ok"]


def test_a_bad_line_is_reported_by_number_and_nothing_is_imported(director):
    text = (
        "name,club,rating,experience\n"
        "Good One,Club,1600,10\n"
        ",Club,1600,10\n"
        "Bad Rating,Club,high,10\n"
        "Bad Experience,Club,1600,-3\n"
        "Good One,Other,1500,1\n"
        "Too,Many,1500,1,extra\n"
        "Far Too High,Club,9000,1\n"
    )
    report = services.players_import(csv_text=text, actor=director, dry_run=False)
    errors = {x.line: x.message for x in report.errors}
    assert sorted(errors) == [3, 4, 5, 6, 7, 8]
    assert "name is missing" in errors[3] and "'high'" in errors[4]
    assert "'-3'" in errors[5] and "line 2" in errors[6] and "5000" in errors[8]
    assert not report.applied and not Player.objects.filter(display_name="Good One").exists()


@pytest.mark.parametrize("text", ["", "name,rating\nA,1500\n", "nom,club,rating,experience\n",
                                  "name,club,rating,experience,name\n"])
def test_a_file_without_the_header_is_refused(director, text):
    with pytest.raises(TournamentError) as error:
        services.players_import(csv_text=text, actor=director, dry_run=False)
    assert error.value.code == "bad_csv"


def test_an_ambiguous_name_is_an_error(make_player, director):
    for username in ("a1", "a2"):
        player = make_player(username)
        player.display_name = "Same Name"
        player.save()
    report = services.players_import(csv_text="name,club,rating,experience\nSame Name,,1,1\n",
                                     actor=director, dry_run=True)
    assert report.lines[0].status == "error" and "Several" in report.lines[0].message


def test_export_is_the_import_format_and_round_trips(make_player, director):
    services.players_import(csv_text=GOOD, actor=director, dry_run=False)
    text = services.players_export(actor=director)
    lines = text.splitlines()
    assert lines[0] == "name,club,rating,experience"
    assert "Ali Rezaei,Tehran BG,1712.50,340" in lines and "مریم احمدی,Shiraz,1500.00,0" in lines
    report = services.players_import(csv_text=text, actor=director, dry_run=True)
    assert {x.status for x in report.lines} == {"ok"}
    assert services.players_export() == text  # a system call (no actor) needs no rights
