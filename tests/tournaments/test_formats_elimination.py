"""Single and double elimination, played out to the end with random results."""

import random
from collections import Counter, defaultdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments.formats import (
    BYE,
    Bracket,
    DoubleElimination,
    PairingError,
    Result,
    SingleElimination,
    SlotRef,
    TournamentState,
    bracket_positions,
    next_power_of_two,
)
from tournaments.formats.simulation import Playthrough, play_out

SIZES = st.integers(min_value=2, max_value=256)
SMALL_SIZES = range(2, 34)
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def seeds_for(n: int) -> list[int]:
    # Ids unlike seed numbers, so a mix-up between the two shows.
    return [1000 + 7 * i for i in range(n)]


def check_offers(run: Playthrough) -> None:
    """Whatever the format offers at one time seats each player at most once."""
    for offer in run.offered:
        seated = Counter(e for pairing in offer if pairing.is_playable for e in pairing.entrants)
        assert all(count == 1 for count in seated.values()), offer


def check_rounds(run: Playthrough) -> None:
    """Each player plays at most once per round of a bracket."""
    per_round: dict[tuple[str, int], Counter[int]] = defaultdict(Counter)
    for pairing in run.state.pairings:
        for entrant in pairing.entrants:
            per_round[pairing.bracket, pairing.round][entrant] += 1
    for counter in per_round.values():
        assert max(counter.values(), default=1) == 1


def tally(results, slots=None):
    wins, losses = Counter(), Counter()
    for result in results:
        if slots is None or result.slot in slots:
            wins[result.winner] += 1
            losses[result.loser] += 1
    return wins, losses


# Single elimination


@pytest.mark.parametrize("n", SMALL_SIZES)
def test_single_elimination_gives_exactly_the_needed_byes_to_the_top_seeds(n):
    seeds = seeds_for(n)
    bracket = SingleElimination().start(seeds)
    size = next_power_of_two(n)
    byes = [pairing for pairing in bracket if pairing.is_bye]
    assert len(byes) == size - n
    assert all(pairing.round == 1 and pairing.b == BYE for pairing in byes)
    assert sorted(pairing.a for pairing in byes) == sorted(seeds[: size - n])
    first_round = [pairing for pairing in bracket if pairing.round == 1]
    assert len(first_round) == size // 2
    assert sorted(e for p in first_round for e in p.entrants) == sorted(seeds)
    assert len(bracket) == size - 1
    assert all(pairing.bracket is Bracket.MAIN for pairing in bracket)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8, 9, 16, 31, 64])
def test_first_round_follows_standard_seeding(n):
    seeds = seeds_for(n)
    size = next_power_of_two(n)
    positions = bracket_positions(size)
    first_round = [p for p in SingleElimination().start(seeds) if p.round == 1]
    for index, pairing in enumerate(first_round):
        top, bottom = positions[2 * index], positions[2 * index + 1]
        assert top + bottom == size + 1
        assert pairing.a == seeds[top - 1]
        assert pairing.b == (seeds[bottom - 1] if bottom <= n else BYE)


@pytest.mark.parametrize("n", [2, 3, 4, 6, 8, 13, 32])
def test_the_top_two_seeds_can_meet_only_in_the_final(n):
    seeds = seeds_for(n)
    for winner_rule in (min, max):  # favourites always win / underdogs always win
        fmt = SingleElimination()
        state = TournamentState(seeds, fmt.start(seeds))
        rank = {e: i for i, e in enumerate(seeds)}
        while ready := [p for p in fmt.next_pairings(state) if p.is_playable]:
            for pairing in ready:
                winner = winner_rule(pairing.entrants, key=rank.__getitem__)
                loser = next(e for e in pairing.entrants if e != winner)
                state = state.with_result(Result(pairing.slot, winner, loser))
        met = {frozenset((r.winner, r.loser)): r.slot for r in state.results}
        final = f"M{next_power_of_two(n).bit_length() - 1}-1"
        if winner_rule is min:
            assert met[frozenset(seeds[:2])] == final
            assert fmt.champion(state) == seeds[0]
        else:
            assert met.get(frozenset(seeds[:2]), final) == final


