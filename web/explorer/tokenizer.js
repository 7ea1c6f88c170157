// Splits a sentence into word and punctuation tokens, as the lecture does on the board.
// Runs of letters, digits and apostrophes form a word; every other visible character (punctuation,
// symbols, each emoji) is a token of its own; whitespace separates tokens and is dropped.

const WORD = /[\p{L}\p{N}\p{M}'’]+/u.source;
const EMOJI = /\p{Extended_Pictographic}(?:\p{Emoji_Modifier}|\u200d\p{Extended_Pictographic}|\ufe0f)*/u.source;
const SYMBOL = /[^\s\p{L}\p{N}\p{M}]/u.source;
const TOKEN_PATTERN = new RegExp(`${WORD}|${EMOJI}|${SYMBOL}`, 'gu');

export const DEFAULT_TOKEN_LIMIT = 64;

/** The tokens of `text`, at most `stopAfter` of them (the rest is counted, not kept). */
export function tokenize(text, stopAfter = Infinity) {
  const tokens = [];
  let count = 0;
  for (const match of String(text).matchAll(TOKEN_PATTERN)) {
    count += 1;
    if (tokens.length < stopAfter) tokens.push(match[0]);
  }
  return { tokens, count };
}

/**
 * The sentence as tokens, or a message in words saying why it cannot be used.
 * @returns {{ tokens: string[] } | { error: string }}
 */
export function sentenceTokens(text, limit = DEFAULT_TOKEN_LIMIT) {
  const { tokens, count } = tokenize(text, limit + 1);
  if (count === 0) return { error: 'The sentence is empty: type at least one word.' };
  if (count > limit) {
    return {
      error:
        `The sentence has ${count.toLocaleString('en')} tokens; this explorer draws at most ${limit}. ` +
        'Shorten it (every token adds a row and a column to each heatmap).',
    };
  }
  return { tokens };
}
