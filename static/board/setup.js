// Setting a position up by dragging checkers, on the board's own drawing (draw.js), hit
// testing (geometry.js) and dragging (drag.js). The bottom player is the one on roll.
//
// createSetup(svg, {words, onChange(view)}) -> {set(view), view()}: `view` is {mine, theirs},
// 26 counts each in the bottom player's numbering (25 the bar, 0 borne off), as moves.js's
// sides(). Drag a checker from a point, the bar or a tray to a point, the bar or a tray; one
// dropped off the board goes to its tray. A point holds one colour.

import { BAR, BAR_X, HEIGHT, MID_Y, OFF, RIGHT, TRAY_W, TRAY_X, WIDTH, pointAt } from './geometry.js';
import { drawCheckers, drawFrame, drawGhost, drawTrays, el } from './draw.js';
import { attachDrag } from './drag.js';

/** No checker on the board: all fifteen of each side in its tray. */
export const EMPTY_VIEW = () => {
  const view = { mine: new Array(26).fill(0), theirs: new Array(26).fill(0) };
  view.mine[OFF] = 15;
  view.theirs[OFF] = 15;
  return view;
};

/** Which side's checker a press at a place picks up: the side with checkers there. */
function sideAt(view, place) {
  if (place.point === BAR || place.point === OFF) return place.top ? 'theirs' : 'mine';
  if (view.mine[place.point] > 0) return 'mine';
  if (view.theirs[place.point] > 0) return 'theirs';
  return null;
}

/** The place under board coordinates (x, y): a point, or a half of the bar or the trays. */
export function placeAt(x, y) {
  if (x >= TRAY_X && x <= TRAY_X + TRAY_W && y >= 0 && y <= HEIGHT) return { point: OFF, top: y < MID_Y };
  const point = pointAt(x, y);
  if (point === BAR) return { point: BAR, top: false };
  if (point !== null) return { point, top: point >= 13 };
  if (x >= BAR_X && x < RIGHT && y >= 0 && y < MID_Y) return { point: BAR, top: true };
  return null;
}

/** `view` after moving one checker of `side` from point `from` to `to` (a place), or null
 *  when the move is not possible (nothing there, or the other colour holds the point). */
export function moveChecker(view, side, from, to) {
  const other = side === 'mine' ? 'theirs' : 'mine';
  if (view[side][from] <= 0) return null;
  const target = to === null ? OFF : to.point;
  if (target !== OFF && target !== BAR && view[other][target] > 0) return null;
  const next = { mine: view.mine.slice(), theirs: view.theirs.slice() };
  next[side][from] -= 1;
  next[side][target] += 1;
  return next;
}

export function createSetup(svg, options) {
  const words = options.words;
  const onChange = options.onChange || (() => {});
  let current = EMPTY_VIEW();
  svg.replaceChildren();
  svg.classList.add('tavla-board', 'setup-board');
  svg.setAttribute('viewBox', `0 0 ${WIDTH} ${HEIGHT}`);
  const root = el(svg, 'g', { class: 'board-root' });
  drawFrame(el(root, 'g', { class: 'fixed' }), words.num);
  const layer = el(root, 'g', { class: 'position' });
  const ghostLayer = el(root, 'g', { class: 'drag-layer' });
  const cover = el(root, 'rect', { x: 0, y: 0, width: WIDTH, height: HEIGHT, class: 'setup-hit', fill: 'transparent' });
  let pressed = null;

  function draw() {
    layer.replaceChildren();
    drawCheckers(layer, current, 0, words.num);
    drawTrays(layer, current, 0, words.num, words.t('bar'));
  }

  function boardPoint(event) {
    const matrix = root.getScreenCTM();
    if (!matrix) return null;
    const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    return placeAt(p.x, p.y);
  }
  svg.addEventListener('pointerdown', (event) => { pressed = boardPoint(event); }, true);

  const detach = attachDrag(svg, root, {
    canStart(target) {
      if (target !== cover || !pressed) return null;
      const side = sideAt(current, pressed);
      if (!side || current[side][pressed.point] <= 0) return null;
      return { side, point: pressed.point };
    },
    start(from) {
      return drawGhost(ghostLayer, 0, 0, from.side === 'mine' ? 0 : 1);
    },
    drop(from, x, y) {
      ghostLayer.replaceChildren();
      const next = moveChecker(current, from.side, from.point, placeAt(x, y));
      if (next) {
        current = next;
        draw();
        onChange(current);
      }
    },
    cancel() { ghostLayer.replaceChildren(); },
  });

  draw();
  return {
    set(view) { current = { mine: view.mine.slice(), theirs: view.theirs.slice() }; draw(); },
    view() { return { mine: current.mine.slice(), theirs: current.theirs.slice() }; },
    destroy() { detach(); svg.replaceChildren(); },
  };
}

const LETTERS = 'ABCDEFGHIJKLMNO';

/** The XGID board field of `view` (the bottom player is XGID's bottom player). */
export function xgidBoard(view) {
  const chars = new Array(26).fill('-');
  const letter = (n, lower) => (lower ? LETTERS[n - 1].toLowerCase() : LETTERS[n - 1]);
  for (let p = 1; p <= 24; p += 1) {
    if (view.mine[p] > 0) chars[p] = letter(view.mine[p], false);
    else if (view.theirs[p] > 0) chars[p] = letter(view.theirs[p], true);
  }
  if (view.theirs[BAR] > 0) chars[0] = letter(view.theirs[BAR], true);
  if (view.mine[BAR] > 0) chars[25] = letter(view.mine[BAR], false);
  return chars.join('');
}
