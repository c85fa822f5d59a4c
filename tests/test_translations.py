"""Persian and Turkish are complete: every entry translated, none fuzzy, placeholders kept,
the catalogues up to date with the source, and the main pages free of English.

The up-to-date check runs Django's ``makemessages`` (GNU gettext; ``.ci/run`` installs it)
over a copy of the source into a scratch catalogue, and compares its msgids with the
committed ones; the committed catalogues are never touched.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import polib
import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

BASE_DIR = Path(__file__).resolve().parent.parent
LANGUAGES = ("fa", "tr")

# %(name)s, %(n)d, %s, %% — and the {name} placeholders of the board's strings.
PERCENT = re.compile(r"%(?:\(\w+\))?[sdif]|%%")
BRACES = re.compile(r"\{\w*\}")


def catalogue(language: str) -> polib.POFile:
    return polib.pofile(str(BASE_DIR / "locale" / language / "LC_MESSAGES" / "django.po"))


def translations(entry: polib.POEntry) -> list[tuple[str, str]]:
    """(source, translation) pairs: one for a plain entry, one per plural form otherwise."""
    if not entry.msgid_plural:
        return [(entry.msgid, entry.msgstr)]
    forms = sorted(entry.msgstr_plural.items())
    return [(entry.msgid if n == 0 else entry.msgid_plural, text) for n, text in forms]


def placeholders(text: str, python_format: bool) -> list[str]:
    found = sorted(BRACES.findall(text))
    if python_format:
        found += sorted(PERCENT.findall(text))
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_entry_is_translated_and_none_is_fuzzy(language: str) -> None:
    po = catalogue(language)
    active = [e for e in po if not e.obsolete]
    assert len(active) > 700
    untranslated = [e.msgid for e in active if not e.translated()]
    fuzzy = [e.msgid for e in active if "fuzzy" in e.flags]
    empty_plural = [e.msgid for e in active if e.msgid_plural
                    and not all(text for _, text in translations(e))]
    assert untranslated == [] and fuzzy == [] and empty_plural == []
    assert po.metadata["Language"] == language and not po.metadata_is_fuzzy


@pytest.mark.parametrize("language", LANGUAGES)
def test_translations_keep_their_placeholders(language: str) -> None:
    wrong = []
    for entry in catalogue(language):
        if entry.obsolete:
            continue
        python_format = "python-format" in entry.flags
        for source, text in translations(entry):
            expected = placeholders(source, python_format)
            # A plural's "one" form may spell out the number instead of %(n)s.
            if entry.msgid_plural and source == entry.msgid:
                expected = placeholders(entry.msgid_plural, python_format)
            if placeholders(text, python_format) != expected:
                wrong.append((source, text))
    assert wrong == []


def test_the_checker_sees_a_dropped_placeholder() -> None:
    entry = polib.POEntry(msgid="Welcome back, %(name)s.", msgstr="Hoş geldiniz.",
                          flags=["python-format"])
    (source, text), = translations(entry)
    assert placeholders(source, True) != placeholders(text, True)
    assert placeholders("{name} wins {points}", False) != placeholders("{name} kazanır", False)


def _keys(po: polib.POFile) -> set[tuple[str | None, str, str]]:
    return {(e.msgctxt, e.msgid, e.msgid_plural or "") for e in po if not e.obsolete}


@pytest.fixture(scope="module")
def fresh_msgids(tmp_path_factory: pytest.TempPathFactory) -> set[tuple[str | None, str, str]]:
    """The msgids the source uses today, from makemessages over a copy of the source."""
    if not shutil.which("xgettext") or not shutil.which("msgmerge"):
        pytest.fail("GNU gettext is needed (apt-get install gettext; .ci/run installs it)")
    from django.conf import settings

    work = tmp_path_factory.mktemp("makemessages")
    ignore = shutil.ignore_patterns(".*", "__pycache__", "node_modules", "var", "locale",
                                    "test-artifacts", "*.egg-info", "tests", "benchmarks")
    for name in ("tavla", "matches", "tournaments", "seasons", "templates"):
        shutil.copytree(BASE_DIR / name, work / name, ignore=ignore)
    (work / "locale").mkdir()
    saved_paths, saved_cwd = settings.LOCALE_PATHS, Path.cwd()
    settings.LOCALE_PATHS = [work / "locale"]
    try:
        import os
        os.chdir(work)
        call_command("makemessages", locale=["fa"], no_wrap=True, verbosity=0)
    finally:
        os.chdir(saved_cwd)
        settings.LOCALE_PATHS = saved_paths
    return _keys(polib.pofile(str(work / "locale" / "fa" / "LC_MESSAGES" / "django.po")))


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_catalogue_is_up_to_date_with_the_source(
        language: str, fresh_msgids: set[tuple[str | None, str, str]]) -> None:
    committed = _keys(catalogue(language))
    assert len(fresh_msgids) > 700
    missing = sorted(k[1] for k in fresh_msgids - committed)
    stale = sorted(k[1] for k in committed - fresh_msgids)
    # Fix: DEBUG=1 python manage.py makemessages -l fa -l tr --no-wrap, translate, compilemessages.
    assert missing == [] and stale == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_catalogue_matches_the_source_catalogue(language: str) -> None:
    po = catalogue(language)
    mo = polib.mofile(str(BASE_DIR / "locale" / language / "LC_MESSAGES" / "django.mo"))
    compiled = {(e.msgctxt, e.msgid): e.msgstr or e.msgstr_plural for e in mo}
    for entry in po:
        if entry.obsolete:
            continue
        expected = entry.msgstr or {int(k): v for k, v in entry.msgstr_plural.items()}
        got = compiled.get((entry.msgctxt, entry.msgid))
        if isinstance(got, dict):
            got = {int(k): v for k, v in got.items()}
        assert got == expected, f"{entry.msgid!r}: run compilemessages"


# --- Words that come from data -------------------------------------------------------------


def analysis_data_words() -> set[str]:
    """Every word :mod:`tavla.analysis.analyse` can store for a page to show: the marks,
    the luck marks, gnubg's rating and luck words (its constants and what lies beyond the
    last threshold), the summary of a player without decisions, and the cube actions."""
    from tavla.analysis import analyse
    from tavla.analysis.resign import DECISION_WORDS

    words = {word for _threshold, word in analyse.RATINGS}
    words |= {word for _threshold, word in analyse.LUCK_RATINGS}
    words |= {analyse.error_rating(10.0), analyse.luck_rating(10.0)}
    words |= {analyse.mark(loss) for loss in (analyse.DOUBTFUL, analyse.ERROR, analyse.BLUNDER)}
    words |= {analyse.luck_mark(sign * luck) for sign in (1, -1)
              for luck in (analyse.LUCKY, analyse.VERY_LUCKY)}
    empty = analyse.PlayerSummary("nobody")
    empty.finish()
    words |= {empty.rating, empty.luck_rating}
    words |= {"double", "no double", "take", "drop"}  # a cube decision's chosen and best
    words |= set(DECISION_WORDS)  # a resignation decision's chosen and best
    words.discard("")
    return words


def test_the_data_words_are_enumerated_from_the_analysis() -> None:
    words = analysis_data_words()
    assert {"Supernatural", "Awful!", "Go to bed", "Go to Las Vegas", "doubtful", "error",
            "blunder", "very lucky", "unlucky", "N/A"} <= words


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_word_the_analysis_stores_is_ours_and_translated(language: str) -> None:
    from django.utils import translation

    from matches.analysis_review import cube_verdict
    from matches.analysis_words import ANALYSIS_WORDS, analysis_word

    verdicts = {cube_verdict({"no_double": nd, "double_take": dt, "double_pass": 1.0})
                for nd in (0.2, 0.6, 1.2) for dt in (0.1, 0.5, 1.4)}
    assert len(verdicts) == 4
    words = analysis_data_words() | verdicts
    missing = sorted(words - set(ANALYSIS_WORDS))
    assert missing == [], "add these to matches/analysis_words.py ANALYSIS_WORDS"
    with translation.override("en"):
        english = {word: analysis_word(word) for word in words}
    with translation.override(language):
        shown = {word: analysis_word(word) for word in words}
    untranslated = sorted(word for word in words
                          if not shown[word].strip() or shown[word] == english[word])
    assert untranslated == []


# --- Pages -------------------------------------------------------------------------------

# English words of the UI that no Persian or Turkish page should show. Words Turkish shares
# with English ("bot", "Final", "Crawford") and names (Tavla, GNU, PR) are left out.
ENGLISH_WORDS = {
    "lobby", "tables", "table", "tournaments", "tournament", "log in", "log out", "sign up",
    "language", "home", "match", "matches", "watch", "sit", "seat", "score", "moves",
    "waiting", "player", "players", "rules", "register", "standings", "round", "connecting",
    "undo", "confirm", "resign", "double", "take", "drop", "cube", "points", "point", "bar",
    "off", "borne", "turn", "roll", "cancel", "close", "rated", "unrated", "clock", "game",
    "opponent", "new", "create", "name", "status", "format", "entries", "seed", "champion",
    "the", "and", "to", "of", "your", "you", "is", "no", "yes", "live", "pips", "money",
    "session", "free", "software", "welcome", "back", "chat", "send", "options", "sounds",
    "review", "step", "next", "previous", "gammon", "backgammon", "doubles", "rolls", "wins",
    "beginner", "intermediate", "advanced", "world class", "strength", "length",
    # gnubg's words of an analysis (the review, the profile, the referee's replay)
    "doubtful", "error", "blunder", "lucky", "unlucky", "supernatural", "expert",
    "casual player", "awful", "go to bed", "better luck next time", "good dice",
    "go to las vegas", "no double", "pass", "too good", "played", "best", "equity", "luck",
    "decision", "analysis",
}
LATIN_DIGIT = re.compile(r"[0-9]")
ALLOWED = ("GNU Backgammon", "Tavla", "GNU", "AGPL", "PR", ".mat", "CSV", "Buchholz",
           "Sonneborn-Berger")


class VisibleText(HTMLParser):
    """The text a reader sees: text nodes outside script/style, and the titles, labels and
    placeholders of elements. ``code``/``pre`` text is kept apart (examples of input)."""

    HIDDEN = {"script", "style", "template"}
    LITERAL = {"code", "pre"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.attributes: list[str] = []
        self._hidden = 0
        self._literal = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.HIDDEN:
            self._hidden += 1
        if tag in self.LITERAL:
            self._literal += 1
        values = dict(attrs)
        for name in ("title", "placeholder", "aria-label", "alt"):
            if values.get(name):
                self.attributes.append(values[name] or "")
        if tag == "input" and values.get("type") in ("submit", "button") and values.get("value"):
            self.attributes.append(values["value"] or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN:
            self._hidden -= 1
        if tag in self.LITERAL:
            self._literal -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden and not self._literal and data.strip():
            self.text.append(data.strip())


def visible(html: str) -> VisibleText:
    parser = VisibleText()
    parser.feed(html)
    return parser


def english_left(strings: list[str]) -> list[str]:
    found = []
    for text in strings:
        for allowed in ALLOWED:
            text = text.replace(allowed, "")
        lowered = text.lower()
        for word in ENGLISH_WORDS:
            if re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", lowered):
                found.append(f"{word!r} in {text!r}")
    return found


def test_the_word_check_sees_english_and_latin_digits() -> None:
    page = visible('<p>Lobi</p><button title="Undo">x</button><p>Maç 5</p>'
                   '<script>var lobby = 1;</script><pre>{"rounds": 5}</pre>')
    assert english_left(page.text + page.attributes) == ["'undo' in 'Undo'"]
    assert [t for t in page.text if LATIN_DIGIT.search(t)] == ["Maç 5"]


@pytest.fixture
def pages(db: None, settings: Any) -> Iterator[dict[str, str]]:
    """Paths of the home page, the lobby, a table with a match in progress, the tournaments
    list and one tournament, seen by a seated player."""
    from matches import services as match_services
    from tournaments import services as tournament_services
    from tournaments.models import Tournament

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    players = [match_services.player_for_user(User.objects.create_user(username=name))
               for name in ("Shirin", "Kerem", "Dara", "Aylin")]
    players[0].rating = 1534.5
    players[0].save(update_fields=["rating"])
    table = match_services.table_create(name="Shirin-Kerem", match_length=5)
    match_services.table_sit(table_id=table.pk, player=players[0])
    match_services.table_sit(table_id=table.pk, player=players[1])
    director = User.objects.create_user(username="Mehran", is_staff=True)
    tournament = Tournament.objects.create(name="Nowruz 1405", director=director,
                                           match_lengths=[3], is_rated=False)
    tournament_services.tournament_open_registration(tournament_id=tournament.pk,
                                                     actor=director)
    for player in players:
        tournament_services.entry_register(tournament_id=tournament.pk, player=player)
    tournament_services.tournament_start(tournament_id=tournament.pk, actor=director)
    yield {"user": players[0].user.username, "home": "/", "lobby": "/lobby/",
           "table": f"/tables/{table.pk}/", "tournaments": "/tournaments/",
           "tournament": f"/tournaments/{tournament.pk}/",
           "player": f"/players/{players[0].pk}/", "rules": "/tournaments/rules/",
           "results": f"/tournaments/{tournament.pk}/results/"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_pages_show_no_english_and_persian_pages_no_latin_digits(
        language: str, pages: dict[str, str]) -> None:
    client = Client()
    client.force_login(User.objects.get(username=pages["user"]))
    client.cookies["django_language"] = language
    problems: dict[str, list[str]] = {}
    phrases = catalogue_phrases(language)
    for name in ("home", "lobby", "table", "tournaments", "tournament", "player", "rules",
                 "results"):
        response = client.get(pages[name])
        assert response.status_code == 200, name
        html = response.content.decode()
        assert f'lang="{language}"' in html
        page = visible(html)
        found = english_left(page.text + page.attributes)
        found += catalogue_english_left(page.text + page.attributes, phrases)
        if language == "fa":
            found += [f"Latin digits in {t!r}" for t in page.text if LATIN_DIGIT.search(t)]
        if found:
            problems[name] = found
    anonymous = Client()
    anonymous.cookies["django_language"] = language
    for path in ("/accounts/login/", "/accounts/signup/", "/"):
        page = visible(anonymous.get(path).content.decode())
        found = english_left(page.text + page.attributes)
        found += catalogue_english_left(page.text + page.attributes, phrases)
        if language == "fa":
            found += [f"Latin digits in {t!r}" for t in page.text if LATIN_DIGIT.search(t)]
        if found:
            problems[path] = found
    assert problems == {}


# --- The referee's replay and the words that come from data --------------------------------
#
# The page checks above see the words a template writes; these see the words the data
# carries: the replay log the referee reads (every kind of event, the forfeit reasons the
# server and the tournaments write), every tournament format's page, and the director's log.

# Words of the log and of data that no Persian or Turkish reader should meet in English.
DATA_ENGLISH = ENGLISH_WORDS | {
    "opening", "rolled", "resigned", "forfeited", "withdrew", "disqualified", "disconnected",
    "grace", "lost on time", "started", "session", "over", "won", "single", "elimination",
    "swiss", "robin", "consolation", "knockout", "referee", "awarded", "voided", "winner",
    "winners", "losers", "bracket", "bye", "withdrawn", "absent", "notice",
    "corrected", "confirmed", "report", "imported", "division", "assigned", "check in",
}


def catalogue_phrases(language: str) -> re.Pattern[str]:
    """The English phrases of the source catalogue (two words or more between placeholders)
    that the language's translation does not itself contain, as one pattern: none should
    reach its pages."""
    phrases = set()
    for entry in catalogue(language):
        if entry.obsolete:
            continue
        translated = " ".join(text for _source, text in translations(entry))
        for source, _text in translations(entry):
            for fragment in re.split(r"%(?:\(\w+\))?[sdif]|\{\w*\}|[.:;,!?()«»“”\"]", source):
                fragment = " ".join(fragment.split())
                if (len(fragment.split()) >= 2 and re.search(r"[a-z]", fragment)
                        and fragment not in translated):
                    phrases.add(fragment)
    alternatives = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)")


def catalogue_english_left(strings: list[str], phrases: re.Pattern[str]) -> list[str]:
    found = []
    for text in strings:
        text = " ".join(text.split())
        found += [f"{match.group()!r} in {text!r}" for match in phrases.finditer(text)]
    return found


def test_the_catalogue_phrases_are_the_sources_english() -> None:
    phrases = catalogue_phrases("tr")
    assert phrases.pattern.count("|") > 500
    assert catalogue_english_left(["Ana içerik", "x Skip to the main content"], phrases) == [
        "'Skip to the main content' in 'x Skip to the main content'"]


# A play in the log: 8/5 6/5, bar/20*, 13/3(2), 6/off, 24/18*/13.
NOTATION = re.compile(r"(?<![\w/])(?:bar|[0-9۰-۹]+)(?:/(?:bar|off|[0-9۰-۹]+)\*?)+(?:\([0-9۰-۹]\))?")


# The keyboard's own key names, as the replay's help names them in every language.
KEY_NAMES = ("Home", "End")


def data_english_left(strings: list[str]) -> list[str]:
    found = []
    for text in strings:
        for allowed in ALLOWED + KEY_NAMES:
            text = text.replace(allowed, "")
        lowered = text.lower()
        for word in DATA_ENGLISH:
            if re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", lowered):
                found.append(f"{word!r} in {text!r}")
    return found


@pytest.fixture
def logged_matches(db: None, settings: Any) -> list[Any]:
    """Matches whose logs hold every kind of entry: a 5-point match played out with cube
    actions and resignations, a money session ended, forfeits for each reason the server
    writes (a disconnection past grace, a withdrawal, a disqualification), a referee's
    award, a voided match."""
    import random

    from matches import services as match_services
    from matches.demo.tables import play_out
    from matches.models import Match, Table
    from matches.services.clocks import GRACE_FORFEIT_REASON

    settings.TAVLA_SCRIPTED_DICE = True
    referee = User.objects.create_user(username="hakem", is_staff=True, is_superuser=True)
    counter = iter(range(1000))

    def start(**options: Any) -> Match:
        first, second = (match_services.player_for_user(
            User.objects.create_user(username=f"p{next(counter)}")) for _ in range(2))
        options.setdefault("match_length", 5)
        table = match_services.table_create(name="t", **options)
        Table.objects.filter(pk=table.pk).update(scripted_dice=[[6, 1]] + [[3, 3]] * 300)
        match_services.table_sit(table_id=table.pk, player=first)
        match_services.table_sit(table_id=table.pk, player=second)
        return Match.objects.filter(table=table).latest("pk")

    played = play_out(start(), random.Random(5), double=0.3, take=0.5, resign=0.05)
    money = play_out(start(match_length=None, is_rated=False), random.Random(6),
                     session_games=1, double=0.2, take=0.9)
    matches = [played, money]
    for reason in (GRACE_FORFEIT_REASON, "withdrew", "disqualified: بی‌احترامی"):
        match = start()
        match_services.match_forfeit(match_id=match.pk, loser=match.player1, reason=reason)
        matches.append(match)
    awarded = start()
    match_services.match_adjudicate(match_id=awarded.pk, referee=referee,
                                    winner=awarded.player0, scope="match", reason="قطع برق")
    matches.append(awarded)
    return [Match.objects.get(pk=m.pk) for m in matches]


def test_the_logged_matches_hold_every_kind_of_entry(logged_matches: list[Any]) -> None:
    from matches.models import Event

    kinds = set(Event.objects.filter(match__in=logged_matches).values_list("kind", flat=True))
    assert {"start", "opening_roll", "roll", "play", "double", "take", "drop", "resign",
            "forfeit", "adjudicate", "game_end", "match_end", "end_session"} <= kinds


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_referees_replay_log_is_in_the_readers_language(
        language: str, logged_matches: list[Any]) -> None:
    from django.utils import translation

    from matches.audit import replay_steps

    problems = []
    with translation.override(language):
        for match in logged_matches:
            for step in replay_steps(match):
                # A play's notation (bar/20 6/off) is the game's own, as on the review page.
                line = NOTATION.sub("", f"{step.event.get_kind_display()}: {step.description}")
                problems += data_english_left([line])
    assert problems == [], "\n".join(sorted(set(problems)))
    client = Client()
    client.force_login(User.objects.get(username="hakem"))
    client.cookies["django_language"] = language
    response = client.get(f"/admin/matches/match/{logged_matches[0].pk}/replay/")
    assert response.status_code == 200
    html = response.content.decode()
    log = html[html.index('class="replay'):html.index("</table>", html.index('class="replay-log'))]
    page = visible(log)
    texts = [NOTATION.sub("", text) for text in page.text + page.attributes]
    found = data_english_left(texts) + catalogue_english_left(texts, catalogue_phrases(language))
    if language == "fa":  # the page's digits are Persian, the notation's included
        found += [f"Latin digits in {t!r}" for t in page.text if LATIN_DIGIT.search(t)]
    assert found == [], "\n".join(found)


def test_the_data_word_check_sees_an_english_log_line_and_leaves_notation_alone() -> None:
    assert data_english_left(["تسلیم شد (withdrew)."]) == ["'withdrew' in 'تسلیم شد (withdrew).'"]
    line = "Oynadı: bar/20* 13/3(2) 6/off 24/18*/13."
    assert NOTATION.sub("", line).split() == ["Oynadı:", "."]
    assert data_english_left([NOTATION.sub("", "bar off")]) != []


@pytest.fixture
def every_format(db: None, settings: Any) -> dict[str, int]:
    """A started tournament of six for each format (byes, brackets, standings, a knockout
    cut), one with a withdrawal and a disqualification in its director's log: format ->
    tournament id."""
    from matches import services as match_services
    from tournaments import services as tournament_services
    from tournaments.models import FormatName, Tournament

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    director = User.objects.create_user(username="mudir", is_staff=True)
    players = []
    for number in range(6):
        player = match_services.player_for_user(User.objects.create_user(username=f"o{number}"))
        player.rating = 1700 - 30 * number
        player.save(update_fields=["rating"])
        players.append(player)
    options = {"swiss": {"rounds": 3}, "swiss_cut": {"rounds": 2, "cut": 4}}
    events = {}
    for format_name in FormatName.values:
        tournament = Tournament.objects.create(
            name="Nowruz", director=director, format=format_name, seeding="rating",
            format_options=options.get(format_name, {}), match_lengths=[3], is_rated=False)
        tournament_services.tournament_open_registration(tournament_id=tournament.pk,
                                                         actor=director)
        for player in players:
            tournament_services.entry_register(tournament_id=tournament.pk, player=player)
        tournament_services.tournament_start(tournament_id=tournament.pk, actor=director)
        events[format_name] = tournament.pk
    first = Tournament.objects.get(pk=events[FormatName.SWISS])
    entries = list(first.entries.order_by("seed"))
    tournament_services.entry_withdraw(entry_id=entries[-1].pk, actor=director)
    tournament_services.entry_withdraw(entry_id=entries[-2].pk, actor=director,
                                       disqualify=True, reason="بی‌احترامی")
    return events


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_formats_pages_and_the_directors_log_are_in_the_readers_language(
        language: str, every_format: dict[str, int]) -> None:
    client = Client()
    client.force_login(User.objects.get(username="mudir"))
    client.cookies["django_language"] = language
    problems: dict[str, list[str]] = {}
    phrases = catalogue_phrases(language)
    for format_name, pk in every_format.items():
        for page_name in ("", "results/", "projector/", "desk/"):
            path = f"/tournaments/{pk}/{page_name}"
            response = client.get(path)
            assert response.status_code == 200, path
            page = visible(response.content.decode())
            found = data_english_left(page.text + page.attributes)
            found += catalogue_english_left(page.text + page.attributes, phrases)
            if language == "fa":
                found += [f"Latin digits in {t!r}" for t in page.text if LATIN_DIGIT.search(t)]
            if found:
                problems[f"{format_name} {path}"] = found
    assert problems == {}, "\n".join(f"{k}: {v}" for k, v in problems.items())


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_reason_the_services_log_reads_in_the_readers_language(language: str) -> None:
    from django.utils import translation

    from matches import log_reasons
    from tournaments.desk_log import LOG_REASONS, log_reason, reason_phrase

    values = {"slot": "R1-2", "match": "7", "player": "Kerem",
              "reason": log_reasons.with_detail(log_reasons.WITHDREW, "سفر")}
    samples = [phrase % values if "%(" in phrase else phrase for phrase in LOG_REASONS]
    # Each reason is read back as the phrase it was written from, not a shorter one before it.
    assert [found and found[0] for found in map(reason_phrase, samples)] == list(LOG_REASONS)
    samples += [log_reasons.with_detail(code, "سفر") for code in log_reasons.WORDS]
    with translation.override(language):
        shown = [log_reason(sample) for sample in samples]
    assert data_english_left(shown) == [], shown
    assert log_reason("Kerem'in telefonu kapandı") == "Kerem'in telefonu kapandı"
