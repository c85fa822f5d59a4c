// The lobby's "Find a game": post a seek, answer challenges, challenge a player, see friends'
// tables and who is online. Reads and writes go to the REST API (/api/seeks/, /api/challenges/,
// /api/follows/, /api/online/); what happens meanwhile comes over the player's notice socket,
// which static/notices.js keeps and re-announces as `tavla:notice` events (a paired seek or an
// accepted challenge sends the page to the table from there). The lists are read again when
// the lobby socket reports a change (`tavla:lobby`, from static/lobby.js) and every 15 s.
const box = document.getElementById('find-game');
const T = JSON.parse(document.getElementById('find-game-strings').textContent);
const signedIn = box.dataset.authenticated === '1';
const FA = document.documentElement.lang === 'fa';
const num = (v) => (FA ? String(v).replace(/[0-9]/g, (d) => '۰۱۲۳۴۵۶۷۸۹'[d]) : String(v));
const fmt = (key, params = {}) => T[key].replace(/\{(\w+)\}/g, (m, k) => (k in params ? params[k] : m));
const statusLine = document.getElementById('find-game-status');

function node(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') el.textContent = v;
    else if (k === 'onclick') el.addEventListener('click', v);
    else el.setAttribute(k, v);
  }
  el.append(...children.filter((c) => c !== null && c !== undefined));
  return el;
}

function say(text) {
  if (statusLine) statusLine.textContent = text;
}

async function api(method, url, body) {
  const options = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  if (method !== 'GET') options.headers['X-CSRFToken'] = box.dataset.csrf;
  if (body !== undefined) {
    options.headers['Content-Type'] = 'application/json';
    options.body = JSON.stringify(body);
  }
  const response = await fetch(url, options);
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    say(fmt('failed', { reason: (data && data.detail) || response.status }));
    throw new Error((data && data.error) || String(response.status));
  }
  return data;
}

function terms() {
  const form = document.getElementById('seek-form');
  return {
    match_length: Number(form.elements.match_length.value),
    clock_preset: form.elements.clock.value,
    rated: form.elements.rated.checked,
  };
}

function termsText(t) {
  return [fmt('terms_length', { n: num(t.match_length) }), T[`clock_${t.clock_preset}`] || t.clock_preset,
    t.rated ? T.rated : T.unrated].join(' · ');
}

function who(p) {
  return node('a', { href: `/players/${p.id}/` }, node('bdi', { text: p.name }), ` (${num(p.rating)})`);
}

function button(label, onclick, primary = false) {
  // A refusal is said on the status line (api); nothing more to do with it here.
  return node('button', { type: 'button', class: primary ? 'primary' : '', text: label,
    onclick: () => Promise.resolve().then(onclick).catch(() => {}) });
}

function fill(list, items, empty) {
  if (!list) return;
  list.replaceChildren(...items);
  if (!items.length) list.append(node('li', { class: 'empty', text: empty }));
}

function go(url) {
  if (url && window.location.pathname !== url) window.location.assign(url);
}

// -- seeks -----------------------------------------------------------------------------------

function seekRow(s) {
  const actions = node('span', { class: 'actions' });
  if (s.mine) {
    actions.append(button(T.cancel, () => api('DELETE', `${box.dataset.seeksUrl}${s.id}/`).then(refresh)));
  } else if (signedIn) {
    // Playing someone's seek is posting the same seek: the two pair at once.
    actions.append(button(T.play, () => postSeek({ match_length: s.match_length,
      clock_preset: s.clock_preset, rated: s.rated }), true));
  }
  return node('li', { 'data-seek-id': s.id, class: s.mine ? 'mine' : '' },
    s.mine ? node('strong', { text: T.you }) : who(s.player),
    node('span', { class: 'terms', text: termsText(s) }), actions);
}

async function postSeek(body) {
  const seek = await api('POST', box.dataset.seeksUrl, body);
  if (seek.status === 'paired') {
    go(seek.table_url);  // the notice socket's seek.paired names the opponent meanwhile
  } else {
    say(T.seeking);
    refresh();
  }
}

// -- challenges ------------------------------------------------------------------------------

