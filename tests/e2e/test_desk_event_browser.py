"""Issue 27's acceptance on the desk pages alone, in a real browser at tablet size.

A director and a referee, who log in through the login page and never open ``/admin/``,
run the 32-player event of :mod:`tests.tournaments.event_checks` from creation to payouts
on the desk (``/tournaments/desk/...``) and the ordinary site pages: the director imports
the players from a CSV file (a preview, a bad file refused line by line, then the import),
creates the event and, on its desk, its two rating divisions from the template with a
consolation (``swiss_cut_8_consolation``) with their entry fees, payouts and consolation
share, changes a division's mistyped rating limit there, sets each division's consolation
payout table in its money settings, registers the players and opens check-in; the referee
checks them in and marks the fees paid; the director starts, takes a late entry, swaps two
players of a pairing, withdraws one player and disqualifies another; the referee enters
every result from the pairings and bracket (a round of it from the keyboard) and corrects
one after the next round was paired, which the director pairs again; the divisions play
their Swiss, the cut, the knockout and the consolation of its quarter-final losers. The
referee is offered exactly the rights the rules page gives, and a director's action posted
by the referee is refused and changes nothing.

Then everything is worked out again by hand (:func:`tests.tournaments.event_checks.
check_division`, which the run over the write API uses too) and compared with what the
site publishes: ``results.csv``, ``standings.csv``, the results page, the placings of both
flights, the payouts (main flight and consolation) on the tournament page and in the
treasurer's sheet, and the ``.mat`` zip.

The database is only read, to check; every change goes through a page.

The same event runs over the write API in ``tests/tournaments/test_desk_api_acceptance.py``
on both of CI's stores; this run takes minutes, so it is marked ``long_acceptance`` and CI's
second pass (the embedded stores) leaves it out.
"""

from __future__ import annotations

import csv
import html
import io
import re
import zipfile
from collections.abc import Callable
from decimal import Decimal
from typing import Any
from urllib.parse import urlparse

import pytest
from django.contrib.auth.models import Group, Permission, User
from playwright.sync_api import Error as PlaywrightError

from matches.models import Player
from tests.e2e.servers import WebServer
from tests.tournaments.event_checks import (
    CONSOLATION_PERCENT,
    CONSOLATION_TABLE,
    FEE,
    LENGTH,
    PAYOUT_TABLE,
    ROUNDS,
    check_division,
    name,
    number_of,
    players_csv,
)
from tournaments.models import (
    EntryStatus,
    PairingStatus,
    Tournament,
    TournamentLog,
    TournamentStatus,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.long_acceptance,
              pytest.mark.django_db(transaction=True)]

PASSWORD = "e2e-Passw0rd!"
TABLET = {"width": 820, "height": 1180}

# What the rules page (/tournaments/rules/, "Referees") lets a referee do, and the desk's
# actions that are those rights.
REFEREE_RIGHTS = {
    "enter the result of a match played over the board": {"enter_result"},
    "correct a confirmed result": {"correct_result"},
    "record a double forfeit": {"double_forfeit"},
    "reinstate a withdrawn or absent player": {"reinstate"},
    "check players in": {"check_in"},
    "mark entry fees paid and enter players in side pools, and move a pairing to another "
    "table number": {"set_paid", "side_pool", "set_table"},
}
REFEREE_ACTIONS = set().union(*REFEREE_RIGHTS.values())


# -- the desk's moves ----------------------------------------------------------------------


def messages_text(page: Any) -> str:
    box = page.locator(".messages")
    return box.inner_text() if box.count() else ""


def message_of(response: Any) -> str:
    """The message on top of the page a post came back to, as that answer had it (a live
    reload of the desk after it would have cleared it from the page)."""
    box = re.search(r'<ul class="messages">(.*?)</ul>', response.text(), re.S)
    return html.unescape(" ".join(re.findall(r"<li[^>]*>([^<]*)</li>", box.group(1)))
                         if box else "")


