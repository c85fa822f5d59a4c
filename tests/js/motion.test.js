// What the board animates and marks: the steps of a play, the move between two states, the
// path a checker slides along and the animation plan. Positions are the protocol's.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  animationSteps, expandPlay, lastPlay, lastPlayMarks, newPlay, parseNotation, pointAlong, rollKey,
  stepDuration, stepPath, STEP_MAX,
} from '../../static/board/motion.js';
import { BAR_CX, BOTTOM, TOP, TRAY_X, barY, pointX, stackY } from '../../static/board/geometry.js';
import { sides } from '../../static/board/moves.js';

const START = (() => {
  const points = new Array(24).fill(0);
  for (const [p, n] of [[24, 2], [13, 5], [8, 3], [6, 5]]) {
    points[p - 1] += n;
    points[24 - p] -= n;
  }
  return { points, bar: [0, 0], off: [0, 0] };
})();

/** A board from seat 0's checkers and seat 1's (each in its own numbering). */
function board(mine, theirs, bar = [0, 0], off = [0, 0]) {
  const points = new Array(24).fill(0);
  for (const [p, n] of Object.entries(mine)) points[p - 1] += n;
  for (const [p, n] of Object.entries(theirs)) points[24 - p] -= n;
  return { points, bar, off };
}

const state = (b, version, events, extra = {}) => ({
  match_id: 7, version, board: b, phase: 'turn_start', dice: null,
  games: [{ number: 1, events }], ...extra,
});

test('notation is read as one path per checker', () => {
  assert.deepEqual(parseNotation('8/5(2)').length, 2);
  assert.deepEqual(parseNotation('13/10*/8'), [[{ point: 13, hit: false }, { point: 10, hit: true }, { point: 8, hit: false }]]);
  assert.deepEqual(parseNotation('bar/22* 6/off'), [
    [{ point: 25, hit: false }, { point: 22, hit: true }],
    [{ point: 6, hit: false }, { point: 0, hit: false }],
  ]);
  assert.deepEqual(parseNotation(''), []);
  assert.equal(parseNotation('13-8'), null);
  assert.equal(parseNotation('30/20'), null);
});

test('a checker that uses both dice is split into single-die steps by an open point', () => {
  // 24/13 with 6-5 from the start: 24/18/13 or 24/19/13, both open; the first found is fine
  const steps = expandPlay(START, 0, [6, 5], '24/13');
  assert.equal(steps.length, 2);
  assert.equal(steps[0][0], 24);
  assert.equal(steps[1][1], 13);
  assert.equal(steps[0][1], steps[1][0]);
  // with 18 blocked by seat 1 (their 7 point) the 6 cannot come first
  const blocked = board({ 24: 1, 6: 14 }, { 7: 2, 2: 13 });
  assert.deepEqual(expandPlay(blocked, 0, [6, 5], '24/13'), [[24, 19, false], [19, 13, false]]);
});

test('hits, the bar first, doubles and bear-offs', () => {
  const b = board({ 13: 2, 6: 13 }, { 14: 1, 11: 1, 6: 13 }, [0, 0]);
  // seat 1's 14 is seat 0's 11; seat 1's 11 is seat 0's 14
  assert.deepEqual(expandPlay(b, 0, [2, 3], '13/11* 13/10'), [[13, 11, true], [13, 10, false]]);
  // an unnamed stop never hits: 13/8 with 3-2 goes by 10, not by the blot on 11
  assert.deepEqual(expandPlay(b, 0, [3, 2], '13/8'), [[13, 10, false], [10, 8, false]]);
  const onBar = board({ 13: 14 }, { 6: 15 }, [1, 0]);
  assert.deepEqual(expandPlay(onBar, 0, [3, 5], '13/8 bar/22'), [[25, 22, false], [13, 8, false]]);
  assert.deepEqual(expandPlay(START, 0, [2, 2], '6/2(2)'), [[6, 4, false], [4, 2, false], [6, 4, false], [4, 2, false]]);
  const home = board({ 5: 2, 3: 13 }, { 24: 15 });
  assert.deepEqual(expandPlay(home, 0, [6, 5], '5/off(2)'), [[5, 0, false], [5, 0, false]]);
  assert.equal(expandPlay(START, 0, [6, 5], '24/12'), null);  // 11 pips with 6-5 cannot reach 12
});

