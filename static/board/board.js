// Tavla's board as a component, like chessground: `createBoard(svg, options)` returns
// `{set, destroy, ...}`. It draws the state it is given and lets the player make the moves
// of one of the legal plays it was sent (click, drag, keyboard); it does no networking.
// The page that owns the socket feeds it states and sends the play (static/table.js).
//
// set(config) merges: {state, bottom, busy, interactive, arrows, animate, lastMove}; `arrows`
// are plays drawn as arrows over the position (static/board/arrows.js; the review's played and
// best play). `animate`: another player's play slides in checker by checker and a new roll
// tumbles (static/board/motion.js finds the play from the states); the position is the new
// state's at once, the animation is a picture above it, and a new state, a flip or the
// player's own touch ends it at once. `lastMove`: the points of the last play are marked.
// `state` has the shape of the protocol's `state` message (docs/protocol.md); a state
// without `board` shows the start.
// Redraws are batched to the next animation frame; a player's own input redraws at once.

import {
  BAR, HEIGHT, OFF, R, WIDTH, flipPoint, neighbour, pointAt, screenKey,
} from './geometry.js';
import {
  afterMoves, completePlay, destinations, diceLeft, diceList, forcedPlay, isPrefix, longestStep,
  mirror, oneClickMove, playOrders, sides, sources,
} from './moves.js';
import {
  drawCheckers, drawCube, drawDice, drawFrame, drawGhost, drawHitAreas, drawLastMove, drawTargets,
  drawTrays, el,
} from './draw.js';
import { attachDrag } from './drag.js';
import { drawArrows } from './arrows.js';
import { animationSteps, lastPlayMarks, newPlay, pointAlong, rollKey } from './motion.js';

export const START_BOARD = (() => {
  const points = new Array(24).fill(0);
  for (const [p, n] of [[24, 2], [13, 5], [8, 3], [6, 5]]) {
    points[p - 1] += n;
    points[24 - p] -= n;
  }
  return { points, bar: [0, 0], off: [0, 0] };
})();

const noop = () => {};

/**
 * Options: `words` (from words.js; needs the keys bar, cube, point_label, bar_label,
 * off_label), `onChange({partial, complete})` after each move or undo of the player,
 * `onKey(event)` for keys the board does not use itself (the page's shortcuts).
 */
