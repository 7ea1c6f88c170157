// The heads panel's trained heads, as data: the user's sentence read as the verb-and-noun task's
// 11 words and "?" (the only words the shipped models know), which checkpoint a head count is
// drawn from, and the numbers that say how the drawn heads differ. Pure module (no DOM, no wasm):
// tested by Vitest (tests/js/trained-heads.test.js). The maps themselves come from the module
// (heads-numbers.js), each head's role from the core's role scores.
import { FILLER_BASE, NOUN_BASE, VERB_BASE } from '../../../train-task.js';

/** The shipped checkpoint drawn for a head count (1 or 2); other counts have no trained model. */
export const TRAINED_CHECKPOINTS = Object.freeze({ 1: 'verb-noun-1-head', 2: 'verb-noun-2-heads' });
/** The checkpoint drawn beside the random heads of a configuration that has no trained model. */
export const BESIDE_CHECKPOINT = TRAINED_CHECKPOINTS[2];
/** The heads-weights option's values: the trained model's heads, or the same shapes untrained. */
export const HEADS_WEIGHTS = Object.freeze(['trained', 'random']);
export const DEFAULT_HEADS_WEIGHTS = 'trained';

/** The checkpoint for `heads` heads, or null when none was trained with that many. */
export const checkpointFor = (heads) => TRAINED_CHECKPOINTS[heads] ?? null;

// Inflections the model has not seen, read by their stem: longest ending first ("chases" is
// "chase" + "s", "catches" is "catch" + "es", "chased" is "chase" + "d", "kicked" "kick" + "ed").
const ENDINGS = ['ing', 'es', 'ed', 's', 'd'];
// Irregular forms of the task's verbs, and "an" for "a".
const IRREGULAR = Object.freeze({ caught: 'catch', saw: 'see', seen: 'see', found: 'find', an: 'a' });
/** What a word the model does not know is read as: a filler, neither verb nor noun. */
export const UNKNOWN_AS = 'and';

/**
 * How the model reads one token: { token, read, how }, how is 'known' (in the vocabulary, any
 * case), 'stem' (an inflection read by its stem), 'filler' (not known: read as UNKNOWN_AS) or
 * 'dropped' (punctuation: the task has none). words: the task's vocabulary, from the core.
 */
