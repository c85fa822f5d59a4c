// What the board animates and marks, worked out from states alone. Pure: no DOM.
//
// The server sends complete states, never moves (docs/protocol.md), but every state carries
// the current game's events, and a `play` event names the play in standard notation with its
// dice. So the move an opponent just made is the one `play` event that is new between the
// state shown and the state received; its notation, the dice and the board it started from
// give the single-die steps (`24/13` with 6-5 is 24/18 then 18/13, or 24/19 then 19/13,
// whichever the board allowed), and the steps must lead to the new state's board: if they do
// not (a state was missed, a new game began), nothing is animated and the board just shows
// the new state.
//
// Points are in the mover's own numbering (24..1, 25 the bar, 0 off) until a step is placed
// on the screen; there they are in the bottom player's numbering, as geometry.js draws them.

import {
  BAR, BAR_CX, BOTTOM, OFF, PH, R, TOP, TRAY_W, TRAY_X, barY, flipPoint, pointX, stackY,
} from './geometry.js';
import { applyMove, copySides, diceAfter, diceList, mirror, sides } from './moves.js';

/** Milliseconds a checker takes per point it passes, and at least / at most per step. */
export const PER_POINT = 45;
export const STEP_MIN = 140;
export const STEP_MAX = 420;
export const HIT_MS = 240;

const last = (list) => (list && list.length ? list[list.length - 1] : null);

/**
 * The checkers a notation moves, one entry per checker (`8/5(2)` is two):
 * `[[{point, hit}, ...], ...]`, the points it names in order (start, stops where it hit,
 * end). `""` is a pass: `[]`. Text the server would not write: null.
 */
export function parseNotation(text) {
  const out = [];
  for (const token of String(text ?? '').trim().toLowerCase().split(/[\s,]+/).filter(Boolean)) {
    const match = /^([^()]+?)(?:\(([1-4])\))?$/.exec(token);
    if (!match) return null;
    const stops = match[1].split('/').map((name) => {
      const m = /^(bar|off|\d{1,2})(\*?)$/.exec(name);
      if (!m) return null;
      const point = m[1] === 'bar' ? BAR : m[1] === 'off' ? OFF : Number(m[1]);
      return point > BAR ? null : { point, hit: m[2] === '*' };
    });
    if (stops.length < 2 || stops.includes(null)) return null;
    for (let i = 0; i < Number(match[2] || 1); i += 1) out.push(stops);
  }
  return out;
}

/**
 * The single-die steps `[[from, to, hit], ...]` of the play `notation` that `seat` made with
 * `dice` on `board` (the protocol's board), in an order they can be played; null when the
 * notation does not fit the board and dice. A checker is moved all the way before the next.
 * A stop the notation does not name never hits: standard notation names every hit.
 */
export function expandPlay(board, seat, dice, notation) {
  const chains = parseNotation(notation);
  if (chains === null || !dice) return null;
  const found = [];
  const search = (b, left, at, next, current) => {
    if (next.every((n, i) => n === chains[i].length)) return true;
    const order = chains.map((_, i) => i).filter((i) => next[i] < chains[i].length);
    if (order.includes(current)) {  // the checker on its way goes on first
      order.splice(order.indexOf(current), 1);
      order.unshift(current);
    }
    for (const c of order) {
      const src = at[c];
      const { point: target, hit: mayHit } = chains[c][next[c]];
      for (const die of [...new Set(left)]) {
        let dst = src - die;
        if (target === OFF) {
          if (dst <= 0) dst = OFF;
          else if (b.theirs[dst] > 0) continue;       // an unnamed stop hits nothing
        } else if (dst < target) {
          continue;                                    // past the point it goes to
        } else if (dst > target || !mayHit) {
          if (b.theirs[dst] > 0) continue;
        }
        const rest = diceAfter(b, left, [src, dst]);
        if (rest === null) continue;
        const hit = dst !== OFF && b.theirs[dst] === 1;
        const after = copySides(b);
        applyMove(after, [src, dst]);
        const arrived = dst === target;
        const at2 = at.slice();
        at2[c] = dst;
        const next2 = next.slice();
        if (arrived) next2[c] += 1;
        found.push([src, dst, hit]);
        if (search(after, rest, at2, next2, arrived ? -1 : c)) return true;
        found.pop();
      }
    }
    return false;
  };
  const start = chains.map((stops) => stops[0].point);
  const ok = search(sides(board, seat), diceList(dice), start, chains.map(() => 1), -1);
  return ok ? found : null;
}

