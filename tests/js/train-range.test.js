// The range that trains: parameters within +-2^10 give finite steps (the documented range, at
// the defaults and two other shapes); far beyond it a step whose loss or gradients are not finite
// changes no weight and is counted, and the trainer trains again from sane weights.
import { expect, test } from 'vitest';
import { loadHeadwise, TRAINABLE_RANGE } from '../../web/headwise.js';

const SHAPES = [{}, { layers: 2, layerNorm: true }, { dModel: 64, heads: 4 }];

// Every parameter set to +-magnitude, with the signs of the trainer's own initial weights.
function signsTimes(weights, magnitude) {
  const out = {};
  for (const [name, value] of Object.entries(weights)) {
    if (Array.isArray(value)) out[name] = value.map((x) => (x < 0 ? -magnitude : magnitude));
  }
  return out;
}

test.each(SHAPES)('parameters of +-2^10 train with finite steps (%j)', async (shape) => {
  const hw = await loadHeadwise();
  const t = hw.createTrainer({ seed: 1, ...shape });
  try {
    t.setWeights(signsTimes(t.getWeights(), TRAINABLE_RANGE));
    for (let i = 0; i < 20; i += 1) expect(Number.isFinite(t.step(1).loss)).toBe(true);
    const e = t.evaluate();
    expect(e.divergedSteps).toBe(0);
    expect(Number.isFinite(e.loss)).toBe(true);
    expect(e.step).toBe(20); // every step taken (Adam's steps are below float32's spacing at 2^10)
  } finally {
    t.dispose();
  }
});

test('parameters of 2^20: the steps diverge, change nothing, are counted; sane weights train again', async () => {
  const hw = await loadHeadwise();
  const t = hw.createTrainer({ seed: 1 });
  try {
    const sane = t.getWeights();
    const huge = Object.fromEntries(Object.entries(signsTimes(sane, 1)).map(([k, v]) => [k, v.map(() => 2 ** 20)]));
    t.setWeights(huge);
    const r = t.step(5);
    expect(Number.isNaN(r.loss)).toBe(true);
    expect(t.evaluate().divergedSteps).toBe(5);
    const kept = t.getWeights();
    for (const name of Object.keys(huge))
      expect(
        kept[name].every((x) => x === 2 ** 20),
        name,
      ).toBe(true);
    // The saved model loads back (nothing became NaN), and sane weights train.
    const copy = hw.createTrainer({ seed: 1 });
    copy.setWeights(JSON.parse(JSON.stringify(kept)));
    copy.dispose();
    t.setWeights(sane);
    const first = t.step(1).loss;
    for (let i = 0; i < 8; i += 1) t.step(25);
    expect(t.step(1).loss).toBeLessThan(first);
  } finally {
    t.dispose();
  }
});
