// The lobby's table list: drawn from the page's data, then kept live over /ws/lobby/.
const table = document.getElementById('lobby-tables');
const T = JSON.parse(document.getElementById('lobby-strings').textContent);
const FA = document.documentElement.lang === 'fa';
const num = (v) => (FA ? String(v).replace(/[0-9]/g, (d) => '۰۱۲۳۴۵۶۷۸۹'[d]) : String(v));
const fmt = (key, params) => T[key].replace(/\{(\w+)\}/g, (m, k) => (k in params ? params[k] : m));

function node(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v);
  }
  el.append(...children.filter((c) => c !== null));
  return el;
}

function rules(r) {
  const parts = [r.match_length ? fmt('to_points', { n: num(r.match_length) }) : T.money];
  parts.push(r.cube ? T.cube : T.no_cube);
  if (!r.gammons) parts.push(T.gammons_off);
  if (r.match_length > 1 && r.crawford) parts.push(T.crawford);  // no Crawford game in a 1-point match
  parts.push(r.rated ? T.rated : T.unrated);
  if (r.correspondence_days) {  // correspondence: days per decision, no reserve
    parts.push(fmt('correspondence', { days: num(r.correspondence_days) }));
  } else if (r.clock) {
    const reserve = r.clock.reserve >= 60 ? `${num(Math.round(r.clock.reserve / 60))}′` : `${num(r.clock.reserve)}″`;
    parts.push(fmt('clock', { delay: num(r.clock.delay), reserve }));
  }
  return parts.map((p) => node('span', { class: 'badge', text: p }));
}

function url(template, id) {
  return template.replace('/0/', `/${id}/`);
}

function row(t) {
  const tr = node('tr', { class: t.playing ? 'playing' : 'open', 'data-table-id': t.id });
  const name = node('td', {}, node('a', { href: url(table.dataset.tableUrl, t.id), text: t.name }), ' ',
    node('span', { class: 'badge state', text: t.playing ? T.playing : T.open }),
    t.reserved ? node('span', { class: 'badge', text: T.reserved }) : null);
  const seats = node('td', { class: 'seats' }, ...t.seats.map((s, i) => {
    if (!s) return node('span', { class: 'seat empty', text: T.empty_seat });
    return node('span', { class: 'seat' }, node('bdi', { text: s.name }), ` (${num(Math.round(s.rating))})`,
      t.playing && t.score ? node('strong', { class: 'seat-score', text: ` ${num(t.score[i])}` }) : null);
  }));
  const actions = node('td', { class: 'actions' });
  // A reserved table (a tournament pairing) offers its players a seat, and others none.
  const mine = (t.reserved_for || []).includes(Number(table.dataset.playerId));
  const free = t.seats.some((s) => s === null) && !t.playing && (!t.reserved || mine);
  if (free) {
    if (table.dataset.authenticated === '1') {
      const form = node('form', { method: 'post', action: url(table.dataset.sitUrl, t.id) },
        node('input', { type: 'hidden', name: 'csrfmiddlewaretoken', value: table.dataset.csrf }),
        node('button', { type: 'submit', class: 'primary', text: T.sit }));
      actions.append(form, ' ');
    } else {
      actions.append(node('a', { class: 'button primary', href: `${table.dataset.loginUrl}?next=${encodeURIComponent(url(table.dataset.tableUrl, t.id))}`, text: T.sit }), ' ');
    }
  }
  actions.append(node('a', { class: 'button', href: url(table.dataset.tableUrl, t.id), text: T.watch }));
  tr.append(name, node('td', {}, ...rules(t.rules)), seats, actions);
  return tr;
}

function render(tables) {
  const body = table.querySelector('tbody');
  body.replaceChildren(...tables.map(row));
  if (!tables.length) body.append(node('tr', {}, node('td', { colspan: 4, text: T.no_tables })));
}

render(JSON.parse(document.getElementById('lobby-data').textContent));

let attempts = 0;
function connect() {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  const socket = new WebSocket(`${scheme}//${window.location.host}${table.dataset.wsPath}`);
  const dot = document.getElementById('lobby-status');
  socket.addEventListener('open', () => { attempts = 0; dot.classList.add('live'); });
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(event.data);
    if (message.type === 'lobby') {
      render(message.tables);
      window.dispatchEvent(new CustomEvent('tavla:lobby'));  // static/find_game.js reads again
    }
  });
  socket.addEventListener('close', () => {
    dot.classList.remove('live');
    attempts += 1;
    setTimeout(connect, Math.min(30, 0.5 * 2 ** Math.min(attempts, 6)) * 1000);
  });
}
connect();
