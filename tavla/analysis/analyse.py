"""Analyse a whole match record as GNU Backgammon 1.07's ``analyse match`` does: every checker
play and cube decision, the luck of every roll, and each player's summary (PR, error counts,
luck, gnubg's rating words).

Losses are in normalised equity (see :mod:`tavla.analysis.evaluator`), always >= 0. The
marks and luck marks use the thresholds the evaluator analyses with (gnubg's ``show
analysis``: 0.030 / 0.060 / 0.120, luck 0.3 / 0.6); PR is XG's and Galaxy's: the mean loss
per counted decision times 500. The table's rules (:class:`AnalysisRules`) say whether the
cube and gammons count: a ``.mat`` cannot say. Resignations (:mod:`tavla.analysis.resign`)
are judged and marked as gnubg judges them and, as in gnubg, left out of PR and the counts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Final

from tavla.analysis import checkerplay, evaluator, native
from tavla.analysis.cube import CubeEquities, cube_decision
from tavla.analysis.evaluator import Cube, Level
from tavla.analysis.luck import OPENING_ROLLS, ROLLS, danced, opening_luck, roll_equities
from tavla.analysis.matread import GameRecord, MatRecord, Turn, read_mat
from tavla.analysis.native import Node
from tavla.analysis.resign import LEVEL_WORDS, Resignation, inferred
from tavla.engine import Move, Position, legal_plays
from tavla.engine.plays import format_play
from tavla.engine.rules import MAX_CUBE, Rules

_THRESHOLDS: Final = evaluator.analysis_thresholds()
#: The marks' thresholds on a decision's loss, read from the evaluator (gnubg's own).
DOUBTFUL: Final = _THRESHOLDS.doubtful
ERROR: Final = _THRESHOLDS.error
BLUNDER: Final = _THRESHOLDS.blunder
#: The luck marks' thresholds on a roll's luck, read from the evaluator.
LUCKY: Final = _THRESHOLDS.lucky
VERY_LUCKY: Final = _THRESHOLDS.very_lucky
#: The longest match gnubg's match equity table covers.
MAX_ANALYSED_LENGTH: Final = 64
#: gnubg counts a cube decision where nobody doubled only when doubling was within this much
#: of not doubling (``isCloseCubedecision``), or when not doubling was wrong.
CLOSE_CUBE: Final = 0.16


@dataclass(frozen=True, slots=True)
class AnalysisRules:
    """The table's rules the analysis needs and a ``.mat`` cannot carry: whether the cube is
    used (off: no cube decision is analysed), whether gammons count (off: every equity is
    cubeless winning chances) and the highest cube (no double beyond it)."""

    cube: bool = True
    gammons: bool = True
    max_cube: int = MAX_CUBE

    @classmethod
    def of(cls, rules: Rules) -> AnalysisRules:
        return cls(cube=rules.cube, gammons=rules.gammons, max_cube=rules.max_cube)


#: gnubg's rating words and their thresholds on the error rate per decision (analysis.c).
RATINGS: Final = (
    (0.002, "Supernatural"), (0.005, "World class"), (0.008, "Expert"), (0.012, "Advanced"),
    (0.018, "Intermediate"), (0.026, "Casual player"), (0.035, "Beginner"),
)
#: gnubg's luck rating words on the luck per roll.
LUCK_RATINGS: Final = (
    (-0.06, "Go to bed"), (-0.03, "Better luck next time"), (0.03, "None"),
    (0.06, "Good dice, man!"),
)


def mark(loss: float) -> str:
    """gnubg's mark for a decision that lost ``loss``: '', doubtful, error or blunder."""
    if loss >= BLUNDER:
        return "blunder"
    if loss >= ERROR:
        return "error"
    if loss >= DOUBTFUL:
        return "doubtful"
    return ""


def luck_mark(luck: float) -> str:
    if luck >= VERY_LUCKY:
        return "very lucky"
    if luck >= LUCKY:
        return "lucky"
    if luck <= -VERY_LUCKY:
        return "very unlucky"
    if luck <= -LUCKY:
        return "unlucky"
    return ""


def error_rating(rate: float) -> str:
    """gnubg's words for an error rate per decision (normalised equity)."""
    for threshold, word in RATINGS:
        if rate < threshold:
            return word
    return "Awful!"


def luck_rating(rate: float) -> str:
    """gnubg's words for the luck per roll."""
    for threshold, word in LUCK_RATINGS:
        if rate < threshold:
            return word
    return "Go to Las Vegas"


