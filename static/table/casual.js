// Casual play on the table page: the takeback request and its answer, and the play settings
// kept by the server (automatic roll for every match, "never double" for this one). The page
// owns the socket (table.js): this module reads every message as a `tavla:message` event and
// sends through `tavla:send`. Protocol: docs/protocol.md, "Takeback" and "Preferences".

import { makeWords } from '../board/words.js';
import { embedded } from '../board/dom.js';

const box = document.getElementById('takeback');
const words = makeWords(embedded('board-strings'), document.documentElement.lang);
const { t, fmt } = words;
let state = embedded('initial-state');

const send = (message) => document.dispatchEvent(new CustomEvent('tavla:send', { detail: message }));
const other = (seat) => 1 - seat;

/** My seat in the match in progress, or null. */
function playingSeat() {
  if (!state || state.type !== 'state' || state.status !== 'playing') return null;
  const seat = state.your_seat;
  return seat === 0 || seat === 1 ? seat : null;
}

/** Whether this table ever allows a takeback (the server refuses the rest too). */
function casualTable() {
  const table = state.table || {};
  return !(table.rules && table.rules.rated) && !table.reserved;
}

/** Whether my last play is still answerable: the opponent is to act and has done nothing
 * since but be rolled for by the server (the same rule the server applies). */
function mayAsk(seat) {
  if (state.resign_offer || state.takeback) return false;
  if (!['turn_start', 'move'].includes(state.phase) || state.player_to_act !== other(seat)) return false;
  const events = (state.games && state.games.length && state.games[state.games.length - 1].events) || [];
  let i = events.length - 1;
  while (i >= 0 && events[i].type === 'roll' && events[i].player === other(seat)) i -= 1;
  return i >= 0 && events[i].type === 'play' && events[i].player === seat;
}

function button(label, answer, extra = '') {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  b.dataset.takeback = answer;
  if (extra) b.className = extra;
  b.addEventListener('click', () => send({ type: 'takeback', answer, ref: 'takeback' }));
  return b;
}

function nameOf(seat) {
  const player = state.players && state.players[seat];
  return player ? player.name : '';
}

function renderTakeback() {
  if (!box) return;
  const seat = playingSeat();
  const parts = [];
  if (seat !== null && casualTable()) {
    const asked = state.takeback ? state.takeback.asked_by : null;
    if (asked === seat) {
      const note = document.createElement('span');
      note.textContent = fmt('takeback_asked', { name: nameOf(other(seat)) });
      parts.push(note, button(t('takeback_withdraw'), 'decline'));
    } else if (asked === other(seat)) {
      const note = document.createElement('span');
      note.textContent = fmt('takeback_offered', { name: nameOf(asked) });
      parts.push(note, button(t('takeback_accept'), 'accept', 'primary'),
        button(t('takeback_decline'), 'decline'));
    } else if (mayAsk(seat)) {
      parts.push(button(t('takeback'), 'request'));
    }
  }
  box.replaceChildren(...parts);
  box.hidden = parts.length === 0;
  box.setAttribute('role', 'status');
}

// -- play settings -----------------------------------------------------------------------

const autoRoll = document.querySelector('#options input[data-pref="auto_roll"]');
const neverDouble = document.querySelector('#options input[data-pref="never_double"]');

function renderPreferences() {
  const seat = playingSeat();
  const me = state && state.players ? state.players.find((p) => p.id === state.viewer_id) : null;
  if (autoRoll) {
    autoRoll.closest('label').hidden = !state || !state.viewer_id;
    if (me) autoRoll.checked = Boolean(me.auto_roll);
  }
  if (neverDouble) {
    neverDouble.closest('label').hidden = seat === null;
    if (seat !== null) neverDouble.checked = (state.never_double || []).includes(seat);
  }
}

autoRoll?.addEventListener('change', () => {
  send({ type: 'preferences', auto_roll: autoRoll.checked, ref: 'preferences' });
});
neverDouble?.addEventListener('change', () => {
  send({ type: 'never_double', on: neverDouble.checked, ref: 'preferences' });
});

document.addEventListener('tavla:message', (event) => {
  const message = event.detail;
  if (message.type === 'state' || message.type === 'table') {
    state = message;
    renderTakeback();
    renderPreferences();
  } else if (message.type === 'preferences' && autoRoll) {
    autoRoll.checked = Boolean(message.auto_roll);
  }
});

renderTakeback();
renderPreferences();
