// The table page: owns the socket, feeds the board component its states, and draws what is
// around the board (players, clocks, score, move list, controls, panels). The server rolls
// the dice and judges every play; the board only offers moves of the legal plays it was sent.
// Protocol: docs/protocol.md. Words come translated from the page (#board-strings).

import { createBoard } from './board/board.js';
import { makeWords } from './board/words.js';
import { embedded, fmtNodes, html, onPortrait } from './board/dom.js';
import { Connection } from './table/connection.js';
import { diceNode, matchResultNodes, pointsText, resultNodes } from './table/record.js';
import {
  clockNow, clockText, daysText, renderMoves, renderPlayer, renderScoreboard, renderSeats, rulesText,
} from './table/around.js';
import { Alerts } from './table/alerts.js';
import { loadOptions, saveOptions } from './options.js';
import { clientSeedMessage } from './table/client_seed.js';
import { attachFullscreen } from './table/fullscreen.js';

const page = document.getElementById('table-page');
const $ = (id) => document.getElementById(id);
const words = makeWords(embedded('board-strings'), document.documentElement.lang);
const { num, t, fmt } = words;

let state = embedded('initial-state');
let clockOffset = 0;      // server time minus local time, seconds
let flipped = false;      // a spectator may turn the board
let busy = false;         // an action is on its way
let connected = false;
let everLive = false;
const options = loadOptions();
const seenResults = new Set();
let shownPanelFor = null;  // what the panel shows: "match-<id>" or "game-<id>-<n>"
let forcedTimer = null;

const hasMatch = () => state.match_id !== null && state.match_id !== undefined;
const mySeat = () => (hasMatch() ? state.your_seat : null);
const tableSeat = () => state.table.seats.findIndex((s) => s && s.id === state.viewer_id);
const bottomSeat = () => {
  let seat = mySeat();
  if (!hasMatch()) seat = tableSeat();
  const base = seat === null || seat === undefined || seat < 0 ? 0 : seat;
  return flipped ? 1 - base : base;
};
const inGame = () => hasMatch() && state.status === 'playing'
  && ['opening_roll', 'turn_start', 'cube_offered', 'move'].includes(state.phase);
const myTurn = () => hasMatch() && state.status === 'playing' && mySeat() !== null
  && state.player_to_act === mySeat() && !state.resign_offer;
// A resignation offered to me, waiting for my answer ("offer" tables only).
const answering = () => hasMatch() && state.status === 'playing' && mySeat() !== null
  && !!state.resign_offer && state.player_to_act === mySeat();
const offerTable = () => hasMatch() && state.rules && state.rules.resignation === 'offer';
const moving = () => myTurn() && state.phase === 'move' && !!state.legal_plays;
// Moves and rolls are animated unless the player turned it off here or asks for less motion.
const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
const animateOn = () => !!options.animate && !reducedMotion.matches;

function nameOf(seat) {
  if (hasMatch()) return state.players[seat].name;
  const s = state.table.seats[seat];
  return s ? s.name : t('empty_seat');
}

// -- the board ---------------------------------------------------------------------------

const board = createBoard($('board'), {
  words,
  onChange: ({ partial, complete }) => {
    savePartial(partial);
    alerts.moved();
    if (complete && options.autoConfirm) confirmPlay();
    else renderAround();
  },
  onKey: (event) => shortcut(event),
});
onPortrait((upright) => board.set({ portrait: upright }));

/** Unconfirmed moves survive a reload while the state's version is unchanged. */
const partialKey = () => `tavla:partial:${state.match_id}`;
function savePartial(partial) {
  if (!hasMatch()) return;
  try {
    if (partial.length) sessionStorage.setItem(partialKey(), JSON.stringify({ version: state.version, moves: partial }));
    else sessionStorage.removeItem(partialKey());
  } catch (error) { /* storage refused: nothing to restore later */ }
}
function restorePartial() {
  if (!moving()) return;
  try {
    const saved = JSON.parse(sessionStorage.getItem(partialKey()) || 'null');
    if (saved && saved.version === state.version) board.restore(saved.moves);
  } catch (error) { /* nothing saved */ }
}

// -- around the board --------------------------------------------------------------------

// The version for which this board already asked the server to check the clock.
let clockCheckedVersion = null;

