// Tavla's board: draws the state the server sends and asks the server to act.
// The server rolls the dice and judges every play; this module only offers moves that are
// part of one of the legal plays it was sent, and sends the whole play's notation.
// Protocol: docs/protocol.md. Words come translated from the page (#board-strings).

const page = document.getElementById('table-page');
const T = JSON.parse(document.getElementById('board-strings').textContent);
const FA = document.documentElement.lang === 'fa';
const PERSIAN_DIGITS = '۰۱۲۳۴۵۶۷۸۹';
const SVG_NS = 'http://www.w3.org/2000/svg';

/** Digits in the page's language (Persian digits in Persian). */
export function num(value) {
  const text = String(value);
  return FA ? text.replace(/[0-9]/g, (d) => PERSIAN_DIGITS[d]) : text;
}

/** A translated template with {name} placeholders filled in. */
function fmt(key, params = {}) {
  const template = T[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}

/** The same as nodes: each value isolated in a <bdi>, so names, dice and notation keep
 *  their own direction inside a right-to-left sentence. */
function fmtNodes(key, params = {}) {
  const template = T[key] ?? key;
  const out = [];
  let last = 0;
  template.replace(/\{(\w+)\}/g, (m, k, offset) => {
    out.push(template.slice(last, offset));
    const value = params[k];
    if (value instanceof Node) out.push(value);
    else {
      const bdi = document.createElement('bdi');
      bdi.textContent = value === undefined ? m : String(value);
      out.push(bdi);
    }
    last = offset + m.length;
    return m;
  });
  out.push(template.slice(last));
  return out;
}

// -- geometry (viewBox 992 x 700): the bottom player's home board is bottom right ----------
const FRAME = 20;
const PW = 64;            // point width
const R = 28;             // checker radius
const LEFT = FRAME;       // left field x
const BAR_X = LEFT + 6 * PW;          // 404
const BAR_W = 72;
const RIGHT = BAR_X + BAR_W;          // 476
const BOARD_W = RIGHT + 6 * PW + FRAME;  // 880
const TRAY_X = BOARD_W + 8;           // 888
const TRAY_W = 80;
const TOP = FRAME;                    // 20
const BOTTOM = 700 - FRAME;           // 680
const PH = 280;                       // point height
const MID_Y = 350;
const BAR_CX = BAR_X + BAR_W / 2;

function pointX(p) {
  if (p <= 6) return RIGHT + (6 - p) * PW + PW / 2;
  if (p <= 12) return LEFT + (12 - p) * PW + PW / 2;
  if (p <= 18) return LEFT + (p - 13) * PW + PW / 2;
  return RIGHT + (p - 19) * PW + PW / 2;
}
const isTop = (p) => p >= 13;

function stackY(p, i, n) {
  const step = n > 5 ? Math.min(2 * R, (PH - 2 * R) / (n - 1)) : 2 * R;
  return isTop(p) ? TOP + R + i * step : BOTTOM - R - i * step;
}

// -- board arithmetic, from one seat's side ------------------------------------------------

/** Checkers seen from `seat`: mine[p] / theirs[p] at `seat`'s point p, 25 = bar, 0 = off. */
function sides(board, seat) {
  const mine = new Array(26).fill(0);
  const theirs = new Array(26).fill(0);
  for (let p = 1; p <= 24; p += 1) {
    const v = seat === 0 ? board.points[p - 1] : -board.points[24 - p];
    if (v > 0) mine[p] = v;
    else if (v < 0) theirs[p] = -v;
  }
  mine[25] = board.bar[seat];
  theirs[25] = board.bar[1 - seat];
  mine[0] = board.off[seat];
  theirs[0] = board.off[1 - seat];
  return { mine, theirs };
}

const copySides = (b) => ({ mine: b.mine.slice(), theirs: b.theirs.slice() });

function applyMove(b, [src, dst]) {
  b.mine[src] -= 1;
  if (dst === 0) {
    b.mine[0] += 1;
    return;
  }
  if (b.theirs[dst] === 1) {  // a blot: hit it
    b.theirs[dst] = 0;
    b.theirs[25] += 1;
  }
  b.mine[dst] += 1;
}

const diceList = (dice) => (dice[0] === dice[1] ? [dice[0], dice[0], dice[0], dice[0]] : [...dice]);

/** The dice left after playing `move` on `b` with `dice` left, or null if it cannot be
 *  played in this order (a checker must be there, the bar enters first, bear-off rules). */
function diceAfter(b, dice, [src, dst]) {
  if (b.mine[src] <= 0) return null;
  if (src !== 25 && b.mine[25] > 0) return null;
  if (dst > 0 && b.theirs[dst] >= 2) return null;
  let die;
  if (dst > 0) {
    die = src - dst;
    if (!dice.includes(die)) return null;
  } else {
    for (let p = 7; p <= 25; p += 1) if (b.mine[p] > 0) return null;
    if (dice.includes(src)) die = src;
    else {
      for (let p = src + 1; p <= 6; p += 1) if (b.mine[p] > 0) return null;
      const bigger = dice.filter((d) => d > src).sort((x, y) => x - y);
      if (!bigger.length) return null;
      [die] = bigger;
    }
  }
  const rest = dice.slice();
  rest.splice(rest.indexOf(die), 1);
  return rest;
}

function permutations(items) {
  if (items.length <= 1) return [items];
  const out = [];
  items.forEach((item, i) => {
    const rest = items.slice(0, i).concat(items.slice(i + 1));
    for (const tail of permutations(rest)) out.push([item, ...tail]);
  });
  return out;
}

/** Every order in which each legal play can be made, one move at a time. */
function playOrders(current) {
  const orders = [];
  if (!current.legal_plays || !current.dice) return orders;
  const start = sides(current.board, current.your_seat);
  const dice = diceList(current.dice);
  for (const play of current.legal_plays) {
    const moves = play.moves.map((m) => [m[0], m[1]]);
    const seen = new Set();
    const add = (order) => {
      const key = order.map((m) => m.join('/')).join(' ');
      if (!seen.has(key)) {
        seen.add(key);
        orders.push({ notation: play.notation, moves: order });
      }
    };
    add(moves);  // the engine's own order is always offered
    for (const order of permutations(moves)) {
      let b = copySides(start);
      let left = dice;
      let ok = true;
      for (const move of order) {
        left = diceAfter(b, left, move);
        if (left === null) { ok = false; break; }
        applyMove(b, move);
      }
      if (ok) add(order);
    }
  }
  return orders;
}

// -- state -----------------------------------------------------------------------------

let state = JSON.parse(document.getElementById('initial-state').textContent);
let clockOffset = 0;      // server time minus local time, seconds
let flipped = false;      // a spectator may turn the board
let orders = [];          // playOrders(state)
let partial = [];         // moves made this turn, not yet sent
let selected = null;      // the point a checker was picked from
let busy = false;         // an action is on its way
const seenResults = new Set();
let shownPanelFor = null;

const hasMatch = () => state.match_id !== null && state.match_id !== undefined;
const mySeat = () => (hasMatch() ? state.your_seat : null);
const bottomSeat = () => {
  let seat = mySeat();
  if (!hasMatch()) seat = state.table.seats.findIndex((s) => s && s.id === state.viewer_id);
  const base = seat === null || seat === undefined || seat < 0 ? 0 : seat;
  return flipped ? 1 - base : base;
};
const inGame = () => hasMatch() && state.status === 'playing'
  && ['opening_roll', 'turn_start', 'cube_offered', 'move'].includes(state.phase);
const myTurn = () => hasMatch() && state.status === 'playing' && mySeat() !== null
  && state.player_to_act === mySeat();
const moving = () => myTurn() && state.phase === 'move' && !!state.legal_plays;

function nameOf(seat) {
  if (hasMatch()) return state.players[seat].name;
  const s = state.table.seats[seat];
  return s ? s.name : T.empty_seat;
}

function continuations() {
  return orders.filter((o) => partial.every((m, i) => o.moves[i][0] === m[0] && o.moves[i][1] === m[1]));
}

function sources() {
  const out = new Set();
  for (const o of continuations()) if (o.moves.length > partial.length) out.add(o.moves[partial.length][0]);
  return out;
}

/** Where a checker on `from` can go next: destination -> the moves that take it there. */
function destinations(from) {
  const out = new Map();
  for (const o of continuations()) {
    let k = partial.length;
    let at = from;
    const chain = [];
    while (k < o.moves.length && o.moves[k][0] === at) {
      chain.push(o.moves[k]);
      at = o.moves[k][1];
      if (!out.has(at) || out.get(at).length > chain.length) out.set(at, chain.slice());
      if (at === 0) break;
      k += 1;
    }
  }
  return out;
}

function completePlay() {
  return continuations().find((o) => o.moves.length === partial.length) || null;
}

function localSides() {
  if (!hasMatch()) return null;
  const b = sides(state.board, mySeat() ?? 0);
  for (const m of partial) applyMove(b, m);
  return b;
}

function diceLeft() {
  if (!state.dice) return [];
  let left = diceList(state.dice);
  const b = sides(state.board, mySeat() ?? 0);
  for (const m of partial) {
    const next = diceAfter(b, left, m);
    if (next === null) break;
    left = next;
    applyMove(b, m);
  }
  return left;
}

// -- drawing -------------------------------------------------------------------------------

const svg = document.getElementById('board');

function el(tag, attrs = {}, parent = svg, text = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  parent.appendChild(node);
  return node;
}

function drawChecker(parent, cx, cy, seat, extra = '') {
  return el('circle', { cx, cy, r: R - 1, class: `checker seat${seat} ${extra}` }, parent);
}

function drawFrame() {
  el('rect', { x: 0, y: 0, width: BOARD_W, height: 700, rx: 10, class: 'frame' });
  el('rect', { x: LEFT, y: TOP, width: 6 * PW, height: BOTTOM - TOP, class: 'felt' });
  el('rect', { x: RIGHT, y: TOP, width: 6 * PW, height: BOTTOM - TOP, class: 'felt' });
  el('rect', { x: BAR_X, y: 0, width: BAR_W, height: 700, class: 'bar' });
  el('rect', { x: TRAY_X, y: TOP, width: TRAY_W, height: 300, rx: 6, class: 'tray' });
  el('rect', { x: TRAY_X, y: BOTTOM - 300, width: TRAY_W, height: 300, rx: 6, class: 'tray' });
  for (let p = 1; p <= 24; p += 1) {
    const x = pointX(p);
    const top = isTop(p);
    const base = top ? TOP : BOTTOM;
    const tip = top ? TOP + PH - 20 : BOTTOM - PH + 20;
    el('polygon', {
      points: `${x - PW / 2 + 2},${base} ${x + PW / 2 - 2},${base} ${x},${tip}`,
      class: `point ${p % 2 ? 'odd' : 'even'}`,
      'data-point-shape': p,
    });
    el('text', { x, y: top ? 15 : 696, class: 'point-number' }, svg, num(p));
  }
}

function drawCheckers(b) {
  const bottom = bottomSeat();
  const top = 1 - bottom;
  // b is from my seat's side; redraw from the bottom player's side.
  const view = mySeat() === null || mySeat() === undefined ? 0 : mySeat();
  const fromBottom = view === bottom ? b : { mine: mirror(b.theirs), theirs: mirror(b.mine) };
  const layer = el('g', { class: 'checkers' });
  for (let p = 1; p <= 24; p += 1) {
    for (const [counts, seat] of [[fromBottom.mine, bottom], [fromBottom.theirs, top]]) {
      const n = counts[p];
      for (let i = 0; i < n; i += 1) {
        const c = drawChecker(layer, pointX(p), stackY(p, i, n), seat);
        c.setAttribute('data-point', p);
      }
      if (n > 5) {
        el('text', { x: pointX(p), y: stackY(p, n - 1, n) + 6, class: `count seat${seat}` }, layer, num(n));
      }
    }
  }
  // the bar: the bottom player's checkers below the middle, the top player's above
  for (let i = 0; i < fromBottom.mine[25]; i += 1) {
    drawChecker(layer, BAR_CX, MID_Y + 68 + i * 40, bottom, 'on-bar');
  }
  for (let i = 0; i < fromBottom.theirs[25]; i += 1) {
    drawChecker(layer, BAR_CX, MID_Y - 68 - i * 40, top, 'on-bar');
  }
  if (fromBottom.mine[25] || fromBottom.theirs[25]) {
    el('text', { x: BAR_CX, y: MID_Y + 38, class: 'bar-label' }, layer, T.bar);  // under the cube
  }
  // borne off: thin slices in the trays
  for (let i = 0; i < fromBottom.mine[0]; i += 1) {
    el('rect', { x: TRAY_X + 8, y: BOTTOM - 8 - (i + 1) * 18, width: TRAY_W - 16, height: 15, rx: 3, class: `off seat${bottom}` }, layer);
  }
  for (let i = 0; i < fromBottom.theirs[0]; i += 1) {
    el('rect', { x: TRAY_X + 8, y: TOP + 8 + i * 18, width: TRAY_W - 16, height: 15, rx: 3, class: `off seat${top}` }, layer);
  }
  // how many are off, in the gap between the trays
  if (fromBottom.theirs[0]) el('text', { x: TRAY_X + TRAY_W / 2, y: MID_Y - 8, class: 'off-count' }, layer, num(fromBottom.theirs[0]));
  if (fromBottom.mine[0]) el('text', { x: TRAY_X + TRAY_W / 2, y: MID_Y + 22, class: 'off-count' }, layer, num(fromBottom.mine[0]));
}

/** The other side's counts in the other side's numbering (point p <-> 25 - p). */
function mirror(counts) {
  const out = new Array(26).fill(0);
  for (let p = 1; p <= 24; p += 1) out[25 - p] = counts[p];
  out[25] = counts[25];
  out[0] = counts[0];
  return out;
}

/** A point in my numbering as the bottom player numbers it. */
function toBottom(p) {
  const view = mySeat() ?? 0;
  if (p === 0 || p === 25 || view === bottomSeat()) return p;
  return 25 - p;
}

const PIPS = {
  1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]],
  4: [[-1, -1], [1, -1], [-1, 1], [1, 1]], 5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
  6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
};

