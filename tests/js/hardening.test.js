// Memory and failure behaviour of the module through the public API: refusals leave no trace,
// allocation failures are errors (not aborts), and a module that did abort says so.
import { expect, test } from 'vitest';
import { Headwise, HeadwiseError, loadHeadwise } from '../../web/headwise.js';
import { loadCore } from '../../web/core-loader.js';
import { referenceMha } from './reference.js';
import './matchers.js';

// It allocates over 1 GB and takes about 30 s alone on 2 cores; beside other CPU-bound work
// (load 20) it took 66-79 s. The work is the test's own, so its allowance is wider than the default.
const HEAVY_TEST_MS = 240_000;

function answersCorrectly(hw) {
  const layer = hw.createAttention({ batch: 2, tokens: 6, dModel: 6, heads: 2, seed: 5 });
  const x = hw.randomInput(layer.config, 5);
  expect(layer.forward(x)).toBeCloseToReference(referenceMha(layer.config, layer.getWeights(), x).output);
  layer.dispose();
}

test('50,000 refused calls leave heap use and the stack pointer where they were', async () => {
  const hw = await loadHeadwise({});
  // 769 is prime: no head count from 2 to 8 divides it; 70,000 tokens is over the limit.
  const config = (i) => (i % 2 ? { dModel: 769, heads: 2 + (i % 7) } : { tokens: 70000 + i });
  const before = hw.memoryStats();
  let refused = 0;
  for (let i = 0; i < 50_000; i++) {
    try {
      hw.createAttention(config(i));
    } catch (error) {
      if (error instanceof HeadwiseError) refused++;
    }
  }
  expect(refused).toBe(50_000);
  const after = hw.memoryStats();
  expect(after.heapInUseBytes).toBe(before.heapInUseBytes);
  expect(after.stackPointer).toBe(before.stackPointer);
  expect(hw.liveLayers()).toBe(0);
  answersCorrectly(hw);
});

test('10,000 create/forward/dispose cycles leave heap use unchanged', async () => {
  const hw = await loadHeadwise({});
  const x = hw.randomInput({ batch: 2, tokens: 6 }, 1);
  const cycle = (i) => {
    const layer = hw.createAttention({ batch: 2, tokens: 6, seed: i, bias: i % 2 === 0 });
    layer.forward(x, { intermediates: i % 3 === 0 });
    layer.dispose();
  };
  cycle(0);
  const before = hw.memoryStats();
  for (let i = 1; i <= 10_000; i++) cycle(i);
  const after = hw.memoryStats();
  expect(after.heapInUseBytes).toBe(before.heapInUseBytes);
  expect(after.stackPointer).toBe(before.stackPointer);
  expect(after.wasmMemoryBytes).toBe(before.wasmMemoryBytes);
});

test(
  'running out of wasm memory is an error, not an abort, and the module recovers',
  { timeout: HEAVY_TEST_MS },
  async () => {
    const hw = await loadHeadwise({});
    hw.createAttention({}).dispose(); // the first layer sizes the module's handle table for good
    const heapBefore = hw.memoryStats().heapInUseBytes;
    // About 2.7 GB of activations: beyond the 2 GB the module may grow to, so a budget above it is
    // capped and the layer refused before any allocation.
    const config = { tokens: 65536, dModel: 1024, heads: 16, memoryBudget: 2 ** 40 };
    expect(() => hw.createAttention(config)).toThrow(/more than the module can ever hold \(2\.0 GB\)/);
    // About 1.3 GB each: the first fits, the second passes the budget but malloc runs out.
    const half = { ...config, tokens: 32768 };
    const first = hw.createAttention(half);
    expect(() => hw.createAttention(half)).toThrow(/out of memory allocating/);
    expect(hw.stoppedReason).toBe(null);
    first.dispose();
    expect(hw.memoryStats().heapInUseBytes).toBe(heapBefore);
    answersCorrectly(hw);
  },
);

test('a module that aborted refuses every later call with the reason; a fresh one works', async () => {
  const raw = await loadCore();
  const hw = new Headwise(raw);
  const layer = hw.createAttention();
  expect(() => raw.abortForTesting()).toThrow(WebAssembly.RuntimeError);
  expect(hw.stoppedReason).not.toBe(null);
  for (const call of [
    () => hw.createAttention(),
    () => layer.forward(new Float32Array(36)),
    () => hw.shapeTrace({}),
    () => hw.memoryStats(),
  ]) {
    expect(call).toThrow(HeadwiseError);
    expect(call).toThrow(/module has stopped .* load a fresh one with loadHeadwise\(\)/);
  }
  expect(() => layer.dispose()).not.toThrow();
  answersCorrectly(await loadHeadwise({}));
  answersCorrectly(await loadHeadwise());
});

test('a BigInt size is a TypeError', async () => {
  const hw = await loadHeadwise();
  expect(() => hw.createAttention({ tokens: 10n })).toThrow(new TypeError('tokens must be a number, got 10n'));
});

test('non-finite weights are refused exactly, naming the array and the index', async () => {
  const hw = await loadHeadwise();
  const layer = hw.createAttention();
  const wq = layer.getWeights().wq;
  const before = layer.forward(hw.randomInput(layer.config, 1));
  wq[7] = Infinity;
  expect(() => layer.setWeights({ wq })).toThrow(new RangeError('wq[7] is Infinity; every value must be finite'));
  wq[7] = -Infinity;
  expect(() => layer.setWeights({ wq, wk: new Float32Array(36) })).toThrow(RangeError);
  // Nothing was written: the layer computes exactly what it did before.
  expect(Array.from(layer.forward(hw.randomInput(layer.config, 1)))).toEqual(Array.from(before));
  layer.dispose();
});

test.each([
  [{ tokens: 2 ** 53 }, HeadwiseError, 'tokens 9007199254740992 is too large (at most 65536)'],
  [{ dModel: {} }, TypeError, 'dModel must be a number, got a Object'],
  [{ dModel: new Date(0) }, TypeError, 'dModel must be a number, got a Date'],
  [{ heads: [2] }, TypeError, 'heads must be a number, got an array'],
  [{ heads: Infinity }, RangeError, 'heads must be a whole number, got Infinity'],
  [{ memoryBudget: 0 }, RangeError, 'memoryBudget must be at least 1 byte, got 0'],
  ['lecture', TypeError, 'the configuration must be an object, got "lecture"'],
])('%j -> %o: %s', async (config, type, message) => {
  const hw = await loadHeadwise();
  expect(() => hw.createAttention(config)).toThrow(type);
  expect(() => hw.createAttention(config)).toThrow(message);
  answersCorrectly(hw);
});