function updateClocks() {
  for (const node of document.querySelectorAll('[data-clock-seat]')) {
    const seat = Number(node.dataset.clockSeat);
    const now = clockNow(state, clockOffset, seat);
    if (!now) continue;
    if (now.delay !== null && now.delay <= 0 && now.reserve <= 0
        && clockCheckedVersion !== state.version) {
      // Our display reached zero: ask once per version; the server decides and broadcasts.
      clockCheckedVersion = state.version;
      send({ type: 'check_clock' });
    }
    if (state.table && state.table.rules && state.table.rules.correspondence_days) {
      // Correspondence: no reserve; the time left of the running decision, in days.
      node.textContent = now.delay === null ? '' : daysText(words, now.delay);
      node.classList.toggle('running', now.delay !== null);
      node.classList.remove('low');
      continue;
    }
    node.textContent = clockText(words, now.reserve);
    node.classList.toggle('running', now.delay !== null);
    node.classList.toggle('low', now.reserve < 30);
    if (now.delay !== null && now.delay > 0) {
      node.append(' ', html('bdi', { class: 'delay', dir: 'ltr', text: `+${num(Math.ceil(now.delay))}` }));
    }
    if (seat === mySeat() && now.delay !== null) alerts.clock(state.version, now.delay + now.reserve);
  }
}

function statusNodes() {
  if (!hasMatch()) return [t('waiting_player')];
  if (state.status !== 'playing') return [state.status === 'voided' ? t('voided') : t('match_over')];
  if (mySeat() === null) {
    const acting = state.player_to_act;
    const parts = [t('spectating')];
    if (acting !== null) parts.push(' ', ...fmtNodes(words, 'waiting_for', { name: nameOf(acting) }));
    return parts;
  }
  const offer = state.resign_offer;
  if (offer) {
    const level = t(['', 'level_single', 'level_gammon', 'level_backgammon'][offer.level]);
    if (offer.player === mySeat()) return fmtNodes(words, 'resign_offer_wait', { name: nameOf(1 - offer.player), level });
    return fmtNodes(words, 'resign_offer_you', { name: nameOf(offer.player), level, points: pointsText(words, offer.level * state.cube.value) });
  }
  if (myTurn()) {
    if (state.phase === 'turn_start') return [t('your_turn_roll')];
    if (state.phase === 'cube_offered') return fmtNodes(words, 'cube_offered_you', { name: nameOf(1 - mySeat()), value: num(state.cube.value * 2) });
    if (state.phase === 'move') return board.complete() ? [t('your_turn_move_done')] : fmtNodes(words, 'your_turn_move', { dice: diceNode(words, state.dice) });
  }
  if (state.phase === 'cube_offered') return fmtNodes(words, 'cube_offered_wait', { name: nameOf(state.player_to_act) });
  if (state.player_to_act !== null) return fmtNodes(words, 'waiting_for', { name: nameOf(state.player_to_act) });
  return [];
}

/** The board in words for screen readers: dice, pips, the last move and whose turn it is. */
function describe() {
  if (!hasMatch()) return t('waiting_player');
  const parts = [];
  const [p0, p1] = state.players;
  parts.push(fmt('describe_pips', { a: p0.name, pa: num(p0.pips), b: p1.name, pb: num(p1.pips) }));
  if (state.dice && state.phase === 'move') {
    parts.push(fmt('describe_dice', { name: nameOf(state.player_on_roll), dice: `${num(state.dice[0])}-${num(state.dice[1])}` }));
  }
  const game = state.games[state.games.length - 1];
  const last = game ? [...game.events].reverse().find((e) => e.type === 'play') : null;
  if (last) parts.push(fmt('describe_last', { name: nameOf(last.player), play: num(last.play) }));
  parts.push(statusNodes().map((n) => (typeof n === 'string' ? n : n.textContent)).join(''));
  return parts.join(' ');
}

const SHORTCUTS = { roll: 'r', double: 'd', take: 't', drop: 'x', undo: 'u', confirm: 'c' };

function renderControls() {
  const show = {
    roll: myTurn() && state.phase === 'turn_start',
    double: myTurn() && state.phase === 'turn_start' && state.cube.may_double,
    take: myTurn() && state.phase === 'cube_offered',
    drop: myTurn() && state.phase === 'cube_offered',
    undo: moving() && board.partial().length > 0,
    confirm: moving() && !options.autoConfirm,
    resign: inGame() && mySeat() !== null && !state.resign_offer,
    // A resignation offered to me ("offer" tables): accept or refuse it; nothing else until then.
    accept_resign: answering(),
    reject_resign: answering(),
    // A money session has no match length: either player ends it (the game in progress is resigned).
    end_session: hasMatch() && state.status === 'playing' && mySeat() !== null && !state.match_length,
    flip: mySeat() === null && hasMatch(),
  };
  for (const button of document.querySelectorAll('#controls button')) {
    const act = button.dataset.act;
    button.hidden = !show[act];
    button.disabled = busy || !connected || (act === 'confirm' && !board.complete());
  }
  $('hint').hidden = !moving();
}

