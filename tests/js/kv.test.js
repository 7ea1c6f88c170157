// Sharing keys and values through the public API: kvHeads (grouped-query, multi-query) against
// the double reference on K/V weights repeated for each group, kvHeads = heads bit for bit
// multi-head, decode() with the KV cache against forward(), cacheBytes() on the presets, and the
// refusals, with the module working after each.
import { beforeAll, expect, test } from 'vitest';
import { HeadwiseError, loadHeadwise } from '../../web/headwise.js';
import { referenceMha } from './reference.js';
import './matchers.js';

let hw;
beforeAll(async () => {
  hw = await loadHeadwise();
});

// The layer's K/V weights with each K/V head's columns repeated for its group of query heads.
function repeated(config, w) {
  const { dModel: D, heads: H, kvHeads, headDim: hd } = config;
  const C = H * hd,
    Ck = kvHeads * hd,
    group = H / kvHeads;
  const from = (col) => Math.floor(col / hd / group) * hd + (col % hd);
  const matrix = (m) => {
    const out = new Float32Array(D * C);
    for (let i = 0; i < D; i += 1) for (let col = 0; col < C; col += 1) out[i * C + col] = m[i * Ck + from(col)];
    return out;
  };
  const vector = (v) => v && Float32Array.from({ length: C }, (_, col) => v[from(col)]);
  return { ...w, wk: matrix(w.wk), wv: matrix(w.wv), bk: vector(w.bk), bv: vector(w.bv) };
}

function lectureStillWorks() {
  const layer = hw.createAttention({ batch: 2, tokens: 6, dModel: 6, heads: 2, seed: 3 });
  const x = hw.randomInput(layer.config, 3);
  expect(layer.forward(x)).toBeCloseToReference(referenceMha(layer.config, layer.getWeights(), x).output);
  layer.dispose();
}

test.each([4, 2, 1])(
  'kvHeads %i of 4: forward, loop and intermediates match the reference on repeated K/V heads',
  (kvHeads) => {
    const config = { batch: 2, tokens: 7, dModel: 12, heads: 4, kvHeads, bias: true, causal: true, seed: 4 };
    const layer = hw.createAttention(config);
    expect(layer.config.kvHeads).toBe(kvHeads);
    expect(hw.createAttention({ heads: 2 }).config.kvHeads).toBeUndefined(); // left out: heads
    const w = layer.getWeights();
    expect(w.wk.length).toBe(12 * kvHeads * 3);
    expect(w.bv.length).toBe(kvHeads * 3);
    const x = hw.randomInput(layer.config, 5);
    const ref = referenceMha(layer.config, repeated(layer.config, w), x);
    expect(layer.forward(x)).toBeCloseToReference(ref.output);
    expect(layer.forwardLoop(x)).toBeCloseToReference(ref.output);
    const kept = layer.forward(x, { intermediates: true });
    expect(kept.output).toBeCloseToReference(ref.output);
    expect(kept.attention).toBeCloseToReference(ref.attention);
    expect(kept.k.length).toBe(2 * kvHeads * 7 * 3);
    expect(kept.kvHeadOf).toEqual([0, 1, 2, 3].map((h) => Math.floor(h / (4 / kvHeads))));
    expect(layer.project(x).k.length).toBe(2 * 7 * kvHeads * 3);
    layer.dispose();
  },
);

test('kvHeads = heads is multi-head attention bit for bit', () => {
  for (const { name: positions } of hw.positionKinds()) {
    const base = { batch: 2, tokens: 9, dModel: 16, heads: 4, bias: true, seed: 8, positions };
    const mha = hw.createAttention(base);
    const same = hw.createAttention({ ...base, kvHeads: 4 });
    const x = hw.randomInput(base, 2);
    expect(same.forward(x)).toEqual(mha.forward(x));
    expect(same.forward(x, { intermediates: true }).output).toEqual(mha.forward(x, { intermediates: true }).output);
    mha.dispose();
    same.dispose();
  }
});

