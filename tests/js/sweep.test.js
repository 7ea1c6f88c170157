// The heads sweep's statistics and units: medians with their spread, sample lengths sized for a
// coarse browser clock, and the axis unit chosen from the slowest median.
import { expect, test } from 'vitest';
import { repsFor, SAMPLE_MS, spread, SWEEP_CONFIG } from '../../web/explorer/panels/loop/sweep.js';
import { durationUnit } from '../../web/explorer/panels/loop/loop-fused-panel.js';

test('spread gives the median, min and max', () => {
  expect(spread([5, 1, 3])).toEqual({ median: 3, min: 1, max: 5 });
  expect(spread([4, 1, 3, 2])).toEqual({ median: 2.5, min: 1, max: 4 });
  expect(spread([7])).toEqual({ median: 7, min: 7, max: 7 });
});

test('a sample repeats a call until it lasts SAMPLE_MS, within bounds', () => {
  expect(SAMPLE_MS).toBeGreaterThanOrEqual(10); // 0.1 ms clock steps are then at most 1%
  expect(repsFor(0.003)).toBe(Math.ceil(SAMPLE_MS / 0.003));
  expect(repsFor(0.003) * 0.003).toBeGreaterThanOrEqual(SAMPLE_MS);
  expect(repsFor(25)).toBe(1);
  expect(repsFor(0)).toBe(20000); // a call the clock could not see is capped, not infinite
});

test("the sweep's shapes are the lecture's (and bench/cases.mjs's heads-N)", async () => {
  expect(SWEEP_CONFIG).toEqual({ batch: 2, tokens: 6, dModel: 6, headDim: 3, causal: true });
  const { CASES } = await import('../../bench/cases.mjs');
  const benched = CASES.filter((c) => /^heads-/.test(c.name));
  expect(benched.length).toBeGreaterThan(0);
  for (const c of benched) {
    expect([c.batch, c.tokens, c.dModel, c.headDim]).toEqual([2, 6, 6, 3]);
  }
});

test('the axis is in ms once the slowest median reaches 1 ms, else in us', () => {
  const point = (loop, fused) => ({ loop: { median: loop }, fused: { median: fused } });
  expect(durationUnit([point(0.004, 0.003), point(0.4, 0.2)])).toEqual({ name: 'us', perMs: 1000 });
  expect(durationUnit([point(0.004, 0.003), point(4.8, 1.5)])).toEqual({ name: 'ms', perMs: 1 });
});
