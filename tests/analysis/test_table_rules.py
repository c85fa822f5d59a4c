"""A finished match is analysed under its table's rules, not the .mat's defaults: two gnubg
bots play a cube-off match through the services, and the stored analysis has no cube
decision."""

from __future__ import annotations

import pytest

from matches import services
from matches.gnubg.bots import bot_player
from matches.gnubg.evaluation import analysis_run, bot_act
from matches.models import AnalysisStatus, Match


def _finished_bot_match(**rules: object) -> Match:
    table = services.table_create(name="Bots", match_length=3, **rules)
    services.table_sit(table_id=table.pk, player=bot_player("beginner"), seat=0)
    services.table_sit(table_id=table.pk, player=bot_player("advanced"), seat=1)
    match = Match.objects.get(table=table)
    for _ in range(2000):
        match.refresh_from_db()
        if match.is_finished:
            return match
        assert bot_act(match_id=match.pk, version=match.version)
    raise AssertionError("the bots did not finish the match")


@pytest.mark.django_db
def test_a_cube_off_table_is_analysed_without_cube_decisions() -> None:
    match = _finished_bot_match(cube_enabled=False)
    analysis = analysis_run(match.pk)
    assert analysis.status == AnalysisStatus.DONE
    kinds = {decision["kind"] for decision in analysis.decisions}
    assert kinds == {"move"}
    assert all(player["cube_decisions"] == 0 for player in analysis.players)


@pytest.mark.django_db
def test_a_gammons_off_table_is_analysed_on_winning_chances() -> None:
    match = _finished_bot_match(gammons_enabled=False, cube_enabled=False)
    analysis = analysis_run(match.pk)
    assert analysis.status == AnalysisStatus.DONE
    # Cubeless winning chances: no equity beyond a single game's win or loss.
    assert all(-1.0 - 1e-6 <= d["best_equity"] <= 1.0 + 1e-6 for d in analysis.decisions)
