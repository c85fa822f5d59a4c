// Small DOM helpers shared by the page modules.

/** A new HTML element: attrs (`text` sets the text; null/false are skipped) and children. */
export function html(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v === true ? '' : v);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

/** A translated template as nodes: each value isolated in a <bdi> (unless it is a node), so
 *  names, dice and notation keep their own direction inside a right-to-left sentence. */
export function fmtNodes(words, key, params = {}) {
  return words.parts(key, params).map((part) => {
    if (typeof part === 'string') return part;
    if (part.value instanceof Node) return part.value;
    const bdi = document.createElement('bdi');
    bdi.textContent = String(part.value);
    return bdi;
  });
}

/** The JSON a template put in <script type="application/json" id=...>. */
export function embedded(id) {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : null;
}

/** Call `callback(upright)` now and whenever the window turns between a narrow upright
 *  screen (a phone held upright: the board is drawn turned a quarter) and anything else. */
export function onPortrait(callback) {
  const query = window.matchMedia('(max-width: 40rem) and (orientation: portrait)');
  callback(query.matches);
  query.addEventListener('change', () => callback(query.matches));
}
