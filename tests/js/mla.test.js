// Multi-head latent attention through the public API (createAttention({ attention: 'mla' })):
// both forms against a plain double-precision loop written out here (the down-projection to the
// latent, every head's up-projections, the decoupled RoPE key shared by the heads), the two forms
// against each other, decode() with the latent cache against forward(), the cache's bytes, and
// the refusals, with the module working after each.
import { beforeAll, expect, test } from 'vitest';
import { HeadwiseError, loadHeadwise } from '../../web/headwise.js';
import './matchers.js';
import { referenceMla, rowTimes } from './mla-reference.js';

let hw;
beforeAll(async () => {
  hw = await loadHeadwise();
});

const maxAbs = (a) => a.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
const maxDiff = (a, b) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);

function lectureStillWorks() {
  const layer = hw.createAttention({ attention: 'mla', kvLatent: 3, ropeDim: 2, seed: 3 });
  const x = hw.randomInput(layer.config, 3);
  expect(layer.forward(x)).toBeCloseToReference(referenceMla(layer.config, layer.getWeights(), x));
  layer.dispose();
}

// Tail sizes: widths that leave SIMD remainders, one head and several, odd latents, no RoPE key.
const SIZES = [
  { batch: 2, tokens: 5, dModel: 6, heads: 2, kvLatent: 3, ropeDim: 2 },
  { batch: 1, tokens: 7, dModel: 10, heads: 2, kvLatent: 5, ropeDim: 4, seed: 7 },
  { batch: 1, tokens: 9, dModel: 12, heads: 3, headDim: 5, kvLatent: 7, ropeDim: 0, seed: 2 },
  { batch: 2, tokens: 4, dModel: 8, heads: 1, kvLatent: 9, ropeDim: 8, causal: false, seed: 5 },
];

test.each(SIZES)('both forms match the double loop within 1e-5 + 1e-5 |ref| (%o)', (options) => {
  const layer = hw.createAttention({ attention: 'mla', ...options });
  const x = hw.randomInput(layer.config, 11);
  const expected = referenceMla(layer.config, layer.getWeights(), x);
  const explicit = layer.forward(x);
  const absorbed = layer.forward(x, { form: 'absorbed' });
  expect(explicit).toBeCloseToReference(expected);
  expect(absorbed).toBeCloseToReference(expected);
  // One function in two forms: within 1e-6 of the output's largest value.
  expect(maxDiff(explicit, absorbed) / maxAbs(explicit)).toBeLessThan(1e-6);
  layer.dispose();
});

test('intermediates: the latent and the RoPE key decode() caches, the attention rows sum to 1', () => {
  const layer = hw.createAttention({
    attention: 'mla',
    batch: 1,
    tokens: 5,
    dModel: 6,
    heads: 2,
    kvLatent: 3,
    ropeDim: 2,
  });
  const x = hw.randomInput(layer.config, 4);
  const r = layer.forward(x, { intermediates: true, form: 'absorbed' });
  expect(r.form).toBe('absorbed');
  expect(layer.shapes.latent).toEqual([1, 5, 3]);
  expect(layer.shapes.ropeKey).toEqual([1, 5, 2]);
  expect(layer.shapes.attention).toEqual([1, 2, 5, 5]);
  const w = layer.getWeights();
  const latent0 = rowTimes(x, 0, 6, w.wDkv, 3, 0, 3);
  expect(r.latent.subarray(0, 3)).toBeCloseToReference(latent0);
  for (let row = 0; row < 10; row += 1) {
    const sum = r.attention.subarray(row * 5, row * 5 + 5).reduce((a, v) => a + v, 0);
    expect(Math.abs(sum - 1)).toBeLessThan(1e-6);
    expect(r.attention[row * 5 + (row % 5)]).toBeGreaterThan(0); // itself
    if (row % 5 < 4) expect(r.attention[row * 5 + 4]).toBe(0); // causal
  }
  layer.dispose();
});

test('setWeights: both forms follow new weights (the absorbed ones are folded again)', () => {
  const config = { attention: 'mla', batch: 1, tokens: 4, dModel: 6, heads: 2, kvLatent: 4, ropeDim: 2, seed: 1 };
  const layer = hw.createAttention(config);
  const other = hw.createAttention({ ...config, seed: 9 });
  const x = hw.randomInput(layer.config, 2);
  layer.forward(x, { form: 'absorbed' }); // absorbs the seed-1 weights
  layer.setWeights(other.getWeights());
  const expected = referenceMla(layer.config, other.getWeights(), x);
  expect(layer.forward(x, { form: 'absorbed' })).toBeCloseToReference(expected);
  expect(layer.forward(x)).toBeCloseToReference(expected);
  expect(() => layer.setWeights({ wk: new Float32Array(36) })).toThrow(/unknown weight "wk"/);
  layer.dispose();
  other.dispose();
});

