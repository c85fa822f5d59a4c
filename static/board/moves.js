// What a player may do with the roll, one checker at a time. Pure: no DOM.
// The server sends every legal play (docs/protocol.md); this module only finds the orders in
// which each can be made, so a board can offer one move at a time and never an illegal one.
// Points are in the mover's own numbering: 24..1, 25 the bar, 0 borne off.

/** Checkers seen from `seat`: mine[p] / theirs[p] at `seat`'s point p, 25 = bar, 0 = off. */
export function sides(board, seat) {
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

export const copySides = (b) => ({ mine: b.mine.slice(), theirs: b.theirs.slice() });

/** The other side's counts in the other side's numbering (point p <-> 25 - p). */
export function mirror(counts) {
  const out = new Array(26).fill(0);
  for (let p = 1; p <= 24; p += 1) out[25 - p] = counts[p];
  out[25] = counts[25];
  out[0] = counts[0];
  return out;
}

/** Play one move on `b` (in place): a blot on the destination is hit. */
export function applyMove(b, [src, dst]) {
  b.mine[src] -= 1;
  if (dst === 0) {
    b.mine[0] += 1;
    return;
  }
  if (b.theirs[dst] === 1) {
    b.theirs[dst] = 0;
    b.theirs[25] += 1;
  }
  b.mine[dst] += 1;
}

/** The dice a roll gives to play: four of a double. */
export const diceList = (dice) => (dice[0] === dice[1] ? [dice[0], dice[0], dice[0], dice[0]] : [...dice]);

/** The dice left after playing `move` on `b` with `dice` left, or null if it cannot be
 *  played in this order (a checker must be there, the bar enters first, bear-off rules). */
export function diceAfter(b, dice, [src, dst]) {
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

/** Every order in which each legal play of `state` can be made, one move at a time:
 *  `[{notation, moves: [[from, to], ...]}]`. Empty unless `state` has dice and legal plays. */
export function playOrders(state) {
  const orders = [];
  if (!state || !state.legal_plays || !state.dice) return orders;
  const start = sides(state.board, state.your_seat);
  const dice = diceList(state.dice);
  for (const play of state.legal_plays) {
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
      const b = copySides(start);
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

const sameMove = (a, b) => a[0] === b[0] && a[1] === b[1];

/** The orders that begin with the moves already made. */
export function continuations(orders, partial) {
  return orders.filter((o) => partial.every((m, i) => i < o.moves.length && sameMove(o.moves[i], m)));
}

/** Whether `partial` is the beginning of some legal play (a saved turn can be restored). */
export function isPrefix(orders, partial) {
  return Array.isArray(partial) && continuations(orders, partial).length > 0;
}

/** The points a checker may be picked up from next. */
export function sources(orders, partial) {
  const out = new Set();
  for (const o of continuations(orders, partial)) {
    if (o.moves.length > partial.length) out.add(o.moves[partial.length][0]);
  }
  return out;
}

/** Where a checker on `from` can go next: destination -> the shortest chain of moves that
 *  takes it there (one checker may use both dice, through an open point). */
export function destinations(orders, partial, from) {
  const out = new Map();
  for (const o of continuations(orders, partial)) {
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

/** The play the moves made so far complete, or null. */
export function completePlay(orders, partial) {
  return continuations(orders, partial).find((o) => o.moves.length === partial.length) || null;
}

/** The one play the roll allows, when there is exactly one (a forced play), else null. */
export function forcedPlay(orders) {
  const notations = new Set(orders.map((o) => o.notation));
  return notations.size === 1 ? orders[0] : null;
}

/** What one click on `from` should do: the chain to play at once when the checker has a
 *  single step it can make and that step bears it off (one click bears off when nothing else
 *  is possible for it), else null (the click picks the checker up). */
export function oneClickMove(orders, partial, from) {
  const targets = destinations(orders, partial, from);
  if (targets.size !== 1 || !targets.has(0)) return null;
  return targets.get(0);
}

/** The longest single step a checker on `from` can make (a double click: the higher die). */
export function longestStep(orders, partial, from) {
  let best = null;
  for (const [dst, chain] of destinations(orders, partial, from)) {
    if (chain.length !== 1) continue;
    const pips = from - (dst === 0 ? 0 : dst);
    if (best === null || pips > best.pips) best = { pips, chain };
  }
  return best ? best.chain : null;
}

/** The dice still to play after `partial` on `board` from `seat`'s side. */
export function diceLeft(board, dice, seat, partial) {
  if (!dice) return [];
  let left = diceList(dice);
  const b = sides(board, seat);
  for (const m of partial) {
    const next = diceAfter(b, left, m);
    if (next === null) break;
    left = next;
    applyMove(b, m);
  }
  return left;
}

/** The board from `seat`'s side after the moves made so far. */
export function afterMoves(board, seat, partial) {
  const b = sides(board, seat);
  for (const m of partial) applyMove(b, m);
  return b;
}

/** Pip counts [mine, theirs] of a sides value (the bar counts 25). */
export function pips(b) {
  let mine = 0;
  let theirs = 0;
  for (let p = 1; p <= 24; p += 1) {
    mine += p * b.mine[p];
    theirs += (25 - p) * b.theirs[p];
  }
  return [mine + 25 * b.mine[25], theirs + 25 * b.theirs[25]];
}
