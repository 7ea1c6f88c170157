// The story panel's model (checkpoint 'story-4-heads', task 'story', docs/story.md), as data: a
// sentence read word by word against the model's vocabulary (a word it does not know is marked
// unknown and left out, never read as another word), the rows worth reading (those that predict a
// pronoun, and the last pronoun's own), what each head looks at from them, the checkpoint's
// ablation table in words, and the slide's point. Pure module (no DOM, no wasm): tested by Vitest
// (tests/js/story-panel.test.js).

/** The shipped story model the story panel reads the page's sentence with. */
export const STORY_CHECKPOINT = 'story-4-heads';
/** The lecture's own sentence. */
export const LECTURE_SENTENCE = 'The dog chased the ball, but it could not catch it.';
/** The story task's probe groups, as the page names them, in the order it shows them. */
export const STORY_SKILLS = Object.freeze([
  ['subject', 'subject pronoun'],
  ['object', 'object pronoun'],
  ['possessive', 'possessive'],
  ['agreement', 'agreement'],
  ['name', 'name copy'],
]);
// The words whose choice needs an antecedent (the task's pronouns).
const PRONOUNS = new Set(['he', 'she', 'it', 'they', 'him', 'her', 'them', 'his', 'its', 'their']);
// What fills the task's 64 tokens after the sentence (the model is causal: the sentence's rows do
// not see it).
const PAD = '.';

/**
 * The sentence's tokens (tokenize()'s strings) read against `words`, the model's vocabulary, for a
 * model of `length` tokens: { tokens: [{ token, read, how }] (how 'known', or 'unknown' with read
 * null), words (what the model reads: the known words, cut to `length`, then "." to fill),
 * count (how many of words are the sentence's), unknown (the unknown words, once each), cut
 * (known words past `length`, left out) }. Case is ignored; nothing else is changed.
 */
export function readStorySentence(tokens, words, length = 64) {
  const vocabulary = new Set(words);
  const read = tokens.map((token) => {
    const lower = token.toLowerCase().replace(/’/g, "'");
    return vocabulary.has(lower) ? { token, read: lower, how: 'known' } : { token, read: null, how: 'unknown' };
  });
  const known = read.filter((r) => r.how === 'known').map((r) => r.read);
  const kept = known.slice(0, length);
  const unknown = [...new Set(read.filter((r) => r.how === 'unknown').map((r) => r.token))];
  return {
    tokens: read,
    words: [...kept, ...Array(length - kept.length).fill(PAD)],
    count: kept.length,
    unknown,
    cut: known.length - kept.length,
  };
}

/** In words, how the sentence was read: every word known, or which were not and what became of them. */
export function storyReadingText(reading) {
  const parts = [];
  if (reading.unknown.length === 0) parts.push('every word is in its vocabulary');
  else {
    const list = reading.unknown.map((w) => `"${w}"`).join(', ');
    parts.push(
      `${reading.unknown.length} unknown (not in its vocabulary: ${list}), left out: the model has no vector for ` +
        (reading.unknown.length > 1 ? 'them' : 'it'),
    );
  }
  if (reading.cut) parts.push(`the last ${reading.cut} words left out (it reads ${reading.words.length})`);
  return parts.join('; ');
}

/**
 * The rows worth reading: each position of the sentence whose next word is a pronoun (the model
 * predicts that pronoun there: "but" before "it", "catch" before the last "it"), as { row, word,
 * next }.
 */
export function pronounRows(reading) {
  const rows = [];
  for (let t = 0; t + 1 < reading.count; t += 1) {
    if (PRONOUNS.has(reading.words[t + 1])) rows.push({ row: t, word: reading.words[t], next: reading.words[t + 1] });
  }
  return rows;
}

/**
 * The rows a reader looks at first, in sentence order: each row whose next word is a pronoun (it
 * predicts that pronoun: "but", "catch") and the last pronoun's own row (the lecture's last "it"),
 * as { row, word, label }; with no pronoun, the last word's row.
 */
