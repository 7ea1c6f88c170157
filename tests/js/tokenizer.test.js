// The tokenizer: words and punctuation of spaced scripts as before; scripts written without spaces
// (Chinese, Japanese, Thai) split into words by Intl.Segmenter instead of one token per line.
import { describe, expect, test } from 'vitest';
import { sentenceBatch, tokenize } from '../../web/explorer/lecture/tokenizer.js';

describe('tokenize', () => {
  test('spaced text: words and punctuation marks', () => {
    expect(tokenize('The dog chased the ball,').tokens).toEqual(['The', 'dog', 'chased', 'the', 'ball', ',']);
  });
  test('Chinese and Japanese without spaces become words, not one token', () => {
    expect(tokenize('我喜欢猫。').tokens).toEqual(['我', '喜欢', '猫', '。']);
    expect(tokenize('猫が好きです').tokens).toEqual(['猫', 'が', '好き', 'です']);
    expect(tokenize('ภาษาไทยง่าย').tokens.length).toBeGreaterThan(1);
  });
  test('mixed text keeps its spaced words whole and counts what it stops keeping', () => {
    const { tokens, count } = tokenize('GPT-2 は猫が好き', 3);
    expect(tokens).toEqual(['GPT', '-', '2']);
    expect(count).toBe(7);
  });
  test('a batch of two Japanese lines of the same number of words', () => {
    expect(sentenceBatch('猫が好きです\n犬が嫌いです').sentences).toEqual([
      ['猫', 'が', '好き', 'です'],
      ['犬', 'が', '嫌い', 'です'],
    ]);
  });
});

describe('a very long sentence in a script without spaces (issue 35)', () => {
  // 100,000 characters of Chinese: every word was segmented before the limit was applied (2.3 s,
  // one 1.4 s task). Now words are segmented only a margin past the limit. The bound compares the
  // work with the same length of spaced text, which was always cheap, so a loaded machine slows both.
  const chinese = '我们喜欢在公园里散步和看书'.repeat(100_000 / 13);
  const ascii = 'we like to walk in the park and read '.repeat(100_000 / 37);
  const cpuMs = (f) => {
    const t0 = process.cpuUsage();
    f();
    const { user, system } = process.cpuUsage(t0);
    return (user + system) / 1000;
  };

  test('is refused as too long, saying "more than", without segmenting it all', () => {
    const batch = sentenceBatch(chinese, 64);
    expect(batch.error).toMatch(/^The sentence has more than [\d,]+ tokens; this explorer draws at most 64\./);
    const { tokens, count, exact } = tokenize(chinese, 64);
    expect(tokens.length).toBe(64);
    expect(exact).toBe(false);
    expect(count).toBeGreaterThan(64);
    expect(count).toBeLessThan(5000);
  });

  test('costs no more than the same length of spaced text, give or take', () => {
    sentenceBatch(chinese, 64); // warm the segmenter
    const chineseMs = Math.min(...[1, 2, 3].map(() => cpuMs(() => sentenceBatch(chinese, 64))));
    const asciiMs = Math.min(...[1, 2, 3].map(() => cpuMs(() => sentenceBatch(ascii, 64))));
    expect(chineseMs).toBeLessThan(Math.max(5 * asciiMs, 50));
  });

  test('short unspaced text past the limit is still counted exactly', () => {
    expect(tokenize('GPT-2 は猫が好き', 3)).toMatchObject({ count: 7, exact: true });
    expect(sentenceBatch('猫が好きです', 2).error).toMatch(/^The sentence has 4 tokens/);
  });
});
