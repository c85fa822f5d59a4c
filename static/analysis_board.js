// The analysis board (/analysis/board/): paste an XGID or a Position ID and Match ID, or set
// the checkers up by dragging them; choose the dice or the cube decision and the plies; the
// question goes to POST /api/analysis/board/ and a worker's answer is polled from
// /api/analysis/requests/<id>/, as the adjudication page polls its figures. The link to
// share carries the XGID in the address.

import { makeWords } from './board/words.js';
import { embedded, html } from './board/dom.js';
import { sides } from './board/moves.js';
import { EMPTY_VIEW, createSetup, xgidBoard } from './board/setup.js';
import { START_BOARD } from './board/board.js';

const $ = (id) => document.getElementById(id);
const words = makeWords(embedded('board-strings'), document.documentElement.lang);
const { t, fmt, num } = words;
const form = $('board-form');
const result = $('board-result');
const note = $('board-note');
const POLL_MS = 500;
let asked = 0;  // the question on screen: an older answer arriving late is not shown

const setup = createSetup($('board'), { words, onChange: rewriteXgid });
setup.set(sides(START_BOARD, 0));

/** After a drag: the XGID field says the new board, the rest of its fields kept. */
function rewriteXgid(view) {
  const input = form.elements.xgid;
  const fields = input.value.replace(/^XGID=/i, '').split(':');
  const rest = fields.length >= 9 ? fields.slice(1) : ['0', '0', '1', '00', '0', '0', '0', '0', '10'];
  rest[2] = '1';  // the bottom player is on roll
  input.value = `XGID=${xgidBoard(view)}:${rest.join(':')}`;
  form.elements.position_id.value = '';
  form.elements.match_id.value = '';
}

function csrf() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : form.dataset.csrf;
}

function question() {
  const data = { plies: Number(form.elements.plies.value) };
  const xgid = form.elements.xgid.value.trim();
  if (xgid) data.xgid = xgid;
  else {
    data.position_id = form.elements.position_id.value.trim();
    data.match_id = form.elements.match_id.value.trim();
  }
  const roll = form.elements.roll.value;
  if (roll === 'cube') data.dice = null;
  else if (roll === 'dice') data.dice = [Number(form.elements.die1.value), Number(form.elements.die2.value)];
  return data;
}

const fixed = (x) => num(x.toFixed(3));

function playsTable(plays) {
  if (plays.length === 1 && !plays[0].play) return html('p', { class: 'no-play', text: t('no_play') });
  const body = plays.map((entry, i) => html('tr', { class: i === 0 ? 'best' : null },
    html('td', { text: num(i + 1) }),
    html('td', {}, html('bdi', { class: 'play', text: entry.play })),
    html('td', { text: fixed(entry.equity) }),
    html('td', { text: i === 0 ? '' : `−${fixed(entry.loss)}` })));
  return html('table', { class: 'ranked-plays' },
    html('thead', {}, html('tr', {}, ...['rank', 'play', 'equity', 'loss'].map((k) => html('th', { text: t(k) })))),
    html('tbody', {}, ...body));
}

function cubeTable(cube) {
  const rows = [['no_double', cube.no_double], ['double_take', cube.double_take], ['double_pass', cube.double_pass]];
  return html('div', { class: 'cube-answer' },
    html('table', { class: 'cube-equities' }, html('tbody', {}, ...rows.map(([k, v]) => html('tr', { 'data-action': k },
      html('th', { text: t(k) }), html('td', { text: fixed(v) }))))),
    html('p', { class: 'verdict', 'data-verdict': cube.verdict }, `${t('verdict')}: `, html('strong', { text: t(`verdict_${cube.verdict}`) })));
}

function show(data) {
  result.dataset.status = data.status;
  if (data.board) {
    setup.set(sides(data.board, 0));
    form.elements.xgid.value = data.xgid;
    form.elements.position_id.value = data.position_id;
    form.elements.match_id.value = data.match_id;
  }
  const share = new URL(data.share_url, window.location.href).href;
  history.replaceState(null, '', data.share_url);
  const link = html('p', { class: 'share' }, `${t('share')}: `, html('a', { href: share, id: 'share-link', text: share }));
  if (data.status === 'ready') {
    const answer = data.answer;
    note.textContent = '';
    result.replaceChildren(answer.plays ? playsTable(answer.plays) : cubeTable(answer.cube),
      html('p', { class: 'engine', text: answer.engine }), link);
  } else {
    note.textContent = data.status === 'evaluating' ? t('evaluating') : (data.detail || t(data.status));
    result.replaceChildren(link);
  }
}

async function poll(id, ticket) {
  if (ticket !== asked) return;
  try {
    const response = await fetch(`/api/analysis/requests/${id}/`, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
    if (response.ok) {
      const data = await response.json();
      if (ticket !== asked) return;
      show(data);
      if (data.status !== 'evaluating') return;
    }
  } catch (error) {
    // a dropped request: ask again; the server decides when to give up
  }
  setTimeout(() => poll(id, ticket), POLL_MS);
}

async function ask(event) {
  if (event) event.preventDefault();
  asked += 1;
  const ticket = asked;
  note.textContent = t('evaluating');
  result.dataset.status = 'asking';
  const response = await fetch('/api/analysis/board/', {
    method: 'POST', credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-CSRFToken': csrf() },
    body: JSON.stringify(question()),
  });
  const data = await response.json();
  if (ticket !== asked) return;
  if (!response.ok) {
    result.dataset.status = 'error';
    result.replaceChildren();
    note.textContent = data.detail;
    note.dataset.error = data.error;
    return;
  }
  delete note.dataset.error;
  show(data);
  if (data.status === 'evaluating') setTimeout(() => poll(data.id, ticket), POLL_MS);
}

form.addEventListener('submit', ask);
form.elements.roll.forEach?.((radio) => radio.addEventListener('change', () => {
  $('dice-pick').hidden = form.elements.roll.value !== 'dice';
}));
$('setup-clear').addEventListener('click', () => { setup.set(EMPTY_VIEW()); rewriteXgid(setup.view()); });
$('setup-start').addEventListener('click', () => { setup.set(sides(START_BOARD, 0)); rewriteXgid(setup.view()); });

const initial = embedded('board-initial');
if (initial && initial.xgid) {
  form.elements.xgid.value = initial.xgid;
  if (['0', '1', '2'].includes(initial.plies)) form.elements.plies.value = initial.plies;
  ask();
}
