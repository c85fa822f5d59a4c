// Telling the player: "(Your turn)" in the tab title, sounds (static/sound.js) and, when
// they asked for it, a browser notification (static/notify.js) while they look elsewhere.

import { playSound, unlockSound } from '../sound.js';
import { enableNotifications, notify } from '../notify.js';

const LOW_TIME = 20;  // seconds left on the clock when the low-time warning sounds

export class Alerts {
  constructor(words, options, baseTitle) {
    this.words = words;
    this.options = options;
    this.baseTitle = baseTitle;
    this.warnedVersion = null;
    // Browsers start audio only inside a user gesture: wake it on the first one.
    const wake = () => { if (this.options.sound) unlockSound(); };
    document.addEventListener('pointerdown', wake, { once: true });
    document.addEventListener('keydown', wake, { once: true });
  }

  sound(kind) {
    playSound(kind, !this.options.sound);
  }

  /** The tab's title says when it is the player's turn. */
  title(myTurn) {
    const title = myTurn ? `${this.words.t('title_your_turn')} ${this.baseTitle}` : this.baseTitle;
    if (document.title !== title) document.title = title;
  }

  /** A new state arrived: a roll rattles, the opponent's move clicks, the player's turn chimes. */
  changed(before, after, myTurn) {
    if (!after.match_id) return;
    const same = before && before.match_id === after.match_id;
    const wasMyTurn = same && before.status === 'playing' && before.your_seat !== null
      && before.player_to_act === before.your_seat;
    const rolled = after.dice && after.phase === 'move'
      && (!same || before.phase !== 'move' || before.version !== after.version);
    const played = same && after.version !== before.version && lastPlay(after) !== lastPlay(before);
    if (played && after.your_seat !== lastPlayer(after)) this.sound('move');
    if (rolled) this.sound('dice');
    if (myTurn && !wasMyTurn && same) {
      this.sound('turn');
      notify(this.words.t('notify_turn_title'), this.baseTitle, { tag: `tavla-turn-${after.match_id}` });
    }
  }

  /** The player moved a checker on the board. */
  moved() {
    this.sound('move');
  }

  /** The player's own clock: one warning per turn when little time is left. */
  clock(version, secondsLeft) {
    if (secondsLeft > LOW_TIME || this.warnedVersion === version) return;
    this.warnedVersion = version;
    this.sound('low');
  }

  enableNotifications() {
    return enableNotifications();
  }
}

function lastEvent(state, type) {
  const game = state.games && state.games[state.games.length - 1];
  if (!game) return null;
  for (let i = game.events.length - 1; i >= 0; i -= 1) if (game.events[i].type === type) return game.events[i];
  return null;
}

const lastPlay = (state) => {
  const event = lastEvent(state, 'play');
  return event ? `${state.games.length}:${state.games[state.games.length - 1].events.indexOf(event)}` : null;
};
const lastPlayer = (state) => {
  const event = lastEvent(state, 'play');
  return event ? event.player : null;
};
