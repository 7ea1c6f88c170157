// What sharing keys and values costs trained models (the kv panel's shipped results): the results
// file is what scripts/make-kv-sharing.mjs writes, bit for bit (its first point retrained here for
// every K/V head count), each model's parameters and cache what the trainer and the shapes say,
// and the panel's rows and words its numbers.
import { describe, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { KV_SHARING_RUN, sharingPoint, sharingRows, sharingText } from '../../web/explorer/panels/kv/kv-sharing.js';
import RESULTS from '../../web/explorer/panels/kv/kv-sharing-results.js';

const hw = await loadHeadwise();
const SKILLS = ['subject', 'object', 'possessive', 'agreement', 'name'];

describe('kv sharing results', () => {
  test('hold every model, seed and step of the run', () => {
    expect(RESULTS.models.map((m) => m.kvHeads)).toEqual([4, 2, 1]);
    for (const m of RESULTS.models) {
      expect(m.seeds.map((s) => s.seed)).toEqual([1, 2, 3]);
      for (const s of m.seeds) {
        expect(s.points.map((p) => p.step)).toEqual([100, 500, 1000, 2000]);
        for (const p of s.points) for (const skill of SKILLS) expect(p.skills[skill]).toBeGreaterThanOrEqual(0);
      }
    }
  });

  test("each model's parameters are the trainer's, fewer as K/V heads are shared", () => {
    for (const m of RESULTS.models) {
      const trainer = hw.createTrainer({ ...KV_SHARING_RUN.options, kvHeads: m.kvHeads, seed: 1 });
      expect(m.parameters).toBe(trainer.parameterCount);
      trainer.dispose();
    }
    // Each K/V head given up drops its key and value projections: 2 x (64 x 16 weights + 16 biases).
    const [mha, gqa, mqa] = RESULTS.models.map((m) => m.parameters);
    expect(mha - gqa).toBe(2 * 2 * (64 * 16 + 16));
    expect(gqa - mqa).toBe(1 * 2 * (64 * 16 + 16));
  });

  test('the first point of every model retrains bit for bit (seed 1, step 100)', { timeout: 120_000 }, () => {
    for (const m of RESULTS.models) {
      const trainer = hw.createTrainer({ ...KV_SHARING_RUN.options, kvHeads: m.kvHeads, seed: 1 });
      let done = 0;
      while (done < 100) done = trainer.step(Math.min(trainer.maxStepsPerCall, 100 - done)).step;
      expect(sharingPoint(100, trainer.evaluate())).toEqual(m.seeds[0].points[0]);
      trainer.dispose();
    }
  });

  test('rows: mean, lowest and highest over the seeds, and the cache per token from the shapes', () => {
    const rows = sharingRows(RESULTS);
    rows.forEach((r, i) => {
      const m = RESULTS.models[i];
      expect(r.cachePerToken).toBe(2 * m.kvHeads * 16);
      r.skills.forEach((s) => {
        const values = m.seeds.map((seed) => seed.points.at(-1).skills[s.skill]);
        let sum = 0;
        for (const v of values) sum += v;
        expect(s.mean).toBeCloseTo(sum / 3, 12);
        expect(s.low).toBe(Math.min(...values));
        expect(s.high).toBe(Math.max(...values));
      });
    });
    expect(sharingRows(RESULTS, 100)[0].skills[0].mean).not.toBe(rows[0].skills[0].mean);
  });

  test("the words are the rows' numbers", () => {
    const rows = sharingRows(RESULTS, 1000);
    const last = sharingRows(RESULTS);
    const text = sharingText(rows, last, 1000);
    expect(text).toMatch(/^Trained on the story task, mean of 3 seeds, at step 1000: 4 K\/V heads \(multi-head\): /);
    for (const r of rows) {
      expect(text).toContain(`pronouns ${r.pronouns.toFixed(2)}, agreement ${r.skills[3].mean.toFixed(2)}`);
      if (r.kvHeads < 4) expect(text).toContain(`${r.cachePerToken} cached numbers a token against 128`);
    }
    const lowest = Math.min(...last.flatMap((r) => r.skills.map((s) => s.mean)));
    expect(text).toContain(`By step 2000 every probe is at ${lowest.toFixed(2)} or more for all three`);
  });
});