function challengeRow(c, incoming) {
  const actions = node('span', { class: 'actions' });
  const base = `${box.dataset.challengesUrl}${c.id}/`;
  if (incoming) {
    actions.append(
      button(T.accept, () => api('POST', `${base}accept/`).then((done) => go(done.table_url)), true),
      button(T.decline, () => api('POST', `${base}decline/`).then(refresh)),
    );
  } else {
    actions.append(button(T.cancel, () => api('DELETE', base).then(refresh)));
  }
  const text = incoming ? fmt('challenge_from', { name: c.challenger.name })
    : fmt('challenge_to', { name: c.challenged.name });
  return node('li', { 'data-challenge-id': c.id, class: incoming ? 'incoming' : 'outgoing' },
    node('strong', { text }), node('span', { class: 'terms', text: termsText(c) }), actions);
}

async function challenge(body) {
  const sent = await api('POST', box.dataset.challengesUrl, { ...terms(), ...body });
  say(fmt('challenge_sent', { name: sent.challenged.name }));
  refresh();
}

// -- friends and who is online ---------------------------------------------------------------

function tableLinks(table) {
  if (!table) return node('span', { class: 'terms', text: T.not_at_table });
  return node('span', { class: 'actions' },
    table.free_seat && signedIn ? node('a', { class: 'button primary', href: table.url, text: T.join }) : null,
    node('a', { class: 'button', href: table.url, text: T.watch }));
}

function friendRow(f) {
  return node('li', { 'data-player-id': f.player.id }, who(f.player),
    f.online ? node('span', { class: 'terms', text: T.online }) : null, tableLinks(f.table));
}

function onlineRow(p) {
  const actions = node('span', { class: 'actions' });
  if (p.table) actions.append(node('a', { class: 'button', href: p.table.url, text: T.watch }));
  if (signedIn && !p.me) actions.append(button(T.challenge, () => challenge({ player: p.id })));
  return node('li', { 'data-player-id': p.id }, p.me ? node('strong', { text: T.you }) : who(p), actions);
}

// -- reading it all --------------------------------------------------------------------------

let reading = null;
let again = false;
async function refresh() {
  if (reading) { again = true; return reading; }
  reading = (async () => {
    try {
      const [seeks, online, challenges, friends] = await Promise.all([
        api('GET', box.dataset.seeksUrl), api('GET', box.dataset.onlineUrl),
        signedIn ? api('GET', box.dataset.challengesUrl) : null,
        signedIn ? api('GET', box.dataset.followsUrl) : null]);
      fill(document.getElementById('seek-list'), seeks.map(seekRow), T.no_seeks);
      fill(document.getElementById('online-list'), online.map(onlineRow), T.no_online);
      if (challenges) {
        fill(document.getElementById('challenge-list'),
          [...challenges.incoming.map((c) => challengeRow(c, true)),
            ...challenges.outgoing.map((c) => challengeRow(c, false))], T.no_challenges);
      }
      if (friends) fill(document.getElementById('friend-list'), friends.map(friendRow), T.no_friends);
    } catch (error) {
      // said on the status line; the next change or tick reads again
    } finally {
      reading = null;
      if (again) { again = false; refresh(); }
    }
  })();
  return reading;
}

window.addEventListener('tavla:notice', (event) => {
  const message = event.detail;
  if (message.type === 'seek.paired') say(fmt('paired', { name: message.opponent.name }));
  else if (message.type === 'challenge.declined') say(fmt('declined', { name: message.challenge.challenged.name }));
  else if (message.type === 'challenge.cancelled') say(fmt('cancelled', { name: message.challenge.challenger.name }));
  if (message.type !== 'notices') refresh();
});
// The lobby socket reports every table's change: read again at most every 2 s, not per change
// (a busy lobby would otherwise spend an anonymous reader's REST rate in a minute).
let last = 0;
let timer = null;
window.addEventListener('tavla:lobby', () => {
  if (timer) return;
  timer = setTimeout(() => { timer = null; last = Date.now(); refresh(); },
    Math.max(0, last + 2000 - Date.now()));
});

if (signedIn) {
  document.getElementById('seek-form').addEventListener('submit', (event) => {
    event.preventDefault();
    postSeek(terms()).catch(() => {});
  });
  document.getElementById('challenge-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = event.target.elements.username;
    challenge({ username: input.value.trim() }).then(() => { input.value = ''; }).catch(() => {});
  });
}
refresh();
setInterval(() => { if (!document.hidden) refresh(); }, 15000);
