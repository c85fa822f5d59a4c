// The director's desk: "/" (or the access key K) jumps to "Go to"; choosing an action, a
// player or a pairing there scrolls to it, opens its first form and focuses its first field.
(() => {
  const find = document.getElementById('desk-find');
  const list = document.getElementById('desk-targets');
  if (!find || !list) return;

  document.addEventListener('keydown', (event) => {
    const typing = event.target.closest('input, select, textarea');
    if (event.key === '/' && !typing) {
      event.preventDefault();
      find.focus();
    }
  });

  function go() {
    const wanted = find.value.trim().toLowerCase();
    if (!wanted) return;
    const option = [...list.options].find((o) => o.value.toLowerCase() === wanted)
      || [...list.options].find((o) => o.value.toLowerCase().includes(wanted));
    const target = option && document.getElementById(option.dataset.target);
    if (!target) return;
    target.scrollIntoView({ block: 'center' });
    const details = target.querySelector('details');
    if (details) details.open = true;
    // The open form's first field, else the first control: one selector list would take
    // whichever comes first in the page, the <summary> before its own form's fields.
    const field = target.querySelector(
      'details[open] input:not([type=hidden]), details[open] select')
      || target.querySelector('input:not([type=hidden]), select, button, summary');
    if (field) field.focus();
    find.value = '';
  }
  find.addEventListener('change', go);
  find.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      go();
    }
  });

  // Live: a change made elsewhere (another desk, a match finishing, a player checking in)
  // reloads the desk, unless a form is being filled in: then a banner offers the reload.
  const desk = document.getElementById('desk');
  let banner = null;
  let submitting = false;  // our own post is on its way: its answer is the new desk
  document.addEventListener('submit', () => { submitting = true; });
  function changed() {
    if (submitting) return;
    const busy = [...document.querySelectorAll('.desk details[open], .desk-find input')]
      .some((el) => el.matches('details[open]') || el.value)
      || document.activeElement?.closest('form');
    if (!busy) {
      window.location.reload();
      return;
    }
    if (banner) return;
    banner = document.createElement('p');
    banner.className = 'desk-changed';
    banner.setAttribute('role', 'status');
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = desk.dataset.reloadText;
    button.addEventListener('click', () => window.location.reload());
    banner.append(desk.dataset.changedText, ' ', button);
    desk.prepend(banner);
  }
  let attempts = 0;
  function connect() {
    const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(`${scheme}//${window.location.host}${desk.dataset.wsPath}`);
    socket.addEventListener('open', () => { attempts = 0; });
    socket.addEventListener('message', (event) => {
      if (JSON.parse(event.data).type === 'tournament.changed') changed();
    });
    socket.addEventListener('close', () => {
      attempts += 1;
      setTimeout(connect, Math.min(30, 0.5 * 2 ** Math.min(attempts, 6)) * 1000);
    });
  }
  if (desk && desk.dataset.wsPath) connect();

  // After a post the page comes back at the row acted on: focus it for the next key.
  if (window.location.hash) {
    const row = document.querySelector(window.location.hash);
    const first = row && row.querySelector('summary, button');
    if (first) first.focus({ preventScroll: true });
  }
})();