function drawDie(parent, cx, cy, value, seat, used) {
  const g = el('g', { class: `die seat${seat}${used ? ' used' : ''}`, 'data-die': value }, parent);
  el('rect', { x: cx - 24, y: cy - 24, width: 48, height: 48, rx: 8 }, g);
  for (const [dx, dy] of PIPS[value]) el('circle', { cx: cx + dx * 13, cy: cy + dy * 13, r: 5 }, g);
}

function drawDice() {
  if (!hasMatch() || !state.dice || !['move'].includes(state.phase)) return;
  const roller = state.player_on_roll;
  const onRight = roller === bottomSeat();
  const centre = onRight ? RIGHT + 3 * PW : LEFT + 3 * PW;
  const all = diceList(state.dice);
  const left = roller === mySeat() ? diceLeft() : all;
  const remaining = left.slice();
  const used = all.map((d) => {
    const i = remaining.indexOf(d);
    if (i >= 0) { remaining.splice(i, 1); return false; }
    return true;
  });
  // used dice first, so the ones still to play are on the right
  const g = el('g', { class: 'dice' });
  const n = all.length;
  all.forEach((d, i) => drawDie(g, centre + (i - (n - 1) / 2) * 58, MID_Y, d, roller, used[i]));
}

function drawCube() {
  if (!hasMatch() || !state.rules.cube) return;
  const { value, owner } = state.cube;
  let y = MID_Y;
  if (owner !== null) y = owner === bottomSeat() ? BOTTOM - 30 : TOP + 30;
  const g = el('g', { class: 'cube', 'data-owner': owner === null ? 'centre' : owner });
  el('rect', { x: BAR_CX - 24, y: y - 24, width: 48, height: 48, rx: 6 }, g);
  el('text', { x: BAR_CX, y: y + 9 }, g, num(value === 1 ? 64 : value));
  g.appendChild(document.createElementNS(SVG_NS, 'title')).textContent = `${T.cube} ${num(value)}`;
  if (state.phase === 'cube_offered') {
    const doubler = state.player_on_roll;
    const cx = doubler === bottomSeat() ? RIGHT + 3 * PW : LEFT + 3 * PW;
    const offer = el('g', { class: 'cube offered' });
    el('rect', { x: cx - 28, y: MID_Y - 28, width: 56, height: 56, rx: 7 }, offer);
    el('text', { x: cx, y: MID_Y + 10 }, offer, num(value * 2));
  }
}