const sameSides = (a, b) => a.mine.every((v, i) => v === b.mine[i])
  && a.theirs.every((v, i) => v === b.theirs[i]);

/** The current game's events of a state (the last game's), or null. */
function currentGame(state) {
  const game = state && state.games ? last(state.games) : null;
  return game && Array.isArray(game.events) ? game : null;
}

/**
 * The play made between `before` and `after` (two states of one match), to animate:
 * `{seat, dice, notation, moves}` (moves as expandPlay gives them), or null when there is not
 * exactly one new play in the same game or its steps do not lead to `after`'s board.
 */
export function newPlay(before, after) {
  if (!before || !after || !before.board || !after.board) return null;
  if (before.match_id == null || before.match_id !== after.match_id) return null;
  if (!(after.version > before.version)) return null;
  const was = currentGame(before);
  const now = currentGame(after);
  if (!was || !now || was.number !== now.number || now.events.length <= was.events.length) return null;
  const plays = now.events.slice(was.events.length).filter((e) => e.type === 'play');
  if (plays.length !== 1) return null;
  const [event] = plays;
  const moves = expandPlay(before.board, event.player, event.dice, event.play);
  if (!moves || !moves.length) return null;
  const b = sides(before.board, event.player);
  for (const move of moves) applyMove(b, move);
  if (!sameSides(b, sides(after.board, event.player))) return null;
  return { seat: event.player, dice: event.dice, notation: event.play, moves };
}

/** The roll the dice of `state` come from, as a key that changes with every roll (null
 *  when no dice are shown): a new key is a roll to show rolling. */
export function rollKey(state) {
  if (!state || !state.dice || state.phase !== 'move') return null;
  const game = currentGame(state);
  if (!game) return null;
  let index = -1;
  game.events.forEach((e, i) => { if (e.type === 'roll' || e.type === 'opening_roll') index = i; });
  return `${state.match_id}:${game.number}:${index}`;
}

/** The last play of the current game, to mark: `{seat, from: [points], to: [points]}` in
 *  the mover's numbering (where each checker started and where it stopped), or null. */
export function lastPlay(state) {
  const game = currentGame(state);
  if (!game) return null;
  const event = [...game.events].reverse().find((e) => e.type === 'play');
  if (!event) return null;
  const chains = parseNotation(event.play);
  if (!chains || !chains.length) return null;
  return {
    seat: event.player,
    from: [...new Set(chains.map((stops) => stops[0].point))],
    to: [...new Set(chains.map((stops) => stops[stops.length - 1].point))],
  };
}

/** The position from the bottom player's side ({mine, theirs}, bottom numbering), given the
 *  mover's sides `b` (mover numbering). */
function viewOf(b, mover, bottom) {
  return mover === bottom ? copySides(b) : { mine: mirror(b.theirs), theirs: mirror(b.mine) };
}

/** Where the `i`-th checker of the bottom (`own`) or top player sits in the tray. */
function traySpot(own, i) {
  return { x: TRAY_X + TRAY_W / 2, y: own ? BOTTOM - 8 - (i + 1) * 18 + 7.5 : TOP + 8 + i * 18 + 7.5 };
}

/** The height a sliding checker passes a point at: over the middle of the point, above the
 *  checkers most stacks have, so that it is seen to pass each one. */
const laneY = (p) => (p >= 13 ? TOP + PH - 3 * R : BOTTOM - PH + 3 * R);

/**
 * The path of one step on the screen: `[[x, y], ...]` from the checker's place on its point
 * (or the bar) through every point it passes to where it lands (or its slot in the tray).
 * `move` is [from, to] in the mover's numbering; `b` the mover's sides before the step.
 */
