// The board's share of the dice: 32 CSPRNG bytes, sent once, only by a seated player, only
// while the match takes seeds.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { clientSeedMessage, randomSeedHex } from '../../static/table/client_seed.js';

const open = (over = {}) => ({
  match_id: 7, your_seat: 1, client_seeds: { open: true, sent: [true, false] }, ...over,
});

test('a seed is 64 hex digits and differs each time', () => {
  const a = randomSeedHex();
  assert.match(a, /^[0-9a-f]{64}$/);
  assert.notEqual(a, randomSeedHex());
});

test('a seated player sends once per match while seeds are taken', () => {
  const message = clientSeedMessage(open());
  assert.equal(message.type, 'client_seed');
  assert.match(message.seed, /^[0-9a-f]{64}$/);
  assert.equal(clientSeedMessage(open()), null);            // not twice for match 7
  assert.ok(clientSeedMessage(open({ match_id: 8 })));      // a new match asks again
});

test('spectators, closed windows and seats that sent send nothing', () => {
  assert.equal(clientSeedMessage(open({ match_id: 9, your_seat: null })), null);
  assert.equal(clientSeedMessage(open({ match_id: 10, client_seeds: { open: false, sent: [false, false] } })), null);
  assert.equal(clientSeedMessage(open({ match_id: 11, your_seat: 0 })), null);
  assert.equal(clientSeedMessage({ type: 'table', match_id: null }), null);
});