test('the new play between two states, only when it leads to the new board', () => {
  const opening = [{ type: 'opening_roll', dice: [1, 3] }];
  const before = state(START, 4, opening, { phase: 'move', dice: [1, 3] });
  const afterBoard = board({ 24: 2, 13: 5, 8: 3, 6: 5 }, { 13: 5, 8: 2, 6: 4, 5: 2, 24: 2 });
  const play = { type: 'play', player: 1, dice: [1, 3], play: '8/5 6/5' };
  const after = state(afterBoard, 5, [...opening, play]);
  const found = newPlay(before, after);
  assert.equal(found.seat, 1);
  assert.deepEqual(found.moves, [[8, 5, false], [6, 5, false]]);
  // a missed state: the board does not follow from the one shown
  assert.equal(newPlay(state(afterBoard, 3, opening), after), null);
  // two plays at once, another game, an older version, another match: nothing to animate
  const again = state(START, 6, [...opening, play, { type: 'play', player: 0, dice: [2, 1], play: '13/11 6/5' }]);
  assert.equal(newPlay(before, again), null);
  assert.equal(newPlay(before, { ...after, games: [{ number: 2, events: [play] }] }), null);
  assert.equal(newPlay(after, before), null);
  assert.equal(newPlay(before, { ...after, match_id: 8 }), null);
  assert.equal(newPlay(null, after), null);
});

test('a new roll has a new key; the last play is marked from where each checker left to where it stopped', () => {
  const events = [{ type: 'opening_roll', dice: [3, 1] }, { type: 'play', player: 0, dice: [3, 1], play: '8/5 6/5' },
    { type: 'roll', player: 1, dice: [6, 4] }];
  const s = state(START, 3, events, { phase: 'move', dice: [6, 4] });
  const key = rollKey(s);
  assert.ok(key);
  assert.notEqual(rollKey(state(START, 5, [...events, { type: 'play', player: 1, dice: [6, 4], play: '24/14' },
    { type: 'roll', player: 0, dice: [2, 2] }], { phase: 'move', dice: [2, 2] })), key);
  assert.equal(rollKey({ ...s, phase: 'turn_start', dice: null }), null);
  assert.deepEqual(lastPlay(s), { seat: 0, from: [8, 6], to: [5] });
  // on seat 1's board seat 0's points are counted from the other end
  assert.deepEqual(lastPlayMarks(s, 1), { seat: 0, from: [17, 19], to: [20] });
  assert.deepEqual(lastPlayMarks(s, 0), { seat: 0, from: [8, 6], to: [5] });
  assert.equal(lastPlay(state(START, 1, [{ type: 'opening_roll', dice: [3, 1] }])), null);
});

test('a checker slides point by point, and a hit checker goes to the bar', () => {
  const b = sides(START, 0);
  const path = stepPath([13, 8], b, 0, 0);
  // from the top of the 13 stack, over 12, 11, 10, 9, onto the 8 stack
  assert.equal(path.length, 6);
  assert.deepEqual(path[0], [pointX(13), stackY(13, 4, 5)]);
  assert.deepEqual(path.slice(1, 5).map(([x]) => x), [12, 11, 10, 9].map(pointX));
  assert.deepEqual(path[5], [pointX(8), stackY(8, 3, 4)]);
  // the same step by the top player, on a board seen from seat 0: their 13 is our 12
  const top = stepPath([13, 8], sides(START, 1), 1, 0);
  assert.deepEqual(top[0], [pointX(12), stackY(12, 4, 5)]);
  assert.deepEqual(top[top.length - 1], [pointX(17), stackY(17, 3, 4)]);
  // bearing off ends in the mover's tray; entering starts on the bar
  const off = stepPath([2, 0], sides(board({ 2: 15 }, { 24: 15 }), 0), 0, 0);
  assert.equal(off.length, 3);
  assert.ok(off[2][0] > TRAY_X && off[2][1] > BOTTOM - 30);
  const enter = stepPath([25, 22], sides(board({ 13: 14 }, { 6: 15 }, [1, 0]), 0), 0, 0);
  assert.deepEqual(enter[0], [BAR_CX, barY(true, 0)]);
  assert.ok(stepDuration(path) <= STEP_MAX && stepDuration(path) > stepDuration(stepPath([6, 5], b, 0, 0)));

  const hitBoard = board({ 13: 2, 6: 13 }, { 14: 1, 6: 14 });  // a seat 1 blot on seat 0's 11
  const { steps, final } = animationSteps(hitBoard, { seat: 0, moves: [[13, 11, true]] }, 0);
  assert.equal(steps.length, 2);
  assert.equal(steps[0].view.mine[13], 1);       // the moving checker has left its point
  assert.equal(steps[0].view.theirs[11], 1);     // the blot waits to be hit
  assert.equal(steps[1].seat, 1);
  assert.equal(steps[1].view.theirs[11], 0);     // now it travels ...
  assert.deepEqual(steps[1].path[1], [BAR_CX, barY(false, 0)]);  // ... to the top player's bar
  assert.equal(final.theirs[25], 1);
  assert.equal(final.mine[11], 1);
});

test('a point along a path goes by length', () => {
  const path = [[0, 0], [10, 0], [10, 30]];
  assert.deepEqual(pointAlong(path, 0), [0, 0]);
  assert.deepEqual(pointAlong(path, 0.25), [10, 0]);
  assert.deepEqual(pointAlong(path, 0.5), [10, 10]);
  assert.deepEqual(pointAlong(path, 1), [10, 30]);
  assert.ok(TOP < BOTTOM);
});
