// A winning-chances graph over a match, as lichess draws its advantage chart: one point per
// analysed decision, the first player's chance up, 50 % the middle line; errors and blunders
// as dots; a cursor at the chosen decision. Plain SVG, no chart library.
//
// API:
//   graphLayout(points, {width, height, pad}) -> {dots, line, area}            (pure)
//     points: [{win, mark}] in match order; `win` in 0..1 (seat 0's chance) or null
//     (nothing to plot for that decision: it keeps its place on the x axis).
//     dots: [{index, x, y, win, mark}] for the plotted ones; line/area: SVG path data.
//   nearestDot(dots, x) -> the dot nearest to x, or null                           (pure)
//   drawWinGraph(svg, points, {current, onPick}) draws into `svg` (viewBox width x height)
//     and calls onPick(index) when a point is clicked or tapped (the nearest one to the
//     pointer, so a finger need not hit a dot). Returns {select(index)} to move the cursor.

import { el } from './draw.js';

export function graphLayout(points, { width = 600, height = 160, pad = 6 } = {}) {
  const n = points.length;
  const step = n > 1 ? (width - 2 * pad) / (n - 1) : 0;
  const x = (i) => (n > 1 ? pad + i * step : width / 2);
  const y = (win) => pad + (1 - win) * (height - 2 * pad);
  const dots = [];
  points.forEach((point, index) => {
    if (point.win === null || point.win === undefined || Number.isNaN(point.win)) return;
    const win = Math.min(1, Math.max(0, point.win));
    dots.push({ index, x: x(index), y: y(win), win, mark: point.mark || '' });
  });
  const r = (v) => v.toFixed(1);
  const line = dots.map((d, i) => `${i ? 'L' : 'M'}${r(d.x)},${r(d.y)}`).join(' ');
  const middle = y(0.5);
  const area = dots.length
    ? `M${r(dots[0].x)},${r(middle)} ${dots.map((d) => `L${r(d.x)},${r(d.y)}`).join(' ')} L${r(dots[dots.length - 1].x)},${r(middle)} Z`
    : '';
  return { dots, line, area, middle, width, height };
}

export function nearestDot(dots, x) {
  let best = null;
  for (const dot of dots) {
    if (best === null || Math.abs(dot.x - x) < Math.abs(best.x - x)) best = dot;
  }
  return best;
}

export function drawWinGraph(svg, points, { current = null, onPick = () => {} } = {}) {
  const [, , width, height] = (svg.getAttribute('viewBox') || '0 0 600 160').split(/\s+/).map(Number);
  const layout = graphLayout(points, { width, height });
  svg.replaceChildren();
  svg.classList.add('win-graph-svg');
  el(svg, 'rect', { x: 0, y: 0, width, height, class: 'graph-back' });
  el(svg, 'line', { x1: 0, y1: layout.middle, x2: width, y2: layout.middle, class: 'graph-middle' });
  if (layout.area) el(svg, 'path', { d: layout.area, class: 'graph-area' });
  if (layout.line) el(svg, 'path', { d: layout.line, class: 'graph-line' });
  for (const dot of layout.dots) {
    if (dot.mark === 'error' || dot.mark === 'blunder') {
      el(svg, 'circle', { cx: dot.x, cy: dot.y, r: dot.mark === 'blunder' ? 5 : 4, class: `graph-dot mark-${dot.mark}`, 'data-point': dot.index });
    }
  }
  const cursor = el(svg, 'line', { x1: 0, y1: 0, x2: 0, y2: height, class: 'graph-cursor', visibility: 'hidden' });
  const select = (index) => {
    const dot = layout.dots.find((d) => d.index === index);
    if (!dot) { cursor.setAttribute('visibility', 'hidden'); return; }
    cursor.setAttribute('x1', dot.x);
    cursor.setAttribute('x2', dot.x);
    cursor.setAttribute('visibility', 'visible');
  };
  svg.onclick = (event) => {
    const matrix = svg.getScreenCTM();
    if (!matrix) return;
    const at = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    const dot = nearestDot(layout.dots, at.x);
    if (dot) onPick(dot.index);
  };
  select(current);
  return { select, layout };
}