test('decode: N steps equal the causal forward; the cache holds kvLatent + ropeDim per position', () => {
  const config = { attention: 'mla', batch: 2, tokens: 6, dModel: 8, heads: 2, kvLatent: 5, ropeDim: 2, seed: 4 };
  const layer = hw.createAttention(config);
  const x = hw.randomInput(layer.config, 6);
  const full = layer.forward(x);
  const { batch: B, tokens: T, dModel: D } = layer.config;
  let worst = 0;
  for (let t = 0; t < T; t += 1) {
    const token = new Float32Array(B * D);
    for (let b = 0; b < B; b += 1) token.set(x.subarray((b * T + t) * D, (b * T + t + 1) * D), b * D);
    const out = layer.decode(token);
    for (let b = 0; b < B; b += 1) {
      const expected = full.subarray((b * T + t) * D, (b * T + t + 1) * D);
      expect(out.subarray(b * D, (b + 1) * D)).toBeCloseToReference(expected);
      worst = Math.max(worst, maxDiff(out.subarray(b * D, (b + 1) * D), expected));
    }
    expect(layer.cache.length).toBe(t + 1);
  }
  expect(worst).toBeLessThan(1e-5);
  // The whole cache is allocated at the first step: B x tokens x (kvLatent + ropeDim) floats.
  expect(layer.cache).toEqual({ length: 6, capacity: 6, bytes: 2 * 6 * (5 + 2) * 4 });
  expect(() => layer.decode(new Float32Array(B * D))).toThrow(/latent cache is full/);
  layer.resetCache();
  expect(layer.cache.bytes).toBe(0);
  const first = new Float32Array(B * D);
  for (let b = 0; b < B; b += 1) first.set(x.subarray(b * T * D, b * T * D + D), b * D);
  expect(layer.decode(first)).toBeCloseToReference([...full.subarray(0, D), ...full.subarray(T * D, T * D + D)]);
  layer.dispose();
});

test.each([
  [{ attention: 'mla' }, /attention "mla" needs kvLatent/],
  [{ attention: 'mla', kvLatent: 4, ropeDim: 3 }, /ropeDim 3 must be even/],
  [{ attention: 'mla', kvLatent: 4, ropeDim: 4 }, /ropeDim 4 is more than headDim \(3\)/],
  [{ attention: 'mla', kvLatent: 4, kvHeads: 1 }, /leave kvHeads out/],
  [{ attention: 'mla', kvLatent: 4, bias: true }, /no biases/],
  [{ attention: 'mla', kvLatent: 4, positions: 'rope' }, /leave positions out/],
  [{ kvLatent: 4 }, /kvLatent belongs to multi-head latent attention/],
  [{ attention: 'gqa' }, /attention must be one of "mha", "mla"/],
  [{ attention: 'mla', kvLatent: 1.5 }, /kvLatent must be a whole number/],
  [{ attention: 'mla', kvLatent: 4, memoryBudget: 1000 }, /more than the memory budget/],
])('refused in words: %o', (config, message) => {
  expect(() => hw.createAttention(config)).toThrow(message);
  expect(hw.check(config)).toMatch(message);
  lectureStillWorks();
});

test('a refused decode and a disposed layer leave the module working', () => {
  // 3,312 bytes without the cache (492 floats, the object and 20 headers), 3,528 with it.
  const layer = hw.createAttention({ attention: 'mla', kvLatent: 2, ropeDim: 2, memoryBudget: 3400 });
  const before = hw.liveLayers();
  expect(() => layer.decode(new Float32Array(6).fill(NaN))).toThrow(RangeError);
  expect(() => layer.decode(new Float32Array(6))).toThrow(
    /latent cache \(96 bytes for 6 positions\) need .* more than the memory budget/,
  );
  expect(layer.cache.bytes).toBe(0);
  expect(layer.forward(new Float32Array(36)).length).toBe(36);
  layer.dispose();
  expect(hw.liveLayers()).toBe(before - 1);
  expect(() => layer.forward(new Float32Array(36))).toThrow(HeadwiseError);
  expect(() => layer.forward(new Float32Array(36), { form: 'folded' })).toThrow(/form must be/);
  expect(() => hw.shapeTrace({ attention: 'mla', kvLatent: 2 })).toThrow(/shapeTrace traces multi-head attention/);
  lectureStillWorks();
});

test('the default is multi-head: attention "mha" gives the same layer as leaving it out', () => {
  const a = hw.createAttention({ seed: 2 });
  const b = hw.createAttention({ seed: 2, attention: 'mha' });
  const x = hw.randomInput(a.config, 1);
  expect(b.forward(x)).toEqual(a.forward(x));
  expect(a.config.attention).toBe('mha');
  a.dispose();
  b.dispose();
});