@dataclass(slots=True)
class Decision:
    """One analysed decision. ``index`` is the action's place in its game (0-based, as read
    from the record; for a resignation the place of the action it came before); ``kind`` is
    move, double, no_double, take, drop, or for a resignation ``resign`` (the resigner's
    offer), ``accept_resign`` or ``reject_resign`` (the opponent's answer)."""

    game: int
    index: int
    player: int
    kind: str
    position_id: str
    chosen: str
    best: str
    equity: float
    best_equity: float
    loss: float
    mark: str
    counted: bool
    dice: tuple[int, int] | None = None
    forced: bool = False
    luck: float | None = None
    luck_mark: str = ""
    cube: dict[str, float] | None = None
    #: A cube decision's no double / double-take / double-pass, normalised equity from the
    #: doubler's side (the player on roll); None for a checker play.
    cube_equities: dict[str, float] | None = None
    #: Seat 0's cubeless chance of winning the game before the decision (0..1; gnubg 0-ply).
    win_chance: float | None = None
    #: A resignation's ``level`` (1..3) and, from the resigner's side in normalised equity,
    #: ``play_on`` (the position's worth) and ``resigned`` (the resignation's); for a match
    #: also both as match-winning chances. None for other decisions.
    resign: dict[str, float] | None = None


@dataclass(slots=True)
class PlayerSummary:
    name: str
    decisions: int = 0
    checker_decisions: int = 0
    cube_decisions: int = 0
    total_loss: float = 0.0
    doubtful: int = 0
    errors: int = 0
    blunders: int = 0
    rolls: int = 0
    luck: float = 0.0
    pr: float = 0.0
    error_rate: float = 0.0
    luck_rate: float = 0.0
    rating: str = ""
    luck_rating: str = ""

    def add(self, decision: Decision) -> None:
        if decision.counted:
            self.decisions += 1
            if decision.kind == "move":
                self.checker_decisions += 1
            else:
                self.cube_decisions += 1
            self.total_loss += decision.loss
            self.doubtful += decision.mark == "doubtful"
            self.errors += decision.mark == "error"
            self.blunders += decision.mark == "blunder"
        if decision.luck is not None:
            self.rolls += 1
            self.luck += decision.luck

    def finish(self) -> None:
        self.error_rate = self.total_loss / self.decisions if self.decisions else 0.0
        self.pr = 500 * self.error_rate
        self.luck_rate = self.luck / self.rolls if self.rolls else 0.0
        self.rating = error_rating(self.error_rate) if self.decisions else "N/A"
        self.luck_rating = luck_rating(self.luck_rate) if self.rolls else "N/A"


@dataclass(slots=True)
class MatchAnalysis:
    plies: int
    engine: str
    match_length: int
    players: list[PlayerSummary]
    decisions: list[Decision] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _crawford_games(record: MatRecord) -> set[int]:
    """Indexes of the Crawford games: the first game after a player reaches N-1."""
    if not record.crawford or not record.match_length:
        return set()
    target = record.match_length - 1
    for index, game in enumerate(record.games):
        if target in game.score and max(game.score) == target:
            # Reached by winning a game: a 1-point match (0-0 is already "1-away") has none.
            if index and target not in record.games[index - 1].score:
                return {index}
            return set()
    return set()