def check_single_elimination(n: int, run: Playthrough, consolation: bool) -> None:
    fmt = SingleElimination(consolation=consolation)
    state = run.state
    seeds = seeds_for(n)
    check_offers(run)
    check_rounds(run)
    assert fmt.is_finished(state)
    main_slots = {p.slot for p in state.pairings if p.bracket is Bracket.MAIN}
    wins, losses = tally(state.results, main_slots)
    assert len([r for r in state.results if r.slot in main_slots]) == n - 1
    champion = fmt.champion(state)
    assert champion in seeds
    assert [e for e in seeds if losses[e] == 0] == [champion]
    assert all(losses[e] == 1 for e in seeds if e != champion)
    standings = fmt.standings(state)
    assert [s.entrant for s in standings][0] == champion
    assert [s.rank for s in standings][:2] == [1, 2]
    assert sorted(s.entrant for s in standings) == sorted(seeds)
    assert all(a.rank <= b.rank for a, b in zip(standings, standings[1:], strict=False))
    assert all(s.wins == wins[s.entrant] and s.losses == losses[s.entrant] for s in standings)

    consolation_slots = {p.slot for p in state.pairings if p.bracket is Bracket.CONSOLATION}
    first_round_losers = {
        r.loser for r in state.results if r.slot in main_slots and r.slot.startswith("M1-")
    }
    if not consolation or len(first_round_losers) < 2:
        assert not consolation_slots
        assert fmt.consolation_champion(state) is None
        return
    played = [r for r in state.results if r.slot in consolation_slots]
    assert len(played) == len(first_round_losers) - 1
    assert {e for r in played for e in (r.winner, r.loser)} == first_round_losers
    c_wins, c_losses = tally(played)
    assert [e for e in first_round_losers if c_losses[e] == 0] == [fmt.consolation_champion(state)]
    assert not any(p.is_bye for p in state.pairings if p.bracket is Bracket.CONSOLATION)


@pytest.mark.parametrize("consolation", [False, True])
@pytest.mark.parametrize("n", SMALL_SIZES)
def test_single_elimination_small_fields_exhaustively(n, consolation):
    for one_at_a_time in (False, True):
        fmt = SingleElimination(consolation=consolation)
        run = play_out(fmt, seeds_for(n), random.Random(n), one_at_a_time=one_at_a_time)
        check_single_elimination(n, run, consolation)


@FAST
@given(n=SIZES, consolation=st.booleans(), rng_seed=st.integers(0, 2**32))
def test_single_elimination_plays_out_for_any_field(n, consolation, rng_seed):
    fmt = SingleElimination(consolation=consolation)
    run = play_out(fmt, seeds_for(n), random.Random(rng_seed))
    check_single_elimination(n, run, consolation)


def test_consolation_is_for_losers_of_real_first_round_matches_only():
    seeds = seeds_for(6)  # bracket of 8: seeds 1 and 2 have byes, two real first-round matches
    fmt = SingleElimination(consolation=True)
    layout = fmt.start(seeds)
    consolation = [p for p in layout if p.bracket is Bracket.CONSOLATION]
    assert [(p.slot, p.a, p.b) for p in consolation] == [
        # 4 v 5 is the closer match on paper, so its loser is the first consolation seed.
        ("C1-1", SlotRef.loser_of("M1-2"), SlotRef.loser_of("M1-4"))
    ]
    assert fmt.start(seeds_for(3)) == SingleElimination().start(seeds_for(3))  # one real match


# Double elimination


def check_double_elimination(n: int, run: Playthrough, reset: bool) -> None:
    fmt = DoubleElimination(bracket_reset=reset)
    state = run.state
    seeds = seeds_for(n)
    check_offers(run)
    check_rounds(run)
    assert fmt.is_finished(state)
    champion = fmt.champion(state)
    assert champion in seeds
    wins, losses = tally(state.results)
    played_reset = any(r.slot == "GF2" for r in state.results)
    others = [e for e in seeds if e != champion]
    if reset:
        assert all(losses[e] == 2 for e in others), losses
        assert losses[champion] == (1 if played_reset else 0)
        assert len(state.results) == 2 * n - 2 + losses[champion]
    else:
        assert not played_reset
        runner_up = fmt.standings(state)[1].entrant
        assert all(losses[e] == 2 for e in others if e != runner_up)
        assert losses[champion] + losses[runner_up] == 2
        assert len(state.results) == 2 * n - 2
    assert all(losses[e] <= 2 for e in seeds)
    # Nobody plays on after their second loss.
    losses_so_far: Counter[int] = Counter()
    for result in state.results:
        assert losses_so_far[result.winner] < 2 and losses_so_far[result.loser] < 2, result
        losses_so_far[result.loser] += 1
    standings = fmt.standings(state)
    assert standings[0].entrant == champion
    assert [s.rank for s in standings][:2] == [1, 2]
    assert all(a.rank <= b.rank for a, b in zip(standings, standings[1:], strict=False))
    # Only the winners' bracket has byes, all in round 1, to the top seeds.
    byes = [p for p in state.pairings if p.is_bye]
    assert len(byes) == next_power_of_two(n) - n
    assert all(p.bracket is Bracket.WINNERS and p.round == 1 for p in byes)
    assert sorted(p.a for p in byes) == sorted(seeds[: len(byes)])


