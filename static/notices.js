// "Your match: table 7 against X": the player's pairings, live over /ws/notices/. The server
// pushes the whole list whenever one of their pairings is made, decided or re-opened.
// The same socket carries the player's seeks and challenges (docs/protocol.md, "Finding a
// game"): a paired seek or an accepted challenge opens the table at once; a challenge received
// is shown here (with a browser notification for a hidden tab). Every message is passed on as
// a `tavla:notice` event for the lobby's static/find_game.js.
(() => {
  const box = document.getElementById('pairing-notices');
  if (!box) return;
  const T = JSON.parse(document.getElementById('pairing-notice-strings').textContent);
  const fmt = (key, params) => T[key].replace(/\{(\w+)\}/g, (m, k) => (k in params ? params[k] : m));

  function notice(n) {
    const p = document.createElement('p');
    p.className = 'pairing-notice';
    p.dataset.pairing = n.pairing_id;
    const strong = document.createElement('strong');
    strong.textContent = n.board_number
      ? fmt('with_table', { table: n.board_number, opponent: n.opponent })
      : fmt('without_table', { opponent: n.opponent });
    const link = document.createElement('a');
    link.className = n.table_url ? 'button primary' : 'button';
    link.href = n.table_url || n.tournament_url;
    link.textContent = n.table_url ? T.sit : T.report;
    p.append(strong, ` · ${n.tournament} ${n.slot} `);
    if (n.starts_at) {
      // The round's call time, in the viewer's own clock (the server sends ISO 8601).
      const starts = document.createElement('span');
      starts.className = 'starts';
      const time = new Date(n.starts_at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
      starts.textContent = fmt('starts', { time });
      p.append('· ', starts, ' ');
    }
    p.append(link);
    return p;
  }

  // A pairing that gets its table while the page is open: a browser notification too, for a
  // player who turned notifications on (static/notify.js decides; a hidden tab only).
  const known = new Set([...box.querySelectorAll('[data-pairing]')]
    .filter((p) => p.querySelector('a.primary')).map((p) => Number(p.dataset.pairing)));
  function tell(notices) {
    for (const n of notices) {
      if (!n.table_url || known.has(n.pairing_id)) continue;
      known.add(n.pairing_id);
      const text = notice(n).querySelector('strong').textContent;
      import(box.dataset.notifyUrl).then(({ notify }) => notify(T.ready, text,
        { url: n.table_url, tag: `tavla-pairing-${n.pairing_id}` }));
    }
  }

  // A challenge: on a page without the lobby's list (home), a line with a link to answer it.
  function challenged(c) {
    const text = fmt('challenged', { name: c.challenger.name });
    import(box.dataset.notifyUrl).then(({ notify }) => notify(T.challenge_title, text,
      { url: box.dataset.lobbyUrl, tag: `tavla-challenge-${c.id}` }));
    if (document.getElementById('challenge-list')) return;
    const link = document.createElement('a');
    link.className = 'button primary';
    link.href = `${box.dataset.lobbyUrl}#challenges`;
    link.textContent = T.answer;
    const p = document.createElement('p');
    p.className = 'pairing-notice challenge-notice';
    const strong = document.createElement('strong');
    strong.textContent = text;
    p.append(strong, ' ', link);
    box.append(p);
  }

  let attempts = 0;
  function connect() {
    const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(`${scheme}//${window.location.host}${box.dataset.wsPath}`);
    socket.addEventListener('open', () => { attempts = 0; });
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(event.data);
      if (message.type === 'notices') {
        box.replaceChildren(...message.notices.map(notice));
        tell(message.notices);
      } else if (message.type === 'seek.paired' || message.type === 'challenge.accepted') {
        const url = message.table_url || message.challenge.table_url;
        if (url && window.location.pathname !== url) window.location.assign(url);
      } else if (message.type === 'challenge.received') {
        challenged(message.challenge);
      }
      window.dispatchEvent(new CustomEvent('tavla:notice', { detail: message }));
    });
    socket.addEventListener('close', (event) => {
      if (event.code === 4401) return;  // not logged in: nothing to tell
      attempts += 1;
      setTimeout(connect, Math.min(30, 0.5 * 2 ** Math.min(attempts, 6)) * 1000);
    });
  }
  connect();
})();
