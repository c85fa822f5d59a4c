// A player's board options, kept in this browser (localStorage): forced plays made for you,
// auto-confirm, sounds, notifications, animated moves and dice.

const KEY = 'tavla:options';
export const DEFAULTS = {
  autoForced: true, autoConfirm: false, sound: true, notify: false, animate: true,
};

export function loadOptions() {
  try {
    return { ...DEFAULTS, ...JSON.parse(window.localStorage.getItem(KEY) || '{}') };
  } catch (error) {
    return { ...DEFAULTS };
  }
}

export function saveOptions(options) {
  try {
    window.localStorage.setItem(KEY, JSON.stringify(options));
  } catch (error) { /* private mode: options last for this page only */ }
}
