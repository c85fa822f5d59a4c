// Drawing the SVG board: the fixed parts once, the position on every redraw.
// Everything is drawn in the bottom player's numbering (see geometry.js).

import {
  BAR, BAR_CX, BAR_W, BAR_X, BOARD_W, BOTTOM, FRAME, HEIGHT, LEFT, MID_Y, OFF, PH, PW, R, RIGHT,
  TOP, TRAY_W, TRAY_X, barY, isTop, pointX, stackY,
} from './geometry.js';

export const SVG_NS = 'http://www.w3.org/2000/svg';

/** A new SVG element with `attrs`, appended to `parent`. */
export function el(parent, tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  parent.appendChild(node);
  return node;
}

/** The frame, the felt, the points and their numbers: what never changes. */
export function drawFrame(parent, num) {
  el(parent, 'rect', { x: 0, y: 0, width: BOARD_W, height: HEIGHT, rx: 10, class: 'frame' });
  el(parent, 'rect', { x: LEFT, y: TOP, width: 6 * PW, height: BOTTOM - TOP, class: 'felt' });
  el(parent, 'rect', { x: RIGHT, y: TOP, width: 6 * PW, height: BOTTOM - TOP, class: 'felt' });
  el(parent, 'rect', { x: BAR_X, y: 0, width: BAR_W, height: HEIGHT, class: 'bar' });
  el(parent, 'rect', { x: TRAY_X, y: TOP, width: TRAY_W, height: 300, rx: 6, class: 'tray' });
  el(parent, 'rect', { x: TRAY_X, y: BOTTOM - 300, width: TRAY_W, height: 300, rx: 6, class: 'tray' });
  for (let p = 1; p <= 24; p += 1) {
    const x = pointX(p);
    const top = isTop(p);
    const base = top ? TOP : BOTTOM;
    const tip = top ? TOP + PH - 20 : BOTTOM - PH + 20;
    el(parent, 'polygon', {
      points: `${x - PW / 2 + 2},${base} ${x + PW / 2 - 2},${base} ${x},${tip}`,
      class: `point ${p % 2 ? 'odd' : 'even'}`,
      'data-point-shape': p,
    });
  }
  // the numbers after every point, so that no point covers a number (a turned board's
  // upright numbers reach into the field)
  for (let p = 1; p <= 24; p += 1) {
    el(parent, 'text', { x: pointX(p), y: isTop(p) ? 15 : 697, class: `point-number ${isTop(p) ? 'high' : 'low'}` }, num(p));
  }
}

/** The areas that take clicks, taps, drops and keyboard focus: one per point, the bottom
 *  player's half of the bar and their tray. They stay put, so focus survives a redraw. */
export function drawHitAreas(parent) {
  const areas = new Map();
  const add = (key, attrs) => {
    areas.set(key, el(parent, 'rect', {
      ...attrs, 'data-point': key === BAR ? 'bar' : key === OFF ? 'off' : key, class: 'hit',
      tabindex: '-1', role: 'button',
    }));
  };
  for (let p = 1; p <= 24; p += 1) {
    add(p, { x: pointX(p) - PW / 2, y: isTop(p) ? TOP : MID_Y + 30, width: PW, height: PH + 20 });
  }
  add(BAR, { x: BAR_X, y: MID_Y + 30, width: BAR_W, height: BOTTOM - MID_Y - 30 });
  add(OFF, { x: TRAY_X, y: BOTTOM - 300, width: TRAY_W, height: 300 });
  return areas;
}

function checker(parent, cx, cy, seat, extra = '', kind = 'checker') {
  return el(parent, 'circle', { cx, cy, r: R - 1, class: `${kind} seat${seat}${extra ? ` ${extra}` : ''}` });
}

/** The checkers of `view` ({mine, theirs} from the bottom player's side; `lifted` is a point
 *  one checker of the bottom player is dragged from). `kind` is their class: `checker` for
 *  the position, `piece` for an animation's picture of the board above it (motion.js), which
 *  looks the same but is not the position. */
