// Setting a position up by dragging (static/board/setup.js): where a drop lands, which moves
// are possible, and the XGID board field of what is set up.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { BAR, OFF, pointX, stackY } from '../../static/board/geometry.js';
import { sides } from '../../static/board/moves.js';
import { START_BOARD } from '../../static/board/board.js';
import { EMPTY_VIEW, moveChecker, placeAt, xgidBoard } from '../../static/board/setup.js';

test('the starting position is the XGID players share', () => {
  assert.equal(xgidBoard(sides(START_BOARD, 0)), '-b----E-C---eE---c-e----B-');
  assert.equal(xgidBoard(EMPTY_VIEW()), '--------------------------');
});

test('a drop lands on a point, a half of the bar, or a tray', () => {
  assert.deepEqual(placeAt(pointX(11), stackY(11, 0, 1)), { point: 11, top: false });
  assert.deepEqual(placeAt(pointX(20), stackY(20, 0, 1)), { point: 20, top: true });
  assert.deepEqual(placeAt(440, 500), { point: BAR, top: false });
  assert.deepEqual(placeAt(440, 100), { point: BAR, top: true });
  assert.deepEqual(placeAt(900, 600), { point: OFF, top: false });
  assert.deepEqual(placeAt(900, 100), { point: OFF, top: true });
  assert.equal(placeAt(-5, 100), null);
});

test('a checker moves to an empty or own point, never onto the other colour', () => {
  const start = sides(START_BOARD, 0);
  const moved = moveChecker(start, 'mine', 13, { point: 11, top: false });
  assert.equal(moved.mine[13], 4);
  assert.equal(moved.mine[11], 1);
  assert.equal(start.mine[13], 5, 'the view it started from is unchanged');
  assert.equal(xgidBoard(moved), '-b----E-C--AeD---c-e----B-');
  assert.equal(moveChecker(start, 'mine', 13, { point: 12, top: false }), null);  // theirs
  assert.equal(moveChecker(start, 'mine', 1, { point: 2, top: false }), null);  // none on 1
  const barred = moveChecker(start, 'theirs', 1, { point: BAR, top: true });
  assert.equal(barred.theirs[BAR], 1);
  assert.equal(xgidBoard(barred)[0], 'a');
  const off = moveChecker(start, 'mine', 6, null);  // dropped off the board: to its tray
  assert.equal(off.mine[OFF], 1);
  const back = moveChecker(off, 'mine', OFF, { point: 3, top: false });
  assert.equal(back.mine[3], 1);
});