function drawTargets() {
  if (!moving() || busy) return;
  const layer = el('g', { class: 'targets' });
  const b = localSides();
  const movable = sources();
  for (const src of movable) {
    const p = toBottom(src);
    if (src === 25) {
      el('circle', { cx: BAR_CX, cy: MID_Y + 68, r: R + 3, class: `movable${selected === 25 ? ' selected' : ''}` }, layer);
    } else {
      const n = b.mine[src];
      el('circle', { cx: pointX(p), cy: stackY(p, n - 1, n), r: R + 3, class: `movable${selected === src ? ' selected' : ''}` }, layer);
    }
  }
  if (selected === null) return;
  for (const dst of destinations(selected).keys()) {
    if (dst === 0) {
      el('rect', { x: TRAY_X + 2, y: BOTTOM - 298, width: TRAY_W - 4, height: 296, rx: 6, class: 'target' }, layer);
      continue;
    }
    const p = toBottom(dst);
    const n = b.mine[dst];
    el('circle', { cx: pointX(p), cy: stackY(p, n, Math.max(n + 1, 1)), r: R - 4, class: 'target', 'data-target': dst }, layer);
  }
}

function drawHitAreas() {
  const layer = el('g', { class: 'hit-areas' });
  for (let p = 1; p <= 24; p += 1) {
    el('rect', {
      x: pointX(p) - PW / 2, y: isTop(p) ? TOP : MID_Y + 30, width: PW, height: PH + 20,
      'data-point': p, class: 'hit',
    }, layer);
  }
  el('rect', { x: BAR_X, y: MID_Y + 30, width: BAR_W, height: BOTTOM - MID_Y - 30, 'data-point': 'bar', class: 'hit' }, layer);
  el('rect', { x: TRAY_X, y: BOTTOM - 300, width: TRAY_W, height: 300, 'data-point': 'off', class: 'hit' }, layer);
}