export function createBoard(svg, options = {}) {
  const words = options.words;
  const onChange = options.onChange || noop;
  const config = {
    state: null, bottom: 0, busy: false, interactive: true, arrows: [], animate: false, lastMove: false,
  };
  let orders = [];
  let partial = [];
  let selected = null;
  let focused = null;   // the point (bottom numbering) that holds the keyboard focus
  let shown = null;     // "match:version" of the state the moves were made on
  let dragging = null;  // {from, x, y} while a checker is dragged
  let frame = null;
  let motion = null;    // the animation running: {steps, play, index, start, raf, flyer}
  let animations = 0;   // how many have started (data-animations, for tests and curious eyes)
  let rolled = null;    // the roll (motion.js rollKey) the dice were last drawn for
  let drawnOnce = false;

  svg.replaceChildren();
  svg.classList.add('tavla-board');
  // Everything is drawn in board coordinates inside one group; on a phone held upright the
  // group is turned a quarter (portrait), so the points are wide enough to touch.
  const root = el(svg, 'g', { class: 'board-root' });
  drawFrame(el(root, 'g', { class: 'fixed' }), words.num);
  const layer = el(root, 'g', { class: 'position' });
  // An animation's picture of the board, above the position (hidden meanwhile, board.css) and
  // below the areas that take clicks; its checkers are `piece`s, never `checker`s.
  const motionLayer = el(root, 'g', { class: 'animation', 'aria-hidden': 'true' });
  const hits = drawHitAreas(el(root, 'g', { class: 'hit-areas' }));
  const ghostLayer = el(root, 'g', { class: 'drag-layer' });
  let portrait = null;

  function orient(upright) {
    if (upright === portrait) return;
    portrait = upright;
    svg.setAttribute('viewBox', upright ? `0 0 ${HEIGHT} ${WIDTH}` : `0 0 ${WIDTH} ${HEIGHT}`);
    if (upright) root.setAttribute('transform', `translate(${HEIGHT} 0) rotate(90)`);
    else root.removeAttribute('transform');
    svg.classList.toggle('portrait', upright);
  }
  orient(!!options.portrait);

  const state = () => config.state;
  const mySeat = () => {
    const s = state();
    return s && s.your_seat !== undefined && s.your_seat !== null ? s.your_seat : null;
  };
  const moving = () => {
    const s = state();
    return !!s && config.interactive && !config.busy && s.status === 'playing' && mySeat() !== null
      && s.player_to_act === mySeat() && s.phase === 'move' && !!s.legal_plays;
  };
  // A point in the player's own numbering as the bottom player numbers it, and back.
  const toBottom = (p) => (mySeat() === null || mySeat() === config.bottom ? p : flipPoint(p));
  const fromBottom = toBottom;

  function resetTurn() {
    partial = [];
    selected = null;
    orders = playOrders(state());
    const first = sources(orders, partial);
    if (first.size === 1 && first.has(BAR)) selected = BAR;  // on the bar: already picked up
  }

  function changed() {
    onChange({ partial: partial.slice(), complete: completePlay(orders, partial) });
  }

  // -- drawing ---------------------------------------------------------------------------

  function positionFromBottom() {
    const s = state();
    const board = s && s.board ? s.board : START_BOARD;
    const seat = mySeat() ?? 0;
    const b = afterMoves(board, seat, mySeat() === null ? [] : partial);
    return seat === config.bottom ? b : { mine: mirror(b.theirs), theirs: mirror(b.mine) };
  }

  function draw() {
    if (frame !== null) {
      cancelAnimationFrame(frame.raf);
      clearTimeout(frame.timer);
      frame = null;
    }
    const s = state();
    const view = positionFromBottom();
    layer.replaceChildren();
    const marks = config.lastMove && s ? lastPlayMarks(s, config.bottom) : null;
    if (marks) drawLastMove(layer, marks, config.bottom);
    drawCheckers(layer, view, config.bottom, words.num, dragging ? toBottom(dragging.from) : null);
    drawTrays(layer, view, config.bottom, words.num, words.t('bar'));
    if (s && s.board) {
      if (s.rules && s.rules.cube && s.cube) {
        drawCube(layer, s.cube, config.bottom, s.phase === 'cube_offered' ? s.player_on_roll : null,
          words.num, words.t('cube'));
      }
      if (s.dice && s.phase === 'move') {
        const all = diceList(s.dice);
        const left = s.player_on_roll === mySeat() ? diceLeft(s.board, s.dice, mySeat(), partial) : all;
        const remaining = left.slice();
        const used = all.map((d) => {
          const i = remaining.indexOf(d);
          if (i >= 0) { remaining.splice(i, 1); return false; }
          return true;
        });
        const dice = drawDice(layer, all, used, s.player_on_roll, s.player_on_roll === config.bottom);
        // A roll not shown before tumbles once (after the opponent's checkers have moved).
        const key = rollKey(s);
        if (drawnOnce && config.animate && !motion && key !== rolled) dice.classList.add('rolling');
      }
    }
    if (s && !motion) rolled = rollKey(s);
    if (s) drawnOnce = true;
    if (config.arrows && config.arrows.length) drawArrows(layer, config.arrows, { bottom: config.bottom, view });
    const isMoving = moving();
    svg.classList.toggle('moving', isMoving);
    if (isMoving) {
      const movable = [...sources(orders, partial)].map(toBottom);
      const targets = selected === null ? [] : [...destinations(orders, partial, selected).keys()].map(toBottom);
      drawTargets(layer, view, movable, selected === null ? null : toBottom(selected), targets);
    }
    labelHitAreas(view, isMoving);
  }

  /** Each area says what is there, for screen readers and keyboard players. */
  function labelHitAreas(view, isMoving) {
    const movable = isMoving ? new Set([...sources(orders, partial)].map(toBottom)) : new Set();
    const targets = isMoving && selected !== null
      ? new Set([...destinations(orders, partial, selected).keys()].map(toBottom)) : new Set();
    const who = (seat) => words.t(seat === 0 ? 'light' : 'dark');
    for (const [p, area] of hits) {
      const mine = view.mine[p];
      const theirs = p === BAR ? view.theirs[BAR] : p === OFF ? view.theirs[OFF] : view.theirs[p];
      const parts = [];
      if (mine) parts.push(`${words.num(mine)} ${who(config.bottom)}`);
      if (theirs) parts.push(`${words.num(theirs)} ${who(1 - config.bottom)}`);
      let name;
      if (p === BAR) name = words.t('bar');
      else if (p === OFF) name = words.t('off');
      else name = words.fmt('point_label', { n: words.num(p) });
      let label = parts.length ? `${name}: ${parts.join(', ')}` : `${name}: ${words.t('empty')}`;
      if (selected !== null && toBottom(selected) === p) label += ` (${words.t('picked_up')})`;
      else if (movable.has(p)) label += ` (${words.t('can_move')})`;
      if (targets.has(p)) label += ` (${words.t('can_go_here')})`;
      area.setAttribute('aria-label', label);
      area.classList.toggle('source', movable.has(p));
    }
    let focus = focused;
    if (focus === null || !hits.has(focus)) focus = movable.size ? [...movable][0] : 1;
    for (const [p, area] of hits) area.setAttribute('tabindex', p === focus ? '0' : '-1');
  }

  // -- animation ---------------------------------------------------------------------------

  /** End the animation (`done`, or `cancelled`: a new state, a flip, the player's touch). */
  function stopMotion(reason) {
    if (motion === null) return false;
    cancelAnimationFrame(motion.raf);
    motion = null;
    motionLayer.replaceChildren();
    svg.classList.remove('animating');
    svg.dataset.motion = reason;
    return true;
  }

  /** The picture of step `i`: the board without the moving checker, the play's dice. */
  function drawStill(i) {
    const step = motion.steps[i];
    motionLayer.replaceChildren();
    drawCheckers(motionLayer, step.view, config.bottom, words.num, null, 'piece');
    drawTrays(motionLayer, step.view, config.bottom, words.num, words.t('bar'), 'piece-off');
    const { seat, dice } = motion.play;
    if (dice) {
      const all = diceList(dice);
      const done = motion.steps.slice(0, i).filter((st) => st.seat === seat).length;
      drawDice(motionLayer, all, all.map((_, k) => k < done), seat, seat === config.bottom, 'piece-die');
    }
    motion.flyer = el(motionLayer, 'circle', {
      cx: step.path[0][0], cy: step.path[0][1], r: R - 1, class: `piece flyer seat${step.seat}`,
    });
  }

  function tick(now) {
    if (motion === null) return;
    let elapsed = now - motion.start;
    let i = 0;
    while (i < motion.steps.length && elapsed >= motion.steps[i].duration) {
      elapsed -= motion.steps[i].duration;
      i += 1;
    }
    if (i >= motion.steps.length) {
      stopMotion('done');
      draw();  // the position shows again, and a roll that came with it tumbles now
      return;
    }
    if (i !== motion.index) {
      motion.index = i;
      drawStill(i);
    }
    // (a frame's time can be a little before the animation started)
    const t = Math.max(0, elapsed / motion.steps[i].duration);
    const [x, y] = pointAlong(motion.steps[i].path, t < 0.5 ? 2 * t * t : 1 - 2 * (1 - t) * (1 - t));
    motion.flyer.setAttribute('cx', x.toFixed(1));
    motion.flyer.setAttribute('cy', y.toFixed(1));
    motion.raf = requestAnimationFrame(tick);
  }

  function startMotion(play, board) {
    const { steps } = animationSteps(board, play, config.bottom);
    if (!steps.length) return;
    motion = { steps, play, index: 0, start: performance.now(), raf: null, flyer: null };
    animations += 1;
    svg.dataset.animations = String(animations);
    svg.dataset.motion = 'running';
    svg.classList.add('animating');
    drawStill(0);
    motion.raf = requestAnimationFrame(tick);
  }

  /** The player's own touch or key: the animation gives way at once. */
  function interrupt() {
    if (stopMotion('cancelled')) draw();
  }

  function schedule() {
    if (frame !== null) return;
    // Hidden tabs get no animation frames: draw them on a timer so they are right when shown.
    frame = document.hidden
      ? { raf: null, timer: setTimeout(draw, 50) }
      : { raf: requestAnimationFrame(draw), timer: null };
  }

  // -- moving ----------------------------------------------------------------------------

  function makeMove(chain) {
    partial = partial.concat(chain);
    selected = null;
    const next = sources(orders, partial);
    if (next.size === 1 && next.has(BAR)) selected = BAR;  // still on the bar: pick it up again
    draw();
    changed();
  }

  /** A click, tap or Enter on point `p` (the player's own numbering). */
  function choose(p) {
    if (!moving()) return;
    if (p === null) { selected = null; draw(); return; }
    if (selected !== null && p !== selected) {
      const chain = destinations(orders, partial, selected).get(p);
      if (chain) { makeMove(chain); return; }
    }
    if (p === selected) return;
    if (sources(orders, partial).has(p)) {
      const bearOff = oneClickMove(orders, partial, p);
      if (bearOff) { makeMove(bearOff); return; }
      selected = p;
    } else {
      selected = null;
    }
    draw();
  }

  function pointOf(target) {
    const area = target && target.closest ? target.closest('[data-point]') : null;
    if (!area) return null;
    const value = area.dataset.point;
    if (value === 'bar') return BAR;
    if (value === 'off') return OFF;
    return fromBottom(Number(value));
  }

  // -- input -----------------------------------------------------------------------------

  let suppressClick = false;
  const onClick = (event) => {
    if (suppressClick) { suppressClick = false; return; }
    choose(pointOf(event.target));
  };
  const onDoubleClick = (event) => {
    if (!moving()) return;
    const p = pointOf(event.target);
    if (p === null || !sources(orders, partial).has(p)) return;
    const chain = longestStep(orders, partial, p);
    if (chain) makeMove(chain);
  };
  const onKeyDown = (event) => {
    interrupt();
    const area = event.target.closest ? event.target.closest('rect.hit') : null;
    if (area && event.key.startsWith('Arrow')) {
      const here = [...hits].find(([, a]) => a === area)[0];
      const next = neighbour(here, screenKey(event.key, portrait));
      focused = next;
      for (const [p, a] of hits) a.setAttribute('tabindex', p === next ? '0' : '-1');
      hits.get(next).focus();
      event.preventDefault();
      return;
    }
    if (area && (event.key === 'Enter' || event.key === ' ')) {
      event.preventDefault();
      choose(pointOf(area));
      return;
    }
    if (area && event.key === 'Escape' && selected !== null) {
      selected = null;
      draw();
      return;
    }
    if (options.onKey) options.onKey(event);
  };
  const onFocusIn = (event) => {
    const found = [...hits].find(([, a]) => a === event.target);
    if (found) focused = found[0];
  };
  svg.addEventListener('pointerdown', interrupt, true);
  svg.addEventListener('click', onClick);
  svg.addEventListener('dblclick', onDoubleClick);
  svg.addEventListener('keydown', onKeyDown);
  svg.addEventListener('focusin', onFocusIn);

  const detachDrag = attachDrag(svg, root, {
    canStart(target) {
      if (!moving()) return null;
      const p = pointOf(target);
      return p !== null && sources(orders, partial).has(p) ? p : null;
    },
    start(from) {
      selected = from;
      dragging = { from };
      draw();
      return drawGhost(ghostLayer, 0, 0, mySeat());
    },
    drop(from, x, y) {
      dragging = null;
      ghostLayer.replaceChildren();
      suppressClick = true;
      setTimeout(() => { suppressClick = false; }, 0);
      const at = pointAt(x, y);
      const chain = at === null ? null : destinations(orders, partial, from).get(fromBottom(at));
      if (chain) { makeMove(chain); return; }
      draw();  // dropped where it cannot go: it stays picked up, as after a click
    },
    cancel() {
      dragging = null;
      ghostLayer.replaceChildren();
      draw();
    },
  });

  // -- the component's API ---------------------------------------------------------------

  return {
    /** Show a new state and/or change options; a new match or version starts a new turn. */
    set(next) {
      if ('portrait' in next) orient(!!next.portrait);
      const before = config.state;
      const bottom = config.bottom;
      Object.assign(config, next);
      const s = state();
      const key = s ? `${s.match_id}:${s.version}:${mySeat()}` : null;
      if (key !== shown) {
        shown = key;
        resetTurn();
        // Another version: a running animation ends where it is (the new state shows at
        // once); otherwise another player's new play is animated.
        const wasRunning = stopMotion('cancelled');
        const play = !wasRunning && config.animate && !document.hidden ? newPlay(before, s) : null;
        if (play && play.seat !== mySeat()) startMotion(play, before.board);
      } else if (config.bottom !== bottom || !config.animate) {
        stopMotion('cancelled');
      }
      schedule();
    },
    /** Draw now instead of on the next frame. */
    flush() { if (frame !== null) draw(); },
    /** Take back the last move of this turn. */
    undo() {
      partial = partial.slice(0, -1);
      selected = null;
      draw();
      changed();
    },
    /** Replace this turn's moves with `moves` if they begin a legal play; true if they do. */
    restore(moves) {
      if (!isPrefix(orders, moves)) return false;
      partial = moves.map((m) => [m[0], m[1]]);
      selected = null;
      draw();
      changed();
      return true;
    },
    /** Make all the moves of `play` (one of the orders) at once. */
    playAll(play) {
      partial = play.moves.map((m) => [m[0], m[1]]);
      selected = null;
      draw();
      changed();
    },
    partial: () => partial.slice(),
    complete: () => completePlay(orders, partial),
    forced: () => forcedPlay(orders),
    moving,
    /** Put the keyboard focus on the board. */
    focus() {
      const area = [...hits.values()].find((a) => a.getAttribute('tabindex') === '0');
      if (area) area.focus();
    },
    destroy() {
      if (frame !== null) { cancelAnimationFrame(frame.raf); clearTimeout(frame.timer); }
      stopMotion('cancelled');
      svg.removeEventListener('pointerdown', interrupt, true);
      svg.removeEventListener('click', onClick);
      svg.removeEventListener('dblclick', onDoubleClick);
      svg.removeEventListener('keydown', onKeyDown);
      svg.removeEventListener('focusin', onFocusIn);
      detachDrag();
      svg.replaceChildren();
    },
  };
}

export { sides };