class _GameWalker:
    """Walks one game, keeping the cube, and analyses each action: from gnubg's own analysis
    of the game (``native``, :mod:`tavla.analysis.native`) where it has the verdict and
    agrees with the record, by asking the evaluator otherwise."""

    def __init__(self, record: MatRecord, game: GameRecord, crawford: bool, level: Level,
                 rules: AnalysisRules, out: list[Decision],
                 resignations: Sequence[Resignation] = (),
                 native_nodes: Sequence[Node] | None = None) -> None:
        self.record, self.game, self.level, self.out = record, game, level, out
        self.resignations = sorted(resignations, key=lambda offer: offer.before)
        self.rules = rules
        self.crawford = crawford
        self.cube_value = 1
        self.owner: int | None = None
        self.offered: CubeEquities | None = None  # the double on the table
        self.offer_chance: float | None = None
        self.doubled_this_turn = False
        self.seen_play = False
        self.native = native_nodes
        self.next_node = 0

    def cube_for(self, player: int) -> Cube:
        return Cube(self.cube_value, self.owner, player, self.record.match_length,
                    self.game.score, self.crawford, self.rules.gammons)

    def may_double(self, cube: Cube) -> bool:
        """Whether a no-double is a decision: gnubg's cube access, within the table's cap."""
        return (self.rules.cube and cube.mover_may_double
                and cube.value * 2 <= self.rules.max_cube)

    def board_before(self, index: int, player: int) -> Position:
        """The board seen by ``player`` before action ``index`` (plays record it)."""
        for turn in reversed(self.game.turns[:index]):
            if turn.kind == "play":
                assert turn.after is not None
                return turn.after if turn.player == player else turn.after.swap()
        return Position.initial()

    def run(self) -> None:
        offers = list(self.resignations)
        for index, turn in enumerate(self.game.turns):
            while offers and offers[0].before <= index:
                self.resign(offers.pop(0))
            if turn.kind == "double":
                self.double(index, turn)
            elif turn.kind in ("take", "drop"):
                self.answer(index, turn)
            elif turn.kind == "play":
                self.play(index, turn)
        for offer in offers:
            self.resign(offer)

    def add(self, decision: Decision) -> None:
        self.out.append(decision)

    def node(self, kind: str, player: int, dice: tuple[int, int] | None = None) -> Node | None:
        """gnubg's analysed action for this one, if it is the same action (kind, player,
        dice). Once gnubg's game and the record part ways, the rest of the game is analysed
        without it."""
        if self.native is None or self.next_node >= len(self.native):
            return None
        node = self.native[self.next_node]
        if (node.kind != kind or node.player != player
                or (dice is not None and node.dice not in (dice, dice[::-1]))):
            self.native = None
            return None
        self.next_node += 1
        return node

    def native_cube(self, node: Node | None, cube: Cube) -> CubeEquities | None:
        """gnubg's cube decision at ``node`` as equities from the doubler's side."""
        if node is None or node.cube is None or not cube.match_length:
            return None
        return CubeEquities.from_match_winning_chances(*node.cube, cube)

    def double(self, index: int, turn: Turn) -> None:
        node = self.node("double", turn.player)
        position = self.board_before(index, turn.player)
        cube = self.cube_for(turn.player)
        self.doubled_this_turn = True
        if not self.rules.cube or cube.crawford or cube.owner not in (None, cube.mover):
            self.offered = None  # a double no rules allow: nothing to compare with
            return
        # A dead cube (our rules allow doubling it; gnubg never would) is analysed too.
        eqs = self.native_cube(node, cube) or cube_decision(position, cube, self.level)
        self.offered = eqs
        self.offer_chance = _seat0(position, cube)
        chosen = min(eqs.double_take, eqs.double_pass)
        loss = max(0.0, eqs.best - chosen)
        self.add(Decision(
            self.game.number, index, turn.player, "double", position.to_id(), "double",
            "double" if eqs.should_double else "no double", chosen, eqs.best, loss,
            mark(loss), True, cube=_cube_dict(eqs), cube_equities=_cube_equities(eqs),
            win_chance=self.offer_chance,
        ))

    def answer(self, index: int, turn: Turn) -> None:
        self.node(turn.kind, turn.player)
        eqs = self.offered
        if turn.kind == "take":
            self.cube_value *= 2
            self.owner = turn.player
        if eqs is None:
            return
        take, drop = -eqs.double_take, -eqs.double_pass
        chosen = take if turn.kind == "take" else drop
        best = max(take, drop)
        loss = max(0.0, best - chosen)
        position = self.board_before(index, turn.player)
        self.add(Decision(
            self.game.number, index, turn.player, turn.kind, position.to_id(), turn.kind,
            "take" if take >= drop else "drop", chosen, best, loss, mark(loss), True,
            cube=_cube_dict(eqs), cube_equities=_cube_equities(eqs),
            win_chance=self.offer_chance,
        ))
        self.offered = None

    def resign(self, offer: Resignation) -> None:
        """The resigner's offer and the opponent's answer, judged as gnubg judges a
        resignation: the position for the resigner as if on roll (gnubg swaps it so) at the
        current cube, its cubeless worth against the resignation's. Never counted."""
        position = self.board_before(offer.before, offer.player)
        cube = self.cube_for(offer.player)
        play_on, resigned = evaluator.resignation_equities(position, cube, self.level,
                                                           offer.level)
        details: dict[str, float] = {"level": offer.level, "play_on": play_on,
                                     "resigned": resigned}
        if cube.match_length:
            details.update(mwc_play_on=evaluator.to_mwc(play_on, cube),
                           mwc_resigned=evaluator.to_mwc(resigned, cube))
        chance = _seat0(position, cube)
        word = f"resign {LEVEL_WORDS[offer.level]}"
        loss = max(0.0, play_on - resigned)
        self.add(Decision(
            self.game.number, offer.before, offer.player, "resign", position.to_id(), word,
            word if resigned >= play_on else "play on", resigned, max(play_on, resigned),
            loss, mark(loss), False, win_chance=chance, resign=details,
        ))
        if not offer.answer:
            return
        accept, reject = -resigned, -play_on
        chosen = accept if offer.answer == "accept" else reject
        best = max(accept, reject)
        loss = max(0.0, best - chosen)
        self.add(Decision(
            self.game.number, offer.before, 1 - offer.player, f"{offer.answer}_resign",
            position.to_id(), offer.answer, "accept" if accept >= reject else "reject",
            chosen, best, loss, mark(loss), False, win_chance=chance, resign=details,
        ))

    def play(self, index: int, turn: Turn) -> None:
        assert turn.before is not None and turn.after is not None and turn.dice is not None
        position, dice, player = turn.before, turn.dice, turn.player
        cube = self.cube_for(player)
        opening = not self.seen_play
        self.seen_play = True
        chance = _seat0(position, cube)
        roll_key = (max(dice), min(dice))
        chosen_key = (turn.after.mover, turn.after.opponent)
        node = self.native_play(self.node("move", player, dice), position, chosen_key)
        average: float | None = None
        zero_ply = None
        if node is not None:
            assert node.luck is not None
            luck = node.luck
        else:
            # Luck at 0-ply, as gnubg's analysis: this roll's best against the average roll
            # (on the opening roll, against all 30 outcomes of it, either player winning it).
            rolls = OPENING_ROLLS if opening else ROLLS
            average, per_roll, zero_ply = roll_equities(position, cube, Level(0), rolls,
                                                        keep=dice)
            luck = (opening_luck(position, dice, cube, per_roll) if opening
                    else per_roll[roll_key] - average)
        if not opening and not self.doubled_this_turn and self.may_double(cube):
            eqs = self.native_cube(node, cube)
            if eqs is None:
                known = average if self.level.plies <= 1 else None
                eqs = cube_decision(position, cube, self.level, known)
            loss = max(0.0, eqs.best - eqs.no_double)
            close = eqs.no_double - min(eqs.double_take, eqs.double_pass) < CLOSE_CUBE
            self.add(Decision(
                self.game.number, index, player, "no_double", position.to_id(), "no double",
                "double" if eqs.should_double else "no double", eqs.no_double, eqs.best, loss,
                mark(loss), close or loss > 0, cube=_cube_dict(eqs),
                cube_equities=_cube_equities(eqs), win_chance=chance,
            ))
        self.doubled_this_turn = False
        verdict = None
        best_move: tuple[int, ...] | None = None
        if node is not None and node.best is not None and node.played_score is not None:
            best_move, best_score = node.best
            best = evaluator.apply_gnubg_move(position, best_move)
            assert best is not None  # an SGF play is whole: never cut short
            verdict = checkerplay.Verdict(best, best_score, node.played_score, node.plays)
        elif node is None and self.level.plies == 0 and zero_ply:
            # At 0-ply the luck's list of plays is the analysis: only the played one and
            # the best are needed from it.
            verdict = checkerplay.played_verdict(position, cube, chosen_key, zero_ply)
        if verdict is None and node is None:
            ranked = checkerplay.scored_plays(position, dice, cube, self.level, chosen_key,
                                            zero_ply)
            if ranked:
                played = next((score for key, score in ranked if key == chosen_key),
                              ranked[-1][1])
                verdict = checkerplay.Verdict(ranked[0][0], ranked[0][1], played, len(ranked))
        if verdict is None:
            # No legal play: the opponent on roll in the same position (gnubg's 0-ply score
            # of the empty play, as the luck counts it).
            equity = best_score = danced(position, cube, Level(0))
            best_text = ""
            forced = True
        else:
            best_score, equity = verdict.best_score, verdict.played_score
            best_text = (turn.play if equity >= best_score
                         else _move_notation(position, best_move) if best_move is not None
                         else _notation(position, dice, verdict.best))
            forced = verdict.plays <= 1
        loss = max(0.0, best_score - equity)
        self.add(Decision(
            self.game.number, index, player, "move", position.to_id(), turn.play, best_text,
            equity, best_score, loss, "" if forced else mark(loss), not forced, dice=dice,
            forced=forced, luck=luck, luck_mark=luck_mark(luck), win_chance=chance,
        ))

    def native_play(self, node: Node | None, position: Position,
                    played: evaluator.Result) -> Node | None:
        """``node`` if gnubg's analysis of it is whole (its luck, and its ranked plays with
        the played one among them, or no play at all) and its play is the record's."""
        if node is None:
            return None
        if evaluator.apply_gnubg_move(position, node.move) != played:
            self.native = None  # gnubg read another play: out of step from here on
            return None
        whole = node.luck is not None and (node.plays > 0 or not node.move)
        return node if whole else None


