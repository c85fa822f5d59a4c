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
    const field = target.querySelector(
      'details[open] input:not([type=hidden]), details[open] select, input:not([type=hidden]), select, button, summary');
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

  // After a post the page comes back at the row acted on: focus it for the next key.
  if (window.location.hash) {
    const row = document.querySelector(window.location.hash);
    const first = row && row.querySelector('summary, button');
    if (first) first.focus({ preventScroll: true });
  }
})();
