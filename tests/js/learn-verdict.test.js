import { describe, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { LearnSession } from '../../web/explorer/learn-session.js';
import {
  DEFAULT_LEARN_SEED,
  SAMPLE_WORDS,
  SAMPLE_NOUN_AT,
  SAMPLE_VERB_AT,
  headRoles,
  lateRise,
  settledNote,
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
  test('the sample positions are its latest verb and latest noun', () => {
    expect([SAMPLE_WORDS[SAMPLE_VERB_AT], SAMPLE_WORDS[SAMPLE_NOUN_AT]]).toEqual(['catch', 'ball']);
  });
  test('4 heads: the heads that find a word are named, the others left out', () => {
    const shares = [
      { verb: 0.95, noun: 0.01 },
      { verb: 0.2, noun: 0.3 },
      { verb: 0.01, noun: 0.97 },
      { verb: 0.9, noun: 0.02 },
    ];
    const { text, stuck } = verdictOf([
      { heads: 1, accuracy: 0.79, shares: [{ verb: 0.3, noun: 0.3 }] },
      { heads: 4, accuracy: 0.995, shares },
    ]);
    expect(text).toBe(
      '1 head: 79% - it cannot look at the verb and the noun at once; 4 heads: 100% - heads 1 and 4 find the ' +
        'verb, head 3 finds the noun.',
    );
    expect(stuck).toBe(false);
    const mixed = Array.from({ length: 4 }, () => ({ verb: 0.3, noun: 0.3 }));
    expect(verdictOf([{ heads: 4, accuracy: 0.8, shares: mixed }]).stuck).toBe(true);
  });
  test('settled: a run whose accuracy rose 2 points or more over its last 200 steps is named', () => {
    const curve = (at) => Array.from({ length: 251 }, (_, k) => ({ step: 4 * k, accuracy: at(4 * k) }));
    const flat = { heads: 2, curve: curve((s) => Math.min(0.99, s / 300)) };
    const creeping = { heads: 1, curve: curve((s) => 0.5 + 0.0002 * s) }; // +4 points per 200 steps
    expect(lateRise(flat.curve)).toBeCloseTo(0);
    expect(lateRise(creeping.curve)).toBeCloseTo(0.04);
    expect(lateRise(creeping.curve.slice(0, 10))).toBe(null);
    expect(settledNote([creeping, flat])).toBe(
      'After 1000 steps, still rising over the last 200 steps: 1 head +4 points; the others had settled.',
    );
    expect(settledNote([flat])).toBe('After 1000 steps every run had settled.');
    const nearlyDone = { heads: 4, curve: curve((s) => 0.95 + 0.00003 * s) }; // 97.5%, +0.6 points
    const almost = { heads: 4, curve: curve((s) => 0.9 + 0.00008 * s) }; // 98%, +1.6 points: settled
    const highRising = { heads: 2, curve: curve((s) => 0.92 + 0.00005 * s) }; // 97%, +1 point
    expect(settledNote([nearlyDone, almost, highRising])).toBe('After 1000 steps every run had settled.');
    const upHigh = { heads: 2, curve: curve((s) => 0.88 + 0.0001 * s) }; // ends at 98%, +2 points: settled
    expect(settledNote([upHigh])).toBe('After 1000 steps every run had settled.');
    expect(settledNote([creeping])).toBe('After 1000 steps, still rising over the last 200 steps: 1 head +4 points.');
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
    // The 2-head run has settled by step 1000 (the 1-head one may still creep up, far below).
    expect(verdict.settled).toMatch(/^After 1000 steps/);
    expect(verdict.settled).not.toMatch(/2 heads \+/);
  } finally {
    session.dispose();
  }
}, 60_000);