function drawBoard() {
  svg.replaceChildren();
  drawFrame();
  if (hasMatch()) {
    drawCheckers(localSides());
  } else {
    // Before the first match: the starting position, to show what will be played.
    drawCheckers(sides({ points: START_POINTS, bar: [0, 0], off: [0, 0] }, 0));
  }
  drawCube();
  drawDice();
  drawTargets();
  drawHitAreas();
}

const START_POINTS = (() => {
  const points = new Array(24).fill(0);
  for (const [p, n] of [[24, 2], [13, 5], [8, 3], [6, 5]]) {
    points[p - 1] += n;
    points[24 - p] -= n;
  }
  return points;
})();

// -- the rest of the page ------------------------------------------------------------------

const $ = (id) => document.getElementById(id);

function html(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v === true ? '' : v);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function clockText(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return num(`${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`);
}

/** Each player's reserve and the running delay, now (display only: the server decides). */
function clockNow(seat) {
  const { clock } = state;
  if (!clock) return null;
  let reserve = clock.reserves[seat];
  let delay = null;
  if (clock.running === seat && clock.started_at !== null && state.status === 'playing') {
    const elapsed = Date.now() / 1000 + clockOffset - clock.started_at;
    delay = Math.max(0, clock.delay - elapsed);
    reserve = Math.max(0, reserve - Math.max(0, elapsed - clock.delay));
  }
  return { reserve, delay };
}

