// The review's pure drawing logic: a play's arrows on the board (static/board/arrows.js) and
// the winning-chances graph's points and picking (static/board/wingraph.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { arrowSegments, arrowShape } from '../../static/board/arrows.js';
import {
  BAR_CX, BOTTOM, MID_Y, OFF, TRAY_X, pointX,
} from '../../static/board/geometry.js';
import { graphLayout, nearestDot } from '../../static/board/wingraph.js';

test("the bottom player's arrows run on their own points", () => {
  const [first, second] = arrowSegments([[24, 18], [13, 10]], { mover: 0, bottom: 0 });
  assert.deepEqual([first.from, first.to, second.from, second.to], [24, 18, 13, 10]);
  assert.equal(first.x1, pointX(24));
  assert.equal(first.x2, pointX(18));
  assert.ok(first.y1 < MID_Y && first.y2 < MID_Y);  // 24 and 18 are on the top row
});

test("the top player's moves are turned into the bottom player's numbering", () => {
  const [move] = arrowSegments([[24, 18]], { mover: 1, bottom: 0 });
  assert.deepEqual([move.from, move.to], [1, 7]);
  assert.ok(move.y1 > MID_Y);  // their 24 point is the bottom's 1 point
  // seen from the other side of the table the same move is the top player's own again
  const [flipped] = arrowSegments([[24, 18]], { mover: 1, bottom: 1 });
  assert.deepEqual([flipped.from, flipped.to], [24, 18]);
});

test('entering from the bar and bearing off start and end at the bar and the tray', () => {
  const [enter, off] = arrowSegments([[25, 22], [3, 0]], { mover: 0, bottom: 0 });
  assert.equal(enter.x1, BAR_CX);
  assert.ok(enter.y1 > MID_Y);  // the bottom player's half of the bar
  assert.equal(off.to, OFF);
  assert.ok(off.x2 > TRAY_X && off.y2 > MID_Y);
  const [theirs] = arrowSegments([[3, 0]], { mover: 1, bottom: 0 });
  assert.ok(theirs.y2 < MID_Y);  // the top player bears off into the top tray
});

test('with the position, an arrow leaves the top checker and lands past the stack', () => {
  const mine = new Array(26).fill(0);
  const theirs = new Array(26).fill(0);
  mine[8] = 3;
  mine[5] = 2;
  const view = { mine, theirs };
  const [a, b] = arrowSegments([[8, 5], [8, 5]], { mover: 0, bottom: 0, view });
  // the first checker leaves the third of three and lands third on the 5 point; the second
  // leaves the (now) second and lands fourth
  assert.ok(a.y1 < BOTTOM && a.y1 > MID_Y);
  assert.ok(b.y2 < a.y2, 'the second checker lands higher on the stack');
  assert.ok(b.y1 > a.y1, 'the second checker leaves from lower in the stack');
});

test("an arrow's shape ends at its target and bends to the asked side", () => {
  const segment = { x1: 100, y1: 600, x2: 300, y2: 600 };
  const left = arrowShape(segment, 1);
  const right = arrowShape(segment, -1);
  assert.match(left.d, /^M100\.0,600\.0 Q/);
  assert.ok(left.head.startsWith('300.0,600.0'));
  const control = (d) => Number(d.split(' ')[1].split(',')[1]);
  assert.ok(control(left.d) !== control(right.d));
  assert.ok((control(left.d) - 600) * (control(right.d) - 600) < 0, 'opposite sides');
});

test('the graph puts the first player up, 50 % in the middle, and skips missing points', () => {
  const layout = graphLayout(
    [{ win: 0.5 }, { win: 1 }, { win: null }, { win: 0, mark: 'blunder' }],
    { width: 312, height: 112, pad: 6 },
  );
  assert.equal(layout.dots.length, 3);
  const [even, sure, lost] = layout.dots;
  assert.deepEqual([even.index, sure.index, lost.index], [0, 1, 3]);
  assert.equal(even.y, layout.middle);
  assert.equal(sure.y, 6);
  assert.equal(lost.y, 106);
  assert.deepEqual([even.x, sure.x, lost.x], [6, 106, 306]);  // the gap keeps its place
  assert.equal(lost.mark, 'blunder');
  assert.match(layout.line, /^M6\.0,56\.0 L106\.0,6\.0 L306\.0,106\.0$/);
  assert.ok(layout.area.endsWith('Z'));
});

test('a click picks the nearest plotted point; nothing to plot gives nothing', () => {
  const { dots } = graphLayout([{ win: 0.2 }, { win: null }, { win: 0.9 }], { width: 200, height: 100, pad: 0 });
  assert.equal(nearestDot(dots, 90).index, 0);  // the missing middle point is never picked
  assert.equal(nearestDot(dots, 110).index, 2);
  assert.equal(nearestDot([], 10), null);
  const empty = graphLayout([{ win: null }]);
  assert.equal(empty.line, '');
  assert.equal(empty.area, '');
});

test('out-of-range chances are kept inside the graph', () => {
  const { dots } = graphLayout([{ win: 1.2 }, { win: -0.1 }], { width: 100, height: 100, pad: 0 });
  assert.deepEqual(dots.map((d) => d.y), [0, 100]);
});