test.each([
  [
    { heads: 4, dModel: 8, kvHeads: 3 },
    HeadwiseError,
    'kvHeads 3 must divide heads (4): each K/V head is shared by the same number of query heads',
  ],
  [{ heads: 4, dModel: 8, kvHeads: 8 }, HeadwiseError, 'kvHeads 8 is more than heads (4)'],
  [{ heads: 4, dModel: 8, kvHeads: 0 }, RangeError, 'kvHeads must be at least 1, got 0'],
  [{ heads: 4, dModel: 8, kvHeads: 1.5 }, RangeError, 'kvHeads'],
  [{ heads: 4, dModel: 8, kvHeads: '2' }, TypeError, 'kvHeads'],
])('%j is refused', (config, kind, message) => {
  expect(() => hw.createAttention(config)).toThrow(kind);
  expect(() => hw.createAttention(config)).toThrow(message);
  expect(hw.check(config)).toContain(message);
  lectureStillWorks();
});

test.each([
  ['none', 4],
  ['rope', 2],
  ['alibi', 1],
  ['learned', 2],
])('decode (%s, kvHeads %i): N steps equal the causal forward of the N positions', (positions, kvHeads) => {
  const config = { batch: 2, tokens: 11, dModel: 16, heads: 4, kvHeads, bias: true, seed: 6, positions };
  const layer = hw.createAttention(config);
  const x = hw.randomInput(config, 7);
  const y = layer.forward(x);
  const { batch: B, tokens: T, dModel: D } = config;
  expect(layer.cache).toEqual({ length: 0, capacity: T, bytes: 0 });
  for (let t = 0; t < T; t += 1) {
    const token = new Float32Array(B * D);
    const expected = new Float32Array(B * D);
    for (let b = 0; b < B; b += 1) {
      token.set(x.subarray((b * T + t) * D, (b * T + t + 1) * D), b * D);
      expected.set(y.subarray((b * T + t) * D, (b * T + t + 1) * D), b * D);
    }
    expect(layer.decode(token)).toBeCloseToReference(expected);
  }
  expect(layer.cache).toEqual({ length: T, capacity: T, bytes: 2 * B * T * kvHeads * 4 * 4 });
  expect(() => layer.decode(new Float32Array(B * D))).toThrow(
    new HeadwiseError(
      'the KV cache is full: this layer decodes at most 11 positions (its tokens); resetCache() starts again',
    ),
  );
  layer.resetCache();
  expect(layer.cache.length).toBe(0);
  expect(layer.decode(x.subarray(0, B * D).map((v, i) => x[(i >= D ? T * D : 0) + (i % D)]))).toHaveLength(B * D);
  layer.dispose();
  expect(() => layer.decode(new Float32Array(B * D))).toThrow('this attention layer was disposed');
});

test('decode: bad tokens change nothing; a cache past the budget is refused and the layer works after', () => {
  const layer = hw.createAttention({ tokens: 4, dModel: 8, heads: 2 });
  expect(() => layer.decode(new Float32Array(7))).toThrow(RangeError);
  expect(() => layer.decode([1, 2, 3, 4, 5, 6, 7, NaN])).toThrow(RangeError);
  expect(() => layer.decode('token')).toThrow(TypeError);
  expect(layer.cache.length).toBe(0);
  layer.dispose();

  // The smallest budget the layer is accepted with: its K/V cache (2 x 512 x 256 x 4 B = 1 MB)
  // does not fit beside it; with 1 K/V head of 4 (256 KB) it fits a budget 256 KB larger.
  const config = { tokens: 512, dModel: 256, heads: 4 };
  let lo = 1,
    hi = 2 ** 30;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (hw.check({ ...config, memoryBudget: mid }) === null) hi = mid;
    else lo = mid + 1;
  }
  const tight = hw.createAttention({ ...config, memoryBudget: lo + 300000 });
  const x = hw.randomInput({ ...config, tokens: 1 }, 1);
  expect(() => tight.decode(x)).toThrow(HeadwiseError);
  expect(() => tight.decode(x)).toThrow(
    /^the KV cache \(1\.0 MB for 512 positions of 4 K\/V heads\) and the layer need .*, more than the memory budget of/,
  );
  expect(tight.cache.bytes).toBe(0);
  expect(tight.forward(hw.randomInput(config, 1))).toHaveLength(512 * 256);
  tight.dispose();
  const mqa = hw.createAttention({ ...config, kvHeads: 1, memoryBudget: lo + 300000 });
  expect(mqa.decode(x)).toHaveLength(256);
  expect(mqa.cache.bytes).toBe(2 * 512 * 64 * 4);
  mqa.dispose();
  lectureStillWorks();
});

