"""The match state machine: an immutable :class:`MatchState` and ``apply(action) -> MatchState``.

A match (or a money session) is a sequence of games. ``MatchState.new(rules)`` starts one
in ``Phase.OPENING_ROLL``; every change is an action from :mod:`tavla.engine.actions`
applied with :meth:`MatchState.apply`, which returns a new state or raises
:class:`~tavla.engine.errors.IllegalActionError` / :class:`~tavla.engine.errors.IllegalPlayError`
(a ``ValueError``) with a message a referee can read. Nothing here rolls dice or reads a
clock: the service passes dice and decides timeouts.

Phases and the actions each accepts::

    OPENING_ROLL  OpeningRoll (a tie stays here) -> MOVE for the higher die, with both dice
    TURN_START    Double (if may_double()) -> CUBE_OFFERED;  Roll -> MOVE, or TURN_START of the
                  opponent when no play is legal (an auto pass, recorded)
    CUBE_OFFERED  Take -> TURN_START (the doubler rolls next);  Drop -> GAME_OVER / MATCH_OVER
    MOVE          PlayMove -> TURN_START of the opponent, or GAME_OVER / MATCH_OVER
    any in-game   Resign, Timeout, Forfeit, Adjudicate
                  (with ``Rules.resignation == "offer"`` a Resign is an offer: the phase stays,
                  ``resign_offer`` is set and only AcceptResign -> GAME_OVER / MATCH_OVER,
                  RejectResign -> as before the offer, Timeout, Forfeit or Adjudicate follow)
    GAME_OVER     NewGame -> OPENING_ROLL;  Forfeit, Adjudicate(scope=match);  EndSession (money)
    MATCH_OVER    nothing

The board is stored from player 0's side (``board.mover`` is player 0's checkers);
:meth:`MatchState.position_for` gives it from either player's side. After a game ends,
``player_on_roll`` and ``dice`` keep the values they had when it ended.

A money session (``Rules.match_length is None``) never ends by score: it ends with
:class:`~tavla.engine.actions.EndSession` between games, or by a forfeit or a referee.

A service stores ``state.to_dict()`` as the snapshot and each ``action.to_dict()`` in its
event log; ``MatchState.replay(rules, logged_actions)`` gives the same snapshot back::

    dice = FairDice.new()                       # publish dice.commitment now
    state = MatchState.new(Rules(match_length=7))
    state = state.apply(OpeningRoll(*dice.roll_opening()))   # ties: roll again
    state = state.apply(PlayMove("13/9 13/10"))              # or a Play from legal_plays()
    if not state.may_double():                               # nothing to decide: roll
        state = state.apply(Roll(*dice.roll()))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from tavla.engine import cube, referee, resignation, snapshot
from tavla.engine.actions import (
    AcceptResign,
    Action,
    Adjudicate,
    AdjudicationScope,
    Double,
    Drop,
    EndSession,
    Forfeit,
    NewGame,
    OpeningRoll,
    PlayMove,
    RejectResign,
    Resign,
    Roll,
    Take,
    Timeout,
    action_from_dict,
)
from tavla.engine.errors import (
    EngineError,
    IllegalActionError,
)
from tavla.engine.game import (
    JSON,
    EndReason,
    EventKind,
    GameEvent,
    GameRecord,
    GameResult,
    Phase,
    Seat,
    WinKind,
    check_seat,
    other,
    win_kind,
)
from tavla.engine.moves import check_dice, legal_plays
from tavla.engine.notation import resolve
from tavla.engine.phase_text import describe_phase
from tavla.engine.plays import Play
from tavla.engine.position import Position
from tavla.engine.rules import ResignOffer, Rules

# The legal plays of a position and roll, kept for the next time they are asked. A served
# match is read anew for each action, so the plays generated at the roll were generated again
# when the play came to be checked (3% of a web process under benchmarks/live_load.py). Plays
# are immutable, so sharing them is safe; 2,048 rolls are a few seconds of a busy server.
_plays_of = lru_cache(maxsize=256)(legal_plays)


@dataclass(frozen=True, slots=True)
class MatchState:
    """Everything about a match at one moment. Build with :meth:`new`, change with :meth:`apply`.

    * ``phase`` -- see :class:`~tavla.engine.game.Phase`.
    * ``score`` -- points won by (player 0, player 1) in finished games (can exceed the
      match length: points beyond what was needed are still recorded).
    * ``game_number`` -- the current (or last) game, from 1.
    * ``crawford`` -- the current (or last) game is the Crawford game: nobody may double.
    * ``post_crawford`` -- the Crawford game has been played.
    * ``board`` -- the checkers from player 0's side (``board.mover`` is player 0's).
    * ``player_on_roll`` -- whose turn it is (``None`` before the opening roll decides).
    * ``dice`` -- the roll to play (``MOVE``), else ``None`` (kept as they were at a game's end).
    * ``cube_value`` / ``cube_owner`` -- ``cube_owner`` ``None`` is centred.
    * ``games`` -- the record of every game so far, the current one last.
    * ``winner`` / ``end_reason`` -- set once the match is over (``winner`` is ``None`` for
      a money session that ends level).
    * ``resign_offer`` -- a resignation offered and not yet answered (``"offer"`` tables):
      the phase, dice and player on roll stay as they were; only the opponent acts.
    """

    rules: Rules
    phase: Phase
    score: tuple[int, int]
    game_number: int
    crawford: bool
    post_crawford: bool
    board: Position
    player_on_roll: Seat | None
    dice: tuple[int, int] | None
    cube_value: int
    cube_owner: Seat | None
    games: tuple[GameRecord, ...]
    winner: Seat | None = None
    end_reason: EndReason | None = None
    resign_offer: ResignOffer | None = None
    # The legal plays for ``dice``, computed once when they were rolled. A cache only:
    # not compared, not serialized (a state read back recomputes them on demand).
    _plays: tuple[Play, ...] | None = field(default=None, compare=False, repr=False)

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def new(cls, rules: Rules | None = None, *, score: tuple[int, int] = (0, 0)) -> MatchState:
        """A match about to start: game 1, opening roll needed.

        ``score``: the score the match starts at, for a late-arrival penalty (each below the
        match length; a money session starts level). A player starting at match point minus
        one makes game 1 the Crawford game. Raises :class:`EngineError` for a bad score.
        """
        rules = rules or Rules()
        length = rules.match_length
        if (len(score) != 2
                or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in score)
                or (length is None and score != (0, 0))
                or (length is not None and max(score) >= length)):
            raise EngineError(f"a match to {length} cannot start at {score!r}")
        crawford = bool(rules.crawford and length is not None and length > 1
                        and length - 1 in score)
        return cls(
            rules=rules,
            phase=Phase.OPENING_ROLL,
            score=(score[0], score[1]),
            game_number=1,
            crawford=crawford,
            post_crawford=False,
            board=Position.initial(),
            player_on_roll=None,
            dice=None,
            cube_value=1,
            cube_owner=None,
            games=(GameRecord(1, (score[0], score[1]), crawford),),
        )

    @classmethod
    def replay(cls, rules: Rules, actions: Iterable[Action | JSON]) -> MatchState:
        """Apply ``actions`` (objects or their ``to_dict()`` forms) in order from ``new(rules)``."""
        state = cls.new(rules)
        for action in actions:
            state = state.apply(action_from_dict(action) if isinstance(action, dict) else action)
        return state

    # -- reading ----------------------------------------------------------------------------

    @property
    def current_game(self) -> GameRecord:
        """The record of the current (or last) game."""
        return self.games[-1]

    @property
    def is_over(self) -> bool:
        """True once the match (or session) has ended."""
        return self.phase is Phase.MATCH_OVER

    @property
    def player_to_act(self) -> Seat | None:
        """Who must act next: the player on roll, or the doubled player while the cube is
        offered; ``None`` when the server acts (opening roll, between games) or it is over;
        while a resignation is offered, the resigning player's opponent."""
        if self.resign_offer is not None:
            return other(self.resign_offer.player)
        if self.phase in (Phase.TURN_START, Phase.MOVE):
            return self.player_on_roll
        if self.phase is Phase.CUBE_OFFERED:
            assert self.player_on_roll is not None
            return other(self.player_on_roll)
        return None

    def position_for(self, player: Seat) -> Position:
        """The board from ``player``'s side (``mover`` is ``player``'s checkers)."""
        return self.board if check_seat(player) == 0 else self.board.swap()

    @property
    def position(self) -> Position:
        """The board from the side of the player on roll (player 0 before the opening roll)."""
        return self.position_for(self.player_on_roll or 0)

    def pip_counts(self) -> tuple[int, int]:
        """Pip counts of (player 0, player 1)."""
        return self.board.pip_count()

    def legal_plays(self) -> tuple[Play, ...]:
        """The legal plays for the current roll (``MOVE`` phase); ``()`` in any other phase."""
        if self.phase is not Phase.MOVE:
            return ()
        if self._plays is None:
            assert self.player_on_roll is not None and self.dice is not None
            plays = _plays_of(self.position_for(self.player_on_roll), *self.dice)
            object.__setattr__(self, "_plays", plays)  # filling a cache, not changing state
            return plays
        return self._plays

    def may_double(self) -> bool:
        """True when the player on roll may double now (else the service can roll at once)."""
        return self._double_refusal() is None

    def _double_refusal(self) -> str | None:
        return cube.double_refusal(self.rules, phase=self.phase, crawford=self.crawford,
                                   cube_value=self.cube_value, cube_owner=self.cube_owner,
                                   player_on_roll=self.player_on_roll)

    @property
    def game_result(self) -> GameResult | None:
        """The result of the current game once it is over."""
        return self.current_game.result

    def points_needed(self, player: Seat) -> int | None:
        """Points ``player`` still needs to win the match (``None`` in a money session)."""
        if self.rules.match_length is None:
            return None
        return max(0, self.rules.match_length - self.score[check_seat(player)])

    # -- applying actions -------------------------------------------------------------------

    def apply(self, action: Action) -> MatchState:
        """The state after ``action``. Raises :class:`IllegalActionError` (or
        :class:`IllegalPlayError`, ``InvalidDiceError``, :class:`InvalidNotationError`)
        when the action is not allowed now; ``self`` is never changed."""
        if self.resign_offer is not None and not isinstance(
            action, (AcceptResign, RejectResign, Timeout, Forfeit, Adjudicate)
        ):
            raise IllegalActionError(f"cannot {_verb(action)} now: {self._describe_phase()}")
        match action:
            case OpeningRoll():
                return self._opening_roll(action)
            case Roll():
                return self._roll(action)
            case Double():
                return self._double(action)
            case Take():
                return self._take(action)
            case Drop():
                return self._drop(action)
            case PlayMove():
                return self._play(action)
            case Resign():
                return self._resign_action(action)
            case AcceptResign():
                return self._accept_resign(action)
            case RejectResign():
                return self._reject_resign(action)
            case Timeout(player=loser) if self.rules.flag_loses_match:
                return self._lose_match(loser, EventKind.TIMEOUT, EndReason.TIMEOUT)
            case Timeout(player=loser):
                return self._resign(loser, EventKind.TIMEOUT, EndReason.TIMEOUT)
            case Forfeit(player=loser):
                return self._lose_match(loser, EventKind.FORFEIT, EndReason.FORFEIT)
            case Adjudicate():
                return self._adjudicate(action)
            case NewGame():
                return self._new_game()
            case EndSession():
                return self._end_session()
            case _:
                raise IllegalActionError(f"{action!r} is not an action")

    def _require(self, *phases: Phase, doing: str) -> None:
        if self.phase not in phases:
            raise IllegalActionError(f"cannot {doing} now: {self._describe_phase()}")

    def _describe_phase(self) -> str:
        return describe_phase(self)

    def _check_actor(self, claimed: Seat | None, doing: str) -> None:
        if claimed is None:
            return
        check_seat(claimed)
        if claimed != self.player_to_act:
            raise IllegalActionError(
                f"player {claimed} cannot {doing}: it is player {self.player_to_act}'s decision"
            )

    def _record(self, *events: GameEvent) -> tuple[GameRecord, ...]:
        game = self.current_game
        for event in events:
            game = game.with_event(event)
        return (*self.games[:-1], game)

    def _opening_roll(self, action: OpeningRoll) -> MatchState:
        self._require(Phase.OPENING_ROLL, doing="make an opening roll")
        check_dice(action.die0, action.die1)
        event = GameEvent(EventKind.OPENING_ROLL, dice=(action.die0, action.die1))
        if action.die0 == action.die1:
            return replace(self, games=self._record(event))
        mover: Seat = 0 if action.die0 > action.die1 else 1
        dice = (max(action.die0, action.die1), min(action.die0, action.die1))
        return self._start_move(mover, dice, event)

    def _start_move(self, mover: Seat, dice: tuple[int, int], event: GameEvent) -> MatchState:
        """``mover`` has ``dice`` to play (``event`` records how they came): MOVE, or an auto
        pass when nothing can be played."""
        plays = _plays_of(self.position_for(mover), *dice)
        if len(plays) == 1 and not plays[0].moves:
            passed = GameEvent(EventKind.AUTO_PASS, player=mover, dice=dice)
            return replace(
                self,
                phase=Phase.TURN_START,
                player_on_roll=other(mover),
                dice=None,
                games=self._record(event, passed),
                _plays=None,
            )
        return replace(
            self,
            phase=Phase.MOVE,
            player_on_roll=mover,
            dice=dice,
            games=self._record(event),
            _plays=plays,
        )

    def _roll(self, action: Roll) -> MatchState:
        self._require(Phase.TURN_START, doing="roll")
        self._check_actor(action.player, "roll")
        check_dice(action.die1, action.die2)
        mover = self.player_on_roll
        assert mover is not None
        dice = (action.die1, action.die2)
        return self._start_move(mover, dice, GameEvent(EventKind.ROLL, player=mover, dice=dice))

    def _double(self, action: Double) -> MatchState:
        self._require(Phase.TURN_START, doing="double")
        self._check_actor(action.player, "double")
        refusal = self._double_refusal()
        if refusal is not None:
            raise IllegalActionError(f"cannot double: {refusal}")
        event = GameEvent(EventKind.DOUBLE, player=self.player_on_roll, value=2 * self.cube_value)
        return replace(self, phase=Phase.CUBE_OFFERED, games=self._record(event))

    def _take(self, action: Take) -> MatchState:
        self._require(Phase.CUBE_OFFERED, doing="take")
        self._check_actor(action.player, "take")
        taker = self.player_to_act
        value = 2 * self.cube_value
        event = GameEvent(EventKind.TAKE, player=taker, value=value)
        return replace(
            self,
            phase=Phase.TURN_START,
            cube_value=value,
            cube_owner=taker,
            games=self._record(event),
        )

    def _drop(self, action: Drop) -> MatchState:
        self._require(Phase.CUBE_OFFERED, doing="drop")
        self._check_actor(action.player, "drop")
        assert self.player_on_roll is not None
        dropper = other(self.player_on_roll)
        result = GameResult(
            winner=self.player_on_roll,
            points=self.cube_value,
            kind=WinKind.SINGLE,
            reason=EndReason.DROP,
            cube_value=self.cube_value,
        )
        return self._end_game(result, GameEvent(EventKind.DROP, player=dropper))

    def _play(self, action: PlayMove) -> MatchState:
        self._require(Phase.MOVE, doing="play")
        self._check_actor(action.player, "play")
        mover = self.player_on_roll
        assert mover is not None and self.dice is not None
        position = self.position_for(mover)
        play = resolve(position, self.dice, self.legal_plays(), action.play)
        board = play.position if mover == 0 else play.position.swap()
        event = GameEvent(EventKind.PLAY, player=mover, dice=self.dice, play=play.notation())
        if any(play.position.mover):
            return replace(
                self,
                phase=Phase.TURN_START,
                board=board,
                player_on_roll=other(mover),
                dice=None,
                games=self._record(event),
                _plays=None,
            )
        state = replace(self, board=board, games=self._record(event), _plays=None)
        kind = win_kind(play.position) if self.rules.gammons else WinKind.SINGLE
        result = GameResult(
            winner=mover,
            points=kind.multiplier * self.cube_value,
            kind=kind,
            reason=EndReason.BEAR_OFF,
            cube_value=self.cube_value,
        )
        return state._end_game(result, None)

    def _resign(self, loser: Seat, kind: EventKind, reason: EndReason) -> MatchState:
        check_seat(loser)
        if not self.phase.in_game:
            raise IllegalActionError(
                f"player {loser} cannot {kind.value} now: {self._describe_phase()}"
            )
        result = GameResult(
            winner=other(loser),
            points=self.cube_value,
            kind=WinKind.SINGLE,
            reason=reason,
            cube_value=self.cube_value,
        )
        return self._end_game(result, GameEvent(kind, player=loser))

    def _resign_action(self, action: Resign) -> MatchState:
        loser = check_seat(action.player)
        offer = resignation.offer_for(self.rules, loser=loser, level=action.level,
                                      in_game=self.phase.in_game, phase=self._describe_phase())
        if offer is None:
            return self._resign(loser, EventKind.RESIGN, EndReason.RESIGN)
        return replace(self, resign_offer=offer, games=self._record(resignation.offered(offer)))

    def _pending_offer(self, claimed: Seat | None, doing: str) -> ResignOffer:
        offer = self.resign_offer
        if offer is None:
            raise IllegalActionError(
                f"cannot {doing} a resignation: none is offered ({self._describe_phase()})"
            )
        self._check_actor(claimed, f"{doing} the resignation")
        return offer

    def _accept_resign(self, action: AcceptResign) -> MatchState:
        offer = self._pending_offer(action.player, "accept")
        return self._end_game(*resignation.accepted(offer, self.cube_value))

    def _reject_resign(self, action: RejectResign) -> MatchState:
        offer = self._pending_offer(action.player, "refuse")
        return replace(self, resign_offer=None, games=self._record(resignation.refused(offer)))

    def _lose_match(self, loser: Seat, kind: EventKind, reason: EndReason) -> MatchState:
        check_seat(loser)
        return self._award_match(other(loser), None, GameEvent(kind, player=loser), reason)

    def _award_match(
        self, winner: Seat, points: int | None, event: GameEvent, reason: EndReason
    ) -> MatchState:
        """End the match for ``winner``: the current game (or, between games, a new one that
        is never played) is scored ``points``, by default what ``winner`` still needs."""
        if self.phase is Phase.MATCH_OVER:
            raise IllegalActionError("cannot end the match: it is already over")
        state = self if self.phase.in_game else self._new_game()
        if points is None:
            needed = state.points_needed(winner)
            points = state.cube_value if needed is None else max(1, needed)
        result = GameResult(
            winner=winner,
            points=points,
            kind=WinKind.SINGLE,
            reason=reason,
            cube_value=state.cube_value,
        )
        return state._end_game(result, event, match_winner=winner)

    def _adjudicate(self, action: Adjudicate) -> MatchState:
        winner, points, event = referee.adjudication(action)
        if action.scope is AdjudicationScope.MATCH:
            return self._award_match(winner, points, event, EndReason.ADJUDICATION)
        if not self.phase.in_game:
            raise IllegalActionError(f"cannot adjudicate a game now: {self._describe_phase()}")
        return self._end_game(referee.game_awarded(winner, points, self.cube_value), event)

    def _end_game(
        self, result: GameResult, event: GameEvent | None, match_winner: Seat | None = None
    ) -> MatchState:
        score = list(self.score)
        score[result.winner] += result.points
        new_score = (score[0], score[1])
        games = (*self.games[:-1], self.current_game.finished(result, event))
        state = replace(
            self,
            phase=Phase.GAME_OVER,
            score=new_score,
            games=games,
            post_crawford=self.post_crawford or self.crawford,
            resign_offer=None,
            _plays=None,
        )
        length = self.rules.match_length
        if match_winner is not None:
            return replace(
                state, phase=Phase.MATCH_OVER, winner=match_winner, end_reason=result.reason
            )
        if length is not None and new_score[result.winner] >= length:
            return replace(
                state, phase=Phase.MATCH_OVER, winner=result.winner, end_reason=EndReason.SCORE
            )
        return state

    def next_game_is_crawford(self) -> bool:
        """Whether the next game will be the Crawford game (meaningful in ``GAME_OVER``)."""
        length = self.rules.match_length
        if length is None or not self.rules.crawford or self.crawford or self.post_crawford:
            return False
        return length - 1 in self.score

    def _new_game(self) -> MatchState:
        self._require(Phase.GAME_OVER, doing="start a new game")
        crawford = self.next_game_is_crawford()
        number = self.game_number + 1
        return replace(
            self,
            phase=Phase.OPENING_ROLL,
            game_number=number,
            crawford=crawford,
            board=Position.initial(),
            player_on_roll=None,
            dice=None,
            cube_value=1,
            cube_owner=None,
            games=(*self.games, GameRecord(number, self.score, crawford)),
        )

    def _end_session(self) -> MatchState:
        if not self.rules.is_money:
            raise IllegalActionError(
                "cannot end the session: a match ends when a player reaches the match length"
            )
        self._require(Phase.GAME_OVER, doing="end the session")
        leader: Seat | None = None
        if self.score[0] != self.score[1]:
            leader = 0 if self.score[0] > self.score[1] else 1
        return replace(
            self, phase=Phase.MATCH_OVER, winner=leader, end_reason=EndReason.SESSION_ENDED
        )

    # -- JSON -----------------------------------------------------------------------------------

    def compact(self) -> MatchState:
        """This state with the earlier games' events left out (their number, score before,
        Crawford and result stay): what play needs to go on, whose size does not grow with
        the match. The full record is the log's to replay."""
        if all(not game.events for game in self.games[:-1]):
            return self
        return replace(self, games=(*(game.summary() for game in self.games[:-1]),
                                    self.games[-1]))

    def with_earlier_games(self, games: Sequence[GameRecord]) -> MatchState:
        """This state with ``games`` (whole records, in order) as the games before the
        current one: :meth:`compact` undone."""
        if [game.number for game in games] != [game.number for game in self.games[:-1]]:
            raise EngineError("these records are not the earlier games of this match")
        return replace(self, games=(*games, self.games[-1]))

    def to_dict(self) -> JSON:
        """The whole state as plain JSON types; :meth:`from_dict` reads it back exactly."""
        return snapshot.state_to_dict(self)

    @classmethod
    def from_dict(cls, data: JSON) -> MatchState:
        """Read a :meth:`to_dict` snapshot; raises :class:`EngineError` if it is malformed."""
        try:
            state = cls(**snapshot.fields_from_dict(data))
        except TypeError as error:  # a field of the wrong kind for the constructor
            raise EngineError(f"malformed match snapshot: {error}") from error
        snapshot.check_consistency(state)
        return state


def _verb(action: Action) -> str:
    """The action's JSON ``type`` as a verb for a refusal message."""
    return str(action.to_dict()["type"]).replace("_", " ")