export function drawCheckers(parent, view, bottom, num, lifted = null, kind = 'checker') {
  const top = 1 - bottom;
  for (let p = 1; p <= 24; p += 1) {
    for (const [counts, seat] of [[view.mine, bottom], [view.theirs, top]]) {
      const n = counts[p] - (seat === bottom && lifted === p ? 1 : 0);
      for (let i = 0; i < n; i += 1) {
        checker(parent, pointX(p), stackY(p, i, n), seat, '', kind).setAttribute('data-point', p);
      }
      if (n > 5) el(parent, 'text', { x: pointX(p), y: stackY(p, n - 1, n) + 6, class: `count seat${seat}` }, num(n));
    }
  }
  const barMine = view.mine[BAR] - (lifted === BAR ? 1 : 0);
  for (let i = 0; i < barMine; i += 1) checker(parent, BAR_CX, barY(true, i), bottom, 'on-bar', kind);
  for (let i = 0; i < view.theirs[BAR]; i += 1) checker(parent, BAR_CX, barY(false, i), top, 'on-bar', kind);
  return { barMine };
}

/** The bar's label and the borne-off checkers in the trays, with their counts (`kind`: the
 *  class of a borne-off checker, `off`, or `piece-off` in an animation's picture). */
export function drawTrays(parent, view, bottom, num, barWord, kind = 'off') {
  const top = 1 - bottom;
  if (view.mine[BAR] || view.theirs[BAR]) {
    el(parent, 'text', { x: BAR_CX, y: MID_Y + 38, class: 'bar-label' }, barWord);  // under the cube
  }
  for (let i = 0; i < view.mine[OFF]; i += 1) {
    el(parent, 'rect', { x: TRAY_X + 8, y: BOTTOM - 8 - (i + 1) * 18, width: TRAY_W - 16, height: 15, rx: 3, class: `${kind} seat${bottom}` });
  }
  for (let i = 0; i < view.theirs[OFF]; i += 1) {
    el(parent, 'rect', { x: TRAY_X + 8, y: TOP + 8 + i * 18, width: TRAY_W - 16, height: 15, rx: 3, class: `${kind} seat${top}` });
  }
  if (view.theirs[OFF]) el(parent, 'text', { x: TRAY_X + TRAY_W / 2, y: MID_Y - 8, class: 'off-count' }, num(view.theirs[OFF]));
  if (view.mine[OFF]) el(parent, 'text', { x: TRAY_X + TRAY_W / 2, y: MID_Y + 22, class: 'off-count' }, num(view.mine[OFF]));
}

const PIPS = {
  1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]],
  4: [[-1, -1], [1, -1], [-1, 1], [1, 1]], 5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
  6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
};

/** The dice on the roller's half: `all` the roll's dice, `used` which are played already
 *  (`kind`: each die's class, `die`, or `piece-die` in an animation's picture). */
export function drawDice(parent, all, used, roller, onRight, kind = 'die') {
  const centre = onRight ? RIGHT + 3 * PW : LEFT + 3 * PW;
  const g = el(parent, 'g', { class: kind === 'die' ? 'dice' : `${kind}s` });
  const n = all.length;
  all.forEach((value, i) => {
    const cx = centre + (i - (n - 1) / 2) * 58;
    const die = el(g, 'g', { class: `${kind} seat${roller}${used[i] ? ' used' : ''}`, 'data-die': value });
    el(die, 'rect', { x: cx - 24, y: MID_Y - 24, width: 48, height: 48, rx: 8 });
    for (const [dx, dy] of PIPS[value]) el(die, 'circle', { cx: cx + dx * 13, cy: MID_Y + dy * 13, r: 5 });
  });
  return g;
}

/** The last play's marks: the points (bottom numbering, BAR, OFF) its checkers left
 *  (`from`, outlined) and stopped on (`to`, filled), for the `seat` that played it. */
