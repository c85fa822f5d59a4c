// The hint button of a table page in unrated practice against the bot (the page shows it
// there only; the server refuses hints anywhere else). It asks POST /api/matches/<id>/hint/
// and polls /api/analysis/requests/<id>/ until an analysis worker answered: gnubg's three
// best plays with their equities, or the cube verdict.

const box = document.getElementById('gnubg-hint');
const note = document.getElementById('gnubg-hint-note');
const list = document.getElementById('gnubg-hint-plays');
const POLL_MS = 500;
const strings = JSON.parse(document.getElementById('hint-strings').textContent);
const t = (key) => strings[key] ?? key;

function csrf() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : '';
}

function item(text) {
  const li = document.createElement('li');
  const bdi = document.createElement('bdi');
  bdi.textContent = text;
  li.append(bdi);
  return li;
}

function show(data) {
  box.dataset.status = data.status;
  list.replaceChildren();
  if (data.status !== 'ready') {
    note.textContent = data.status === 'evaluating' ? t('evaluating') : data.detail;
    return;
  }
  note.textContent = '';
  const answer = data.answer;
  if (answer.plays) {
    for (const entry of answer.plays.slice(0, 3)) {
      list.append(item(entry.play ? `${entry.play}  ${entry.equity.toFixed(3)}` : t('no_play')));
    }
  } else {
    const cube = answer.cube;
    list.append(item(`${t('verdict')}: ${t(`verdict_${cube.verdict}`)}`));
    for (const key of ['no_double', 'double_take', 'double_pass']) list.append(item(`${t(key)}: ${cube[key].toFixed(3)}`));
  }
}

async function poll(id) {
  try {
    const response = await fetch(`/api/analysis/requests/${id}/`, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    if (response.ok) {
      const data = await response.json();
      show(data);
      if (data.status !== 'evaluating') return;
    }
  } catch (error) {
    // a dropped request: ask again; the server decides when to give up
  }
  setTimeout(() => poll(id), POLL_MS);
}

document.getElementById('gnubg-hint-ask').addEventListener('click', async () => {
  note.textContent = t('evaluating');
  const response = await fetch(`/api/matches/${box.dataset.matchId}/hint/`, {
    method: 'POST', credentials: 'same-origin',
    headers: { Accept: 'application/json', 'X-CSRFToken': csrf() },
  });
  const data = await response.json();
  if (!response.ok) {
    box.dataset.status = 'error';
    list.replaceChildren();
    note.textContent = data.detail;
    return;
  }
  show(data);
  if (data.status === 'evaluating') setTimeout(() => poll(data.id), POLL_MS);
});
