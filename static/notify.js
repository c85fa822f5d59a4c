// Browser notifications a player asked for: "your turn" at the table, and "your tournament
// match is ready" (any page may call notify(); pairing notices do). Opt-in: nothing is shown
// unless the player turned notifications on (options.notify) and the browser allowed them.
//
//   import { notify } from '/static/notify.js';
//   notify('Your match is ready', 'Table 4: alice against bob', { url: '/tables/4/' });

import { loadOptions, saveOptions } from './options.js';

export function notificationsAllowed() {
  return 'Notification' in window && Notification.permission === 'granted' && loadOptions().notify;
}

/** Ask the browser for permission (call from a click); true when notifications may be shown. */
export async function enableNotifications() {
  if (!('Notification' in window)) return false;
  const permission = Notification.permission === 'granted'
    ? 'granted' : await Notification.requestPermission();
  const options = loadOptions();
  options.notify = permission === 'granted';
  saveOptions(options);
  return options.notify;
}

export function disableNotifications() {
  const options = loadOptions();
  options.notify = false;
  saveOptions(options);
}

/** Show a notification when the player is looking elsewhere (the tab hidden, or `always`);
 *  a click brings the tab back (or opens `url`). Returns the Notification or null. */
export function notify(title, body, { tag = 'tavla', url = null, always = false } = {}) {
  if (!notificationsAllowed() || (!always && !document.hidden)) return null;
  const note = new Notification(title, { body, tag });
  note.addEventListener('click', () => {
    window.focus();
    if (url) window.location.href = url;
    note.close();
  });
  return note;
}