export function stepPath(move, b, mover, bottom) {
  const [src, dst] = move;
  const own = mover === bottom;
  const onScreen = (p) => (own ? p : flipPoint(p));
  const path = [];
  if (src === BAR) {
    path.push([BAR_CX, barY(own, Math.max(0, b.mine[BAR] - 1))]);
  } else {
    const p = onScreen(src);
    const n = Math.max(1, b.mine[src]);
    path.push([pointX(p), stackY(p, n - 1, n)]);
    for (let k = src - 1; k > Math.max(dst, 0); k -= 1) path.push([pointX(onScreen(k)), laneY(onScreen(k))]);
  }
  if (dst === OFF) {
    const spot = traySpot(own, b.mine[OFF]);
    path.push([spot.x, spot.y]);
  } else {
    const p = onScreen(dst);
    const n = b.mine[dst];
    path.push([pointX(p), stackY(p, n, n + 1)]);
  }
  return path;
}

/** How long a step along `path` takes: by the points it passes, within bounds. */
export function stepDuration(path) {
  return Math.max(STEP_MIN, Math.min(STEP_MAX, STEP_MIN + (path.length - 2) * PER_POINT + 40));
}

/**
 * The animation of `play` (from newPlay) starting on `board`, seen with `bottom` at the
 * bottom: `[{seat, path, duration, view}]`, one step per checker moved and one per checker
 * hit (it goes to the bar). `view` is what stands still while the step's checker moves: the
 * position without that checker. `final` is the position at the end.
 */
export function animationSteps(board, play, bottom) {
  const mover = play.seat;
  const b = sides(board, mover);
  const steps = [];
  for (const [src, dst] of play.moves) {
    const path = stepPath([src, dst], b, mover, bottom);
    const still = copySides(b);
    still.mine[src] -= 1;
    const hit = dst !== OFF && b.theirs[dst] === 1;
    steps.push({ seat: mover, path, duration: stepDuration(path), view: viewOf(still, mover, bottom) });
    applyMove(b, [src, dst]);
    if (hit) {
      const own = 1 - mover === bottom;
      const p = own ? flipPoint(dst) : dst;  // the hit checker's point, on the screen
      const waiting = copySides(b);
      waiting.theirs[BAR] -= 1;
      steps.push({
        seat: 1 - mover,
        path: [[pointX(p), stackY(p, 0, 1)], [BAR_CX, barY(own, waiting.theirs[BAR])]],
        duration: HIT_MS,
        view: viewOf(waiting, mover, bottom),
      });
    }
  }
  return { steps, final: viewOf(b, mover, bottom) };
}

/** The point at fraction `t` (0..1) of the way along `path`, by length. */
export function pointAlong(path, t) {
  if (path.length === 1 || t <= 0) return path[0].slice();
  const lengths = [];
  let total = 0;
  for (let i = 1; i < path.length; i += 1) {
    const d = Math.hypot(path[i][0] - path[i - 1][0], path[i][1] - path[i - 1][1]);
    lengths.push(d);
    total += d;
  }
  if (t >= 1 || total === 0) return path[path.length - 1].slice();
  let left = t * total;
  for (let i = 0; i < lengths.length; i += 1) {
    if (left <= lengths[i]) {
      const f = lengths[i] ? left / lengths[i] : 0;
      return [path[i][0] + (path[i + 1][0] - path[i][0]) * f, path[i][1] + (path[i + 1][1] - path[i][1]) * f];
    }
    left -= lengths[i];
  }
  return path[path.length - 1].slice();
}

/** The points (bottom numbering, BAR, OFF) to mark for the last play of `state`:
 *  `{from: [...], to: [...], seat}` or null. */
export function lastPlayMarks(state, bottom) {
  const play = lastPlay(state);
  if (!play) return null;
  const onScreen = (p) => (play.seat === bottom ? p : flipPoint(p));
  return { seat: play.seat, from: play.from.map(onScreen), to: play.to.map(onScreen) };
}
