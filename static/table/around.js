// What is drawn around the board at a table: the players' bars with their clocks, the seats
// between matches, the scoreboard and the move list. Each function draws one box from the
// state (docs/protocol.md); static/table.js decides when.

import { html } from '../board/dom.js';
import { eventNodes, gameHeading, matchTo, resultNodes } from './record.js';

const hasMatch = (state) => state.match_id !== null && state.match_id !== undefined;

export function clockText(words, seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return words.num(`${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`);
}

/** A correspondence clock's time left: days, then hours:minutes (under a day, h:mm only). */
export function daysText(words, seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const days = Math.floor(s / 86400);
  const rest = s % 86400;
  const time = words.num(`${Math.floor(rest / 3600)}:${String(Math.floor((rest % 3600) / 60)).padStart(2, '0')}`);
  return days ? words.fmt('days_left', { days: words.num(days), time }) : time;
}

/** A player's reserve and the running delay now, `offset` the server's clock minus ours
 *  (display only: the server decides), or null without a clock. */
export function clockNow(state, offset, seat) {
  const { clock } = state;
  if (!clock) return null;
  let reserve = clock.reserves[seat];
  let delay = null;
  if (clock.running === seat && clock.started_at !== null && state.status === 'playing') {
    const elapsed = Date.now() / 1000 + offset - clock.started_at;
    delay = Math.max(0, clock.delay - elapsed);
    reserve = Math.max(0, reserve - Math.max(0, elapsed - clock.delay));
  }
  return { reserve, delay };
}

/** One player's bar: name (a link to their page), rating, pips, score and clock. */
export function renderPlayer(box, state, words, seat, playerUrl) {
  const { num, t } = words;
  box.replaceChildren();
  box.dataset.seat = seat;
  const acting = hasMatch(state) && state.status === 'playing' && state.player_to_act === seat;
  box.classList.toggle('acting', acting);
  const swatch = html('span', { class: `swatch seat${seat}` });
  let nameNode;
  const seatInfo = hasMatch(state) ? state.players[seat] : state.table.seats[seat];
  if (seatInfo) {
    nameNode = html('a', { class: 'name', href: playerUrl.replace('/0/', `/${seatInfo.id}/`), text: seatInfo.name });
  } else {
    nameNode = html('span', { class: 'name empty', text: t('empty_seat') });
  }
  box.append(swatch, nameNode);
  if (seatInfo) box.append(html('span', { class: 'rating', text: num(Math.round(seatInfo.rating)) }));
  if (hasMatch(state)) {
    const player = state.players[seat];
    box.append(html('span', { class: 'pips', title: t('pip_title'), 'data-pips': player.pips, text: `${t('pips')} ${num(player.pips)}` }));
    box.append(html('span', { class: 'score', text: num(player.score) }));
    if (state.clock) box.append(html('span', { class: 'clock', 'data-clock-seat': seat }));
  }
}

/** Sitting down and standing up, whenever no match is being played at the table. */
export function renderSeats(box, state, words, { authenticated, loginUrl, send }) {
  const { t } = words;
  box.replaceChildren();
  box.hidden = state.table.playing;
  if (state.table.playing) return;
  const seated = state.table.seats.some((s) => s && s.id === state.viewer_id);
  box.append(html('h2', { text: hasMatch(state) ? t('next_match') : t('seats') }));
  state.table.seats.forEach((occupant, seat) => {
    const row = html('p', { class: 'seat-row', 'data-seat': seat }, html('span', { class: `swatch seat${seat}` }), ' ');
    if (occupant) {
      row.append(html('bdi', { class: 'name', text: occupant.name }));
      if (occupant.id === state.viewer_id) {
        const button = html('button', { type: 'button', class: 'stand', text: t('stand') });
        button.addEventListener('click', () => send({ type: 'stand' }));
        row.append(' ', button);
      }
    } else {
      row.append(html('span', { class: 'name empty', text: t('empty_seat') }), ' ');
      if (!authenticated) {
        row.append(html('a', { class: 'button', href: loginUrl, text: t('login_to_play') }));
      } else if (!seated) {
        const button = html('button', { type: 'button', class: 'primary sit', 'data-seat': seat, text: t('sit') });
        button.addEventListener('click', () => send({ type: 'sit', seat }));
        row.append(button);
      }
    }
    box.append(row);
  });
}

/** The table's rules in a few words: "Match to 5 points · cube · no gammons". */
export function rulesText(words, rules) {
  const parts = [matchTo(words, rules.match_length)];
  parts.push(rules.cube ? words.t('cube') : words.t('no_cube'));
  if (!rules.gammons) parts.push(words.t('gammons_off'));
  return parts.join(' · ');
}

export function renderScoreboard(box, state, words) {
  const { num, t, fmt } = words;
  box.replaceChildren();
  if (!hasMatch(state)) return;
  const length = state.match_length;
  box.append(html('p', { class: 'length', text: matchTo(words, length) }));
  for (const seat of [0, 1]) {
    box.append(html('p', { class: 'score-line' },
      html('span', { class: `swatch seat${seat}` }), ' ',
      html('bdi', { class: 'name', text: state.players[seat].name }), ' ',
      html('strong', { 'data-score': seat, text: num(state.score[seat]) })));
  }
  box.append(html('p', { class: 'game-number', text: fmt('game_n', { n: num(state.game_number) }) }));
  // A 1-point match has no Crawford game: nobody would double in it anyway.
  if (state.crawford && length > 1) box.append(html('p', { class: 'crawford', text: t('crawford_game') }));
  if (state.rules.cube) box.append(html('p', { class: 'cube-line', text: `${t('cube')}: ${num(state.cube.value)}` }));
}

export function renderMoves(box, state, words) {
  box.replaceChildren();
  if (!hasMatch(state)) return;
  for (const game of state.games) {
    const section = html('section', { class: 'game', 'data-game': game.number });
    section.append(gameHeading(words, game, state.match_length));
    const list = html('ol', { class: 'events' });
    // Earlier games come as summaries without events (protocol 1: constant-size states).
    const events = game.events || [];
    events.forEach((event, i) => {
      // a roll is shown with the play that follows it; only a roll still to be played stands alone
      if (event.type === 'roll' && i < events.length - 1) return;
      list.append(html('li', { class: `ev ${event.type}` }, ...eventNodes(words, state.players, event)));
    });
    if (game.result) list.append(html('li', { class: 'ev result' }, ...resultNodes(words, state.players, game.result)));
    section.append(list);
    box.append(section);
  }
  box.scrollTop = box.scrollHeight;
}
