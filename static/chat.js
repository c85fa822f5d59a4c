// Table chat: the board page's socket carries it (board.js re-dispatches every message as a
// `tavla:message` event and sends what it gets as `tavla:send`), so this module owns no socket.
// Text is only ever set with textContent: a message is never parsed as HTML.
// A quick phrase comes as its code and is shown in the reader's own language (the page's
// words, #board-strings: `phrase_<code>`); a code this page does not know shows its text.

import { embedded } from './board/dom.js';

const box = document.getElementById('chat');

if (box) {
  const log = document.getElementById('chat-log');
  const form = document.getElementById('chat-form');
  const input = document.getElementById('chat-input');
  const error = document.getElementById('chat-error');
  const words = box.dataset;
  const me = Number(words.playerId || 0);
  const muteKey = 'tavla-chat-muted';
  const muted = new Set(JSON.parse(localStorage.getItem(muteKey) || '[]'));
  const shown = new Map();  // message id → li
  const boardWords = embedded('board-strings') || {};
  const phraseText = (message) => (message.phrase && boardWords[`phrase_${message.phrase}`]) || message.text;

  const send = (message) => document.dispatchEvent(new CustomEvent('tavla:send', { detail: message }));

  function button(label, action) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'chat-tool';
    b.textContent = label;
    b.addEventListener('click', action);
    return b;
  }

  function line(message) {
    const li = document.createElement('li');
    li.className = `chat-line room-${message.room}`;
    li.dataset.id = message.id;
    li.dataset.author = message.author.id;
    const who = document.createElement('span');
    who.className = 'who';
    who.textContent = message.author.name;
    const room = document.createElement('span');
    room.className = 'room';
    room.textContent = message.room === 'players' ? words.players : words.spectators;
    const text = document.createElement('span');
    text.className = 'text';
    text.textContent = phraseText(message);
    if (message.phrase) li.dataset.phrase = message.phrase;
    li.append(who, room, text);
    if (me && message.author.id !== me) {
      const tools = document.createElement('span');
      tools.className = 'chat-tools';
      tools.append(
        button(words.mute, () => { muted.add(message.author.id); saveMuted(); redraw(); }),
        button(words.block, () => {
          if (window.confirm(words.blockConfirm.replace('{name}', message.author.name))) {
            send({ type: 'chat_block', player_id: message.author.id });
          }
        }),
        button(words.report, () => {
          const reason = window.prompt(words.reportPrompt, '');
          if (reason !== null) send({ type: 'chat_report', message_id: message.id, reason });
        }),
      );
      li.append(tools);
    }
    li.hidden = muted.has(message.author.id);
    return li;
  }

  function saveMuted() {
    localStorage.setItem(muteKey, JSON.stringify([...muted]));
  }

  function redraw() {
    for (const li of shown.values()) li.hidden = muted.has(Number(li.dataset.author));
  }

  function add(message) {
    if (shown.has(message.id)) return;
    const li = line(message);
    shown.set(message.id, li);
    log.append(li);
    log.scrollTop = log.scrollHeight;
  }

  function showError(text) {
    error.textContent = text;
    error.hidden = !text;
  }

  document.addEventListener('tavla:message', (event) => {
    const message = event.detail;
    if (message.type === 'chat_history') {
      log.replaceChildren();
      shown.clear();
      message.messages.forEach(add);
    } else if (message.type === 'chat') {
      add(message.message);
    } else if (message.type === 'chat_removed') {
      shown.get(message.message_id)?.remove();
      shown.delete(message.message_id);
    } else if (message.type === 'chat_reported') {
      showError(words.reported);
    } else if (message.type === 'error' && message.ref === 'chat') {
      showError(message.detail || message.error);
    }
  });

  const phrases = document.getElementById('chat-phrases');
  if (phrases) {
    for (const key of Object.keys(boardWords).filter((k) => k.startsWith('phrase_'))) {
      const code = key.slice('phrase_'.length);
      const b = button(boardWords[key], () => {
        showError('');
        send({ type: 'chat', phrase: code, ref: 'chat' });
      });
      b.className = 'chat-phrase';
      b.dataset.phrase = code;
      phrases.append(b);
    }
  }

  if (form) {
    // Typing here must never reach the board's keyboard shortcuts.
    input.addEventListener('keydown', (event) => event.stopPropagation());
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const text = input.value.trim();
      if (!text) return;
      showError('');
      send({ type: 'chat', text, ref: 'chat' });
      input.value = '';
    });
  }
}
