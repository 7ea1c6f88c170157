// The kv panel's numbers (panels/kv/kv-numbers.js) against what this test computes itself through
// the public API: the grouped layer is the multi-head layer with each group's K and V columns
// replaced by their mean (built here by repeating the means, not by the panel's pooling), kvHeads =
// heads is multi-head bit for bit, N decode steps equal the causal forward, and the presets' bars
// are hw.cacheBytes'.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { ExplorerComputation } from '../../web/explorer/computation.js';
import { defaultOptions } from '../../web/explorer/options.js';
import {
  KV_HEADS,
  KV_WIDTH,
  MLA_LATENT,
  MLA_ROPE,
  kvChoices,
  poolHeads,
} from '../../web/explorer/panels/kv/kv-numbers.js';
import { formatBytes } from '../../web/explorer/panels/kv/kv-figures.js';
import { kvSentences, latentSentence } from '../../web/explorer/panels/kv/kv-panel.js';

let hw;
let computation;
beforeAll(async () => {
  hw = await loadHeadwise();
  computation = new ExplorerComputation(hw);
});
afterAll(() => computation.dispose());

const kvOf = (kvHeads, seed = 1) => computation.compute({ ...defaultOptions(), seed, kvHeads }, { parts: ['kv'] }).kv;

// Each query head's K/V columns replaced by its group's mean, kept at heads wide: a multi-head
// layer that computes what grouped-query attention on pooled K/V computes.
function repeatedMeans(matrix, rows, kvHeads) {
  const hd = KV_WIDTH / KV_HEADS;
  const group = KV_HEADS / kvHeads;
  const out = new Float32Array(matrix.length);
  for (let r = 0; r < rows; r += 1)
    for (let h = 0; h < KV_HEADS; h += 1)
      for (let d = 0; d < hd; d += 1) {
        const g0 = Math.floor(h / group) * group;
        let s = 0;
        for (let m = 0; m < group; m += 1) s += matrix[r * KV_WIDTH + (g0 + m) * hd + d];
        out[r * KV_WIDTH + h * hd + d] = s / group;
      }
  return out;
}

test('the K/V choices are the divisors of the query heads', () => {
  expect(kvChoices(8)).toEqual([8, 4, 2, 1]);
  expect(kvChoices(12)).toEqual([12, 6, 4, 3, 2, 1]);
  const m = Float32Array.from({ length: 2 * 8 }, (_, i) => i);
  expect(poolHeads(m, 2, 4, 2, 4)).toEqual(m);
  // Heads 0 and 1 of row 0 are [0, 1] and [2, 3]: their mean [1, 2].
  expect(Array.from(poolHeads(m, 2, 4, 2, 2))).toEqual([1, 2, 5, 6, 9, 10, 13, 14]);
});