class ReloadedFirst(Exception):
    """The desk reloaded itself (a change announced live) as the button was pressed: the
    tap went to the page being replaced and nothing was sent."""


def submit(page: Any, form: Any, expect: str | None = None, *,
           press: Callable[[], None] | None = None) -> str:
    """Press the form's button (or ``press`` a key), wait for the page the post comes back
    to and return its message (``expect``: the message it must contain)."""
    # The new page once its document is parsed and its scripts have run (desk.js is a plain
    # script at the end of the body): its forms are there and the live reload is set up;
    # waiting for "load" too would only wait for what the browser has cached already.
    with page.expect_navigation(wait_until="domcontentloaded") as navigation:
        if press is not None:
            press()
        else:
            form.locator("button[type=submit]").click()
    response = navigation.value
    # The post, answered at once (the players page) or by a redirect (the desk).
    posted = response is not None and (response.request.redirected_from
                                       or response.request).method == "POST"
    if not posted:
        raise ReloadedFirst
    try:
        said = message_of(response)
    except PlaywrightError:
        # The desk reloaded itself (live) just after the post came back, which took the
        # answer's message with it: the checks of the event's state below still tell.
        page.wait_for_load_state()
        return messages_text(page)
    if expect is not None:
        assert expect in said, said
    return said


def act(page: Any, form: Callable[[], Any], expect: str | None = None, **values: str) -> str:
    """Find the form (``form()``, which opens and prepares it), fill in ``values`` and
    submit it; again on the new page if the desk reloaded itself first."""
    for _attempt in range(3):
        target = form()
        fill(target, **values)
        try:
            return submit(page, target, expect)
        except ReloadedFirst:
            continue
    raise AssertionError("the desk kept reloading itself")


def open_form(page: Any, container: str, action: str) -> Any:
    """The container's form for ``action``, its <details> opened by a tap on the summary."""
    details = page.locator(f"{container} details:has(form[data-action={action}])")
    # One round trip: null when there is no <details> around the form.
    if details.evaluate_all("found => found.length ? found[0].open : null") is False:
        details.first.locator("> summary").click()
    return page.locator(f"{container} form[data-action={action}]").first


def fill(form: Any, **values: str) -> Any:
    if not values:
        return form
    # Which fields are choices, asked once for the whole form.
    tags = form.evaluate("""(form, names) => names.map((name) => {
        const field = form.querySelector(`[name="${name}"]:not([type=hidden])`);
        return field ? field.tagName : null;
    })""", list(values))
    for (field, value), tag in zip(values.items(), tags, strict=True):
        assert tag is not None, field
        target = form.locator(f"[name={field}]:not([type=hidden])")
        if tag == "SELECT":
            target.select_option(value)
        else:
            target.fill(value)
    return form


def entry_row(page: Any, player: str) -> str:
    row = page.locator("tr[data-entry]", has=page.locator("td", has_text=re.compile(
        rf"^{player}( \(late entry\))?$")))
    assert row.count() == 1, player
    return f"#entry-{row.get_attribute('data-entry')}"


def open_pairings(page: Any) -> list[str]:
    """The pairings on the page whose result can be entered, top to bottom."""
    return [f"#{box}" for box in page.locator(
        ".desk-pairing:has(form[data-action=enter_result])").evaluate_all(
        "boxes => boxes.map((box) => box.id)")]


def better_of(form: Any) -> tuple[str, str]:
    """The winner at the board (the higher rated: the higher number) and the loser, as the
    form's winner choices give them."""
    options = [(value, text) for value, text in form.locator(
        "select[name=winner] option").evaluate_all(
        "options => options.map((o) => [o.getAttribute('value'), o.textContent.trim()])")
        if value]
    ranked = sorted(options, key=lambda option: number_of(option[1]))
    return ranked[-1][0], ranked[0][0]