def _seat0(position: Position, cube: Cube) -> float:
    """Seat 0's cubeless chance of winning, the player on roll being ``cube.mover``."""
    chance = evaluator.win_probability(position)
    return chance if cube.mover == 0 else 1.0 - chance


def _notation(position: Position, dice: tuple[int, int], result: evaluator.Result) -> str:
    for play in legal_plays(position, *dice):
        if (play.position.mover, play.position.opponent) == result:
            return play.notation()
    return "?"


def _move_notation(position: Position, move: Sequence[int]) -> str:
    """A whole gnubg move tuple (from, to, ...) in our notation, its hits found on the way:
    what :func:`_notation` finds among every legal play, without generating them."""
    opponent = list(position.opponent)
    moves = []
    for i in range(0, len(move), 2):
        source, destination = move[i], move[i + 1]
        hit = 0 < destination < 25 and opponent[24 - destination] == 1
        if hit:
            opponent[24 - destination] = 0
        moves.append(Move(source, destination, hit))
    return format_play(moves)


def _cube_equities(eqs: CubeEquities) -> dict[str, float]:
    return {"no_double": eqs.no_double, "double_take": eqs.double_take,
            "double_pass": eqs.double_pass}


def _cube_dict(eqs: CubeEquities) -> dict[str, float]:
    out = {"no_double": eqs.no_double, "double_take": eqs.double_take,
           "double_pass": eqs.double_pass}
    if eqs.mwc is not None:
        out.update(mwc_no_double=eqs.mwc[0], mwc_double_take=eqs.mwc[1],
                   mwc_double_pass=eqs.mwc[2])
    return out


