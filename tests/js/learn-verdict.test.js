import { describe, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { LearnSession } from '../../web/explorer/learn-session.js';
import {
  DEFAULT_LEARN_SEED,
  SAMPLE_WORDS,
  headRoles,
  smooth,
  specialised,
  verdictOf,
} from '../../web/explorer/learn-verdict.js';

describe('the Learn verdict', () => {
  test('the sample sequence is 11 words and "?"', () => {
    expect(SAMPLE_WORDS).toHaveLength(12);
    expect(SAMPLE_WORDS.at(-1)).toBe('?');
  });
  test('smooth starts at the first value', () => {
    expect(smooth(null, 0.5)).toBe(0.5);
    expect(smooth(0, 1, 0.9)).toBeCloseTo(0.1);
  });
  test('roles and specialisation', () => {
    expect(
      headRoles([
        { verb: 0.97, noun: 0 },
        { verb: 0, noun: 0.97 },
      ]),
    ).toEqual(['verb', 'noun']);
    expect(
      specialised([
        { verb: 0.3, noun: 0.3 },
        { verb: 0.3, noun: 0.3 },
      ]),
    ).toBe(false);
  });
  test('the lecture verdict', () => {
    const { text, stuck } = verdictOf([
      { heads: 1, accuracy: 0.81, shares: [{ verb: 0.3, noun: 0.28 }] },
      {
        heads: 2,
        accuracy: 1,
        shares: [
          { verb: 0.96, noun: 0 },
          { verb: 0, noun: 0.97 },
        ],
      },
    ]);
    expect(text).toBe(
      '1 head: 81% - it cannot look at the verb and the noun at once; 2 heads: 100% - head 1 finds the verb, ' +
        'head 2 finds the noun.',
    );
    expect(stuck).toBe(false);
  });
  test('a stuck run says so', () => {
    const { text, stuck } = verdictOf([
      {
        heads: 2,
        accuracy: 0.82,
        shares: [
          { verb: 0.3, noun: 0.3 },
          { verb: 0.31, noun: 0.29 },
        ],
      },
    ]);
    expect(stuck).toBe(true);
    expect(text).toMatch(/stuck: the heads took the same compromise/);
  });
  test('the control task', () => {
    expect(verdictOf([{ heads: 1, accuracy: 0.99, shares: [{ verb: 0.9, noun: 0 }] }], 'verb').text).toMatch(
      /one head is enough/,
    );
  });
});

test('the default seed specialises: 2 heads find verb and noun, 1 head stays below 90%', async () => {
  const hw = await loadHeadwise();
  const session = new LearnSession(hw, { seed: DEFAULT_LEARN_SEED, variant: 'verb-noun', dModel: 32 });
  try {
    while (!session.done) session.slice(50);
    let verdict = null;
    while (!verdict) verdict = session.settleStep();
    const [one, two] = session.runs.map((r) => r.result);
    expect(two.accuracy).toBeGreaterThan(0.95);
    expect(one.accuracy).toBeLessThan(0.9);
    expect(specialised(two.shares)).toBe(true);
    expect(verdict.stuck).toBe(false);
  } finally {
    session.dispose();
  }
}, 60_000);