def enter_round(page: Any, reason: str = "score sheet signed") -> int:
    """Enter the result of every pairing open now, from its box on the pairings page."""
    boxes = open_pairings(page)
    for box in boxes:
        def result_form(box: str = box) -> Any:
            return open_form(page, box, "enter_result")

        winner, _loser = better_of(result_form())
        act(page, result_form, "The result is in.", winner=winner,
            winner_points=str(LENGTH), loser_points="1", reason=reason)
    return len(boxes)


def enter_round_by_keyboard(page: Any) -> int:
    """The same with the keys alone: "/" to "Go to", the pairing's slot and Enter open its
    result form at its first field; type, tab, arrow, Enter."""
    boxes = open_pairings(page)
    for box in boxes:
        for _attempt in range(3):
            try:
                by_keyboard(page, box)
                break
            except ReloadedFirst:
                continue
        else:
            raise AssertionError("the desk kept reloading itself")
    return len(boxes)


def by_keyboard(page: Any, box: str) -> None:
    slot = page.locator(box).get_attribute("data-slot")
    form = page.locator(f"{box} form[data-action=enter_result]")
    page.keyboard.press("/")
    page.keyboard.type(f"{slot}:")
    page.keyboard.press("Enter")
    form.locator("input[name=reason]:focus").wait_for()
    page.keyboard.type("score sheet signed")
    page.keyboard.press("Tab")
    winner, _loser = better_of(form)
    choice = form.locator("select[name=winner]:focus")
    if choice.input_value() != winner:
        page.keyboard.press("ArrowDown")
    assert choice.input_value() == winner
    page.keyboard.press("Tab")
    page.keyboard.type(str(LENGTH))
    page.keyboard.press("Tab")
    page.keyboard.type("1")
    submit(page, form, "The result is in.", press=lambda: page.keyboard.press("Enter"))


def offered(page: Any) -> set[str]:
    return set(page.locator("form[data-action]").evaluate_all(
        "forms => forms.map((form) => form.dataset.action)"))


def csv_rows(page: Any, url: str) -> list[dict[str, str]]:
    response = page.request.get(url)
    assert response.ok, url
    return list(csv.DictReader(io.StringIO(response.text())))