@pytest.mark.parametrize("reset", [True, False])
@pytest.mark.parametrize("n", SMALL_SIZES)
def test_double_elimination_small_fields_exhaustively(n, reset):
    for rng_seed in range(3):
        fmt = DoubleElimination(bracket_reset=reset)
        run = play_out(fmt, seeds_for(n), random.Random(rng_seed), one_at_a_time=rng_seed == 1)
        check_double_elimination(n, run, reset)


@FAST
@given(n=SIZES, reset=st.booleans(), rng_seed=st.integers(0, 2**32))
def test_double_elimination_plays_out_for_any_field(n, reset, rng_seed):
    fmt = DoubleElimination(bracket_reset=reset)
    run = play_out(fmt, seeds_for(n), random.Random(rng_seed))
    check_double_elimination(n, run, reset)


@pytest.mark.parametrize("n", [12, 16, 24, 32, 64, 100, 128, 256])
def test_dropping_players_never_meet_someone_from_their_part_of_the_draw(n):
    """Before the last two drops, a player who drops from the winners' bracket meets a
    survivor from elsewhere in the draw: never somebody they could have beaten already."""
    layout = DoubleElimination().start(seeds_for(n))
    rounds = next_power_of_two(n).bit_length() - 1
    region: dict[str, set[int]] = {}

    def players(side) -> set[int]:
        if isinstance(side, int):
            return {side}
        if isinstance(side, SlotRef):
            return region[side.slot]
        return set()

    checked = 0
    for pairing in layout:
        a, b = players(pairing.a), players(pairing.b)
        region[pairing.slot] = a | b
        drop = pairing.bracket is Bracket.LOSERS and isinstance(pairing.b, SlotRef)
        if drop and pairing.b.slot.startswith("W") and not pairing.b.slot.startswith("W1-"):
            winners_round = int(pairing.b.slot[1:].split("-")[0])
            if winners_round < rounds - 1:
                assert not a & region[pairing.b.slot], pairing
                checked += 1
    assert checked > 0


def test_double_elimination_layout_for_four():
    fmt = DoubleElimination()
    assert [(p.slot, p.a, p.b) for p in fmt.start([1, 2, 3, 4])] == [
        ("W1-1", 1, 4),
        ("W1-2", 2, 3),
        ("W2-1", SlotRef.winner_of("W1-1"), SlotRef.winner_of("W1-2")),
        ("L1-1", SlotRef.loser_of("W1-1"), SlotRef.loser_of("W1-2")),
        ("L2-1", SlotRef.winner_of("L1-1"), SlotRef.loser_of("W2-1")),
        ("GF", SlotRef.winner_of("W2-1"), SlotRef.winner_of("L2-1")),
        ("GF2", SlotRef.loser_of("GF"), SlotRef.winner_of("GF")),
    ]


def test_a_loss_drops_you_into_the_losers_bracket_and_a_second_knocks_you_out():
    fmt = DoubleElimination()
    seeds = [1, 2, 3, 4]
    state = TournamentState(seeds, fmt.start(seeds))
    for result in (Result("W1-1", 1, 4), Result("W1-2", 3, 2)):
        state = state.with_result(result)
    ready = {p.slot: (p.a, p.b) for p in fmt.next_pairings(state)}
    assert ready == {"W2-1": (1, 3), "L1-1": (4, 2)}
    state = state.with_result(Result("L1-1", 2, 4))
    state = state.with_result(Result("W2-1", 3, 1))
    assert {p.slot: (p.a, p.b) for p in fmt.next_pairings(state)} == {"L2-1": (2, 1)}
    state = state.with_result(Result("L2-1", 1, 2))
    assert [(p.slot, p.a, p.b) for p in fmt.next_pairings(state)] == [("GF", 3, 1)]
    assert [s.entrant for s in fmt.standings(state)][2:] == [2, 4]


