// Full-screen play: the board's column (the players, the board, the turn row and its buttons)
// fills the screen through the Fullscreen API. Where there is none or it is refused (an
// iPhone's browser offers it only for videos), the column is pinned over the page instead
// (html.pseudo-fullscreen); Esc or the same button leaves either.

/** Wire `button` to show `target` full screen; its words come from `words` (fullscreen,
 *  fullscreen_leave). `target` has the class `is-fullscreen` while it is. */
export function attachFullscreen(button, target, words) {
  const doc = document;
  const native = () => (doc.fullscreenElement || doc.webkitFullscreenElement || null) === target;
  const request = target.requestFullscreen || target.webkitRequestFullscreen;
  const exit = doc.exitFullscreen || doc.webkitExitFullscreen;
  const enabled = !!request && (doc.fullscreenEnabled ?? doc.webkitFullscreenEnabled ?? false);
  let pinned = false;

  const update = () => {
    const on = native() || pinned;
    target.classList.toggle('is-fullscreen', on);
    doc.documentElement.classList.toggle('pseudo-fullscreen', pinned);
    button.setAttribute('aria-pressed', String(on));
    button.textContent = words.t(on ? 'fullscreen_leave' : 'fullscreen');
  };

  button.addEventListener('click', async () => {
    if (native()) {
      await exit.call(doc);
      return;
    }
    if (pinned) {
      pinned = false;
      update();
      return;
    }
    if (enabled) {
      try {
        await request.call(target, { navigationUI: 'hide' });
        return;  // fullscreenchange draws it
      } catch (error) { /* refused here: pin the column instead */ }
    }
    pinned = true;
    update();
  });
  doc.addEventListener('fullscreenchange', update);
  doc.addEventListener('webkitfullscreenchange', update);
  doc.addEventListener('keydown', (event) => {
    if (pinned && event.key === 'Escape') {
      pinned = false;
      update();
    }
  });
  update();
}