function showPanel(key, lines, buttons) {
  const panel = $('panel');
  panel.replaceChildren();
  for (const [tag, content, cls] of lines) {
    panel.append(html(tag, { class: cls }, ...(Array.isArray(content) ? content : [content])));
  }
  const row = html('p', { class: 'panel-buttons' });
  for (const b of buttons) row.append(b);
  panel.append(row);
  panel.hidden = false;
  shownPanelFor = key;
}

function hidePanel() {
  $('panel').hidden = true;
  shownPanelFor = null;
}

// -- rematch: both players of a finished match agree, and the next one starts at once ------------
// Never offered at a table that has none (a tournament pairing's: data-rematch="0").

function rematchLines(offers) {
  const me = state.your_seat;
  if (me === null || me === undefined || page.dataset.rematch !== '1') return [];
  const them = state.players[1 - me].name;
  if (offers.includes(me)) return [['p', fmt('rematch_asked', { name: them }), 'rematch-note']];
  if (offers.includes(1 - me)) return [['p', fmt('rematch_offered', { name: them }), 'rematch-note']];
  return [];
}

function rematchButtons(offers) {
  const me = state.your_seat;
  if (me === null || me === undefined || page.dataset.rematch !== '1') return [];
  const ask = (accept) => () => send({ type: accept ? 'rematch' : 'rematch_decline', match_id: state.match_id });
  const button = (label, cls, accept) => {
    const b = html('button', { type: 'button', class: cls, text: t(label), 'data-act': `rematch-${accept ? 'yes' : 'no'}` });
    b.addEventListener('click', ask(accept));
    return b;
  };
  if (offers.includes(me)) return [button('rematch_withdraw', '', false)];
  if (offers.includes(1 - me)) return [button('rematch_accept', 'primary', true), button('rematch_decline', '', false)];
  return [button('rematch', 'primary', true)];
}

function renderPanels(first) {
  if (!hasMatch()) { hidePanel(); return; }
  const offers = state.rematch_offers || [];
  const matchKey = `match-${state.match_id}`;
  if (state.status !== 'playing') {
    const panelKey = `${matchKey}-rematch-${offers.join('')}`;  // redrawn when offers change
    if (shownPanelFor === panelKey || $('panel').dataset.closed === matchKey) return;
    const lines = [['h2', state.status === 'voided' ? t('voided') : t('match_over'), 'title']];
    const last = state.games[state.games.length - 1];
    if (last && last.result) lines.push(['p', resultNodes(words, state.players, last.result), 'game-result']);
    if (state.status !== 'voided') lines.push(['p', matchResultNodes(words, state.players, state.score, state.winner), 'match-result']);
    const lobby = html('a', { class: 'button', href: page.dataset.lobbyUrl, text: t('lobby') });
    const review = html('a', { class: 'button', href: page.dataset.reviewUrl.replace('/0/', `/${state.match_id}/`), text: t('review') });
    const close = html('button', { type: 'button', text: t('close') });
    close.addEventListener('click', () => { $('panel').dataset.closed = matchKey; hidePanel(); });
    showPanel(panelKey, lines.concat(rematchLines(offers)), [...rematchButtons(offers), close, review, lobby]);
    return;
  }
  // A match in progress: an old match's panel (the last match at this table) goes.
  if (shownPanelFor && !shownPanelFor.startsWith(`game-${state.match_id}-`)) hidePanel();
  for (const game of state.games) {
    if (!game.result) continue;
    const key = `${state.match_id}-${game.number}`;
    if (seenResults.has(key)) continue;
    seenResults.add(key);
    if (first) continue;  // results from before this page opened are in the move list
    const close = html('button', { type: 'button', class: 'primary', text: t('close') });
    close.addEventListener('click', hidePanel);
    showPanel(`game-${key}`, [['h2', fmt('game_over', { n: num(game.number) }), 'title'],
      ['p', resultNodes(words, state.players, game.result), 'game-result']], [close]);
  }
}