function renderPlayer(seat, where) {
  const box = $(where);
  box.replaceChildren();
  box.dataset.seat = seat;
  const acting = hasMatch() && state.status === 'playing' && state.player_to_act === seat;
  box.classList.toggle('acting', acting);
  const swatch = html('span', { class: `swatch seat${seat}` });
  let nameNode;
  const seatInfo = hasMatch() ? state.players[seat] : state.table.seats[seat];
  if (seatInfo) {
    nameNode = html('a', { class: 'name', href: page.dataset.playerUrl.replace('/0/', `/${seatInfo.id}/`), text: seatInfo.name });
  } else {
    nameNode = html('span', { class: 'name empty', text: T.empty_seat });
  }
  box.append(swatch, nameNode);
  if (seatInfo) box.append(html('span', { class: 'rating', text: num(Math.round(seatInfo.rating)) }));
  if (hasMatch()) {
    const player = state.players[seat];
    box.append(html('span', { class: 'pips', title: T.pip_title, 'data-pips': player.pips, text: `${T.pips} ${num(player.pips)}` }));
    box.append(html('span', { class: 'score', text: num(player.score) }));
    if (state.clock) box.append(html('span', { class: 'clock', 'data-clock-seat': seat }));
  }
}

/** Sitting down and standing up, whenever no match is being played at the table. */
function renderSeats() {
  const box = $('seats');
  box.replaceChildren();
  box.hidden = state.table.playing;
  if (state.table.playing) return;
  const seated = state.table.seats.some((s) => s && s.id === state.viewer_id);
  box.append(html('h2', { text: hasMatch() ? T.next_match : T.seats }));
  state.table.seats.forEach((occupant, seat) => {
    const row = html('p', { class: 'seat-row', 'data-seat': seat }, html('span', { class: `swatch seat${seat}` }), ' ');
    if (occupant) {
      row.append(html('bdi', { class: 'name', text: occupant.name }));
      if (occupant.id === state.viewer_id) {
        const button = html('button', { type: 'button', class: 'stand', text: T.stand });
        button.addEventListener('click', () => send({ type: 'stand' }));
        row.append(' ', button);
      }
    } else {
      row.append(html('span', { class: 'name empty', text: T.empty_seat }), ' ');
      if (page.dataset.authenticated !== '1') {
        row.append(html('a', { class: 'button', href: page.dataset.loginUrl, text: T.login_to_play }));
      } else if (!seated) {
        const button = html('button', { type: 'button', class: 'primary sit', 'data-seat': seat, text: T.sit });
        button.addEventListener('click', () => send({ type: 'sit', seat }));
        row.append(button);
      }
    }
    box.append(row);
  });
}

// The version for which this board already asked the server to check the clock.
let clockCheckedVersion = null;

function updateClocks() {
  for (const node of document.querySelectorAll('[data-clock-seat]')) {
    const now = clockNow(Number(node.dataset.clockSeat));
    if (!now) continue;
    if (now.delay !== null && now.delay <= 0 && now.reserve <= 0
        && clockCheckedVersion !== state.version) {
      // Our display reached zero: ask once per version; the server decides and broadcasts.
      clockCheckedVersion = state.version;
      send({ type: 'check_clock' });
    }
    node.textContent = clockText(now.reserve);
    node.classList.toggle('running', now.delay !== null);
    node.classList.toggle('low', now.reserve < 30);
    if (now.delay !== null && now.delay > 0) {
      node.append(' ', html('bdi', { class: 'delay', dir: 'ltr', text: `+${num(Math.ceil(now.delay))}` }));
    }
  }
}

