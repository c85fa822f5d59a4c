// The page's words: a catalogue translated on the server (a JSON script element) and the
// page's digits. Pure: no DOM.

const PERSIAN_DIGITS = '۰۱۲۳۴۵۶۷۸۹';

/** Words for `catalogue` (key -> translated template with {name} placeholders) in `lang`. */
export function makeWords(catalogue, lang) {
  const persian = lang === 'fa';
  /** Digits in the page's language (Persian digits in Persian). */
  const num = (value) => {
    const text = String(value);
    return persian ? text.replace(/[0-9]/g, (d) => PERSIAN_DIGITS[d]) : text;
  };
  const t = (key) => catalogue[key] ?? key;
  /** A translated template with its {name} placeholders filled in. */
  const fmt = (key, params = {}) => t(key).replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
  /** The template split into text and values, for callers that isolate each value. */
  const parts = (key, params = {}) => {
    const template = t(key);
    const out = [];
    let last = 0;
    template.replace(/\{(\w+)\}/g, (m, k, offset) => {
      out.push(template.slice(last, offset));
      out.push({ value: k in params ? params[k] : m });
      last = offset + m.length;
      return m;
    });
    out.push(template.slice(last));
    return out.filter((p) => p !== '');
  };
  return { num, t, fmt, parts, lang };
}
