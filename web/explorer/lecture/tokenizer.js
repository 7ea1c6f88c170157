// Splits a sentence into word and punctuation tokens, as the lecture does on the board.
// Runs of letters, digits and apostrophes form a word; every other visible character (punctuation,
// symbols, each emoji) is a token of its own; whitespace separates tokens and is dropped. Scripts
// written without spaces (Chinese, Japanese, Thai, ...) are split into words by Intl.Segmenter.

const WORD = /[\p{L}\p{N}\p{M}'’]+/u.source;
const EMOJI = /\p{Extended_Pictographic}(?:\p{Emoji_Modifier}|\u200d\p{Extended_Pictographic}|\ufe0f)*/u.source;
const SYMBOL = /[^\s\p{L}\p{N}\p{M}]/u.source;
const TOKEN_PATTERN = new RegExp(`${WORD}|${EMOJI}|${SYMBOL}`, 'gu');

export const DEFAULT_TOKEN_LIMIT = 64;
// Words of unspaced scripts past what is kept are counted only this far: segmenting a 100,000-
// character Chinese sentence whole took 1.4 s in one task, to say it is too long.
const UNSPACED_COUNT_MARGIN = 1000;

// Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar.
const UNSPACED = /[\p{sc=Hani}\p{sc=Hira}\p{sc=Kana}\p{sc=Thai}\p{sc=Laoo}\p{sc=Khmr}\p{sc=Mymr}]/u;
let segmenter;

// The words of a run of letters in a script without spaces, lazily, a window at a time: ICU's
// dictionary segmenter reads the whole string it is given before the first word (5 s for 100,000
// Chinese characters). A window's last word may be cut, so the next window starts at it. The run
// itself where Intl.Segmenter is missing.
const SEGMENT_WINDOW = 64;
function* unspacedWords(run) {
  segmenter ??= typeof Intl.Segmenter === 'function' ? new Intl.Segmenter(undefined, { granularity: 'word' }) : null;
  if (!segmenter) {
    yield run;
    return;
  }
  for (let at = 0; at < run.length;) {
    const end = Math.min(run.length, at + SEGMENT_WINDOW);
    const segments = [...segmenter.segment(run.slice(at, end))];
    const whole = end === run.length || segments.length === 1 ? segments : segments.slice(0, -1);
    for (const { segment } of whole) if (segment.trim() !== '') yield segment;
    const last = whole.at(-1);
    at += last.index + last.segment.length;
  }
}

/**
 * The tokens of `text`, at most `stopAfter` of them (the rest is counted, not kept). `exact` is
 * false when words of an unspaced script were left uncounted, far past `stopAfter`: `count` is
 * then a lower bound.
 */
export function tokenize(text, stopAfter = Infinity) {
  const tokens = [];
  const countUpTo = stopAfter + UNSPACED_COUNT_MARGIN;
  let count = 0;
  let exact = true;
  for (const match of String(text).matchAll(TOKEN_PATTERN)) {
    if (!UNSPACED.test(match[0])) {
      count += 1;
      if (tokens.length < stopAfter) tokens.push(match[0]);
      continue;
    }
    if (count >= countUpTo) {
      count += 1;
      exact = false;
      continue;
    }
    for (const token of unspacedWords(match[0])) {
      count += 1;
      if (tokens.length < stopAfter) tokens.push(token);
      if (count >= countUpTo) {
        exact = false;
        break;
      }
    }
  }
  return { tokens, count, exact };
}

/**
 * The text as a batch: each line that has tokens is one sentence, and all sentences must have the
 * same number of tokens (a batch is B sentences of T tokens; nothing pads them). At most `limit`
 * tokens in all. Anything else gets a message in words saying why it cannot be used.
 * @returns {{ sentences: string[][] } | { error: string }}
 */
export function sentenceBatch(text, limit = DEFAULT_TOKEN_LIMIT) {
  const sentences = [];
  let count = 0;
  let lines = 0;
  let exact = true;
  for (const line of String(text).split(/\r\n|\r|\n/)) {
    const { tokens, count: n, exact: lineExact } = tokenize(line, Math.max(0, limit - count));
    if (n === 0) continue;
    lines += 1;
    count += n;
    exact &&= lineExact;
    if (count <= limit) sentences.push(tokens);
  }
  if (count === 0) return { error: 'The sentence is empty: type at least one word.' };
  if (count > limit) {
    const what = lines > 1 ? `The ${lines} sentences have` : 'The sentence has';
    return {
      error:
        `${what} ${exact ? '' : 'more than '}${count.toLocaleString('en')} tokens; this explorer draws at most ` +
        `${limit}. ` +
        'Shorten it (every token adds a row and a column to each heatmap).',
    };
  }
  const lengths = sentences.map((s) => s.length);
  if (lengths.some((n) => n !== lengths[0])) {
    return {
      error:
        `Each line is one sentence of the batch, and the sentences of a batch need the same number of tokens; ` +
        `these have ${lengths.join(', ')}. Make the lines the same length, or join them into one line.`,
    };
  }
  return { sentences };
}
