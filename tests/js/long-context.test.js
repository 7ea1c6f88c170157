// Attention without intermediates is the tiled online-softmax kernel: memory linear in T. These
// run it through the public API, against the double reference, up to GPT-2 width at T = 8192.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loadHeadwise } from '../../web/headwise.js';
import { referenceMha } from './reference.js';
import './matchers.js';

// It allocates over 1 GB and takes about 30 s alone on 2 cores; beside other CPU-bound work
// (load 20) it took 66-79 s. The work is the test's own, so its allowance is wider than the default.
const HEAVY_TEST_MS = 240_000;

const MiB = 1024 * 1024;
let hw;
// A module of its own, so the memory it reports is this file's alone.
beforeAll(async () => {
  hw = await loadHeadwise({ wasmUrl: new URL('../../web/build/headwise-core.wasm', import.meta.url) });
});
afterAll(() => expect(hw.liveLayers()).toBe(0));

test.each([
  ['causal, 3 key tiles, biases', { tokens: 150, dModel: 96, heads: 4, bias: true }],
  ['no mask, tile-sized T', { batch: 2, tokens: 64, dModel: 40, heads: 5, causal: false }],
  ['no mask, T past a query block', { tokens: 37, dModel: 24, heads: 3, causal: false }],
])('fused and loop without intermediates match the reference: %s', (_, config) => {
  const layer = hw.createAttention({ seed: 3, ...config });
  try {
    const x = hw.randomInput(layer.config, 4);
    const ref = referenceMha(layer.config, layer.getWeights(), x);
    expect(layer.forward(x)).toBeCloseToReference(ref.output);
    expect(layer.forwardLoop(x)).toBeCloseToReference(ref.output);
  } finally {
    layer.dispose();
  }
});

test('GPT-2 width, 12 heads, T = 8192 runs within 512 MiB of wasm memory', { timeout: HEAVY_TEST_MS }, () => {
  const config = { tokens: 8192, dModel: 768, heads: 12, seed: 5, memoryBudget: 512 * MiB };
  const layer = hw.createAttention(config);
  try {
    const x = hw.randomInput(layer.config, 6);
    const output = layer.forward(x);
    expect(hw.memoryStats().wasmMemoryBytes).toBeLessThanOrEqual(512 * MiB);
    expect(output.every(Number.isFinite)).toBe(true);
    // Causal: the first rows see only the first tokens, so a short reference checks them
    // (140 rows cross the first 128-key tile and four 32-row query blocks).
    const prefix = 140,
      D = 768;
    const ref = referenceMha({ ...layer.config, tokens: prefix }, layer.getWeights(), x.subarray(0, prefix * D));
    expect(output.subarray(0, prefix * D)).toBeCloseToReference(ref.output);
  } finally {
    layer.dispose();
  }
});
