// gnubg's analysis tied to the review's board, as lichess's analysis is: choosing a decision
// (its row, a point of the graph, j/k, n/p, or stepping onto its position with ←/→) shows its
// position with the dice, the played play and the best one as arrows, the cube equities and
// verdict; ?! ? ?? follow the marked moves in the move list. Data: the `analysis-data` rows
// of matches/analysis_review.py; every word shown comes translated from the server.

import { html } from './board/dom.js';
import { drawWinGraph } from './board/wingraph.js';

const ERRORS = new Set(['error', 'blunder']);

/**
 * Attach the analysis rows to the review: `board` (board.js), `show(frameIndex)` (the review's
 * stepper; it dispatches `tavla:review-step`), `rows` (the analysis-data JSON), `words`,
 * `players` (the review's, for the graph's caption).
 * Returns {choose(number), next(kind, step)} for the page's keys.
 */
export function attachAnalysis({ board, show, rows, words, players }) {
  const { t, fmt, num } = words;
  const $ = (id) => document.getElementById(id);
  const box = $('review-analysis');
  const detail = $('decision-detail');
  const tied = rows.filter((row) => row.frame !== null && row.frame !== undefined);
  let chosen = null;  // the row shown
  let frameShown = null;

  box.hidden = false;
  for (const note of document.querySelectorAll('.analysis-keys')) note.hidden = false;

  const signed = (text, row) => (row.sign ? `${text}${row.sign}` : text);
  // a play's notation: left to right in any language, digits in the page's
  const notation = (text) => html('bdi', { class: 'notation', dir: 'ltr', text: num(text) });
  const equity = (value) => num((value >= 0 ? '+' : '−') + Math.abs(value).toFixed(3));

  function renderDetail(row) {
    if (!row) {
      detail.replaceChildren(html('p', { class: 'muted', text: t('no_decision_here') }));
      return;
    }
    const head = html('p', { class: 'decision-head' },
      html('bdi', { text: row.name || '' }),
      row.dice ? ` ${num(row.dice.join('-'))}` : '',
      row.mark ? html('span', { class: `mark-word mark-${row.mark}`, text: ` ${row.mark_text}` }) : '');
    const parts = [head];
    if (row.equities) {
      const best = { no_double_take: 'no_double', too_good_pass: 'no_double', double_take: 'double_take', double_pass: 'double_pass' }[row.verdict];
      const table = html('table', { class: 'cube-equities' },
        html('caption', { text: t('cube_equities') }),
        ...[['no_double', t('no_double')], ['double_take', t('double_take')], ['double_pass', t('double_pass')]].map(
          ([key, label]) => html('tr', { class: key === best ? 'best' : null, 'data-equity': key },
            html('th', { scope: 'row', text: label }),
            html('td', { text: equity(row.equities[key]) }))));
      parts.push(table);
      parts.push(html('p', { class: 'verdict', text: fmt('verdict', { verdict: row.verdict_text }) }));
      parts.push(html('p', { class: 'played', text: fmt('cube_played', { action: signed(row.chosen_text, row) }) }));
    } else if (row.resign) {
      // a resignation offer or its answer: what playing on and resigning are worth to the resigner
      const best = row.resign.play_on > row.resign.resigned ? 'play_on' : 'resigned';
      const table = html('table', { class: 'resign-equities' },
        html('caption', { text: t('resign_equities') }),
        ...[['play_on', t('play_on')], ['resigned', t('resigned')]].map(
          ([key, label]) => html('tr', { class: key === best ? 'best' : null, 'data-equity': key },
            html('th', { scope: 'row', text: label }),
            html('td', { text: equity(row.resign[key]) }))));
      parts.push(table);
      parts.push(html('p', { class: 'played', text: fmt('cube_played', { action: signed(row.chosen_text, row) }) }));
      if (row.best !== row.chosen) parts.push(html('p', { class: 'best', text: `${t('best_play')} ${row.best_text}` }));
    } else {
      const same = !row.best || row.best === row.chosen;
      parts.push(html('p', { class: 'played' },
        html('span', { class: 'swatch arrow-played', 'aria-hidden': 'true' }),
        `${t('played')} `, row.chosen ? notation(signed(row.chosen, row)) : t('no_move')));
      if (!same) {
        parts.push(html('p', { class: 'best' },
          html('span', { class: 'swatch arrow-best', 'aria-hidden': 'true' }),
          `${t('best_play')} `, notation(row.best)));
      } else if (row.chosen) {
        parts.push(html('p', { class: 'best', text: t('played_best') }));
      }
    }
    if (row.loss >= 0.0005) parts.push(html('p', { class: 'loss', text: fmt('equity_lost', { loss: num(row.loss.toFixed(3)) }) }));
    detail.replaceChildren(...parts);
  }

  function arrowsFor(row) {
    if (!row || row.equities || row.resign) return [];
    const arrows = [];
    if (row.best_moves.length && row.best !== row.chosen) arrows.push({ moves: row.best_moves, seat: row.player, kind: 'best' });
    if (row.played_moves.length) arrows.push({ moves: row.played_moves, seat: row.player, kind: 'played' });
    return arrows;
  }

  function mark(row) {
    for (const tr of document.querySelectorAll('tr.decision.current')) {
      tr.classList.remove('current');
      tr.removeAttribute('aria-current');
    }
    if (!row) return;
    const tr = document.querySelector(`tr.decision[data-decision='${row.number}']`);
    if (tr) {
      tr.classList.add('current');
      tr.setAttribute('aria-current', 'true');
      tr.scrollIntoView({ block: 'nearest' });
    }
  }

  // the graph: one point per row, seat 0's winning chance
  const graphSvg = $('win-graph');
  const estimated = rows.some((row) => row.win !== null && row.win_estimated);
  const plotted = rows.some((row) => row.win !== null && row.win !== undefined);
  const graph = plotted ? drawWinGraph(graphSvg, rows.map((row) => ({ win: row.win, mark: row.mark })), {
    onPick: (number) => choose(number),
  }) : null;
  graphSvg.closest('figure').hidden = !plotted;
  $('win-graph-caption').textContent = fmt(estimated ? 'graph_caption_estimated' : 'graph_caption', { name: players[0] ? players[0].name : '' });

  function render() {
    renderDetail(chosen);
    mark(chosen);
    if (graph) graph.select(chosen ? chosen.number : null);
    board.set({ arrows: arrowsFor(chosen) });
    board.flush();
  }

  /** Show row `number`: its position on the board with the arrows and its details. */
  function choose(number) {
    const row = rows[number];
    if (!row) return;
    chosen = row;
    if (row.frame !== null && row.frame !== undefined && row.frame !== frameShown) show(row.frame);
    else render();
  }

  /** The next (step 1) or previous (-1) row from the chosen one: any decision, or an error. */
  function next(kind, step) {
    const from = chosen ? chosen.number : (step > 0 ? -1 : rows.length);
    for (let i = from + step; i >= 0 && i < rows.length; i += step) {
      const row = rows[i];
      if (row.frame === null || row.frame === undefined) continue;
      if (kind === 'error' && !ERRORS.has(row.mark)) continue;
      choose(i);
      return true;
    }
    return false;
  }

  // the review stepped (slider, arrows, move list, or choose() above): keep the row in step
  document.addEventListener('tavla:review-step', (event) => {
    frameShown = event.detail.index;
    if (!chosen || chosen.frame !== frameShown) {
      // the last decision taken at this position (a play after a cube decision comes later)
      const here = tied.filter((row) => row.frame === frameShown);
      chosen = here.length ? here[here.length - 1] : null;
    }
    render();
  });

  // ?! ? ?? after the marked entries of the move list
  for (const row of rows) {
    if (!row.sign || !row.event) continue;
    const item = document.querySelector(`#moves [data-at='${row.event.join(':')}'] .ev-link`);
    if (item && !item.querySelector('.sign')) {
      item.append(html('span', { class: `sign mark-${row.mark}`, title: row.mark_text, text: row.sign }));
    }
  }

  // rows of the table: a click or tap anywhere on a row, Enter on its button
  const table = document.querySelector('.analysis-decisions tbody');
  if (table) {
    table.addEventListener('click', (event) => {
      const tr = event.target.closest('tr[data-decision]');
      if (tr && tr.dataset.frame !== undefined) choose(Number(tr.dataset.decision));
    });
  }
  box.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-go]');
    if (!button) return;
    const [dir, kind] = button.dataset.go.split('-');
    next(kind, dir === 'next' ? 1 : -1);
  });

  return { choose, next };
}