function matchTo(length) {
  if (!length) return T.money;
  return length === 1 ? T.match_to_one : fmt('match_to', { n: num(length) });
}

function rulesText() {
  const r = state.table.rules;
  const parts = [matchTo(r.match_length)];
  parts.push(r.cube ? T.cube : '—');
  if (!r.gammons) parts.push('1×');
  return parts.join(' · ');
}

function renderScoreboard() {
  const box = $('scoreboard');
  box.replaceChildren();
  $('rules').textContent = rulesText();
  if (!hasMatch()) return;
  const length = state.match_length;
  box.append(html('p', { class: 'length', text: matchTo(length) }));
  for (const seat of [0, 1]) {
    box.append(html('p', { class: 'score-line' },
      html('span', { class: `swatch seat${seat}` }), ' ',
      html('bdi', { class: 'name', text: state.players[seat].name }), ' ',
      html('strong', { 'data-score': seat, text: num(state.score[seat]) })));
  }
  box.append(html('p', { class: 'game-number', text: fmt('game_n', { n: num(state.game_number) }) }));
  if (state.crawford) box.append(html('p', { class: 'crawford', text: T.crawford_game }));
  if (state.rules.cube) box.append(html('p', { class: 'cube-line', text: `${T.cube}: ${num(state.cube.value)}` }));
}

function diceText(dice) {
  return dice ? `${num(dice[0])}-${num(dice[1])}` : '';
}

function diceNode(dice) {
  return html('bdi', { class: 'dice-text', dir: 'ltr', text: diceText(dice) });
}

function notationNode(text) {
  return html('bdi', { class: 'notation', dir: 'ltr', text: num(text) });
}

const EVENT_KEYS = {
  play: 'ev_play', roll: 'ev_roll', auto_pass: 'ev_pass', double: 'ev_double', take: 'ev_take',
  drop: 'ev_drop', resign: 'ev_resign', timeout: 'ev_timeout', forfeit: 'ev_forfeit',
  adjudicate: 'ev_adjudicate',
};

function eventLine(event) {
  const li = html('li', { class: `ev ${event.type}` });
  if (event.type === 'opening_roll') {
    li.append(...fmtNodes('ev_opening', {
      p0: state.players[0].name, d0: num(event.dice[0]), p1: state.players[1].name, d1: num(event.dice[1]),
    }));
    return li;
  }
  const key = EVENT_KEYS[event.type];
  if (!key) { li.textContent = event.type; return li; }
  li.append(...fmtNodes(key, {
    name: event.player !== undefined ? state.players[event.player].name : '',
    dice: event.dice ? diceNode(event.dice) : '',
    play: event.play !== undefined ? notationNode(event.play) : '',
    value: event.value !== undefined ? num(event.value) : '',
  }));
  return li;
}

function pointsText(points) {
  return points === 1 ? T.points_1 : fmt('points_n', { n: num(points) });
}

function resultText(result) {
  const cube = num(result.cube_value);
  let how;
  switch (result.reason) {
    case 'bear_off': how = fmt('how_bear_off', { kind: T[result.kind], cube }); break;
    case 'drop': how = T.how_drop; break;
    case 'resign': how = fmt('how_resign', { cube }); break;
    case 'timeout': how = fmt('how_timeout', { cube }); break;
    case 'forfeit': how = T.how_forfeit; break;
    default: how = T.how_adjudication;
  }
  return [...fmtNodes('wins_points', { name: state.players[result.winner].name, points: pointsText(result.points) }), ` (${how})`];
}

function renderMoves() {
  const box = $('moves');
  box.replaceChildren();
  if (!hasMatch()) return;
  for (const game of state.games) {
    const section = html('section', { class: 'game', 'data-game': game.number });
    section.append(html('h3', {}, fmt('game_n', { n: num(game.number) }), ' · ',
      html('bdi', { dir: 'ltr', text: `${num(game.score_before[0])}–${num(game.score_before[1])}` }),
      game.crawford ? ` · ${T.crawford_game}` : null));
    const list = html('ol', { class: 'events' });
    game.events.forEach((event, i) => {
      // a roll is shown with the play that follows it; only a roll still to be played stands alone
      if (event.type === 'roll' && i < game.events.length - 1) return;
      list.append(eventLine(event));
    });
    if (game.result) list.append(html('li', { class: 'ev result' }, ...resultText(game.result)));
    section.append(list);
    box.append(section);
  }
  box.scrollTop = box.scrollHeight;
}

