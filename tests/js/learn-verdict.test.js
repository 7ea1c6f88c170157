// The Learn panel's verdict (web/explorer/panels/learn/learn-verdict.js): per model the share of held-out
// answers right, with the right verb and with the right noun; which head finds which word (the rule
// of head-roles.js); and when each model stopped training: settled, plateaued, or still rising.
import { describe, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { LearnSession } from '../../web/explorer/panels/learn/learn-session.js';
import {
  DEFAULT_LEARN_SEED,
  LEARN_STEPS,
  MAX_LEARN_STEPS,
  SAMPLE_WORDS,
  SAMPLE_NOUN_AT,
  SAMPLE_VERB_AT,
  hasSettled,
  lateRise,
  settledNote,
  smooth,
  verdictOf,
} from '../../web/explorer/panels/learn/learn-verdict.js';

const answers = (rightVerb, rightNoun) => ({ answers: 2048, rightVerb, rightNoun });

describe('the Learn verdict', () => {
  test('the sample sequence is 11 words and "?"; its latest verb and noun', () => {
    expect(SAMPLE_WORDS).toHaveLength(12);
    expect(SAMPLE_WORDS.at(-1)).toBe('?');
    expect([SAMPLE_WORDS[SAMPLE_VERB_AT], SAMPLE_WORDS[SAMPLE_NOUN_AT]]).toEqual(['catch', 'ball']);
  });
  test('smooth starts at the first value', () => {
    expect(smooth(null, 0.5)).toBe(0.5);
    expect(smooth(0, 1, 0.9)).toBeCloseTo(0.1);
  });
  test('the lecture verdict: each model with its right verbs and right nouns', () => {
    const { text, stuck } = verdictOf([
      { heads: 1, accuracy: 0.81, shares: [{ verb: 0.3, noun: 0.28 }], answers: answers(0.9, 0.89) },
      {
        heads: 2,
        accuracy: 1,
        shares: [
          { verb: 0.96, noun: 0 },
          { verb: 0, noun: 0.97 },
        ],
        answers: answers(1, 1),
      },
    ]);
    expect(text).toBe(
      '1 head: 81% right (right verb 90%, right noun 89%) - one softmax row split between the verb (30%) and ' +
        'the noun (28%); 2 heads: 100% right (right verb 100%, right noun 100%) - head 1 finds the verb, ' +
        'head 2 finds the noun.',
    );
    expect(stuck).toBe(false);
  });
  test("the slide's point: each run's accuracy, then who finds what in the run that split the work", () => {
    const one = { heads: 1, accuracy: 0.81, shares: [{ verb: 0.3, noun: 0.28 }] };
    const split = {
      heads: 2,
      accuracy: 0.996,
      shares: [
        { verb: 0.02, noun: 0.95 },
        { verb: 0.96, noun: 0.01 },
      ],
    };
    expect(verdictOf([one, split]).point).toBe(
      'Held out: 1 head 81%, 2 heads 100% right; 2 heads: head 2 finds the verb, head 1 finds the noun.',
    );
    const mixed = {
      ...split,
      shares: [
        { verb: 0.3, noun: 0.3 },
        { verb: 0.31, noun: 0.29 },
      ],
    };
    expect(verdictOf([one, mixed]).point).toBe(
      'Held out: 1 head 81%, 2 heads 100% right; no run split the verb and the noun between heads.',
    );
    expect(verdictOf([one, split], 'verb').point).toBe(
      'Held out: 1 head 81%, 2 heads 100% right (the control: the latest verb only).',
    );
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
  test('4 heads: the heads that find a word are named; a 0.52 / 0.47 head is no noun head', () => {
    const shares = [
      { verb: 0.95, noun: 0.01 },
      { verb: 0.2, noun: 0.3 },
      { verb: 0.01, noun: 0.97 },
      { verb: 0.9, noun: 0.02 },
    ];
    const { text, stuck } = verdictOf([{ heads: 4, accuracy: 0.995, shares }]);
    expect(text).toBe('4 heads: 100% right - heads 1 and 4 find the verb, head 3 finds the noun.');
    expect(stuck).toBe(false);
    const split = [
      { verb: 0.97, noun: 0.01 },
      { verb: 0.47, noun: 0.52 },
      { verb: 0.2, noun: 0.3 },
      { verb: 0.1, noun: 0.45 },
    ];
    const partial = verdictOf([{ heads: 4, accuracy: 0.96, shares: split, answers: answers(1, 0.96) }]).text;
    expect(partial).toBe(
      '4 heads: 96% right (right verb 100%, right noun 96%) - head 1 finds the verb, no head puts 80% on the noun ' +
        '(the most is 52%).',
    );
    expect(verdictOf([{ heads: 2, accuracy: 0.62, shares: split.slice(0, 2) }]).text).toMatch(
      /no head puts 80% on the noun \(the most is 52%\): the work is not split, try another seed/,
    );
    const mixed = Array.from({ length: 4 }, () => ({ verb: 0.3, noun: 0.3 }));
    expect(verdictOf([{ heads: 4, accuracy: 0.8, shares: mixed }]).stuck).toBe(true);
  });
  test('a model trains at least LEARN_STEPS, then until its held-out accuracy stops rising', () => {
    const checks = (at, last) =>
      Array.from({ length: last / 250 }, (_, k) => ({ step: 250 * (k + 1), accuracy: at(250 * (k + 1)) }));
    const fast = checks((s) => Math.min(0.99, s / 300), 1000);
    const creeping = checks((s) => 0.5 + 0.00008 * s, 1500); // +4 points per 500 steps
    const flat = checks((s) => Math.min(0.8, 0.4 + s / 2500), 2000); // 80% from step 1000
    expect(lateRise(creeping)).toBeCloseTo(0.04);
    expect(lateRise(creeping.slice(0, 1))).toBe(null);
    expect(hasSettled(fast.slice(0, 2))).toBe(false); // 500 steps: too early, even at 99%
    expect(hasSettled(fast)).toBe(true);
    expect(hasSettled(creeping)).toBe(false);
    expect(hasSettled(flat)).toBe(true);
    const capped = checks((s) => 0.5 + 0.00008 * s, MAX_LEARN_STEPS);
    expect(hasSettled(capped)).toBe(true);
    expect(LEARN_STEPS).toBe(1000);
    expect(
      settledNote([
        { heads: 1, checks: flat },
        { heads: 2, checks: fast },
      ]),
    ).toBe(
      'Trained until the held-out accuracy stopped rising: 1 head has plateaued at 80% by step 2000; 2 heads ' +
        'reached 99% by step 1000.',
    );
    expect(settledNote([{ heads: 1, checks: capped }])).toBe(
      'Trained until the held-out accuracy stopped rising: 1 head was still rising at 74% by step 3000 (+4 points ' +
        'in its last 500 steps).',
    );
  });
  test('the control task', () => {
    expect(verdictOf([{ heads: 1, accuracy: 0.99, shares: [{ verb: 0.9, noun: 0 }] }], 'verb').text).toMatch(
      /one head is enough/,
    );
  });
});

test("evaluate() gives each answer's parts: the right verb and the right noun", async () => {
  const hw = await loadHeadwise();
  for (const [heads, seed, variant, steps] of [
    [1, 2, 'verb-noun', 400],
    [2, 7, 'verb-noun', 300],
    [2, 3, 'verb', 150],
  ]) {
    const trainer = hw.createTrainer({ heads, dModel: 32, seed, variant, evalSize: 1024 });
    try {
      trainer.step(steps);
      const { accuracy, parts } = trainer.evaluate();
      expect(parts.verb).toBeGreaterThanOrEqual(accuracy);
      if (variant === 'verb') {
        expect(parts.verb).toBe(accuracy);
        expect(parts.noun).toBeUndefined();
      } else {
        expect(parts.noun).toBeGreaterThanOrEqual(accuracy);
        expect(accuracy).toBeGreaterThanOrEqual(parts.verb + parts.noun - 1 - 1e-12);
      }
    } finally {
      trainer.dispose();
    }
  }
}, 60_000);

test('the default seed: 2 heads split the work, 1 head plateaus far below; right verbs and nouns', async () => {
  const hw = await loadHeadwise();
  const session = new LearnSession(hw, { seed: DEFAULT_LEARN_SEED, variant: 'verb-noun', dModel: 32 });
  try {
    while (!session.done) if (!session.checkStep()) session.slice(50);
    let verdict = null;
    while (!verdict) verdict = session.settleStep();
    const [one, two] = session.runs.map((r) => r.result);
    expect(two.accuracy).toBeGreaterThan(0.95);
    expect(one.accuracy).toBeLessThan(0.9);
    expect(two.answers.rightVerb).toBeGreaterThan(0.97);
    expect(two.answers.rightNoun).toBeGreaterThan(0.97);
    expect(Math.min(one.answers.rightVerb, one.answers.rightNoun)).toBeLessThan(0.95);
    expect(verdict.text).toMatch(
      /^1 head: \d+% right \(right verb \d+%, right noun \d+%\) - one softmax row split between the verb \(\d+%\)/,
    );
    expect(verdict.text).toMatch(/2 heads: \d+% right \(right verb \d+%, right noun \d+%\) - head \d finds the/);
    expect(verdict.stuck).toBe(false);
    // Nobody is told to "train longer": each model stopped because its curve settled.
    expect(verdict.settled).not.toMatch(/still rising/);
    expect(verdict.settled).toMatch(/1 head has plateaued at \d+% by step \d+/);
    console.log(`# default seed: ${verdict.text} ${verdict.settled} (steps ${session.runs.map((r) => r.steps)})`);
  } finally {
    session.dispose();
  }
}, 60_000);
