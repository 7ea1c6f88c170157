// What the explorer says about an input it cannot draw, and the choices it offers.
import { describe, expect, test } from 'vitest';
import { divisorsOf, oddInput } from '../../web/explorer/odd-input.js';
import { DEFAULT_TEXT } from '../../web/explorer/lecture/presets.js';

const base = { dModel: 6, heads: 2, sentence: DEFAULT_TEXT, maxTokens: 64 };

describe('oddInput', () => {
  test('a good input has no problem', () => {
    expect(oddInput(base, { status: 'ok' })).toBeNull();
    expect(oddInput(base, { status: 'shapes-only' })).toBeNull();
  });
  test('heads that do not divide the width: the heads that do, as choices', () => {
    const p = oddInput({ ...base, heads: 4 }, { status: 'invalid', message: 'x' });
    expect(p.text).toMatch(/^Width 6 cannot be split into 4 heads: .* Heads that divide 6:$/);
    expect(p.choices.map((c) => c.label)).toEqual(['1 head', '2 heads', '3 heads', '6 heads']);
    expect(p.choices.map((c) => c.options.heads)).toEqual([1, 2, 3, 6]);
    expect(divisorsOf(768)).toEqual([1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]);
  });
  test('lines of different lengths: join them, or the lecture sentence', () => {
    const o = { ...base, sentence: 'a b c\n\nd e' };
    const p = oddInput(o, { status: 'sentence', message: 'these have 3, 2' });
    expect(p.text).toBe('these have 3, 2');
    expect(p.choices.map((c) => c.options.sentence)).toEqual(['a b c d e', DEFAULT_TEXT]);
  });
  test('an empty sentence: the lecture sentence; too many tokens: the first ones', () => {
    expect(oddInput({ ...base, sentence: '  ' }, { status: 'sentence', message: 'empty' }).choices).toHaveLength(1);
    const long = { ...base, maxTokens: 3, sentence: 'a b c d e' };
    const p = oddInput(long, { status: 'sentence', message: 'too many' });
    expect(p.choices[0]).toEqual({ label: 'Keep the first 3 tokens', options: { sentence: 'a b c' } });
  });
});
