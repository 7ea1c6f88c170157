// The heads panel's trained heads, as data: which shipped story model a head count is drawn from
// (docs/story.md), the user's sentence read word by word against its vocabulary (the story panel's
// reading, story-reading.js: an unknown word is marked and left out, never replaced), the rows
// drawn (the sentence's words only: the model is causal, the "." after them change nothing), the
// rows the text reads (the lecture's "catch" and last "it") and what each drawn head looks at from
// them. Pure module (no DOM, no wasm): tested by Vitest (tests/js/trained-heads.test.js). The maps
// themselves come from the module (heads-numbers.js), each head's role from the core's role scores.
import { keyRows, readStorySentence, rowTop, storyReadingText, STORY_SKILLS } from '../story/story-reading.js';

/** The shipped checkpoint drawn for a head count (1, 2 or 4 at width 64); others have no trained model. */
export const TRAINED_CHECKPOINTS = Object.freeze({ 1: 'story-1-head', 2: 'story-2-heads', 4: 'story-4-heads' });
/** The checkpoint drawn beside the random heads of a configuration that has no trained model. */
export const BESIDE_CHECKPOINT = TRAINED_CHECKPOINTS[2];
/** The heads-weights option's values: the trained model's heads, or the same shapes untrained. */
export const HEADS_WEIGHTS = Object.freeze(['trained', 'random']);
export const DEFAULT_HEADS_WEIGHTS = 'trained';

/** The checkpoint for `heads` heads, or null when none was trained with that many. */
export const checkpointFor = (heads) => TRAINED_CHECKPOINTS[heads] ?? null;

/**
 * The sentence's tokens (tokenize()'s strings) read against `words` for a model of `length`
 * tokens (readStorySentence), and `shown`: how many rows are drawn, the sentence's known words (1
 * at least: with none, the first "." the model reads).
 */
export function readSentence(tokens, words, length = 64) {
  const reading = readStorySentence(tokens, words, length);
  return { ...reading, shown: Math.max(1, reading.count) };
}

/** In words, how the sentence was read (the story panel's words). */
export const readingText = storyReadingText;

// Per drawn row, the index of the sentence's token it reads (-1 for a "." after the sentence).
function rowTokens(reading) {
  const kept = [];
  reading.tokens.forEach((r, i) => r.how === 'known' && kept.push(i));
  return kept.slice(0, reading.count);
}

/** The sentence's token (its index among the user's tokens) that drawn row `row` reads, or -1. */
export function rowInReading(reading, row) {
  return rowTokens(reading)[row] ?? -1;
}

/** The drawn row that reads the sentence's token `token`, or -1 (unknown, or past the model's length). */
export function readingRow(reading, token) {
  return token < 0 ? -1 : rowTokens(reading).indexOf(token);
}

/**
 * The rows the text reads, in sentence order: the last two of the story panel's key rows (each
 * row whose next word is a pronoun, and the last pronoun's own): on the lecture's sentence "catch"
 * (it predicts the last "it") and the last "it". { row, word, label }.
 */
export const readRows = (reading) => keyRows(reading).slice(-2);

/**
 * The row highlighted first: the first read row that predicts a pronoun (the lecture's "catch",
 * where the antecedent head looks at "ball"), else the last read row; -1 with none.
 */
export const leadRow = (rows) => (rows.find((r) => r.label.includes('→')) ?? rows.at(-1))?.row ?? -1;

/**
 * A model's outputs for T tokens cut to the first n rows (the drawn ones): attention and scores
 * (heads x n x n), concat and output (n x D). The model is causal, so the first n rows of its
 * T-token maps are the maps of those n words alone (each row sums to 1 over its first n columns).
 */
export function firstRows(fused, heads, T, n, D) {
  const square = (values) => {
    const out = new Float32Array(heads * n * n);
    for (let h = 0; h < heads; h += 1)
      for (let i = 0; i < n; i += 1) out.set(values.subarray((h * T + i) * T, (h * T + i) * T + n), (h * n + i) * n);
    return out;
  };
  return {
    attention: square(fused.attention),
    scores: square(fused.scores),
    concat: fused.concat.slice(0, n * D),
    output: fused.output.slice(0, n * D),
  };
}

/**
 * The numbers that say where the drawn heads look, from the drawn maps: per read row (readRows)
 * and per head, its largest weight among the row's words and where, and the share on each word;
 * and between every two heads the distance of their rows from the last read row (total
 * variation: half the sum of |a - b|, 0 for the same row, 1 for rows on different words).
 * maps: per head a Float32Array n x n (row-major); words: the n drawn words.
 */
export function headDifference(maps, n, rows, words) {
  const looks = rows.map(({ row, word, label }) => ({
    row,
    word,
    label,
    heads: maps.map((m) => rowTop(m, n, row, words)),
  }));
  const last = rows.at(-1)?.row ?? n - 1;
  const pairs = [];
  for (let a = 0; a < maps.length; a += 1) {
    for (let b = a + 1; b < maps.length; b += 1) {
      let sum = 0;
      for (let j = 0; j < n; j += 1) sum += Math.abs(maps[a][last * n + j] - maps[b][last * n + j]);
      pairs.push({ a, b, distance: sum / 2 });
    }
  }
  return { looks, pairs };
}

/** The weight of head map `map` (n x n) from `row` on the last place of `word` up to the row, or 0. */
export function shareOn(map, n, row, words, word) {
  for (let j = row; j >= 0; j -= 1) if (words[j] === word) return map[row * n + j];
  return 0;
}

const two = (v) => v.toFixed(2);
const rowName = (r) =>
  r.label.endsWith('(last)') ? `the last "${r.word}"` : `"${r.word}" (before "${r.label.split(' → ')[1]}")`;

/**
 * In words, where each head looks from the read rows, with the drawn values: 'From "catch" (before
 * "it"): head 1 (object antecedent) 0.92 on "ball", head 2 (...) ... From the last "it": ...'.
 * roles: per head the core's role scores ({ role }).
 */
export function looksText(difference, roles, { brief = false } = {}) {
  const said = difference.looks.map((r) => {
    const each = r.heads.map((top, h) => {
      const name = brief && h > 0 ? `${h + 1}` : `head ${h + 1}`;
      return `${name} (${roles[h].role}) ${two(top.weight)} on "${top.word}"`;
    });
    return `From ${rowName(r)}: ${each.join(', ')}.`;
  });
  return said.join(' ') || 'No word to read from.';
}

/** The checkpoint's held-out accuracy per skill, in words ("subject pronoun 1.00, ..."). */
export function skillsText(evaluation) {
  return STORY_SKILLS.map(([skill, label]) => `${label} ${two(evaluation.groups[skill].candidateAccuracy)}`).join(', ');
}
