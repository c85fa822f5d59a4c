// The board's move logic: which checkers may move, where, in which orders, and what one
// click or a forced play does. Positions are the protocol's (docs/protocol.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  afterMoves, completePlay, continuations, destinations, diceAfter, diceLeft, diceList, forcedPlay,
  isPrefix, longestStep, mirror, oneClickMove, pips, playOrders, sides, sources,
} from '../../static/board/moves.js';

const START = (() => {
  const points = new Array(24).fill(0);
  for (const [p, n] of [[24, 2], [13, 5], [8, 3], [6, 5]]) {
    points[p - 1] += n;
    points[24 - p] -= n;
  }
  return { points, bar: [0, 0], off: [0, 0] };
})();

const play = (notation, ...moves) => ({ notation, moves: moves.map(([a, b]) => [a, b, false]) });

test('sides turns the board to each seat and counts the bar and the tray', () => {
  const s0 = sides(START, 0);
  const s1 = sides(START, 1);
  assert.equal(s0.mine[24], 2);
  assert.equal(s0.theirs[1], 2);
  assert.deepEqual(s0.mine, s1.mine);   // the start is symmetric
  assert.deepEqual(mirror(s0.theirs), s0.mine);
  assert.deepEqual(pips(s0), [167, 167]);
  const board = { points: START.points.slice(), bar: [1, 2], off: [3, 0] };
  const b = sides(board, 1);
  assert.equal(b.mine[25], 2);
  assert.equal(b.theirs[25], 1);
  assert.equal(b.theirs[0], 3);
});

test('dice: doubles give four moves; a move uses its die, bear-off may use a bigger one', () => {
  assert.deepEqual(diceList([3, 3]), [3, 3, 3, 3]);
  assert.deepEqual(diceList([5, 2]), [5, 2]);
  const start = sides(START, 0);
  assert.deepEqual(diceAfter(start, [5, 2], [13, 8]), [2]);
  assert.equal(diceAfter(start, [5, 2], [13, 9]), null);          // no 4 to play
  assert.deepEqual(diceAfter(start, [4, 4, 4, 4], [13, 9]), [4, 4, 4]);
  assert.deepEqual(diceAfter(start, [6, 5], [13, 7]), [5]);
  assert.equal(diceAfter(start, [6, 5], [24, 19]), null);         // their 6 point is closed
  assert.equal(diceAfter(start, [6, 5], [20, 14]), null);         // no checker there
  // bearing off: all home, a 6 takes the highest checker from the 4 point
  const home = { mine: new Array(26).fill(0), theirs: new Array(26).fill(0) };
  home.mine[4] = 2;
  home.mine[2] = 1;
  assert.deepEqual(diceAfter(home, [6, 1], [4, 0]), [1]);
  assert.equal(diceAfter(home, [6, 1], [2, 0]), null);            // the 4 point is higher
  home.mine[9] = 1;
  assert.equal(diceAfter(home, [6, 4], [4, 0]), null);            // not all home
});

test('a checker on the bar enters first', () => {
  const board = { points: START.points.slice(), bar: [1, 0], off: [0, 0] };
  board.points[23] = 1;  // one of the 24-point checkers was hit
  const b = sides(board, 0);
  assert.equal(diceAfter(b, [6, 1], [13, 7]), null);
  assert.deepEqual(diceAfter(b, [6, 1], [25, 24]), [6]);
});

test('playOrders finds every order a play can be made in, and only those', () => {
  const state = {
    board: START, your_seat: 0, dice: [3, 1],
    legal_plays: [play('8/5 6/5', [8, 5], [6, 5]), play('24/21 24/23', [24, 21], [24, 23])],
  };
  const orders = playOrders(state);
  const eightFive = orders.filter((o) => o.notation === '8/5 6/5');
  assert.equal(eightFive.length, 2);  // 8/5 first or 6/5 first
  assert.deepEqual(sources(orders, []), new Set([8, 6, 24]));
  assert.deepEqual(sources(orders, [[8, 5]]), new Set([6]));
  assert.equal(completePlay(orders, [[8, 5]]), null);
  assert.equal(completePlay(orders, [[8, 5], [6, 5]]).notation, '8/5 6/5');
  assert.equal(completePlay(orders, [[6, 5], [8, 5]]).notation, '8/5 6/5');
  assert.deepEqual([...destinations(orders, [], 24).keys()].sort(), [21, 23]);
  assert.equal(continuations(orders, [[13, 10]]).length, 0);
  assert.equal(isPrefix(orders, [[24, 23]]), true);
  assert.equal(isPrefix(orders, [[13, 10]]), false);
  assert.equal(isPrefix(orders, 'nonsense'), false);
  assert.equal(playOrders({ board: START, your_seat: 0, dice: null, legal_plays: null }).length, 0);
});

test('one checker may use both dice through an open point', () => {
  const state = { board: START, your_seat: 0, dice: [6, 5], legal_plays: [play('24/13', [24, 18], [18, 13])] };
  const orders = playOrders(state);
  const targets = destinations(orders, [], 24);
  assert.deepEqual(targets.get(18), [[24, 18]]);
  assert.deepEqual(targets.get(13), [[24, 18], [18, 13]]);
  assert.deepEqual(longestStep(orders, [], 24), [[24, 18]]);
});

test('a forced play is recognised; a choice is not', () => {
  const forced = playOrders({ board: START, your_seat: 0, dice: [6, 5], legal_plays: [play('24/13', [24, 18], [18, 13])] });
  assert.equal(forcedPlay(forced).notation, '24/13');
  const choice = playOrders({
    board: START, your_seat: 0, dice: [3, 1],
    legal_plays: [play('8/5 6/5', [8, 5], [6, 5]), play('24/21 24/23', [24, 21], [24, 23])],
  });
  assert.equal(forcedPlay(choice), null);
  assert.equal(forcedPlay([]), null);
});

test('one click bears off when that is the only thing the checker can do', () => {
  const points = new Array(24).fill(0);
  points[0] = 2;   // seat 0: two on the 1 point
  points[5] = 1;   // one on the 6 point
  points[23] = -15;
  const board = { points, bar: [0, 0], off: [12, 0] };
  const state = {
    board, your_seat: 0, dice: [6, 1],
    legal_plays: [play('6/off 1/off', [6, 0], [1, 0]), play('6/5 6/off', [6, 5], [5, 0])],
  };
  const orders = playOrders(state);
  assert.deepEqual(oneClickMove(orders, [], 1), [[1, 0]]);
  assert.equal(oneClickMove(orders, [], 6), null);  // off or 5: ambiguous, pick it up
  assert.deepEqual(afterMoves(board, 0, [[1, 0]]).mine[0], 13);
  assert.deepEqual(diceLeft(board, [6, 1], 0, [[1, 0]]), [6]);
});
