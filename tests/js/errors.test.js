// Refusals are JS Errors with readable messages, and the module keeps working after each one.
import { beforeAll, expect, test } from 'vitest';
import { HeadwiseError, loadHeadwise } from '../../web/headwise.js';
import { referenceMha } from './reference.js';
import './matchers.js';

let hw;
beforeAll(async () => {
  hw = await loadHeadwise();
});

function lectureStillWorks() {
  const layer = hw.createAttention({ batch: 2, tokens: 6, dModel: 6, heads: 2, seed: 3 });
  const x = hw.randomInput(layer.config, 3);
  expect(layer.forward(x)).toBeCloseToReference(referenceMha(layer.config, layer.getWeights(), x).output);
  layer.dispose();
}

test.each([
  [{ dModel: 768, heads: 10 }, 'width 768 is not divisible by 10 heads (heads x head_dim must equal width)'],
  [{ dModel: 6, heads: 4 }, 'width 6 is not divisible by 4 heads (heads x head_dim must equal width)'],
  [{ batch: 0 }, 'batch must be at least 1 (got 0)'],
  [{ tokens: -2 }, 'tokens must be at least 1 (got -2)'],
  [{ heads: 0 }, 'heads must be at least 1 (got 0)'],
  [{ headDim: -1 }, 'head_dim must be at least 1 (got -1)'],
  [{ tokens: 1e9 }, 'tokens 1000000000 is too large (at most 65536)'],
  [{ dModel: 2 ** 40, heads: 1 }, 'width 1099511627776 is too large (at most 65536)'],
])('%j is refused: %s', (config, message) => {
  expect(() => hw.createAttention(config)).toThrow(new HeadwiseError(message));
  expect(hw.check(config)).toBe(message);
  lectureStillWorks();
});

test('a configuration beyond the memory budget names both sizes', () => {
  const config = { tokens: 2048, dModel: 12288, heads: 96 };
  expect(() => hw.createAttention(config)).toThrow(/needs [\d.]+ [KMG]B, more than the memory budget of 1\.0 GB/);
  expect(() => hw.createAttention({ ...config, tokens: 8, memoryBudget: 1000 })).toThrow(HeadwiseError);
  lectureStillWorks();
});

test('kept intermediates are counted in the budget, and the layer stays usable', () => {
  const layer = hw.createAttention({ tokens: 1024, dModel: 64, heads: 8, memoryBudget: 32 * 2 ** 20 });
  const x = hw.randomInput(layer.config, 1);
  expect(() => layer.forward(x, { intermediates: true })).toThrow(/\(B, H, T, T\) scores kept/);
  expect(layer.forward(x).length).toBe(1024 * 64);
  layer.dispose();
});

test.each([
  [{ heads: '2' }, TypeError, 'heads must be a number, got "2"'],
  [{ heads: 2.5 }, RangeError, 'heads must be a whole number, got 2.5'],
  [{ tokens: NaN }, RangeError, 'tokens must be a whole number, got NaN'],
  [{ batch: undefined }, TypeError, 'batch must be a number, got undefined'],
  [{ causal: 'yes' }, TypeError, 'causal must be true or false, got "yes"'],
  [{ headDim: 0 }, RangeError, 'headDim must be at least 1 when given (leave it out to use width / heads), got 0'],
  [{ seed: -1 }, RangeError, 'seed must be a whole number between 0 and 4294967295, got -1'],
  [{ width: 6 }, TypeError, /unknown configuration option "width"/],
])('%j is refused in JS with a %o', (config, type, message) => {
  expect(() => hw.createAttention(config)).toThrow(type);
  expect(() => hw.createAttention(config)).toThrow(message);
  lectureStillWorks();
});

test('wrong inputs name the argument and what was expected', () => {
  const layer = hw.createAttention({ batch: 2, tokens: 6 });
  expect(() => layer.forward(new Float32Array(70))).toThrow(
    new RangeError('x must have 72 values ((2, 6, 6)), got 70'),
  );
  expect(() => layer.forward(new Float64Array(72))).toThrow(TypeError);
  expect(() => layer.forward('abc')).toThrow(/x must be a Float32Array/);
  const bad = hw.randomInput(layer.config, 1);
  bad[5] = NaN;
  expect(() => layer.forward(bad)).toThrow(new RangeError('x[5] is NaN; every value must be finite'));
  expect(() => layer.setWeights({ wq: new Float32Array(35) })).toThrow(/wq must have 36 values/);
  expect(() => layer.setWeights({ wz: new Float32Array(36) })).toThrow(/unknown weight "wz"/);
  expect(() => layer.forward(bad.fill(0), { variant: 'parallel' })).toThrow(/variant must be "fused" or "loop"/);
  // A plain array of numbers is accepted.
  expect(layer.forward(Array.from({ length: 72 }, () => 0.5)).length).toBe(72);
  layer.dispose();
  lectureStillWorks();
});

test('a disposed layer refuses politely; dispose twice is harmless', () => {
  const layer = hw.createAttention();
  layer.dispose();
  layer.dispose();
  expect(layer.disposed).toBe(true);
  expect(() => layer.forward(new Float32Array(36))).toThrow(new HeadwiseError('this attention layer was disposed'));
  lectureStillWorks();
});

test('many refused and accepted calls leave no layers and no heap behind', () => {
  const cycle = (i) => {
    expect(() => hw.createAttention({ dModel: 768, heads: 10 })).toThrow(HeadwiseError);
    const layer = hw.createAttention({ seed: i });
    layer.forward(new Float32Array(36).fill(0.1));
    layer.dispose();
  };
  cycle(0); // the last-error text and the handle table settle to their steady size
  const before = hw.liveLayers();
  const heapBefore = hw.memoryStats().heapInUseBytes;
  for (let i = 1; i < 2000; i++) cycle(i);
  expect(hw.liveLayers()).toBe(before);
  expect(hw.memoryStats().heapInUseBytes).toBe(heapBefore);
  lectureStillWorks();
});
