// Short sounds made on the spot with WebAudio (no sound files): dice, a move, your turn and
// low time. Muted unless the player's options say otherwise (static/options.js).

let context = null;

function audio() {
  if (context === null) {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    context = new Context();
  }
  if (context.state === 'suspended') context.resume();
  return context;
}

function tone(ctx, { freq, start = 0, length = 0.12, type = 'sine', gain = 0.18, to = null }) {
  const osc = ctx.createOscillator();
  const amp = ctx.createGain();
  const t0 = ctx.currentTime + start;
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  if (to !== null) osc.frequency.exponentialRampToValueAtTime(to, t0 + length);
  amp.gain.setValueAtTime(0.0001, t0);
  amp.gain.exponentialRampToValueAtTime(gain, t0 + 0.01);
  amp.gain.exponentialRampToValueAtTime(0.0001, t0 + length);
  osc.connect(amp).connect(ctx.destination);
  osc.start(t0);
  osc.stop(t0 + length + 0.02);
}

/** A rattle of short noise bursts: the dice. */
function rattle(ctx) {
  for (let i = 0; i < 4; i += 1) {
    const length = 0.035;
    const buffer = ctx.createBuffer(1, Math.ceil(ctx.sampleRate * length), ctx.sampleRate);
    const data = buffer.getChannelData(0);
    for (let j = 0; j < data.length; j += 1) data[j] = (Math.random() * 2 - 1) * (1 - j / data.length);
    const source = ctx.createBufferSource();
    const amp = ctx.createGain();
    amp.gain.value = 0.25;
    source.buffer = buffer;
    source.connect(amp).connect(ctx.destination);
    source.start(ctx.currentTime + i * 0.06 + Math.random() * 0.02);
  }
}

export const SOUNDS = {
  dice: rattle,
  move: (ctx) => tone(ctx, { freq: 320, to: 180, length: 0.08, type: 'triangle', gain: 0.25 }),
  turn: (ctx) => { tone(ctx, { freq: 660, length: 0.14 }); tone(ctx, { freq: 880, start: 0.13, length: 0.2 }); },
  low: (ctx) => { tone(ctx, { freq: 990, length: 0.09, type: 'square', gain: 0.08 }); tone(ctx, { freq: 990, start: 0.16, length: 0.09, type: 'square', gain: 0.08 }); },
};

/** Play sound `kind` (a key of SOUNDS) unless `muted`. Browsers allow sound only after the
 *  player has interacted with the page; before that this does nothing. */
export function playSound(kind, muted) {
  if (muted || !SOUNDS[kind]) return false;
  try {
    const ctx = audio();
    if (!ctx || ctx.state !== 'running') return false;
    SOUNDS[kind](ctx);
    return true;
  } catch (error) {
    return false;
  }
}

/** Wake the audio context inside a user gesture (a click), so later sounds may play. */
export function unlockSound() {
  try { audio(); } catch (error) { /* no audio: stay silent */ }
}