def login(context: Any, url: str, username: str) -> Any:
    page = context.new_page()
    page.goto(f"{url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("form.login button[type=submit]")
    page.wait_for_url(f"{url}/")
    return page


# -- the event -------------------------------------------------------------------------------


def test_the_32_player_event_runs_on_the_desk_alone_in_a_browser(
        live_server_process: WebServer, browser: Any, artifacts: Any) -> None:
    User.objects.create_superuser("director", password=PASSWORD)
    referee = User.objects.create_user("referee", password=PASSWORD, is_staff=True)
    # The Referees group as the migration makes it (a transactional test may have lost it).
    group, _ = Group.objects.get_or_create(name="Referees")
    group.permissions.add(Permission.objects.get(codename="referee_tournament"))
    referee.groups.add(group)
    url = live_server_process.url
    visited: list[str] = []
    contexts = [browser.new_context(viewport=TABLET, has_touch=True, is_mobile=True)
                for _ in range(2)]
    for context in contexts:
        context.on("request", lambda request: visited.append(urlparse(request.url).path))
    try:
        boss = login(contexts[0], url, "director")
        ref = login(contexts[1], url, "referee")
        run_the_event(boss, ref, url, artifacts)
    finally:
        for context in contexts:
            context.close()
    assert visited and not [path for path in visited if path.startswith("/admin")]


def run_the_event(boss: Any, ref: Any, url: str, artifacts: Any) -> None:
    # -- Players and ratings from a CSV file: a preview, a bad file, the import. ------------
    boss.goto(f"{url}/tournaments/desk/")
    boss.click("text=Players and ratings")
    good = players_csv().encode()
    bad = good + b"Broken,Tehran BG,high,1\n,Tehran BG,1500,1\n"
    before = Player.objects.count()

    def importer(body: bytes, *, preview: bool) -> Callable[[], Any]:
        def form() -> Any:
            found = boss.locator("form.desk-import")
            found.locator("input[name=file]").set_input_files(
                files=[{"name": "players.csv", "mimeType": "text/csv", "buffer": body}])
            found.locator("input[type=checkbox][name=dry_run]").set_checked(preview)
            return found
        return form

    act(boss, importer(good, preview=True))
    assert "Preview: 32 new, 0 updated, 0 unchanged, 0 with errors." in boss.inner_text(
        ".import-counts")
    assert Player.objects.count() == before
    act(boss, importer(bad, preview=False), "Nothing was imported")
    errors = boss.locator(".import-report tr.import-error")
    assert errors.count() == 2
    assert [row.locator("td").first.inner_text() for row in errors.all()] == ["34", "35"]
    assert all(row.locator("td").nth(3).inner_text() for row in errors.all())
    assert Player.objects.count() == before
    act(boss, importer(good, preview=False), "The players are imported.")
    assert Player.objects.count() == before + 32

    # -- The event and its two rating divisions, from a template, money included. ------------
    boss.goto(f"{url}/tournaments/desk/")

    def create() -> Any:
        form = boss.locator(".desk-create form")
        form.locator("input[type=checkbox][name=over_the_board]").check()
        return form

    act(boss, create, "The tournament is created", name="Club Open", template="swiss_cut_8",
        rounds=str(ROUNDS), match_lengths=str(LENGTH))
    event = Tournament.objects.get(name="Club Open")
    event_desk = f"{url}/tournaments/{event.pk}/desk/"
    assert boss.url == event_desk
    # (The Intermediate's upper limit is mistyped, then changed on the event's desk.)
    for title, limits in (("Open", {"min_rating": "1800", "division_order": "1"}),
                          ("Intermediate", {"max_rating": "1700", "division_order": "2"})):

        def add_division() -> Any:
            details = boss.locator("#desk-divisions details.desk-add-division")
            if not details.evaluate("d => d.open"):
                details.locator("> summary").click()
            form = details.locator("form")
            form.locator("input[type=checkbox][name=over_the_board]").check()
            return form

        # CONSOLATION: the knockout's quarter-final losers play a consolation, paid from
        # the consolation share.
        act(boss, add_division, "The division is created.", name=title,
            eligibility="rating", template="swiss_cut_8_consolation", rounds=str(ROUNDS),
            match_lengths=str(LENGTH), entry_fee=str(FEE), payout_table=PAYOUT_TABLE,
            consolation_percent=str(CONSOLATION_PERCENT), **limits)
        assert boss.url.startswith(event_desk)
    assert [d.inner_text().split(" · ")[0] for d in
            boss.locator("#desk-divisions li").all()] == ["Open", "Intermediate"]
    top = Tournament.objects.get(name="Open", event=event)
    low = Tournament.objects.get(name="Intermediate", event=event)
    act(boss, lambda: open_form(boss, f"#division-{low.pk}", "edit_division"),
        "The division is saved.", max_rating="1800", reason="the limit was mistyped")
    assert "rating under 1800" in boss.inner_text(f"#division-{low.pk}")
    # Each division's consolation pays 50/30/20: its money settings, on its own desk.
    for division in (top, low):
        boss.goto(f"{url}/tournaments/{division.pk}/desk/")
        act(boss, lambda: open_form(boss, "#desk-money", "set_money"),
            "The money settings are saved.", consolation_payout_table=CONSOLATION_TABLE)
        division.refresh_from_db()
    for division in (top, low):
        assert (division.entry_fee, division.payout_table, division.consolation_percent,
                division.match_lengths, division.format_options["rounds"],
                division.over_the_board, division.format_options["consolation_rounds"]
                ) == (FEE, PAYOUT_TABLE, CONSOLATION_PERCENT, [LENGTH], ROUNDS, True, 1)
    assert (top.min_rating, top.max_rating, low.min_rating, low.max_rating) == (
        1800, None, None, 1800)
    assert top.consolation_payout_table == low.consolation_payout_table == CONSOLATION_TABLE
    boss.goto(event_desk)

    # -- Registration by the director (Player 00 comes late), check-in by the referee. ------
    act(boss, lambda: boss.locator("form[data-action=open_registration]"),
        "Registration is open.")
    for i in range(1, 32):
        def register(i: int = i) -> Any:
            form = boss.locator("form[data-action=register]")
            form.locator("select[name=player]").select_option(label=name(i))
            return form

        act(boss, register, "The player is registered.")
    act(boss, lambda: boss.locator("form[data-action=open_check_in]"), "Check-in is open.")
    assert boss.locator("table.desk-entries tbody tr").count() == 31
    boss.goto("about:blank")  # the referee's desk now: the director's would follow live

    ref.goto(event_desk)
    # The referee's desk before the start: check-in and paid marks, none of the director's.
    assert offered(ref) == {"check_in", "set_paid"}
    for i in range(1, 32):
        row = entry_row(ref, name(i))
        for action, said in (("check_in", "Checked in."), ("set_paid",
                                                          "The paid mark is saved.")):
            def entry_form(row: str = row, action: str = action) -> Any:
                return ref.locator(f"{row} form[data-action={action}]")

            act(ref, entry_form, said)
    assert ref.locator("td.entry-paid", has_text="paid").count() == 31
    # A director's action posted by the referee (a forged form) is refused, nothing changes.
    refused = forged_post(ref, f"{event_desk}start/")
    assert "cannot do that" in refused
    event.refresh_from_db()
    assert event.status == TournamentStatus.CHECK_IN

    # The rules page says what a referee may do: that is what the desk offers, no more.
    ref.goto(f"{url}/tournaments/rules/")
    rules = ref.locator("#referees ~ ul").first.inner_text()
    for right in REFEREE_RIGHTS:
        assert right in rules, right

    # -- The director starts the event. ------------------------------------------------------
    ref.goto("about:blank")
    boss.goto(event_desk)
    act(boss, lambda: boss.locator("form[data-action=start]"), "The tournament has started.")
    top.refresh_from_db()
    low.refresh_from_db()
    assert top.status == low.status == TournamentStatus.RUNNING
    top_desk = f"{url}/tournaments/{top.pk}/desk/"
    low_desk = f"{url}/tournaments/{low.pk}/desk/"
    assert {a.get_attribute("href") for a in boss.locator("#desk-divisions li a").all()} == {
        f"/tournaments/{top.pk}/desk/", f"/tournaments/{low.pk}/desk/"}

    # -- Intermediate: a late entry, a hand swap, a correction after the next round. ---------
    boss.click(f"#desk-divisions a[href='/tournaments/{low.pk}/desk/']")
    assert boss.url == low_desk

    def late_entry() -> Any:
        form = boss.locator("form[data-action=late_entry]")
        form.locator("select[name=player]").select_option(label=name(0))
        return form

    act(boss, late_entry, "The late entry is in.")
    late = low.entries.get(player__display_name=name(0))
    first = list(low.pairings.filter(status=PairingStatus.PAIRED, round__number=1)
                 .order_by("order"))
    one, two = first[0], first[1]
    act(boss, lambda: boss.locator("form[data-action=swap_players]"),
        "The two players are swapped.", pairing_a=str(one.pk), entry_a=str(one.entry_a_id),
        pairing_b=str(two.pk), entry_b=str(two.entry_a_id), reason="keep club mates apart")
    one.refresh_from_db()
    two.refresh_from_db()
    assert one.entry_a_id and two.entry_a_id and one.entry_a_id != two.entry_a_id
    swapped = (one.entry_a_id, two.entry_a_id)
    boss.goto("about:blank")

    ref.goto(low_desk)
    # Running: the referee has the late entry's paid mark, results and the room; none of the
    # director's actions (start, late entry, swap, re-pair, withdraw, disqualify, ...).
    assert offered(ref) <= REFEREE_ACTIONS and {"enter_result", "set_paid",
                                                "set_table"} <= offered(ref)
    act(ref, lambda: ref.locator(f"{entry_row(ref, name(0))} form[data-action=set_paid]"),
        "The paid mark is saved.")
    assert enter_round_by_keyboard(ref) == 7  # 15 players: one has the bye
    # The next round is paired at once (automatic pairing) ...
    assert {p.round.number for p in low.pairings.filter(status=PairingStatus.PAIRED)} == {2}
    wrong = low.pairings.filter(round__number=1, status=PairingStatus.DECIDED).exclude(
        entry_b=None).order_by("order").first()
    assert wrong is not None
    was_loser = wrong.loser_id
    # ... and a result of the round before is corrected from its box,
    act(ref, lambda: open_form(ref, f"#pairing-{wrong.pk}", "correct_result"),
        "The result is set.", winner=str(wrong.loser_id), winner_points=str(LENGTH),
        loser_points="2", reason="the score sheet was misread")
    assert "repair_round" not in offered(ref)
    ref.goto("about:blank")
    # ... then the director pairs the round again.
    boss.goto(low_desk)
    act(boss, lambda: boss.locator("form[data-action=repair_round]"),
        "The round is paired again.", reason="after the correction")
    wrong.refresh_from_db()
    assert wrong.winner_id == was_loser
    boss.goto("about:blank")

    # -- Open: a withdrawal and a disqualification, with reasons. ----------------------------
    ref.goto(top_desk)
    assert enter_round(ref) == 8
    ref.goto("about:blank")
    boss.goto(top_desk)
    act(boss, lambda: open_form(boss, entry_row(boss, name(16)), "withdraw"),
        "The player is withdrawn.", reason="went home")
    boss.goto("about:blank")
    ref.goto(top_desk)
    assert enter_round(ref) == 7  # round 2 was paired with the leaver: lost by forfeit
    ref.goto("about:blank")
    boss.goto(top_desk)
    act(boss, lambda: open_form(boss, entry_row(boss, name(31)), "disqualify"),
        "The player is disqualified.", reason="misconduct")
    boss.goto("about:blank")
    ref.goto(top_desk)
    # A referee reinstates a withdrawn player, but a disqualified one is the director's.
    assert ref.locator(f"{entry_row(ref, name(16))} form[data-action=reinstate]").count()
    assert not ref.locator(f"{entry_row(ref, name(31))} form[data-action=reinstate]").count()
    assert offered(ref) <= REFEREE_ACTIONS
    cheat_entry = top.entries.get(player__display_name=name(31))
    refused = forged_post(ref, f"{top_desk}reinstate/", entry=str(cheat_entry.pk),
                          reason="apologised")
    assert "Only the director" in refused
    cheat_entry.refresh_from_db()
    assert cheat_entry.status == EntryStatus.DISQUALIFIED

    # -- Both divisions play out: the Swiss, then the top-8 knockout on the bracket. ---------
    for desk in (top_desk, low_desk):
        ref.goto(desk)
        while enter_round(ref):
            pass
        assert "Finished" in ref.inner_text(".desk-status")
        assert ref.locator("[data-round^='knockout-'] .desk-pairing").count() == 7
    ref.screenshot(path=str(artifacts / "desk-event-tablet.png"), full_page=True)
    ref.goto(event_desk)
    assert "Finished" in ref.inner_text(".desk-status")
    log = ref.inner_text("#desk-log")
    for line in ("keep club mates apart", "the score sheet was misread",
                 "after the correction", "went home", "misconduct", "late entry"):
        assert line in log, line
    assert TournamentLog.objects.filter(tournament=low, action="pairing_swapped",
                                        actor__username="director").exists()

    # -- Everything worked out again by hand, and every published file agrees. ---------------
    top_ids = {name(i): top.entries.get(player__display_name=name(i)).pk for i in (16, 31)}
    hand = {
        top: check_division(top, out={top_ids[name(16)]: 3, top_ids[name(31)]: 4}),
        low: check_division(low, late={late.pk: 2}, swaps={1: swapped}),
    }
    for checked_division, checked in hand.items():
        published_in_the_browser(boss, url, checked_division, checked)


def forged_post(page: Any, action: str, **data: str) -> str:
    """Post ``data`` to a desk action from the page, as a form the page does not offer
    would: the message the desk comes back with."""
    with page.expect_navigation() as navigation:
        page.evaluate("""([action, data]) => {
        const form = document.createElement('form');
        form.method = 'post';
        form.action = action;
        const token = document.querySelector('input[name=csrfmiddlewaretoken]');
        for (const [name, value] of Object.entries(
                {...data, csrfmiddlewaretoken: token.value})) {
            const input = document.createElement('input');
            input.type = 'hidden';
            input.name = name;
            input.value = value;
            form.append(input);
        }
        document.body.append(form);
        form.submit();
    }""", [action, data])
    return message_of(navigation.value)


def published_in_the_browser(page: Any, url: str, division: Tournament,
                             checked: dict[str, Any]) -> None:
    """What the site shows and gives for download, as the director's browser gets it,
    against the files :func:`check_division` read and the payouts it worked out."""
    base = f"{url}/tournaments/{division.pk}"
    files = checked["files"]
    assert csv_rows(page, f"{base}/standings.csv") == files["standings"]
    assert csv_rows(page, f"{base}/results.csv") == files["results"]
    zipped = page.request.get(f"{base}/matches.zip")
    assert zipped.ok and sorted(files["zip"].namelist()) == sorted(
        zipfile.ZipFile(io.BytesIO(zipped.body())).namelist())
    ranks = {checked["event"].names[e]: r for e, r in checked["ranks"].items()}
    # The results page: the champion, the placings (the standings' top four places).
    page.goto(f"{base}/results/")
    main = page.locator(".placings [data-flight=main] li").all()
    places = {(int(li.locator(".place").inner_text().rstrip(".")),
               li.inner_text().split(". ", 1)[1].strip()) for li in main}
    assert places == {(r, player) for player, r in ranks.items() if r <= 4}
    consolation = page.locator(".placings [data-flight=consolation] li").all()
    assert {(int(li.locator(".place").inner_text().rstrip(".")),
             li.inner_text().split(". ", 1)[1].strip()) for li in consolation} == set(
        (r, player) for player, r in checked["consolation"].items())
    champion = next(player for player, r in ranks.items() if r == 1)
    assert champion in page.inner_text("body")
    # The payouts: the tournament page's money (staff) and the treasurer's sheet.
    page.goto(f"{base}/")
    shown = {row.locator("td").first.inner_text(): Decimal(
        row.locator("td").nth(1).inner_text().split()[0])
        for row in page.locator("table.payouts tbody tr").all()}
    assert {p: a for p, a in shown.items() if a} == checked["payouts"]
    sheet = csv_rows(page, f"{base}/treasurer.csv")
    assert {row["player"]: Decimal(row["payout"]) for row in sheet
            if Decimal(row["payout"])} == checked["payouts"]
    # The consolation flight's places are paid its 10 % share by 50/30/20 (worked out by
    # hand in check_division), the main flight the rest.
    assert checked["consolation_payouts"] and sum(
        checked["consolation_payouts"].values()) == FEE * 16 * CONSOLATION_PERCENT / 100
    assert sum(checked["payouts"].values()) == FEE * 16
