// Arrows for the moves of a play on the board: the review shows the played play and gnubg's
// best one this way, and any page with a board can (an analysis board, a drill, a hint).
//
// API (used through the board component: `board.set({arrows})`, static/board/board.js):
//   arrows = [{moves: [[from, to], ...], seat, kind}, ...]
//     moves  the play's moves in the mover's own numbering (24..1, 25 the bar, 0 off), as
//            matches/analysis_review.py sends them (`played_moves`, `best_moves`);
//     seat   the mover (0 or 1);
//     kind   'played' or 'best' (any word: it becomes the CSS class `arrow-<kind>`; the two
//            known kinds bend to opposite sides so that both stay visible when they overlap).
//   arrowSegments(moves, {mover, bottom, view}) -> [{from, to, x1, y1, x2, y2}]   (pure)
//   arrowShape(segment, bend) -> {d, head}: an SVG path and its head's polygon points (pure)
//   drawArrows(parent, arrows, {bottom, view}) draws them into an SVG group.
// Coordinates are the board's (viewBox 992 x 700, geometry.js), in the bottom player's
// numbering; `view` is the position from the bottom ({mine, theirs} counts, moves.js `sides`).

import {
  BAR, BAR_CX, BOTTOM, OFF, R, TOP, TRAY_W, TRAY_X, barY, flipPoint, pointX, stackY,
} from './geometry.js';
import { el } from './draw.js';

const BENDS = { played: 1, best: -1 };

/** Where a checker of the mover stands or lands at point `p` (bottom numbering), given how
 *  many of the mover's checkers are there now (`count`) and whether it leaves or arrives. */
function spot(p, moverIsBottom, count, leaving) {
  if (p === BAR) return { x: BAR_CX, y: barY(moverIsBottom, 0) };
  if (p === OFF) return { x: TRAY_X + TRAY_W / 2, y: moverIsBottom ? BOTTOM - 150 : TOP + 150 };
  const n = Math.max(count, 1);
  const i = leaving ? n - 1 : Math.min(count, 4);
  return { x: pointX(p), y: stackY(p, i, leaving ? n : count + 1) };
}

/**
 * The segments of `moves` (mover's numbering) on a board drawn with `bottom` at the bottom.
 * `view` (optional) is the position seen from the bottom: with it each arrow starts at the
 * top checker of its stack and ends where the checker lands.
 */
export function arrowSegments(moves, { mover, bottom = 0, view = null }) {
  const moverIsBottom = mover === bottom;
  const toBottom = (p) => (moverIsBottom ? p : flipPoint(p));
  const counts = new Map();
  const countAt = (p) => {
    if (!counts.has(p)) {
      const side = view ? (moverIsBottom ? view.mine : view.theirs) : null;
      counts.set(p, side ? side[p] || 0 : 1);
    }
    return counts.get(p);
  };
  return moves.map(([src, dst]) => {
    const from = toBottom(src);
    const to = toBottom(dst);
    const a = spot(from, moverIsBottom, countAt(from), true);
    counts.set(from, Math.max(0, countAt(from) - 1));
    const b = spot(to, moverIsBottom, countAt(to), false);
    counts.set(to, countAt(to) + 1);
    return { from, to, x1: a.x, y1: a.y, x2: b.x, y2: b.y };
  });
}

/** A curved arrow for `segment`, bent to one side (`bend` 1 or -1) so that two arrows over
 *  the same points stay apart: the path `d` and the head triangle's `points`. */
export function arrowShape(segment, bend = 1) {
  const { x1, y1, x2, y2 } = segment;
  const dx = x2 - x1;
  const dy = y2 - y1;
  const length = Math.hypot(dx, dy) || 1;
  // control point: off the middle, across the direction of travel
  const off = bend * Math.min(90, 18 + length * 0.18);
  const cx = (x1 + x2) / 2 - (dy / length) * off;
  const cy = (y1 + y2) / 2 + (dx / length) * off;
  // the head points along the curve's last tangent (control point -> end)
  const tx = x2 - cx;
  const ty = y2 - cy;
  const t = Math.hypot(tx, ty) || 1;
  const ux = tx / t;
  const uy = ty / t;
  const size = R * 0.7;
  const baseX = x2 - ux * size;
  const baseY = y2 - uy * size;
  const head = [
    [x2, y2],
    [baseX - uy * size * 0.55, baseY + ux * size * 0.55],
    [baseX + uy * size * 0.55, baseY - ux * size * 0.55],
  ].map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ');
  const r = (v) => v.toFixed(1);
  return { d: `M${r(x1)},${r(y1)} Q${r(cx)},${r(cy)} ${r(baseX)},${r(baseY)}`, head };
}

/** Draw `arrows` (see the API above) into the SVG group `parent`. */
export function drawArrows(parent, arrows, { bottom = 0, view = null } = {}) {
  for (const arrow of arrows || []) {
    const kind = arrow.kind || 'played';
    const group = el(parent, 'g', { class: `arrows arrow-${kind}`, 'data-arrows': kind });
    for (const segment of arrowSegments(arrow.moves || [], { mover: arrow.seat, bottom, view })) {
      const { d, head } = arrowShape(segment, BENDS[kind] ?? 1);
      el(group, 'path', { d, class: 'arrow-line' });
      el(group, 'polygon', { points: head, class: 'arrow-head' });
    }
  }
}
