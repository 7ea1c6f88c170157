// The one rule of which head does which job (web/head-roles.js): the Learn verdict and the API's
// Trainer.specialisation() give the same state on the same run; a 0.52 / 0.47 split is no role.
import { describe, expect, test } from 'vitest';
import { headRoles, loadHeadwise, ROLE_SHARE } from '../../web/headwise.js';
import { verdictOf } from '../../web/explorer/panels/learn/learn-verdict.js';

describe('headRoles', () => {
  test('a head finds a word at ROLE_SHARE (0.8) or more of its attention from "?"', () => {
    expect(ROLE_SHARE).toBe(0.8);
    const clean = headRoles([
      { verb: 0.97, noun: 0 },
      { verb: 0, noun: 0.96 },
    ]);
    expect(clean).toMatchObject({ state: 'specialised', roles: ['verb', 'noun'], verbHead: 0, nounHead: 1 });
    // A clean but not perfect split (0.85 / 0.88) is a split: the API's 0.9 called it "partial".
    const good = headRoles([
      { verb: 0.85, noun: 0.02 },
      { verb: 0.01, noun: 0.88 },
    ]);
    expect(good.state).toBe('specialised');
  });

  test('0.52 / 0.47 is no noun head, with 1, 2 or 4 heads', () => {
    const split = { verb: 0.47, noun: 0.52 };
    const verbHead = { verb: 0.97, noun: 0.01 };
    for (const shares of [[split], [verbHead, split], [verbHead, split, { verb: 0.2, noun: 0.3 }, split]]) {
      const r = headRoles(shares);
      expect(r.roles.filter((role) => role === 'noun')).toEqual([]);
      expect(r.state).not.toBe('specialised');
    }
    expect(headRoles([split, split]).state).toBe('partial'); // one share at 0.5 or more: not the 0.3 / 0.3 compromise
    expect(headRoles([{ verb: 0.3, noun: 0.3 }]).state).toBe('mixed');
  });

  test('the control task asks only for the verb', () => {
    expect(headRoles([{ verb: 0.93, noun: 0.01 }], { variant: 'verb' })).toMatchObject({
      state: 'specialised',
      roles: ['verb'],
      nounHead: null,
      noun: null,
    });
  });

  test('bad input is refused in words', () => {
    expect(() => headRoles([{ verb: 1, noun: 0 }], { threshold: 0 })).toThrow(/threshold must be a number in \(0, 1\]/);
    expect(() => headRoles([])).toThrow(TypeError);
  });
});

test('the API and the Learn verdict agree on the same runs (seeds 2 and 7, 2 and 4 heads)', async () => {
  const hw = await loadHeadwise();
  for (const seed of [2, 7]) {
    for (const heads of [2, 4]) {
      const trainer = hw.createTrainer({ heads, dModel: 32, seed, evalSize: 512 });
      try {
        for (let done = 0; done < 1000; done += trainer.maxStepsPerCall) {
          trainer.step(Math.min(trainer.maxStepsPerCall, 1000 - done));
        }
        const shares = trainer.headShares();
        const api = trainer.specialisation();
        expect(api).toEqual(headRoles(shares));
        const accuracy = trainer.evaluate().accuracy;
        const { text } = verdictOf([{ heads, accuracy, shares }]);
        // The verdict names a verb head and a noun head exactly when the API says 'specialised'.
        const named = /finds? the verb/.test(text) && /finds? the noun/.test(text);
        expect(named, `seed ${seed}, ${heads} heads: ${api.state}; ${text}`).toBe(api.state === 'specialised');
      } finally {
        trainer.dispose();
      }
    }
  }
}, 60_000);