export function drawLastMove(parent, marks, bottom) {
  const g = el(parent, 'g', { class: 'last-move', 'data-last-seat': marks.seat });
  const own = marks.seat === bottom;
  const mark = (p, cls) => {
    const attrs = { class: cls, 'data-last': p === BAR ? 'bar' : p === OFF ? 'off' : p };
    if (p === BAR) {
      el(g, 'rect', { ...attrs, x: BAR_X + 4, y: own ? MID_Y + 34 : TOP + 4, width: BAR_W - 8, height: MID_Y - 38 - FRAME, rx: 6 });
    } else if (p === OFF) {
      el(g, 'rect', { ...attrs, x: TRAY_X + 2, y: own ? BOTTOM - 298 : TOP + 2, width: TRAY_W - 4, height: 296, rx: 6 });
    } else {
      const x = pointX(p);
      const base = isTop(p) ? TOP : BOTTOM;
      const tip = isTop(p) ? TOP + PH - 20 : BOTTOM - PH + 20;
      el(g, 'polygon', { ...attrs, points: `${x - PW / 2 + 4},${base} ${x + PW / 2 - 4},${base} ${x},${tip}` });
    }
  };
  for (const p of marks.from) mark(p, 'last-from');
  for (const p of marks.to) mark(p, 'last-to');
  return g;
}

/** The cube: centred on the bar, or at its owner's edge; an offered cube on the doubler's half. */
export function drawCube(parent, cube, bottom, offeredBy, num, cubeWord) {
  const { value, owner } = cube;
  let y = MID_Y;
  if (owner !== null) y = owner === bottom ? BOTTOM - 30 : TOP + 30;
  const g = el(parent, 'g', { class: 'cube', 'data-owner': owner === null ? 'centre' : owner });
  el(g, 'rect', { x: BAR_CX - 24, y: y - 24, width: 48, height: 48, rx: 6 });
  el(g, 'text', { x: BAR_CX, y: y + 9 }, num(value === 1 ? 64 : value));
  el(g, 'title', {}, `${cubeWord} ${num(value)}`);
  if (offeredBy !== null) {
    const cx = offeredBy === bottom ? RIGHT + 3 * PW : LEFT + 3 * PW;
    const offer = el(parent, 'g', { class: 'cube offered' });
    el(offer, 'rect', { x: cx - 28, y: MID_Y - 28, width: 56, height: 56, rx: 7 });
    el(offer, 'text', { x: cx, y: MID_Y + 10 }, num(value * 2));
  }
}

/** Rings round the checkers that may move, the picked one thicker, and where it may go. */
export function drawTargets(parent, view, movable, selected, targets) {
  for (const p of movable) {
    const cls = `movable${selected === p ? ' selected' : ''}`;
    const n = view.mine[p];
    const at = p === BAR ? { cx: BAR_CX, cy: barY(true, 0) } : { cx: pointX(p), cy: stackY(p, n - 1, n) };
    // A dark ring on a light halo: visible on light and dark points alike.
    el(parent, 'circle', { ...at, r: R + 3, class: 'movable-halo' });
    el(parent, 'circle', { ...at, r: R + 3, class: cls, 'data-source': p });
  }
  for (const p of targets) {
    if (p === OFF) {
      el(parent, 'rect', { x: TRAY_X + 2, y: BOTTOM - 298, width: TRAY_W - 4, height: 296, rx: 6, class: 'target', 'data-target': 'off' });
      continue;
    }
    const n = view.mine[p];
    el(parent, 'circle', { cx: pointX(p), cy: stackY(p, n, Math.max(n + 1, 1)), r: R - 4, class: 'target', 'data-target': p });
  }
}

/** The checker under a finger or the mouse while it is dragged. */
export function drawGhost(parent, x, y, seat) {
  return checker(parent, x, y, seat, 'ghost');
}