/** A private table's invitation link (its creator's): above the board while the table waits
 * for a player, in the side column once both seats are taken or a match began here, so that
 * the board, the turn row and its buttons fit the window (a bot table is full at once). */
function placeInvitation() {
  const form = page.querySelector('form.invitation');
  if (!form) return;
  const away = hasMatch() || state.table.seats.every(Boolean);
  const side = page.querySelector('.side');
  if (away && form.parentElement !== side) side.append(form);
  else if (!away && form.parentElement === side) page.querySelector('.play-area').before(form);
}

function renderAround(first = false) {
  placeInvitation();
  renderPlayer($('player-top'), state, words, 1 - bottomSeat(), page.dataset.playerUrl);
  renderPlayer($('player-bottom'), state, words, bottomSeat(), page.dataset.playerUrl);
  renderSeats($('seats'), state, words, {
    authenticated: page.dataset.authenticated === '1', loginUrl: page.dataset.loginUrl, send,
  });
  $('rules').textContent = rulesText(words, state.table.rules);
  renderScoreboard($('scoreboard'), state, words);
  renderMoves($('moves'), state, words);
  $('status').replaceChildren(...statusNodes());
  $('board-description').textContent = describe();
  renderControls();
  renderPanels(first);
  updateClocks();
  alerts.title(myTurn());
  page.dataset.version = hasMatch() ? state.version : '';
  page.dataset.matchId = hasMatch() ? state.match_id : '';
  page.dataset.phase = hasMatch() ? state.phase : 'waiting';
  page.dataset.connection = connectionKind;  // last: the page is drawn for this connection
}

let aroundFrame = null;
/** Redraw the board and what is around it on the next frame (a hidden tab: a timer). */
function render(first = false) {
  board.set({ state, bottom: bottomSeat(), busy: busy || !connected, animate: animateOn(), lastMove: true });
  if (first) { board.flush(); renderAround(true); return; }
  if (aroundFrame !== null) return;
  const run = () => { aroundFrame = null; board.flush(); renderAround(); };
  aroundFrame = document.hidden ? setTimeout(run, 50) : requestAnimationFrame(run);
}

function showError(text) {
  const box = $('error');
  box.textContent = text;
  box.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => { box.hidden = true; }, 6000);
}

// -- acting --------------------------------------------------------------------------------

function act(action, extra = {}) {
  if (!hasMatch()) return;
  busy = true;
  if (send({ type: 'action', action, expected_version: state.version, ...extra })) render();
}

function confirmPlay() {
  const play = board.complete();
  if (play) act('play', { play: play.notation });
}

/** A forced play (the roll allows only one) is made for the player, after a moment to see it. */
function planForcedPlay() {
  clearTimeout(forcedTimer);
  if (!options.autoForced || !connected || !moving()) return;
  const forced = board.forced();
  if (!forced) return;
  const version = state.version;
  forcedTimer = setTimeout(() => {
    if (state.version !== version || busy || !connected || !moving()) return;
    board.playAll(forced);
    if (!options.autoConfirm) confirmPlay();  // auto-confirm already sent it from onChange
  }, 700);
}

const resignDialog = $('resign-dialog');
resignDialog.addEventListener('close', () => {
  if (resignDialog.returnValue !== 'yes') return;
  const chosen = resignDialog.querySelector('input[name="resign-level"]:checked');
  if (offerTable() && chosen) act('resign', { level: Number(chosen.value) });
  else act('resign');
});

function control(action) {
  if (action === 'undo') {
    board.undo();
  } else if (action === 'confirm') {
    confirmPlay();
  } else if (action === 'flip') {
    flipped = !flipped;
    render();
  } else if (action === 'end_session') {
    if (window.confirm(t('end_session_question'))) act('end_session');
  } else if (action === 'resign') {
    const opponent = nameOf(1 - mySeat());
    $('resign-text').textContent = fmt(offerTable() ? 'resign_offer_question' : 'resign_question', { name: opponent, points: pointsText(words, state.cube.value) });
    $('resign-levels').hidden = !offerTable();
    // Levels worth nothing more at this table are left out: no gammons, no gammon resignation.
    for (const input of resignDialog.querySelectorAll('input[name="resign-level"]')) {
      input.closest('label').hidden = input.value !== '1' && !state.rules.gammons;
      input.checked = input.value === '1';
    }
    resignDialog.returnValue = '';
    resignDialog.showModal();
  } else {
    act(action);
  }
}