def analyse_record(record: MatRecord, plies: int = 0,
                   progress: Callable[[int, int], None] | None = None,
                   rules: AnalysisRules | None = None,
                   resignations: Mapping[int, Sequence[Resignation]] | None = None
                   ) -> MatchAnalysis:
    """Analyse every decision of ``record`` with gnubg at ``plies`` (0-2) under the table's
    ``rules`` (default: cube and gammons on, as a ``.mat`` assumes).

    ``resignations`` are each game's resignation offers by game number (a match's own,
    :func:`tavla.analysis.resign.from_events`); None reads them from the record as gnubg's
    ``import mat`` does (:func:`tavla.analysis.resign.inferred`)."""
    if plies not in (0, 1, 2):
        raise ValueError(f"plies is 0, 1 or 2, not {plies!r}")
    if record.match_length > MAX_ANALYSED_LENGTH:
        raise ValueError(f"gnubg's match equity table ends at {MAX_ANALYSED_LENGTH} points: "
                         f"a {record.match_length} point match cannot be analysed")
    level = Level(plies)
    rules = rules or AnalysisRules()
    decisions: list[Decision] = []
    crawford = _crawford_games(record)
    # gnubg's own analysis in C where it knows the table: far fewer crossings into the
    # package (see tavla.analysis.native); every verdict is still checked against the record.
    games = (native.native_games(record, plies)
             if native.eligible(record, rules.cube, rules.gammons) else None)
    for index, game in enumerate(record.games):
        offers = (inferred(game) if resignations is None
                  else resignations.get(game.number, ()))
        _GameWalker(record, game, index in crawford, level, rules, decisions, offers,
                    games[index] if games is not None else None).run()
        if progress is not None:
            progress(index + 1, len(record.games))
    players = [PlayerSummary(record.names[0]), PlayerSummary(record.names[1])]
    for decision in decisions:
        players[decision.player].add(decision)
    for summary in players:
        summary.finish()
    return MatchAnalysis(plies, f"gnubg {evaluator.version()}", record.match_length, players,
                         decisions)


def analyse_mat(text: str, plies: int = 0, rules: AnalysisRules | None = None
                ) -> MatchAnalysis:
    """Read and analyse a ``.mat`` text. Raises :class:`MatFileError` for a bad file."""
    return analyse_record(read_mat(text), plies, rules=rules)
