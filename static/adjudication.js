// The referee's adjudication page: gnubg's match-winning chances arrive from an analysis
// worker, never from the web process. The page polls the figures of the version it shows
// until they are there, or the server says the worker did not answer, the match moved on,
// or there are none; the form works the same either way.

const box = document.getElementById('adjudication-figures');
const table = document.getElementById('winning-chances');
const note = document.getElementById('figures-note');
const POLL_MS = 1000;

function show(figures) {
  box.dataset.status = figures.status;
  if (figures.status === 'ready') {
    table.querySelector('.chance0').textContent = `${figures.chances[0].toFixed(1)}%`;
    table.querySelector('.chance1').textContent = `${figures.chances[1].toFixed(1)}%`;
    table.hidden = false;
    note.textContent = '';
  } else {
    table.hidden = true;
    note.textContent = figures.status === 'evaluating' ? note.dataset.evaluating : figures.detail;
  }
}

async function poll() {
  const url = `${box.dataset.url}?version=${encodeURIComponent(box.dataset.version)}`;
  try {
    const response = await fetch(url, { headers: { Accept: 'application/json' },
                                        credentials: 'same-origin' });
    if (response.ok) {
      const figures = await response.json();
      show(figures);
      if (figures.status !== 'evaluating') return;
    }
  } catch (error) {
    // A dropped request: try again, the server decides when to give up.
  }
  setTimeout(poll, POLL_MS);
}

if (box && box.dataset.status === 'evaluating') setTimeout(poll, POLL_MS);