$('controls').addEventListener('click', (event) => {
  const button = event.target.closest('button[data-act]');
  if (!button || button.disabled) return;
  control(button.dataset.act);
});

/** Keyboard shortcuts: each works when its button is shown and enabled. */
function shortcut(event) {
  if (event.ctrlKey || event.metaKey || event.altKey || resignDialog.open) return;
  const tag = event.target.tagName;
  if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return;
  const key = event.key.toLowerCase();
  if (key === 'b') { board.focus(); event.preventDefault(); return; }
  const action = Object.keys(SHORTCUTS).find((a) => SHORTCUTS[a] === key)
    || (key === 'backspace' ? 'undo' : null);
  if (!action) return;
  const button = document.querySelector(`#controls button[data-act='${action}']`);
  if (!button || button.hidden || button.disabled) return;
  event.preventDefault();
  control(action);
}
document.addEventListener('keydown', (event) => {
  if (event.target.closest && event.target.closest('#board')) return;  // the board passes them on
  shortcut(event);
});

// -- options -------------------------------------------------------------------------------

const alerts = new Alerts(words, options, document.title);

for (const box of document.querySelectorAll('#options input[data-option]')) {
  const name = box.dataset.option;
  box.checked = !!options[name];
  box.addEventListener('change', async () => {
    if (name === 'notify' && box.checked) {
      box.checked = await alerts.enableNotifications();
    }
    options[name] = box.checked;
    saveOptions(options);
    render();
    planForcedPlay();
  });
}

// -- the connection --------------------------------------------------------------------------

function send(message) {
  if (connection.send(message)) return true;
  busy = false;
  showError(t('not_connected'));
  render();
  return false;
}

function receiveState(next) {
  const sameMatch = hasMatch() && next.match_id === state.match_id;
  if (sameMatch && next.version < state.version) return;  // an older state overtaken by a newer one
  // A version gap means a pushed state was lost on the way: ask for the full state.
  if (sameMatch && next.version > state.version + 1) send({ type: 'sync' });
  const before = state;
  state = next;
  const seed = clientSeedMessage(state);  // before the first roll: our share of the dice
  if (seed) connection.send(seed);
  clockOffset = (state.server_time ?? Date.now() / 1000) - Date.now() / 1000;
  busy = false;
  render();
  alerts.changed(before, state, myTurn());
  if (!sameMatch || next.version !== before.version) planForcedPlay();
}

let connectionKind = 'connecting';

function setConnection({ kind, seconds }) {
  const box = $('conn');
  box.className = `conn ${kind}`;
  connectionKind = kind;
  $('reconnect-now').hidden = kind !== 'reconnecting';
  if (kind === 'live') box.textContent = t('live');
  else if (kind === 'connecting') box.textContent = t('connecting');
  else if (kind === 'closed') box.textContent = t('closed');
  else box.textContent = fmt('reconnecting', { s: num(seconds) });
  const wasConnected = connected;
  connected = kind === 'live';
  if (connected) everLive = true;
  // While away the board is dimmed and takes no moves: what it shows may be out of date.
  $('board-box').classList.toggle('away', !connected && everLive);
  render();
  if (connected && !wasConnected) planForcedPlay();
}

const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
const connection = new Connection(`${scheme}//${window.location.host}${page.dataset.wsPath}`, {
  onMessage(message) {
    // Other modules of the page (chat.js) see every message and send through this socket.
    document.dispatchEvent(new CustomEvent('tavla:message', { detail: message }));
    if (message.type === 'state' || message.type === 'table') {
      receiveState(message);
    } else if (message.type === 'error' && message.ref !== 'chat') {  // chat.js shows its own
      busy = false;
      showError(message.detail || message.error);
      if (message.error === 'stale_version') send({ type: 'sync' });
      render();
    }
  },
  onStatus: setConnection,
});
$('reconnect-now').addEventListener('click', () => connection.reconnectNow());
attachFullscreen($('fullscreen'), page.querySelector('.board-column'), words);
reducedMotion.addEventListener('change', () => render());
document.addEventListener('tavla:send', (event) => send(event.detail));

clockOffset = (state.server_time ?? Date.now() / 1000) - Date.now() / 1000;
render(true);
restorePartial();
for (const game of state.games || []) if (game.result) seenResults.add(`${state.match_id}-${game.number}`);
setInterval(updateClocks, 250);
connection.connect();
