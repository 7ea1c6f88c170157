// Splits a sentence into word and punctuation tokens, as the lecture does on the board.
// Runs of letters, digits and apostrophes form a word; every other visible character (punctuation,
// symbols, each emoji) is a token of its own; whitespace separates tokens and is dropped. Scripts
// written without spaces (Chinese, Japanese, Thai, ...) are split into words by Intl.Segmenter.

const WORD = /[\p{L}\p{N}\p{M}'’]+/u.source;
const EMOJI = /\p{Extended_Pictographic}(?:\p{Emoji_Modifier}|\u200d\p{Extended_Pictographic}|\ufe0f)*/u.source;
const SYMBOL = /[^\s\p{L}\p{N}\p{M}]/u.source;
const TOKEN_PATTERN = new RegExp(`${WORD}|${EMOJI}|${SYMBOL}`, 'gu');

export const DEFAULT_TOKEN_LIMIT = 64;

// Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar.
const UNSPACED = /[\p{sc=Hani}\p{sc=Hira}\p{sc=Kana}\p{sc=Thai}\p{sc=Laoo}\p{sc=Khmr}\p{sc=Mymr}]/u;
let segmenter;

// The words of a run of letters in a script without spaces; the run itself where Intl.Segmenter is missing.
function unspacedWords(run) {
  segmenter ??= typeof Intl.Segmenter === 'function' ? new Intl.Segmenter(undefined, { granularity: 'word' }) : null;
  if (!segmenter) return [run];
  return Array.from(segmenter.segment(run), (s) => s.segment).filter((w) => w.trim() !== '');
}

/** The tokens of `text`, at most `stopAfter` of them (the rest is counted, not kept). */
export function tokenize(text, stopAfter = Infinity) {
  const tokens = [];
  let count = 0;
  for (const match of String(text).matchAll(TOKEN_PATTERN)) {
    for (const token of UNSPACED.test(match[0]) ? unspacedWords(match[0]) : [match[0]]) {
      count += 1;
      if (tokens.length < stopAfter) tokens.push(token);
    }
  }
  return { tokens, count };
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
  for (const line of String(text).split(/\r\n|\r|\n/)) {
    const { tokens, count: n } = tokenize(line, Math.max(0, limit - count));
    if (n === 0) continue;
    lines += 1;
    count += n;
    if (count <= limit) sentences.push(tokens);
  }
  if (count === 0) return { error: 'The sentence is empty: type at least one word.' };
  if (count > limit) {
    const what = lines > 1 ? `The ${lines} sentences have` : 'The sentence has';
    return {
      error:
        `${what} ${count.toLocaleString('en')} tokens; this explorer draws at most ${limit}. ` +
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
