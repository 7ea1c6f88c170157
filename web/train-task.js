// The "latest verb and latest noun" task: a seeded sequence generator that gives the same words in
// JavaScript, Python and C++ (mulberry32 on 32-bit unsigned integers), and the targets at "?".
// Pure module: no I/O, no wasm, usable by the trainer API, the page and the benchmarks.

export const vocabulary = Object.freeze([
  'dog',
  'ball',
  'cat',
  'bird',
  'boy',
  'girl',
  'stick',
  'bone',
  'chase',
  'catch',
  'see',
  'like',
  'find',
  'drop',
  'kick',
  'follow',
  'the',
  'a',
  'it',
  'and',
  '?',
]);
export const NOUN_BASE = 0;
export const VERB_BASE = 8;
export const FILLER_BASE = 16;
export const QUESTION = 20;
export const TOKENS = 12;
export const VARIANTS = Object.freeze({ 'verb-noun': 64, verb: 8 });

const WORDS = TOKENS - 1;
const KINDS = [
  { base: NOUN_BASE, count: 8 },
  { base: VERB_BASE, count: 8 },
  { base: FILLER_BASE, count: 4 },
];

// mulberry32: returns next() giving doubles in [0, 1) from a 32-bit state.
export function mulberry32(seed) {
  let state = seed >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t = ((t + Math.imul(t ^ (t >>> 7), t | 61)) ^ t) >>> 0;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function checkSeed(seed) {
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new RangeError(`seed must be an integer in [0, 2^32), got ${seed}`);
  }
}

function checkVariant(variant) {
  if (!Object.hasOwn(VARIANTS, variant)) {
    throw new RangeError(`variant must be one of ${Object.keys(VARIANTS).join(', ')}, got ${variant}`);
  }
}

function latestOfKind(words, base) {
  for (let i = words.length - 1; i >= 0; i -= 1) {
    if (words[i] >= base && words[i] < base + 8) return words[i];
  }
  return -1;
}

// The class at "?" for one sequence (12 ids, or the 11 words before "?").
export function target(words, variant = 'verb-noun') {
  checkVariant(variant);
  const verb = latestOfKind(words, VERB_BASE);
  const noun = latestOfKind(words, NOUN_BASE);
  if (verb < 0 || noun < 0) throw new RangeError('a sequence needs at least one noun and one verb');
  return variant === 'verb' ? verb - VERB_BASE : 8 * (verb - VERB_BASE) + (noun - NOUN_BASE);
}

// One generator: sequences are drawn one after another; batch(n) takes the next n.
export function makeGenerator(seed) {
  checkSeed(seed);
  const next = mulberry32(seed);
  function nextSequence() {
    const words = new Array(TOKENS);
    for (;;) {
      let nouns = 0;
      let verbs = 0;
      for (let i = 0; i < WORDS; i += 1) {
        const u = next();
        const kind = u < 0.35 ? 0 : u < 0.7 ? 1 : 2;
        words[i] = KINDS[kind].base + Math.floor(next() * KINDS[kind].count);
        if (kind === 0) nouns += 1;
        else if (kind === 1) verbs += 1;
      }
      if (nouns > 0 && verbs > 0) break;
    }
    words[WORDS] = QUESTION;
    return words;
  }
  function batch(n, variant = 'verb-noun') {
    checkVariant(variant);
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`batch size must be a positive integer, got ${n}`);
    const tokens = new Int32Array(n * TOKENS);
    const targets = new Int32Array(n);
    for (let b = 0; b < n; b += 1) {
      const words = nextSequence();
      tokens.set(words, b * TOKENS);
      targets[b] = target(words, variant);
    }
    return { tokens, targets };
  }
  return { nextSequence, batch };
}

// The held-out seed: (seed XOR 0x5EED5EED) mod 2^32.
export function heldOutSeed(seed) {
  checkSeed(seed);
  return (seed ^ 0x5eed5eed) >>> 0;
}

// The held-out evaluation set of a training seed: its first n sequences, flat, with targets.
export function evalSet(seed, n = 2048, variant = 'verb-noun') {
  return makeGenerator(heldOutSeed(seed)).batch(n, variant);
}

// The first k sequences of a seed as JSON (arrays of 12 ids): for comparing other generators.
export function sequencesJson(seed, k) {
  const g = makeGenerator(seed);
  return JSON.stringify(Array.from({ length: k }, () => g.nextSequence()));
}
