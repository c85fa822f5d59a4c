// The player's contribution to the dice (docs/dice.md): before the first roll of a match the
// board sends 32 random bytes from the browser's CSPRNG, once per match. The server
// committed to its own seed before; with both, nobody can choose the dice.

const sent = new Set();  // match ids this page has sent a seed for

export function randomSeedHex(bytes = 32) {
  const seed = new Uint8Array(bytes);
  crypto.getRandomValues(seed);
  return Array.from(seed, (b) => b.toString(16).padStart(2, '0')).join('');
}

// The message to send for this state, or null: only a seated player, only while the match
// takes seeds, only if this seat has not sent one, and only once per match from this page.
export function clientSeedMessage(state) {
  const seeds = state && state.client_seeds;
  const seat = state ? state.your_seat : null;
  if (!seeds || !seeds.open || seat === null || seat === undefined) return null;
  if (seeds.sent[seat] || sent.has(state.match_id)) return null;
  sent.add(state.match_id);
  return { type: 'client_seed', seed: randomSeedHex() };
}