export function keyRows(reading) {
  const rows = pronounRows(reading).map(({ row, word, next }) => ({ row, word, label: `${word} → ${next}` }));
  let last = -1;
  for (let t = 0; t < reading.count; t += 1) if (PRONOUNS.has(reading.words[t])) last = t;
  if (last >= 0 && !rows.some((r) => r.row === last))
    rows.push({ row: last, word: reading.words[last], label: `${reading.words[last]} (last)` });
  if (!rows.length && reading.count) {
    const row = reading.count - 1;
    rows.push({ row, word: reading.words[row], label: `${reading.words[row]} (last)` });
  }
  return rows.sort((a, b) => a.row - b.row);
}

/**
 * Where a head looks from a row: its largest weight among the sentence's positions up to the row,
 * { at, word, weight }. map: the head's T x T map (row-major, causal), T its side.
 */
export function rowTop(map, T, row, words) {
  let at = 0;
  for (let j = 1; j <= row; j += 1) if (map[row * T + j] > map[row * T + at]) at = j;
  return { at, word: words[at], weight: map[row * T + at] };
}

const two = (v) => v.toFixed(2);

/**
 * The checkpoint's ablation table ({ layer, head, evaluation } per head zeroed alone) against its
 * whole evaluation, per skill: { skill, label, whole, without, change } for the head `head` of
 * `layer`; null when the table has no row for it.
 */
export function ablationOf(checkpoint, layer, head) {
  const row = checkpoint.ablation?.find((a) => a.layer === layer && a.head === head);
  if (!row) return null;
  return STORY_SKILLS.map(([skill, label]) => {
    const whole = checkpoint.evaluation.groups[skill].candidateAccuracy;
    const without = row.evaluation.groups[skill].candidateAccuracy;
    return { skill, label, whole, without, change: without - whole };
  });
}

/** A fall of at least this much (in accuracy over the candidates) is said to be one. */
export const FALLS = 0.1;

/** The ablation of one head in words: which skills fall without it, and which stay. */
export function ablationText(rows, name) {
  const falls = rows.filter((r) => r.change <= -FALLS);
  const stays = rows.filter((r) => r.change > -FALLS);
  const fell = falls.map((r) => `${r.label} ${two(r.whole)} -> ${two(r.without)}`);
  const kept = stays.map((r) => `${r.label} ${two(r.without)}`);
  const first = falls.length ? `falls: ${fell.join(', ')}` : 'nothing falls';
  return `Without ${name}, ${first}${stays.length ? `; stays: ${kept.join(', ')}` : ''}.`;
}

/** The head whose switch is on first: the first one named for an antecedent, else head 1. */
export function antecedentHead(roles) {
  return Math.max(
    0,
    roles.findIndex((r) => /antecedent/.test(r.role)),
  );
}

/**
 * The slide's point (under about 150 characters): where head `head` looks from the rows before
 * the sentence's pronouns, with the drawn values, and what falls (or not) without it.
 */
export function storyPoint({ reading, maps, T, head, table }) {
  const rows = pronounRows(reading).slice(-2);
  const looks = rows.map(({ row, word }) => {
    const top = rowTop(maps[head], T, row, reading.words);
    return `${two(top.weight)} of "${word}" on "${top.word}"`;
  });
  const said = looks.length
    ? `Head ${head + 1} puts ${looks.join(', ')}`
    : `No pronoun to predict here: head ${head + 1}`;
  if (!table) return `${said}.`;
  const worst = table.reduce((a, b) => (b.change < a.change ? b : a));
  const best = table.reduce((a, b) => (b.change > a.change ? b : a));
  const off =
    worst.change <= -FALLS
      ? `off, ${worst.label} falls ${two(worst.whole)} → ${two(worst.without)}, ` +
        `${best.label} stays ${two(best.without)}`
      : `off, nothing falls (${worst.label} ${two(worst.whole)} → ${two(worst.without)})`;
  return `${said}; ${off}.`;
}
