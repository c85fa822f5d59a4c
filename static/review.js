// A finished match, step by step, on the same board component as live play: the review page
// (/matches/<id>/) and the referee's replay in the admin. Data: matches/review.py; with an
// analysis, its rows are tied to the board by review_analysis.js.

import { createBoard } from './board/board.js';
import { makeWords } from './board/words.js';
import { embedded, html, onPortrait } from './board/dom.js';
import { eventNodes, gameHeading, resultNodes } from './table/record.js';
import { attachAnalysis } from './review_analysis.js';

const root = document.getElementById('review');
const $ = (id) => document.getElementById(id);
const data = embedded('review-data');
const words = makeWords(embedded('board-strings'), document.documentElement.lang);
const { num, t, fmt } = words;
const frames = data.frames;
const slider = $('review-slider');
let index = 0;

const board = createBoard($('board'), { words });
onPortrait((upright) => { board.set({ portrait: upright }); board.flush(); });

/** Frame `i` in the shape of a live state, for the board component; its game's events up to
 *  the frame's let the board mark the last play, as on the live table. */
function boardState(frame, i) {
  const [g, e] = frame.at;
  const game = g >= 0 ? data.games[g] : null;
  return {
    match_id: data.match_id, version: i, status: 'finished', your_seat: null,
    rules: data.rules, board: frame.board, dice: frame.dice, cube: frame.cube,
    phase: frame.phase, player_on_roll: frame.player_on_roll, player_to_act: frame.player_to_act,
    games: game ? [{ number: game.number, events: game.events.slice(0, e + 1) }] : [],
  };
}

function renderPlayer(seat, where, frame) {
  const player = data.players[seat];
  const box = $(where);
  box.replaceChildren(
    html('span', { class: `swatch seat${seat}` }),
    html('bdi', { class: 'name', text: player.name }),
    html('span', { class: 'pips', 'data-pips': frame.pips[seat], text: `${t('pips')} ${num(frame.pips[seat])}` }),
    html('span', { class: 'score', 'data-score': seat, text: num(frame.score[seat]) }),
  );
  box.classList.toggle('acting', frame.player_to_act === seat);
}

/** The entry of the move list a frame shows the board after, as text. */
function frameText(frame) {
  const [g, e] = frame.at;
  if (g < 0) return t('start_of_match');
  const game = data.games[g];
  if (e < 0) return fmt('new_game', { n: num(game.number) });
  const nodes = eventNodes(words, data.players, game.events[e]);
  let text = nodes.map((n) => (typeof n === 'string' ? n : n.textContent)).join('');
  if (e === game.events.length - 1 && game.result && frame.phase !== 'move') {
    text += ` — ${resultNodes(words, data.players, game.result).map((n) => (typeof n === 'string' ? n : n.textContent)).join('')}`;
  }
  return text;
}

function show(i) {
  index = Math.max(0, Math.min(frames.length - 1, i));
  const frame = frames[index];
  board.set({ state: boardState(frame, index), bottom: 0, interactive: false, lastMove: true });
  board.flush();  // a step is the viewer's own input: show it at once
  renderPlayer(1, 'review-top', frame);
  renderPlayer(0, 'review-bottom', frame);
  slider.value = String(index);
  $('review-step').textContent = fmt('step_of', { n: num(index), m: num(frames.length - 1) });
  $('review-description').textContent = frameText(frame);
  root.dataset.step = String(index);
  for (const item of document.querySelectorAll('#moves [data-at]')) {
    item.classList.toggle('current', item.dataset.at === frame.at.join(':'));
  }
  for (const row of document.querySelectorAll('[data-step-row]')) {
    row.classList.toggle('current', Number(row.dataset.stepRow) === index);
  }
  if (frame.description !== undefined) renderFacts(frame);
  document.dispatchEvent(new CustomEvent('tavla:review-step', { detail: { index, frame } }));
}

/** The referee's replay also shows the log entry of each step. */
function renderFacts(frame) {
  const facts = $('replay-facts');
  if (!facts) return;
  // digits in the page's language (the server's own rendering converts them too)
  for (const [key, value] of Object.entries({
    event: `#${num(frame.sequence)} ${frame.kind}: ${num(frame.description)}`, time: num(frame.time),
    actor: frame.actor || '–', game: num(frame.game_number), score: num(`${frame.score[0]}–${frame.score[1]}`),
    cube: num(frame.cube.value), pips: num(`${frame.pips[0]} / ${frame.pips[1]}`), phase: frame.phase_text || frame.phase,
  })) {
    const dd = facts.querySelector(`[data-fact='${key}']`);
    if (dd) dd.textContent = value;
  }
}

/** The first frame that shows the board after move-list entry (g, e). */
function frameAt(g, e) {
  const found = frames.findIndex((f) => f.at[0] > g || (f.at[0] === g && f.at[1] >= e));
  return found < 0 ? frames.length - 1 : found;
}

function renderMoves() {
  const box = $('moves');
  box.replaceChildren();
  data.games.forEach((game, g) => {
    const section = html('section', { class: 'game', 'data-game': game.number });
    section.append(gameHeading(words, game, data.match_length));
    const list = html('ol', { class: 'events' });
    game.events.forEach((event, e) => {
      const item = html('li', { class: `ev ${event.type}`, 'data-at': `${g}:${e}` });
      const button = html('button', { type: 'button', class: 'ev-link' }, ...eventNodes(words, data.players, event));
      button.addEventListener('click', () => show(frameAt(g, e)));
      item.append(button);
      list.append(item);
    });
    if (game.result) list.append(html('li', { class: 'ev result' }, ...resultNodes(words, data.players, game.result)));
    section.append(list);
    box.append(section);
  });
}

slider.max = String(Math.max(0, frames.length - 1));
slider.addEventListener('input', () => show(Number(slider.value)));
$('review-nav').addEventListener('click', (event) => {
  const button = event.target.closest('button[data-step]');
  if (!button) return;
  const go = { first: 0, prev: index - 1, next: index + 1, last: frames.length - 1 }[button.dataset.step];
  show(go);
});
document.addEventListener('keydown', (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const tag = event.target.tagName;
  if (tag === 'INPUT' && event.target !== slider) return;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return;
  if (analysis && !event.shiftKey && ANALYSIS_KEYS[event.key]) {
    event.preventDefault();
    analysis.next(...ANALYSIS_KEYS[event.key]);
    return;
  }
  const go = { ArrowLeft: index - 1, ArrowRight: index + 1, Home: 0, End: frames.length - 1 }[event.key];
  if (go === undefined || event.target === slider) return;  // the slider steps by itself
  event.preventDefault();
  show(go);
});
// Links to ?step=N (the referee's log) step here instead of reloading the page.
document.addEventListener('click', (event) => {
  const link = event.target.closest('a[data-step-link]');
  if (!link) return;
  event.preventDefault();
  show(Number(link.dataset.stepLink));
  window.history.replaceState(null, '', link.href);
});

renderMoves();
// j/k: the next/previous decision; n/p: the next/previous error or blunder (documented on the
// page and in docs/analysis.md)
const ANALYSIS_KEYS = { j: ['decision', 1], k: ['decision', -1], n: ['error', 1], p: ['error', -1] };
const rows = embedded('analysis-data');
const analysis = rows && frames.length ? attachAnalysis({ board, show, rows, words, players: data.players }) : null;
if (frames.length) show(Number(root.dataset.start || 0));