def test_bracket_reset_is_played_only_if_the_losers_champion_wins_the_grand_final():
    seeds = [1, 2]
    fmt = DoubleElimination()
    state = TournamentState(seeds, fmt.start(seeds)).with_result(Result("W1-1", 1, 2))
    assert [(p.slot, p.a, p.b) for p in fmt.next_pairings(state)] == [("GF", 1, 2)]

    won_by_winners_champion = state.with_result(Result("GF", 1, 2))
    assert fmt.champion(won_by_winners_champion) == 1
    assert [(p.slot, p.a, p.b) for p in fmt.next_pairings(won_by_winners_champion)] == [
        ("GF2", BYE, BYE)  # void: the manager marks it as not played
    ]
    with pytest.raises(PairingError) as info:
        fmt.check_result(won_by_winners_champion, Result("GF2", 1, 2))
    assert info.value.code == "slot_not_played"

    won_by_losers_champion = state.with_result(Result("GF", 2, 1))
    assert fmt.champion(won_by_losers_champion) is None
    assert not fmt.is_finished(won_by_losers_champion)
    assert [(p.slot, p.a, p.b) for p in fmt.next_pairings(won_by_losers_champion)] == [
        ("GF2", 1, 2)
    ]
    final = won_by_losers_champion.with_result(Result("GF2", 2, 1))
    assert fmt.champion(final) == 2
    assert [(s.entrant, s.wins, s.losses) for s in fmt.standings(final)] == [(2, 2, 1), (1, 1, 2)]


def test_without_reset_the_grand_final_decides():
    fmt = DoubleElimination(bracket_reset=False)
    seeds = [1, 2]
    state = TournamentState(seeds, fmt.start(seeds))
    assert [p.slot for p in state.pairings] == ["W1-1", "GF"]
    state = state.with_result(Result("W1-1", 1, 2)).with_result(Result("GF", 2, 1))
    assert fmt.champion(state) == 2
    assert [(s.entrant, s.losses) for s in fmt.standings(state)] == [(2, 1), (1, 1)]


# Errors


def test_a_result_before_both_players_are_known_is_refused():
    fmt = SingleElimination()
    state = TournamentState([1, 2, 3, 4], fmt.start([1, 2, 3, 4]))
    with pytest.raises(PairingError) as info:
        fmt.check_result(state, Result("M2-1", 1, 2))
    assert info.value.code == "slot_not_ready"


def test_a_result_for_a_bye_is_refused():
    fmt = DoubleElimination()
    state = TournamentState([1, 2, 3], fmt.start([1, 2, 3]))
    assert state.pairings[0].is_bye
    with pytest.raises(PairingError) as info:
        fmt.check_result(state, Result(state.pairings[0].slot, 1, 2))
    assert info.value.code == "bye_result"


def test_a_result_naming_the_wrong_players_is_refused():
    fmt = SingleElimination()
    state = TournamentState([1, 2, 3, 4], fmt.start([1, 2, 3, 4]))
    state = state.with_result(Result("M1-1", 1, 4)).with_result(Result("M1-2", 2, 3))
    with pytest.raises(PairingError, match="not a result of M2-1") as info:
        fmt.check_result(state, Result("M2-1", 1, 3))
    assert info.value.code == "bad_result"


def test_a_stored_pairing_from_another_bracket_is_refused():
    fmt = SingleElimination()
    foreign = DoubleElimination().start([1, 2, 3, 4])
    with pytest.raises(PairingError) as info:
        fmt.next_pairings(TournamentState([1, 2, 3, 4], foreign))
    assert info.value.code == "unknown_slot"


def test_next_pairings_is_idempotent_until_results_come_in():
    fmt = SingleElimination(consolation=True)
    seeds = seeds_for(11)
    state = TournamentState(seeds, fmt.start(seeds))
    first = fmt.next_pairings(state)
    assert first == fmt.next_pairings(state) == fmt.next_pairings(state.with_pairings(first))
    assert all(p.is_playable for p in first)