test.each(kvChoices())('kvHeads %i: the panel computes GQA on pooled K/V, as the API does it here', (kvHeads) => {
  const data = kvOf(kvHeads);
  const { tokens } = data;
  const T = tokens.length;
  expect(data.kvHeadOf).toEqual(Array.from({ length: KV_HEADS }, (_, h) => Math.floor(h / (KV_HEADS / kvHeads))));
  const config = { batch: 1, tokens: T, dModel: KV_WIDTH, heads: KV_HEADS, causal: true, seed: 1 };
  const mha = hw.createAttention(config);
  const weights = mha.getWeights();
  // The panel's input (the lecture's tokens' vectors, scaled), through the multi-head layer with
  // each group's K/V columns replaced by their mean.
  const repeated = {
    wk: repeatedMeans(weights.wk, KV_WIDTH, kvHeads),
    wv: repeatedMeans(weights.wv, KV_WIDTH, kvHeads),
  };
  for (const b of ['bk', 'bv']) if (weights[b]) repeated[b] = repeatedMeans(weights[b], 1, kvHeads);
  mha.setWeights(repeated);
  const reference = mha.forward(data.input, { intermediates: true });
  mha.dispose();
  const tol = 1e-5 * Math.max(1, data.moved.scale);
  let worst = 0;
  reference.output.forEach((v, i) => (worst = Math.max(worst, Math.abs(v - data.output[i]))));
  expect(worst).toBeLessThanOrEqual(tol);
  reference.attention.forEach((v, i) => expect(Math.abs(v - data.attention[i])).toBeLessThanOrEqual(1e-5));
  // kvHeads = heads is multi-head bit for bit; decode = the causal forward within float rounding.
  expect(data.equal.maxDiff).toBe(0);
  if (kvHeads === KV_HEADS) expect(data.moved.maxDiff).toBe(0);
  else expect(data.moved.maxDiff).toBeGreaterThan(1e-3 * data.moved.scale);
  expect(data.decode.maxDiff).toBeLessThanOrEqual(1e-5 + 1e-5 * data.decode.scale);
  // The cache after step t: t positions of K and V, kvHeads heads of head_dim, float32.
  const hd = KV_WIDTH / KV_HEADS;
  data.cache.forEach((c, t) => {
    expect(c.length).toBe(t + 1);
    expect(c.capacity).toBe(T);
    expect(c.allocated).toBe(2 * T * kvHeads * hd * 4);
    expect(c.bytes).toBe(2 * (t + 1) * kvHeads * hd * 4);
    expect(c.mhaBytes).toBe(2 * (t + 1) * KV_HEADS * hd * 4);
  });
  const said = kvSentences(data);
  expect(said.equality).toContain('max |difference| of the outputs 0 (identical, bit for bit)');
  expect(said.steps).toContain(`cache grows to ${formatBytes(data.cache.at(-1).bytes)}`);
});

test("the presets' bars are hw.cacheBytes', the published models among them", () => {
  const { presets } = kvOf(2);
  expect(presets.map((p) => p.name)).toEqual(hw.cachePresets().map((p) => p.name));
  for (const p of presets) {
    const sizes = hw.cacheBytes(p.name);
    expect(p.bars[0].bytes).toBe(sizes.bytesPerToken);
    if (sizes.mhaBytesPerToken !== sizes.bytesPerToken) expect(p.bars[1].bytes).toBe(sizes.mhaBytesPerToken);
    else expect(p.bars).toHaveLength(1);
  }
  const llama70 = presets.find((p) => /70B/.test(p.label));
  expect(llama70.bars.map((b) => formatBytes(b.bytes))).toEqual(['320 KiB', '2.5 MiB']);
  const deepseek = presets.find((p) => /DeepSeek/.test(p.label));
  expect(deepseek.bars.map((b) => formatBytes(b.bytes))).toEqual(['67.5 KiB', '3.75 MiB']);
});

test('latent attention beside it: the two forms and the cache per token, as the API gives them here', () => {
  const { mla, kv } = computation.compute({ ...defaultOptions(), seed: 1, kvHeads: 2 }, { parts: ['kv', 'mla'] });
  const T = kv.tokens.length;
  const layer = hw.createAttention({ ...mla.config });
  const explicit = layer.forward(kv.input);
  const absorbed = layer.forward(kv.input, { form: 'absorbed' });
  layer.dispose();
  const maxDiff = (a, b) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);
  expect(mla.forms.maxDiff).toBe(maxDiff(explicit, absorbed)); // the same layer, the same numbers
  expect(mla.forms.maxDiff).toBeLessThanOrEqual(1e-6 * mla.forms.scale);
  expect(mla.decode.maxDiff).toBeLessThanOrEqual(1e-5);
  // Per token: the latent and the RoPE key, against multi-head's K and V of 8 heads of 4 (float32).
  expect(mla.perToken).toEqual({
    numbers: MLA_LATENT + MLA_ROPE,
    bytes: (MLA_LATENT + MLA_ROPE) * 4,
    mhaNumbers: 2 * KV_HEADS * (KV_WIDTH / KV_HEADS),
    mhaBytes: 2 * KV_WIDTH * 4,
  });
  expect(mla.cache).toEqual(Array.from({ length: T }, (_, t) => (t + 1) * (MLA_LATENT + MLA_ROPE) * 4));
  expect(latentSentence(mla)).toContain(`holds 10 numbers per token (40 B) against multi-head's 64 (256 B`);
});
