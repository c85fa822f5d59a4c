// How a match's record reads: events of the move list, game results, match results.
// Shared by the live table (static/table.js) and the review page (static/review.js).

import { fmtNodes, html } from '../board/dom.js';

export const EVENT_KEYS = {
  play: 'ev_play', roll: 'ev_roll', auto_pass: 'ev_pass', double: 'ev_double', take: 'ev_take',
  drop: 'ev_drop', resign: 'ev_resign', timeout: 'ev_timeout', forfeit: 'ev_forfeit',
  adjudicate: 'ev_adjudicate', resign_offer: 'ev_resign_offer', resign_reject: 'ev_resign_reject',
};

export function diceText(words, dice) {
  return dice ? `${words.num(dice[0])}-${words.num(dice[1])}` : '';
}

export const diceNode = (words, dice) => html('bdi', { class: 'dice-text', dir: 'ltr', text: diceText(words, dice) });
export const notationNode = (words, text) => html('bdi', { class: 'notation', dir: 'ltr', text: words.num(text) });

export function matchTo(words, length) {
  if (!length) return words.t('money');
  return length === 1 ? words.t('match_to_one') : words.fmt('match_to', { n: words.num(length) });
}

export function pointsText(words, points) {
  return points === 1 ? words.t('points_1') : words.fmt('points_n', { n: words.num(points) });
}

/** One line of the move list: nodes for `event` of a match between `players`. */
export function eventNodes(words, players, event) {
  if (event.type === 'opening_roll') {
    return fmtNodes(words, 'ev_opening', {
      p0: players[0].name, d0: words.num(event.dice[0]), p1: players[1].name, d1: words.num(event.dice[1]),
    });
  }
  const key = EVENT_KEYS[event.type];
  if (!key) return [event.type];
  return fmtNodes(words, key, {
    name: event.player !== undefined && event.player !== null ? players[event.player].name : '',
    dice: event.dice ? diceNode(words, event.dice) : '',
    play: event.play !== undefined ? notationNode(words, event.play) : '',
    value: event.value !== undefined ? words.num(event.value) : '',
  });
}

/** "alice wins 2 points (gammon × cube 1)" as nodes. */
export function resultNodes(words, players, result) {
  const cube = words.num(result.cube_value);
  let how;
  switch (result.reason) {
    case 'bear_off': how = words.fmt('how_bear_off', { kind: words.t(result.kind), cube }); break;
    case 'drop': how = words.t('how_drop'); break;
    case 'resign': how = words.fmt('how_resign', { cube }); break;
    case 'timeout': how = words.fmt('how_timeout', { cube }); break;
    case 'forfeit': how = words.t('how_forfeit'); break;
    default: how = words.t('how_adjudication');
  }
  return [...fmtNodes(words, 'wins_points', { name: players[result.winner].name, points: pointsText(words, result.points) }), ` (${how})`];
}

/** The match's final score, the winner's points first ("bob wins the match 3–1"). */
export function matchResultNodes(words, players, score, winner) {
  if (winner === null || winner === undefined) {
    return fmtNodes(words, 'session_over', { score: `${words.num(score[0])}–${words.num(score[1])}` });
  }
  const text = `${words.num(score[winner])}–${words.num(score[1 - winner])}`;
  return fmtNodes(words, 'match_won', { name: players[winner].name, score: text });
}

/** The header of a game in the move list: "Game 2 · 1–0 · Crawford game". */
export function gameHeading(words, game, matchLength) {
  return html('h3', {}, words.fmt('game_n', { n: words.num(game.number) }), ' · ',
    html('bdi', { dir: 'ltr', text: `${words.num(game.score_before[0])}–${words.num(game.score_before[1])}` }),
    game.crawford && matchLength > 1 ? ` · ${words.t('crawford_game')}` : null);
}
