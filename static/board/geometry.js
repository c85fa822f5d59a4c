// Where things are on the SVG board (viewBox 992 x 700). Pure: no DOM.
// Points are numbered as the bottom player numbers them: their home board (1-6) is bottom
// right, 7-12 bottom left, 13-18 top left, 19-24 top right; 25 is the bar, 0 is off.

export const WIDTH = 992;
export const HEIGHT = 700;
export const FRAME = 20;
export const PW = 64;            // point width
export const R = 28;             // checker radius
export const LEFT = FRAME;       // left field x
export const BAR_X = LEFT + 6 * PW;          // 404
export const BAR_W = 72;
export const RIGHT = BAR_X + BAR_W;          // 476
export const BOARD_W = RIGHT + 6 * PW + FRAME;  // 880
export const TRAY_X = BOARD_W + 8;           // 888
export const TRAY_W = 80;
export const TOP = FRAME;                    // 20
export const BOTTOM = HEIGHT - FRAME;        // 680
export const PH = 280;                       // point height
export const MID_Y = HEIGHT / 2;             // 350
export const BAR_CX = BAR_X + BAR_W / 2;

export const BAR = 25;
export const OFF = 0;

/** Centre x of point `p` (1-24). */
export function pointX(p) {
  if (p <= 6) return RIGHT + (6 - p) * PW + PW / 2;
  if (p <= 12) return LEFT + (12 - p) * PW + PW / 2;
  if (p <= 18) return LEFT + (p - 13) * PW + PW / 2;
  return RIGHT + (p - 19) * PW + PW / 2;
}

export const isTop = (p) => p >= 13;

/** Centre y of the `i`-th checker (from the edge) of a stack of `n` on point `p`. */
export function stackY(p, i, n) {
  const step = n > 5 ? Math.min(2 * R, (PH - 2 * R) / (n - 1)) : 2 * R;
  return isTop(p) ? TOP + R + i * step : BOTTOM - R - i * step;
}

/** Centre y of the `i`-th checker on the bar, for the bottom player or the top one. */
export function barY(bottom, i) {
  return bottom ? MID_Y + 68 + i * 40 : MID_Y - 68 - i * 40;
}

/** The point (bottom numbering), BAR or OFF under the board coordinates (x, y), or null.
 *  The bottom half of the bar is the bottom player's, the bottom tray is where they bear off:
 *  those are the only places that player can pick up from or drop on besides the points. */
export function pointAt(x, y) {
  if (y < 0 || y > HEIGHT) return null;
  if (x >= TRAY_X && x <= TRAY_X + TRAY_W) return y >= MID_Y ? OFF : null;
  if (x >= BAR_X && x < RIGHT) return y >= MID_Y ? BAR : null;
  const top = y < MID_Y;
  let column;
  if (x >= LEFT && x < BAR_X) column = Math.floor((x - LEFT) / PW);          // 0-5 left
  else if (x >= RIGHT && x < RIGHT + 6 * PW) column = 6 + Math.floor((x - RIGHT) / PW);  // 6-11
  else return null;
  return top ? 13 + column : 12 - column;
}

/** The point a keyboard arrow leads to from `p` (bottom numbering, BAR, or OFF), as the board
 *  is drawn: left and right follow the screen, up and down cross to the facing row. */
export function neighbour(p, key) {
  const cols = (q) => {
    if (q === BAR) return { top: false, col: 5.5 };
    if (q === OFF) return { top: false, col: 12 };
    const x = pointX(q);
    const col = x < BAR_X ? (x - LEFT - PW / 2) / PW : 6 + (x - RIGHT - PW / 2) / PW;
    return { top: isTop(q), col };
  };
  const at = (top, col) => {
    if (col >= 12) return top ? null : OFF;
    if (col === 5.5) return top ? null : BAR;
    if (col < 0) return null;
    return top ? 13 + col : 12 - col;
  };
  const { top, col } = cols(p);
  const order = [0, 1, 2, 3, 4, 5, 5.5, 6, 7, 8, 9, 10, 11, 12];
  const index = order.indexOf(col);
  let next = null;
  if (key === 'ArrowLeft' || key === 'ArrowRight') {
    const step = key === 'ArrowLeft' ? -1 : 1;
    for (let i = index + step; i >= 0 && i < order.length; i += step) {
      next = at(top, order[i]);
      if (next !== null) break;
    }
  } else if (key === 'ArrowUp' || key === 'ArrowDown') {
    const wantTop = key === 'ArrowUp';
    if (wantTop === top) return p;
    next = at(wantTop, col);
    if (next === null) next = at(wantTop, col === 12 ? 11 : 5);
  }
  return next === null ? p : next;
}

/** The other side's numbering of point `p` (p <-> 25 - p); the bar and off stay. */
export function flipPoint(p) {
  return p === BAR || p === OFF ? p : 25 - p;
}

/** The board's arrow for a screen arrow: on a board turned a quarter clockwise (portrait)
 *  the screen's right is the board's up, and its down the board's right. */
export function screenKey(key, portrait) {
  if (!portrait) return key;
  return { ArrowRight: 'ArrowUp', ArrowLeft: 'ArrowDown', ArrowDown: 'ArrowRight', ArrowUp: 'ArrowLeft' }[key] || key;
}
