// Practise your mistakes (/practice/): the next drill item due, on the board component.
// A checker play is made on the board (drag or tap) and confirmed; a cube decision is a
// button. The answer goes to POST /api/practice/<id>/answer/, which says right or wrong,
// gnubg's best and the equity lost; "Next position" asks GET /api/practice/ for the next.

import { createBoard } from './board/board.js';
import { makeWords } from './board/words.js';
import { embedded, html, onPortrait } from './board/dom.js';

const $ = (id) => document.getElementById(id);
const words = makeWords(embedded('board-strings'), document.documentElement.lang);
const { t, fmt, num } = words;
const root = $('practice');
const prompt = $('drill-question');
const actions = $('drill-actions');
const outcome = $('drill-outcome');
const summary = $('drill-summary');
let item = null;
let complete = null;

const board = createBoard($('board'), {
  words,
  onChange(change) {
    complete = change.complete;
    const confirm = $('drill-confirm');
    if (confirm) confirm.disabled = !complete;
  },
});
onPortrait((upright) => { board.set({ portrait: upright }); board.flush(); });

function csrf() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : root.dataset.csrf;
}

function state(current, interactive) {
  return {
    match_id: `drill-${current.id}`, version: current.reviews || 1, status: 'playing', your_seat: 0,
    player_to_act: 0, player_on_roll: current.question === 'take' ? 1 : 0,
    phase: current.question === 'checker' ? 'move' : (current.question === 'take' ? 'cube_offered' : 'turn_start'),
    dice: current.dice, board: current.board, rules: { cube: true },
    cube: { value: current.cube.value, owner: current.cube.owner === 'you' ? 0 : (current.cube.owner === 'opponent' ? 1 : null) },
    legal_plays: interactive ? current.legal_plays : null,
  };
}

function renderSummary(data) {
  summary.textContent = fmt('due_count', { due: num(data.due), items: num(data.items) });
}

function button(id, key, answer) {
  const node = html('button', { type: 'button', id, class: 'drill-answer', 'data-answer': answer, text: t(key) });
  node.addEventListener('click', () => send(answer));
  return node;
}

function showItem(data) {
  renderSummary(data);
  item = data.item;
  complete = null;
  outcome.replaceChildren();
  actions.replaceChildren();
  root.dataset.state = item ? 'question' : 'empty';
  if (!item) {
    prompt.textContent = data.items ? fmt('nothing_due', { time: new Date(data.next_due_at).toLocaleString(words.lang) }) : t('no_items');
    $('board').hidden = true;
    return;
  }
  $('board').hidden = false;
  board.set({ state: state(item, item.question === 'checker'), bottom: 0, interactive: item.question === 'checker' });
  board.flush();
  const score = item.match_length ? fmt('score_line', { a: num(item.score[0]), b: num(item.score[1]), n: num(item.match_length) }) : t('money');
  const box = fmt('box', { box: num(item.box) });
  if (item.question === 'checker') {
    prompt.textContent = `${fmt('question_checker', { dice: item.dice.map(num).join('-') })} ${score} · ${box}`;
    const confirm = html('button', { type: 'button', id: 'drill-confirm', class: 'drill-answer', text: t('confirm') });
    confirm.disabled = true;
    confirm.addEventListener('click', () => { if (complete) send(complete.notation); });
    actions.append(confirm, html('button', { type: 'button', id: 'drill-undo', text: t('undo') }));
    $('drill-undo').addEventListener('click', () => board.undo());
  } else if (item.question === 'take') {
    prompt.textContent = `${t('question_take')} ${score} · ${box}`;
    actions.append(button('drill-take', 'answer_take', 'take'), button('drill-pass', 'answer_pass', 'pass'));
  } else {
    prompt.textContent = `${t('question_double')} ${score} · ${box}`;
    actions.append(button('drill-double', 'answer_double', 'double'), button('drill-no-double', 'answer_no_double', 'no_double'));
  }
}

const fixed = (x) => num(Number(x).toFixed(3));

// What the analysis recorded as played, in the answers' words ("drop" is a pass).
const PLAYED = { take: 'take', drop: 'pass', double: 'double', 'no double': 'no_double' };

function answerWord(answer) {
  if (item.question === 'checker') return answer || t('no_play');
  return t(`answer_${PLAYED[answer] || answer}`);
}

function showResult(result) {
  root.dataset.state = 'answered';
  actions.replaceChildren();
  board.set({ interactive: false });
  const lines = [
    html('p', { class: `verdict ${result.right ? 'right' : 'wrong'}`, 'data-right': String(result.right), text: t(result.right ? 'right' : 'wrong') }),
    html('p', { class: 'best', text: fmt('best_was', { best: answerWord(result.best) }) }),
  ];
  if (!result.right) lines.push(html('p', { class: 'loss', text: fmt('you_lost', { loss: fixed(result.loss) }) }));
  lines.push(html('p', { class: 'played', text: fmt('you_played', { played: answerWord(result.played), loss: fixed(result.played_loss) }) }));
  if (result.answers.plays) {
    const rows = result.answers.plays.slice(0, 5).map((entry, i) => html('tr', { class: i === 0 ? 'best' : null },
      html('td', {}, html('bdi', { text: entry.play || t('no_play') })), html('td', { text: fixed(entry.equity) }),
      html('td', { text: i ? `−${fixed(entry.loss)}` : '' })));
    lines.push(html('table', { class: 'ranked-plays' }, html('tbody', {}, ...rows)));
  }
  const next = html('button', { type: 'button', id: 'drill-next', text: t('next_item') });
  next.addEventListener('click', loadNext);
  outcome.replaceChildren(...lines, next);
  next.focus();
}

async function send(answer) {
  const response = await fetch(`/api/practice/${item.id}/answer/`, {
    method: 'POST', credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-CSRFToken': csrf() },
    body: JSON.stringify({ answer }),
  });
  const data = await response.json();
  if (!response.ok) {
    outcome.replaceChildren(html('p', { class: 'error', text: data.detail }));
    return;
  }
  showResult(data);
}

async function loadNext() {
  const response = await fetch('/api/practice/', { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
  if (response.ok) showItem(await response.json());
}

showItem(embedded('practice-data'));
