// Where the board puts things, where a drop lands, and where the keyboard arrows lead.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  BAR, BAR_CX, HEIGHT, MID_Y, OFF, TRAY_W, TRAY_X, flipPoint, isTop, neighbour, pointAt, pointX,
  screenKey, stackY,
} from '../../static/board/geometry.js';

test('the bottom player home board is bottom right, their 24 point top right', () => {
  assert.ok(pointX(1) > pointX(6) && pointX(6) > BAR_CX && pointX(7) < BAR_CX);
  assert.ok(pointX(24) > pointX(19) && pointX(13) < pointX(18));
  assert.equal(pointX(1), pointX(24));
  assert.equal(pointX(12), pointX(13));
  assert.ok(isTop(13) && !isTop(12));
  assert.ok(stackY(1, 0, 1) > MID_Y && stackY(24, 0, 1) < MID_Y);
  // a tall stack is squeezed so it never crosses the middle
  assert.ok(stackY(1, 14, 15) > MID_Y && stackY(24, 14, 15) < MID_Y);
});

test('pointAt is the inverse of the drawing: every checker position falls on its point', () => {
  for (let p = 1; p <= 24; p += 1) {
    for (const n of [1, 5, 9]) {
      for (let i = 0; i < n; i += 1) assert.equal(pointAt(pointX(p), stackY(p, i, n)), p, `point ${p}`);
    }
  }
  assert.equal(pointAt(BAR_CX, MID_Y + 100), BAR);
  assert.equal(pointAt(BAR_CX, MID_Y - 100), null);       // the other player's half of the bar
  assert.equal(pointAt(TRAY_X + TRAY_W / 2, HEIGHT - 50), OFF);
  assert.equal(pointAt(TRAY_X + TRAY_W / 2, 50), null);   // the other player's tray
  assert.equal(pointAt(-5, 100), null);
  assert.equal(pointAt(100, HEIGHT + 5), null);
});

test('arrows walk the board as it is drawn; up and down cross to the facing point', () => {
  assert.equal(neighbour(1, 'ArrowLeft'), 2);
  assert.equal(neighbour(2, 'ArrowRight'), 1);
  assert.equal(neighbour(1, 'ArrowRight'), OFF);   // the tray is right of the 1 point
  assert.equal(neighbour(OFF, 'ArrowRight'), OFF);
  assert.equal(neighbour(6, 'ArrowLeft'), BAR);    // the bar sits between 6 and 7
  assert.equal(neighbour(BAR, 'ArrowLeft'), 7);
  assert.equal(neighbour(12, 'ArrowLeft'), 12);    // the left edge
  assert.equal(neighbour(1, 'ArrowUp'), 24);
  assert.equal(neighbour(24, 'ArrowDown'), 1);
  assert.equal(neighbour(13, 'ArrowRight'), 14);
  assert.equal(neighbour(18, 'ArrowRight'), 19);   // the top row skips the bar
  assert.equal(neighbour(24, 'ArrowRight'), 24);
  assert.equal(neighbour(BAR, 'ArrowUp'), 18);
  assert.equal(neighbour(OFF, 'ArrowUp'), 24);
  assert.equal(neighbour(12, 'ArrowUp'), 13);
  assert.equal(neighbour(13, 'ArrowUp'), 13);
  // every point can reach every other one
  const seen = new Set([1]);
  const queue = [1];
  while (queue.length) {
    const p = queue.shift();
    for (const key of ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown']) {
      const q = neighbour(p, key);
      if (!seen.has(q)) { seen.add(q); queue.push(q); }
    }
  }
  assert.equal(seen.size, 26);
});

test('flipPoint swaps the two numberings and keeps the bar and the tray', () => {
  assert.equal(flipPoint(1), 24);
  assert.equal(flipPoint(13), 12);
  assert.equal(flipPoint(BAR), BAR);
  assert.equal(flipPoint(OFF), OFF);
});

test('on a board turned a quarter (portrait) the arrows follow the screen', () => {
  assert.equal(screenKey('ArrowLeft', false), 'ArrowLeft');
  // the bottom player's side is on the left, the top row on the right
  assert.equal(neighbour(1, screenKey('ArrowRight', true)), 24);
  assert.equal(neighbour(24, screenKey('ArrowLeft', true)), 1);
  // down the screen is along the board from 12 towards 1 and the tray
  assert.equal(neighbour(2, screenKey('ArrowDown', true)), 1);
  assert.equal(neighbour(1, screenKey('ArrowDown', true)), OFF);
  assert.equal(neighbour(1, screenKey('ArrowUp', true)), 2);
  assert.equal(screenKey('Enter', true), 'Enter');
});