export function readToken(token, words) {
  const lower = token.toLowerCase().replace(/[’']/g, '');
  const known = (w) => w !== '?' && words.includes(w);
  if (!/\p{L}|\p{N}/u.test(token)) return { token, read: null, how: 'dropped' };
  if (known(lower)) return { token, read: lower, how: 'known' };
  if (known(IRREGULAR[lower])) return { token, read: IRREGULAR[lower], how: 'stem' };
  for (const ending of ENDINGS) {
    if (!lower.endsWith(ending) || lower.length <= ending.length + 1) continue;
    const stem = lower.slice(0, -ending.length);
    // chasing -> chase, kicking -> kick; doubled consonants: dropped -> drop.
    const tries = [stem, `${stem}e`, stem.length > 2 && stem.at(-1) === stem.at(-2) ? stem.slice(0, -1) : null];
    const found = tries.find((s) => s && known(s));
    if (found) return { token, read: found, how: 'stem' };
  }
  return { token, read: UNKNOWN_AS, how: 'filler' };
}

/**
 * The sentence's tokens read as the task's sequence of `length` tokens, the last one "?": the
 * tokens' reading (readToken), the last length - 1 words kept (the task reads the latest verb and
 * noun), and a shorter sentence padded at the start with "the". Returns { words (length of them,
 * "?" last), tokens (each token's reading, in order), cut (words left out at the start), padded
 * (fillers added) }.
 */
export function readSentence(tokens, words, length = 12) {
  const read = tokens.map((t) => readToken(t, words));
  const kept = read.filter((r) => r.read !== null);
  const room = length - 1;
  const cut = Math.max(0, kept.length - room);
  const padded = Math.max(0, room - kept.length);
  const body = [...Array(padded).fill('the'), ...kept.slice(cut).map((r) => r.read)];
  return { words: [...body, '?'], tokens: read, cut, padded };
}

// Per row of reading.words, the index of the sentence's token it reads (-1 for a "the" put in
// front and for the "?" at the end).
function rowTokens(reading) {
  const kept = [];
  reading.tokens.forEach((r, i) => r.read !== null && kept.push(i));
  return [...Array(reading.padded).fill(-1), ...kept.slice(reading.cut), -1];
}

/** The sentence's token (its index among the user's tokens) that row `row` of the model's words reads, or -1. */
export function rowInReading(reading, row) {
  return rowTokens(reading)[row] ?? -1;
}

/** The row of the model's words that reads the sentence's token `token`, or -1 (dropped or left out). */
export function readingRow(reading, token) {
  return token < 0 ? -1 : rowTokens(reading).indexOf(token);
}

const kindOf = (id) => (id >= FILLER_BASE ? 'filler' : id >= VERB_BASE ? 'verb' : id >= NOUN_BASE ? 'noun' : null);

/**
 * Where the task's answer is in a sequence of ids ("?" last): the latest verb and the latest noun
 * before "?" (-1 when there is none), the positions trained heads look at from "?".
 */
export function latestVerbNoun(ids) {
  const latest = (kind) => {
    for (let i = ids.length - 2; i >= 0; i -= 1) if (kindOf(ids[i]) === kind) return i;
    return -1;
  };
  return { verb: latest('verb'), noun: latest('noun') };
}

/**
 * The numbers that say how the drawn heads differ, from the drawn maps' last row (from "?"):
 * per head its share of attention on the latest verb and on the latest noun, and where its
 * largest weight is; and between every two heads the distance of their rows from "?" (total
 * variation: half the sum of |a - b|, 0 for the same row, 1 for rows on different tokens).
 * maps: per head a Float32Array T x T (row-major); at: latestVerbNoun().
 */
export function headDifference(maps, T, at) {
  const rows = maps.map((m) => m.subarray((T - 1) * T, T * T));
  const heads = rows.map((row) => {
    let top = 0;
    for (let j = 1; j < T; j += 1) if (row[j] > row[top]) top = j;
    return {
      verb: at.verb >= 0 ? row[at.verb] : 0,
      noun: at.noun >= 0 ? row[at.noun] : 0,
      top,
      topWeight: row[top],
    };
  });
  const pairs = [];
  for (let a = 0; a < rows.length; a += 1) {
    for (let b = a + 1; b < rows.length; b += 1) {
      let sum = 0;
      for (let j = 0; j < T; j += 1) sum += Math.abs(rows[a][j] - rows[b][j]);
      pairs.push({ a, b, distance: sum / 2 });
    }
  }
  return { heads, pairs };
}

const quoted = (w) => `"${w}"`;
const listed = (items) => (items.length > 1 ? `${items.slice(0, -1).join(', ')} and ${items.at(-1)}` : items[0]);
// At most SHOWN of them by name (a long sentence would fill a slide with its list).
const SHOWN = 5;
const some = (items) =>
  items.length > SHOWN ? [...items.slice(0, SHOWN - 1), `${items.length - SHOWN + 1} more`] : items;

/** In words, how the sentence was read: the words the model does not know and what they became. */
export function readingText(reading) {
  const stems = [
    ...new Set(reading.tokens.filter((r) => r.how === 'stem').map((r) => `${quoted(r.token)} as ${quoted(r.read)}`)),
  ];
  const unknown = [...new Set(reading.tokens.filter((r) => r.how === 'filler').map((r) => quoted(r.token)))];
  const dropped = [...new Set(reading.tokens.filter((r) => r.how === 'dropped').map((r) => quoted(r.token)))];
  const parts = [];
  if (stems.length) parts.push(`${listed(some(stems))}, by stem`);
  if (unknown.length) parts.push(`${listed(some(unknown))} unknown, read as "${UNKNOWN_AS}"`);
  if (dropped.length) parts.push(`${listed(some(dropped))} dropped`);
  if (reading.cut) parts.push(`the first ${reading.cut} word${reading.cut > 1 ? 's' : ''} left out (it reads 11)`);
  if (reading.padded) parts.push(`${reading.padded} "the" put in front (it reads 11 words)`);
  return parts.length ? parts.join('; ') : 'every word one it knows';
}
