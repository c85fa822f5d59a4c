// The page's words: placeholders filled, Persian digits in Persian.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { makeWords } from '../../static/board/words.js';
import { backoff } from '../../static/table/connection.js';

test('fmt fills placeholders and leaves unknown ones', () => {
  const words = makeWords({ wins: '{name} wins {points}' }, 'en');
  assert.equal(words.fmt('wins', { name: 'bob', points: 3 }), 'bob wins 3');
  assert.equal(words.fmt('wins', { name: 'bob' }), 'bob wins {points}');
  assert.equal(words.t('missing'), 'missing');
  assert.deepEqual(words.parts('wins', { name: 'bob', points: 3 }), [{ value: 'bob' }, ' wins ', { value: 3 }]);
});

test('Persian pages use Persian digits', () => {
  const fa = makeWords({ n: 'بازی {n}' }, 'fa');
  assert.equal(fa.num(1907), '۱۹۰۷');
  assert.equal(fa.fmt('n', { n: fa.num(12) }), 'بازی ۱۲');
  assert.equal(makeWords({}, 'tr').num(12), '12');
});

test('reconnecting backs off from about a second to at most 30 s', () => {
  assert.equal(backoff(1, 0.5), 1);
  assert.equal(backoff(2, 0.5), 2);
  assert.equal(backoff(10, 0.5), 30);
  assert.ok(backoff(10, 0.999) <= 30 * 1.25);
  assert.ok(backoff(1, 0) >= 0.75);
});