test('disposing a layer with a cache gives its memory back', () => {
  const before = hw.memoryStats().heapInUseBytes;
  const layer = hw.createAttention({ tokens: 64, dModel: 32, heads: 4, kvHeads: 2 });
  layer.decode(hw.randomInput({ tokens: 1, dModel: 32 }, 1));
  expect(hw.memoryStats().heapInUseBytes).toBeGreaterThan(before);
  layer.dispose();
  expect(hw.memoryStats().heapInUseBytes).toBe(before);
});

test('cacheBytes: the presets as published, without allocating', () => {
  const names = hw.cachePresets().map((p) => p.name);
  expect(names).toEqual(['gpt2-small', 'llama2-7b', 'llama2-70b', 'mistral-7b', 'deepseek-v2']);
  const llama70 = hw.cacheBytes('llama2-70b');
  expect(llama70.bytesPerToken).toBe(320 * 1024);
  expect(llama70.mhaBytesPerToken).toBe(2.5 * 1024 * 1024);
  const deepseek = hw.cacheBytes('deepseek-v2');
  expect(deepseek.numbersPerTokenPerLayer).toBe(576);
  expect(deepseek.mhaNumbersPerTokenPerLayer).toBe(32768);
  expect(hw.cacheBytes('mistral-7b').bytesPerToken).toBe(128 * 1024);
  expect(hw.cacheBytes('llama2-7b').bytesPerToken).toBe(512 * 1024);
  expect(hw.cacheBytes('gpt2-small').bytesPerSequence).toBe(36 * 1024 * 1024);
  // An object: GPT-2 width with 4 K/V heads, fp32, 1024 tokens.
  const own = hw.cacheBytes({ layers: 1, heads: 12, kvHeads: 4, headDim: 64, tokens: 1024, bytesPerNumber: 4 });
  expect(own).toEqual({
    numbersPerTokenPerLayer: 512,
    mhaNumbersPerTokenPerLayer: 1536,
    bytesPerToken: 2048,
    mhaBytesPerToken: 6144,
    bytesPerSequence: 2048 * 1024,
  });
  expect(
    hw.cacheBytes({ heads: 8, headDim: 16, attention: 'mla', kvLatent: 32, ropeDim: 8 }).numbersPerTokenPerLayer,
  ).toBe(40);
});

test.each([
  ['gpt-5', RangeError, 'unknown preset "gpt-5"'],
  [{ heads: 4, kvHeads: 3 }, HeadwiseError, 'kvHeads 3 must divide heads (4)'],
  [{ heads: 4, layers: 0 }, HeadwiseError, 'layers must be a whole number between 1 and 4096, got 0'],
  [{ attention: 'mla' }, RangeError, 'attention "mla" needs kvLatent'],
  [{ attention: 'gqa' }, RangeError, 'attention must be "mha" or "mla"'],
  [{ heads: '4' }, TypeError, 'heads must be a number'],
  [{ heads: NaN }, RangeError, 'heads must be finite'],
  [{ width: 4 }, TypeError, 'unknown cacheBytes option "width"'],
])('cacheBytes(%j) is refused', (config, kind, message) => {
  expect(() => hw.cacheBytes(config)).toThrow(kind);
  expect(() => hw.cacheBytes(config)).toThrow(message);
  lectureStillWorks();
});

test('trainers take kvHeads: fewer K/V parameters, the same task trains, bad values refused', () => {
  const base = { task: 'verb-noun', layers: 1, heads: 4, dModel: 16, mlpWidth: 0, seed: 3 };
  const counts = [0, 2, 1].map((kvHeads) => {
    const trainer = hw.createTrainer({ ...base, kvHeads });
    const wk = trainer.parameters.find((p) => p.name === 'blocks.0.wk');
    expect(wk.shape).toEqual([16, (kvHeads || 4) * 4]);
    const first = trainer.step(1).loss;
    expect(Number.isFinite(first)).toBe(true);
    const count = trainer.parameterCount;
    trainer.dispose();
    return count;
  });
  // wk, wv and bk, bv shrink by (heads - kvHeads) x headDim columns each.
  expect(counts[0] - counts[1]).toBe(2 * (16 + 1) * 2 * 4);
  expect(counts[0] - counts[2]).toBe(2 * (16 + 1) * 3 * 4);
  expect(() => hw.createTrainer({ ...base, kvHeads: 3 })).toThrow('kvHeads 3 must divide heads (4)');
  lectureStillWorks();
});