function renderStatus() {
  let parts = [];
  if (!hasMatch()) {
    parts = [T.waiting_player];
  } else if (state.status !== 'playing') {
    parts = [state.status === 'voided' ? T.voided : T.match_over];
  } else if (mySeat() === null) {
    const acting = state.player_to_act;
    parts = [T.spectating];
    if (acting !== null) parts.push(' ', ...fmtNodes('waiting_for', { name: nameOf(acting) }));
  } else if (myTurn()) {
    if (state.phase === 'turn_start') parts = [T.your_turn_roll];
    else if (state.phase === 'cube_offered') parts = fmtNodes('cube_offered_you', { name: nameOf(1 - mySeat()), value: num(state.cube.value * 2) });
    else if (state.phase === 'move') parts = completePlay() ? [T.your_turn_move_done] : fmtNodes('your_turn_move', { dice: diceNode(state.dice) });
  } else if (state.phase === 'cube_offered') {
    parts = fmtNodes('cube_offered_wait', { name: nameOf(state.player_to_act) });
  } else if (state.player_to_act !== null) {
    parts = fmtNodes('waiting_for', { name: nameOf(state.player_to_act) });
  }
  $('status').replaceChildren(...parts);
}

function renderControls() {
  const show = {
    roll: myTurn() && state.phase === 'turn_start',
    double: myTurn() && state.phase === 'turn_start' && state.cube.may_double,
    take: myTurn() && state.phase === 'cube_offered',
    drop: myTurn() && state.phase === 'cube_offered',
    undo: moving() && partial.length > 0,
    confirm: moving(),
    resign: inGame() && mySeat() !== null,
    flip: mySeat() === null && hasMatch(),
  };
  for (const button of document.querySelectorAll('#controls button')) {
    const act = button.dataset.act;
    button.hidden = !show[act];
    button.disabled = busy || (act === 'confirm' && !completePlay());
  }
}

function showPanel(lines, buttons) {
  const panel = $('panel');
  panel.replaceChildren();
  for (const [tag, content, cls] of lines) {
    panel.append(html(tag, { class: cls }, ...(Array.isArray(content) ? content : [content])));
  }
  const row = html('p', { class: 'panel-buttons' });
  for (const b of buttons) row.append(b);
  panel.append(row);
  panel.hidden = false;
}

function hidePanel() {
  $('panel').hidden = true;
}

function renderPanels(first) {
  if (!hasMatch()) { hidePanel(); return; }
  if (state.status !== 'playing') {
    if (shownPanelFor === `match-${state.match_id}`) return;
    shownPanelFor = `match-${state.match_id}`;
    const lines = [['h2', state.status === 'voided' ? T.voided : T.match_over, 'title']];
    const last = state.games[state.games.length - 1];
    if (last && last.result) lines.push(['p', resultText(last.result), 'game-result']);
    const score = `${num(state.score[0])}–${num(state.score[1])}`;
    if (state.winner !== null) lines.push(['p', fmtNodes('match_won', { name: state.players[state.winner].name, score }), 'match-result']);
    else if (state.status !== 'voided') lines.push(['p', fmtNodes('session_over', { score }), 'match-result']);
    const lobby = html('a', { class: 'button', href: page.dataset.lobbyUrl, text: T.lobby });
    const close = html('button', { type: 'button', text: T.close });
    close.addEventListener('click', hidePanel);
    showPanel(lines, [close, lobby]);
    return;
  }
  for (const game of state.games) {
    if (!game.result) continue;
    const key = `${state.match_id}-${game.number}`;
    if (seenResults.has(key)) continue;
    seenResults.add(key);
    if (first) continue;  // results from before this page opened are in the move list
    const close = html('button', { type: 'button', class: 'primary', text: T.close });
    close.addEventListener('click', hidePanel);
    showPanel([['h2', fmt('game_over', { n: num(game.number) }), 'title'],
      ['p', resultText(game.result), 'game-result']], [close]);
  }
}

function render(first = false) {
  drawBoard();
  renderPlayer(1 - bottomSeat(), 'player-top');
  renderPlayer(bottomSeat(), 'player-bottom');
  renderSeats();
  renderScoreboard();
  renderMoves();
  renderStatus();
  renderControls();
  renderPanels(first);
  updateClocks();
  page.dataset.version = hasMatch() ? state.version : '';
  page.dataset.phase = hasMatch() ? state.phase : 'waiting';
}

function showError(text) {
  const box = $('error');
  box.textContent = text;
  box.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => { box.hidden = true; }, 6000);
}

// -- input -----------------------------------------------------------------------------------

function pointFromEvent(event) {
  const target = event.target.closest('[data-point]');
  if (!target) return null;
  const value = target.dataset.point;
  if (value === 'bar') return 25;
  if (value === 'off') return 0;
  // hit areas and checkers carry the bottom player's numbering; turn it into mine
  const p = Number(value);
  const view = mySeat() ?? 0;
  return view === bottomSeat() ? p : 25 - p;
}

