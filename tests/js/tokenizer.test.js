// The tokenizer: words and punctuation of spaced scripts as before; scripts written without spaces
// (Chinese, Japanese, Thai) split into words by Intl.Segmenter instead of one token per line.
import { describe, expect, test } from 'vitest';
import { sentenceBatch, tokenize } from '../../web/explorer/tokenizer.js';

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
