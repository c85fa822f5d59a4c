// A correspondence clock's display: days, then hours:minutes left (Persian digits in Persian).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { makeWords } from '../../static/board/words.js';
import { daysText } from '../../static/table/around.js';

test('days and hours:minutes, h:mm under a day, never negative', () => {
  const words = makeWords({ days_left: '{days} d {time}' }, 'en');
  assert.equal(daysText(words, 2 * 86400 + 3 * 3600 + 5 * 60 + 59), '2 d 3:05');
  assert.equal(daysText(words, 7 * 86400), '7 d 0:00');
  assert.equal(daysText(words, 3599), '0:59');
  assert.equal(daysText(words, -5), '0:00');
  const fa = makeWords({ days_left: '{days} روز {time}' }, 'fa');
  assert.equal(daysText(fa, 86400 + 3600), '۱ روز ۱:۰۰');
});