function move(chain) {
  partial = partial.concat(chain);
  selected = null;
  const next = sources();
  if (next.size === 1 && next.has(25)) selected = 25;  // still on the bar: pick it up again
  render();
}

svg.addEventListener('click', (event) => {
  if (!moving() || busy) return;
  const p = pointFromEvent(event);
  if (p === null) { selected = null; render(); return; }
  if (selected !== null && p !== selected) {
    const chain = destinations(selected).get(p);
    if (chain) { move(chain); return; }
  }
  if (p === selected) return;
  selected = sources().has(p) ? p : null;
  render();
});

svg.addEventListener('dblclick', (event) => {
  if (!moving() || busy) return;
  const p = pointFromEvent(event);
  if (p === null || !sources().has(p)) return;
  // the higher die: the longest single step this checker can make
  let best = null;
  for (const [dst, chain] of destinations(p)) {
    if (chain.length !== 1) continue;
    const pips = p - dst;
    if (best === null || pips > best.pips) best = { pips, chain };
  }
  if (best) move(best.chain);
});

function act(action, extra = {}) {
  if (!hasMatch()) return;
  busy = true;
  render();
  send({ type: 'action', action, expected_version: state.version, ...extra });
}

const resignDialog = $('resign-dialog');
resignDialog.addEventListener('close', () => {
  if (resignDialog.returnValue === 'yes') act('resign');
});

$('controls').addEventListener('click', (event) => {
  const button = event.target.closest('button[data-act]');
  if (!button || button.disabled) return;
  const action = button.dataset.act;
  if (action === 'undo') {
    partial = partial.slice(0, -1);
    selected = null;
    render();
  } else if (action === 'confirm') {
    const play = completePlay();
    if (play) act('play', { play: play.notation });
  } else if (action === 'flip') {
    flipped = !flipped;
    render();
  } else if (action === 'resign') {
    const opponent = nameOf(1 - mySeat());
    $('resign-text').textContent = fmt('resign_question', { name: opponent, points: pointsText(state.cube.value) });
    resignDialog.returnValue = '';
    resignDialog.showModal();
  } else {
    act(action);
  }
});

// -- the connection --------------------------------------------------------------------------

let socket = null;
let attempts = 0;
let reconnectTimer = null;

function setConnection(kind, text) {
  const box = $('conn');
  box.className = `conn ${kind}`;
  box.textContent = text;
  page.dataset.connection = kind;
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify(message));
  } else {
    busy = false;
    showError(T.reconnecting.replace('{s}', '…'));
  }
}

function receiveState(next) {
  const sameMatch = hasMatch() && next.match_id === state.match_id;
  if (sameMatch && next.version < state.version) return;  // an older state overtaken by a newer one
  const newTurn = !sameMatch || next.version !== state.version;
  state = next;
  clockOffset = (state.server_time ?? Date.now() / 1000) - Date.now() / 1000;
  if (newTurn) {
    partial = [];
    selected = null;
    orders = playOrders(state);
    const first = sources();
    if (first.size === 1 && first.has(25)) selected = 25;
  }
  busy = false;
  render();
}

function connect() {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  socket = new WebSocket(`${scheme}//${window.location.host}${page.dataset.wsPath}`);
  setConnection('connecting', T.connecting);
  socket.addEventListener('open', () => {
    const reconnected = attempts > 0;
    attempts = 0;
    setConnection('live', T.live);
    if (reconnected) socket.send(JSON.stringify({ type: 'sync' }));
  });
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(event.data);
    if (message.type === 'state' || message.type === 'table') {
      receiveState(message);
    } else if (message.type === 'error') {
      busy = false;
      showError(message.detail || message.error);
      if (message.error === 'stale_version') send({ type: 'sync' });
      render();
    }
  });
  socket.addEventListener('close', (event) => {
    if (event.code === 4403 || event.code === 4404) {
      setConnection('closed', T.closed);
      return;
    }
    attempts += 1;
    const delay = Math.min(30, 0.5 * 2 ** Math.min(attempts, 6)) * (0.75 + Math.random() / 2);
    setConnection('reconnecting', fmt('reconnecting', { s: num(Math.ceil(delay)) }));
    clearTimeout(reconnectTimer);
    reconnectTimer = setTimeout(connect, delay * 1000);
  });
}

orders = playOrders(state);
clockOffset = (state.server_time ?? Date.now() / 1000) - Date.now() / 1000;
{
  const first = sources();
  if (first.size === 1 && first.has(25)) selected = 25;
}
render(true);
setInterval(updateClocks, 250);
connect();
